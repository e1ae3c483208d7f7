//! `delete_task`: removes a scheduled task and its runs' records.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::task_for;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct DeleteTask;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The task's id, as create_task or list_tasks gave it.
    #[schemars(range(min = 1))]
    pub task_id: i64,
}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Deleted {
    task_id: i64,
    deleted: bool,
}

impl Tool for DeleteTask {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Deleted>);
    const META: Meta = Meta {
        name: "delete_task",
        title: "Delete a scheduled task",
        description: "Deletes one of your scheduled tasks (an admin: anyone's) with its runs' records; a run going on finishes. To pause a task instead, update_task with enabled false.",
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
        let task = task_for(ctx, input.task_id).await?;
        let deleted = ctx.store().delete_task(task.id).await?;
        Output::typed(
            format!("Task {} \"{}\" is deleted.", task.id, task.name),
            &Deleted {
                task_id: task.id,
                deleted,
            },
        )
    }
}
