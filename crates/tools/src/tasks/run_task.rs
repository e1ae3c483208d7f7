//! `run_task`: runs a scheduled task now, answering at once with the run's id (the run goes
//! on in the background; get_task_run shows it).

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{scheduler, task_for};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RunTask;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The task's id, as create_task or list_tasks gave it.
    #[schemars(range(min = 1))]
    pub task_id: i64,
}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Started {
    task_id: i64,
    run_id: i64,
    status: &'static str,
}

impl Tool for RunTask {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Started>);
    const META: Meta = Meta {
        name: "run_task",
        title: "Run a task now",
        description: "Runs one of your scheduled tasks now, whatever its schedule (its next_run stays), under the task creator's authority as it is now; answers at once with the run_id. get_task_run shows the run's status and each call's result.",
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
        super::refuse_kids(ctx)?;
        let task = task_for(ctx, input.task_id).await?;
        let scheduler = scheduler(ctx)?;
        scheduler.recover().await?;
        let run_id = scheduler.run_now(task.clone()).await?;
        Output::typed(
            format!(
                "Task {} \"{}\" is running as run {run_id}.",
                task.id, task.name
            ),
            &Started {
                task_id: task.id,
                run_id,
                status: "running",
            },
        )
        .map(|o| o.next(format!("get_task_run {{\"run_id\": {run_id}}}")))
    }
}
