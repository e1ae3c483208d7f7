//! `list_tasks`: your scheduled tasks (everyone's for an admin), each with when it runs next
//! and how its latest run ended.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{TaskView, scheduler, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListTasks;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Tasks {
    tasks: Vec<TaskView>,
}

impl Tool for ListTasks {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Tasks>);
    const META: Meta = Meta {
        name: "list_tasks",
        title: "List scheduled tasks",
        description: "Lists your scheduled tasks (an admin sees everyone's): name, calls, trigger, whether enabled, next_run, the latest run's id and status (succeeded, failed, running, interrupted), and a time missed while the server was down.",
        effect: Effect::Read,
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

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        scheduler(ctx)?.recover().await?;
        let mine = (!ctx.caller.scope.household).then_some(ctx.caller.authority.person.id);
        let tasks: Vec<TaskView> = ctx.store().tasks(mine).await?.iter().map(view).collect();
        let summary = match tasks.len() {
            0 => "No scheduled tasks.".to_owned(),
            1 => "1 scheduled task.".to_owned(),
            n => format!("{n} scheduled tasks."),
        };
        Output::typed(summary, &Tasks { tasks })
    }
}
