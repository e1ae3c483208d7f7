//! Tasks: lists of tool calls a person schedules (once on a date, or on a cron schedule) that
//! run while nobody is chatting, under the authority the creator's key has at run time, each
//! run kept with its results and told to a notifier; and Marquee's own background jobs, as
//! the owner sees and starts them. Needs `automation`; kids never create tasks.

pub mod create_task;
pub mod delete_task;
pub mod get_task_run;
pub mod list_schedulers;
pub mod list_tasks;
pub mod notify;
pub mod run_scheduler;
pub mod run_task;
mod runner;
pub mod schedule;
pub mod update_task;

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use domain::Role;
use governance::{Ctx, Delegate, DynTool, Job, Slots, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use store::Task;

pub use runner::{CallResult, MISSED_AFTER, Scheduler, TasksConfig};

/// How often the scheduler looks for due tasks.
const EVERY: Duration = Duration::from_secs(15);

/// Scheduled tasks and the background jobs.
pub struct TasksFamily;

impl governance::Family for TasksFamily {
    fn name(&self) -> &'static str {
        "tasks"
    }

    fn group(&self) -> &'static str {
        "admin"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(create_task::CreateTask),
            Box::new(list_tasks::ListTasks),
            Box::new(update_task::UpdateTask),
            Box::new(run_task::RunTask),
            Box::new(delete_task::DeleteTask),
            Box::new(get_task_run::GetTaskRun),
            Box::new(list_schedulers::ListSchedulers),
            Box::new(run_scheduler::RunScheduler),
        ]
    }

    fn install(&self, _instances: &Arc<governance::Instances>, slots: &mut Slots) {
        let (Some(store), Some(delegate)) = (slots.get::<store::Store>(), slots.get::<Delegate>())
        else {
            return;
        };
        let scheduler = Arc::new(Scheduler::new(store.clone(), delegate.clone()));
        slots.insert(scheduler);
    }

    /// `tasks.schedule`: runs the tasks that are due.
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        let Some(scheduler) = slots.get::<Arc<Scheduler>>().cloned() else {
            return Vec::new();
        };
        let notices = scheduler.clone();
        vec![
            Job {
                name: "tasks.schedule".into(),
                every: EVERY,
                on_every_replica: false,
                pass: Arc::new(move || {
                    let s = scheduler.clone();
                    Box::pin(async move {
                        s.tick().await;
                    })
                }),
            },
            Job {
                name: "tasks.notices".into(),
                every: EVERY,
                on_every_replica: false,
                pass: Arc::new(move || {
                    let s = notices.clone();
                    Box::pin(async move {
                        if let Err(e) = s.notices().await {
                            tracing::warn!(error = %e, "notices could not be read");
                        }
                    })
                }),
            },
        ]
    }
}

/// When a finished run is told to the task's notifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Notify {
    /// After every run.
    Always,
    /// When a run failed or a call answered with warnings.
    OnWarning,
    /// When a run's results differ from the previous run's.
    OnChange,
    /// When a run failed.
    OnError,
}

impl Notify {
    pub fn as_str(self) -> &'static str {
        match self {
            Notify::Always => "always",
            Notify::OnWarning => "on_warning",
            Notify::OnChange => "on_change",
            Notify::OnError => "on_error",
        }
    }

    pub fn parse(text: &str) -> Option<Notify> {
        [
            Notify::Always,
            Notify::OnWarning,
            Notify::OnChange,
            Notify::OnError,
        ]
        .into_iter()
        .find(|n| n.as_str() == text)
    }
}

/// One tool call of a task.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    /// The tool's name, as tools/list gives it.
    #[schemars(length(min = 1, max = 128))]
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// A task as the tools show it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct TaskView {
    task_id: i64,
    name: String,
    calls: Vec<CallSpec>,
    notify: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    notifier: Option<String>,
    trigger_type: String,
    trigger: String,
    enabled: bool,
    /// When it runs next (RFC 3339), when it is due at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_run: Option<String>,
    /// Its latest run: id and status (succeeded, failed, running or interrupted).
    #[serde(skip_serializing_if = "Option::is_none")]
    last_run: Option<LastRun>,
    /// A due time that passed while the server was down: not run late.
    #[serde(skip_serializing_if = "Option::is_none")]
    missed: Option<String>,
    /// Whose task it is, for an admin who sees everyone's.
    person_id: i64,
}

#[derive(Serialize, JsonSchema)]
struct LastRun {
    run_id: i64,
    status: String,
}

pub(crate) fn view(task: &Task) -> TaskView {
    TaskView {
        task_id: task.id,
        name: task.name.clone(),
        calls: serde_json::from_str(&task.calls).unwrap_or_default(),
        notify: task.notify.clone(),
        notifier: task.notifier.clone(),
        trigger_type: task.trigger_type.clone(),
        trigger: task.schedule.clone(),
        enabled: task.enabled,
        next_run: task.next_run_at.filter(|_| task.enabled).map(rfc3339),
        last_run: task
            .last_run
            .clone()
            .map(|(run_id, status)| LastRun { run_id, status }),
        missed: task.missed_at.map(rfc3339),
        person_id: task.person_id.0,
    }
}

