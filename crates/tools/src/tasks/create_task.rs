//! `create_task`: schedules a list of tool calls to run once on a date (or `delay_minutes`
//! from now) or on a 5-field cron schedule, under the creator's authority as it is at run time.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use store::Task;

use super::{
    CallSpec, Notify, TaskView, check_calls, check_notifier, first_due, refuse_kids,
    schedule::TriggerType, scheduler, view,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct CreateTask;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A name to know it by.
    #[schemars(length(min = 1, max = 100))]
    pub name: String,
    /// The tool calls to make, in order; a call that fails ends the run.
    #[schemars(length(min = 1, max = 20))]
    pub calls: Vec<CallSpec>,
    /// When a finished run is told to the notifier.
    #[serde(default = "on_error")]
    pub notify: Notify,
    /// The configured notifier (`[[notifiers]]` id) to tell.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub notifier: Option<String>,
    /// date (once) or cron (repeating).
    pub trigger_type: TriggerType,
    /// An ISO 8601 time for a date task (without an offset: in the server's task time zone), or
    /// a 5-field cron expression ("0 18 * * *": every day at 18:00).
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub trigger: Option<String>,
    /// For a date task instead of trigger: run this many minutes from now.
    #[serde(default)]
    #[schemars(range(min = 1, max = 525600))]
    pub delay_minutes: Option<u32>,
}

fn on_error() -> Notify {
    Notify::OnError
}

impl Tool for CreateTask {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<TaskView>);
    const META: Meta = Meta {
        name: "create_task",
        title: "Schedule a task",
        description: "Schedules tool calls to run on their own: trigger_type date (trigger an ISO 8601 time, or delay_minutes) or cron (trigger a 5-field expression in the server's time zone). Each run makes the calls in order with your authority as it is then (a revoked key or narrowed grant applies), keeps each result, and tells the notifier per notify (always, on_warning, on_change, on_error). Answers the task_id and next_run.",
        effect: Effect::Write,
        capability: Capability::Automation,
        hints: governance::Hints {
            idempotent: false,
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
        check_calls(ctx, &input.calls)?;
        check_notifier(scheduler, input.notifier.as_deref())?;
        let (schedule, due) = first_due(
            scheduler,
            input.trigger_type,
            input.trigger.as_deref(),
            input.delay_minutes,
        )?;
        let calls = serde_json::to_string(&input.calls)
            .map_err(|e| ToolError::invalid(format!("the calls could not be kept: {e}")))?;
        let authority = &ctx.caller.authority;
        let mut task = Task {
            id: 0,
            name: input.name.trim().to_owned(),
            person_id: authority.person.id,
            key_id: authority.key_id.clone(),
            calls,
            notify: input.notify.as_str().to_owned(),
            notifier: input.notifier,
            trigger_type: input.trigger_type.as_str().to_owned(),
            schedule,
            enabled: true,
            next_run_at: Some(due.timestamp_millis()),
            missed_at: None,
            created_at: 0,
            updated_at: 0,
            last_run: None,
        };
        task.id = ctx.store().create_task(&task).await?;
        let shown = view(&task);
        Output::typed(
            format!(
                "Task {} \"{}\" is scheduled; it runs next at {}.",
                task.id,
                task.name,
                super::rfc3339(due.timestamp_millis())
            ),
            &shown,
        )
        .map(|o| {
            o.next(format!(
                "run_task {{\"task_id\": {}}} to run it now",
                task.id
            ))
        })
    }
}
