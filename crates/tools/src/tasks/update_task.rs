//! `update_task`: changes a scheduled task's content or trigger, or pauses (`enabled: false`)
//! and resumes it. A new trigger (or a resume) sets its next run anew.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    CallSpec, Notify, TaskView, check_calls, check_notifier, first_due, refuse_kids,
    schedule::TriggerType, scheduler, task_for, view,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct UpdateTask;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The task's id, as create_task or list_tasks gave it.
    #[schemars(range(min = 1))]
    pub task_id: i64,
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub name: Option<String>,
    /// The new list of calls, replacing the old one.
    #[serde(default)]
    #[schemars(length(min = 1, max = 20))]
    pub calls: Option<Vec<CallSpec>>,
    #[serde(default)]
    pub notify: Option<Notify>,
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub notifier: Option<String>,
    /// A new trigger type; give trigger (or delay_minutes) with it.
    #[serde(default)]
    pub trigger_type: Option<TriggerType>,
    /// A new ISO 8601 time (date) or 5-field expression (cron).
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub trigger: Option<String>,
    #[serde(default)]
    #[schemars(range(min = 1, max = 525600))]
    pub delay_minutes: Option<u32>,
    /// false pauses the task, true resumes it.
    #[serde(default)]
    pub enabled: Option<bool>,
}

impl Tool for UpdateTask {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<TaskView>);
    const META: Meta = Meta {
        name: "update_task",
        title: "Change a scheduled task",
        description: "Changes one of your scheduled tasks: name, calls, notify, notifier, trigger (trigger_type with trigger or delay_minutes), or enabled (false pauses it, true resumes it from the next time to come). Answers the task with its next_run.",
        effect: Effect::Write,
        capability: Capability::Automation,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        refuse_kids(ctx)?;
        let scheduler = scheduler(ctx)?;
        let mut task = task_for(ctx, input.task_id).await?;
        let retrigger = input.trigger_type.is_some()
            || input.trigger.is_some()
            || input.delay_minutes.is_some();
        // A task runs under its creator's authority: only they may say what it calls and when.
        // Anyone else allowed to see it (an admin) may pause, resume, rename or delete it.
        if task.person_id != ctx.caller.authority.person.id && (input.calls.is_some() || retrigger)
        {
            return Err(ToolError::new(
                governance::ErrorCode::Denied,
                format!(
                    "task {} runs as the person who made it: only they may change its calls or its trigger; you may pause, resume, rename or delete it",
                    task.id
                ),
            ));
        }
        if let Some(name) = input.name {
            task.name = name.trim().to_owned();
        }
        if let Some(calls) = input.calls {
            check_calls(ctx, &calls)?;
            task.calls = serde_json::to_string(&calls)
                .map_err(|e| ToolError::invalid(format!("the calls could not be kept: {e}")))?;
        }
        if let Some(notify) = input.notify {
            task.notify = notify.as_str().to_owned();
        }
        if let Some(notifier) = input.notifier {
            check_notifier(scheduler, Some(&notifier))?;
            task.notifier = Some(notifier);
        }
        let resumed = input.enabled == Some(true) && !task.enabled;
        if let Some(enabled) = input.enabled {
            task.enabled = enabled;
        }
        if retrigger {
            let kind = input
                .trigger_type
                .or_else(|| TriggerType::parse(&task.trigger_type))
                .unwrap_or(TriggerType::Date);
            let (schedule, due) = first_due(
                scheduler,
                kind,
                input.trigger.as_deref(),
                input.delay_minutes,
            )?;
            task.trigger_type = kind.as_str().to_owned();
            task.schedule = schedule;
            task.next_run_at = Some(due.timestamp_millis());
        } else if resumed && task.trigger_type == TriggerType::Cron.as_str() {
            // Resumed: from the next time to come, never the times it was paused for.
            task.next_run_at = scheduler
                .next_after(&task, scheduler.now())
                .map(|t| t.timestamp_millis());
        } else if resumed
            && task
                .next_run_at
                .is_none_or(|due| due <= scheduler.now().timestamp_millis())
        {
            // A date task whose time passed while paused has no time to come: it is not run late.
            return Err(ToolError::invalid(format!(
                "task {} ran, or its time passed while it was paused; give it a new trigger (trigger or delay_minutes) to resume it; nothing was changed",
                task.id
            )));
        }
        if !ctx.store().save_task(&task).await? {
            return Err(ToolError::new(
                governance::ErrorCode::NotFound,
                format!("task {} was deleted meanwhile", task.id),
            ));
        }
        let state = if task.enabled { "enabled" } else { "paused" };
        Output::typed(
            format!("Task {} \"{}\" is updated ({state}).", task.id, task.name),
            &view(&task),
        )
    }
}