pub(crate) fn rfc3339(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .map(|t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default()
}

pub(crate) fn scheduler(ctx: &Ctx) -> Result<&Arc<Scheduler>, ToolError> {
    ctx.family::<Arc<Scheduler>>()
}

/// The task `id`, when the caller may act on it: their own, or anyone's for an admin.
/// Another person's task is "not found", so ids reveal nothing.
pub(crate) async fn task_for(ctx: &Ctx, id: i64) -> Result<Task, ToolError> {
    let task = ctx.store().task(id).await?;
    task.filter(|t| t.person_id == ctx.caller.authority.person.id || ctx.caller.scope.household)
        .ok_or_else(|| {
            ToolError::new(
                governance::ErrorCode::NotFound,
                format!("no task {id} of yours; list_tasks shows them"),
            )
        })
}

/// Kids never set work to run on its own.
pub(crate) fn refuse_kids(ctx: &Ctx) -> Result<(), ToolError> {
    if ctx.caller.authority.person.role == Role::Kid {
        return Err(ToolError::denied(
            "kids cannot create or change scheduled tasks; ask a parent",
        ));
    }
    Ok(())
}

/// Checks the calls: each names a tool this server has, none of this family (a task does not
/// schedule tasks).
pub(crate) fn check_calls(ctx: &Ctx, calls: &[CallSpec]) -> Result<(), ToolError> {
    let ours: Vec<&str> = governance::Family::tools(&TasksFamily)
        .iter()
        .map(|t| t.meta().name)
        .collect();
    let delegate = ctx.family::<Delegate>()?;
    for (n, call) in calls.iter().enumerate() {
        if ours.contains(&call.tool.as_str()) {
            return Err(ToolError::invalid(format!(
                "call {}: a task cannot call {}; tasks do not schedule tasks",
                n + 1,
                call.tool
            )));
        }
        if !delegate.has_tool(&call.tool) {
            return Err(ToolError::invalid(format!(
                "call {}: no tool is named \"{}\"; tools/list names them",
                n + 1,
                call.tool
            )));
        }
    }
    Ok(())
}

/// The task's first due time from its trigger, checked: a cron expression that does not parse,
/// a date in the past, or a missing or doubled trigger is refused with the reason.
pub(crate) fn first_due(
    scheduler: &Scheduler,
    trigger_type: schedule::TriggerType,
    trigger: Option<&str>,
    delay_minutes: Option<u32>,
) -> Result<(String, DateTime<Utc>), ToolError> {
    let now = scheduler.now();
    let zone = scheduler.config().zone;
    match trigger_type {
        schedule::TriggerType::Cron => {
            if delay_minutes.is_some() {
                return Err(ToolError::invalid(
                    "delay_minutes is for date tasks; a cron task takes a 5-field expression in trigger",
                ));
            }
            let expression = trigger.ok_or_else(|| {
                ToolError::invalid(
                    "a cron task needs trigger, a 5-field expression such as \"0 18 * * *\"",
                )
            })?;
            let cron = schedule::parse_cron(expression).map_err(ToolError::invalid)?;
            let next = schedule::next_cron(&cron, zone, now).ok_or_else(|| {
                ToolError::invalid(format!(
                    "the cron expression \"{expression}\" names no time to come"
                ))
            })?;
            Ok((expression.trim().to_owned(), next))
        }
        schedule::TriggerType::Date => {
            let at = match (trigger, delay_minutes) {
                (Some(_), Some(_)) => {
                    return Err(ToolError::invalid(
                        "give trigger (an ISO 8601 time) or delay_minutes, not both",
                    ));
                }
                (None, None) => {
                    return Err(ToolError::invalid(
                        "a date task needs trigger (an ISO 8601 time) or delay_minutes",
                    ));
                }
                (None, Some(minutes)) => now + chrono::Duration::minutes(i64::from(minutes)),
                (Some(text), None) => {
                    schedule::parse_date(text, zone).map_err(ToolError::invalid)?
                }
            };
            if at <= now {
                return Err(ToolError::invalid(format!(
                    "{} has passed; give a time to come",
                    at.to_rfc3339_opts(SecondsFormat::Secs, true)
                )));
            }
            Ok((at.to_rfc3339_opts(SecondsFormat::Secs, true), at))
        }
    }
}

/// Checks that `notifier`, when named, is configured.
pub(crate) fn check_notifier(
    scheduler: &Scheduler,
    notifier: Option<&str>,
) -> Result<(), ToolError> {
    let Some(id) = notifier else { return Ok(()) };
    let config = scheduler.config();
    if config.notifiers.iter().any(|n| n.id == id) {
        return Ok(());
    }
    let known: Vec<&str> = config.notifiers.iter().map(|n| n.id.as_str()).collect();
    Err(ToolError::invalid(format!(
        "no notifier \"{id}\" is configured; configured: {}",
        if known.is_empty() {
            "none ([[notifiers]] in the config)".to_owned()
        } else {
            known.join(", ")
        }
    )))
}
