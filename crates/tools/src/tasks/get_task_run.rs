//! `get_task_run`: one run of a task: its status and each call's result.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallResult, rfc3339, scheduler, task_for};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetTaskRun;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The run's id, as run_task or list_tasks gave it.
    #[schemars(range(min = 1))]
    pub run_id: i64,
}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Run {
    run_id: i64,
    task_id: i64,
    /// running, succeeded, failed or interrupted.
    status: String,
    /// scheduled or manual.
    cause: String,
    started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    finished_at: Option<String>,
    /// Each call made, in order.
    results: Vec<CallResult>,
    /// Why it failed or was interrupted.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Tool for GetTaskRun {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Run>);
    const META: Meta = Meta {
        name: "get_task_run",
        title: "Show a task run",
        description: "Shows one run of your scheduled task: status (running, succeeded, failed, interrupted), why it failed, and each call's result in order.",
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        scheduler(ctx)?.recover().await?;
        let missing = || {
            ToolError::new(
                ErrorCode::NotFound,
                format!("no run {} of a task of yours", input.run_id),
            )
        };
        let run = ctx
            .store()
            .task_run(input.run_id)
            .await?
            .ok_or_else(missing)?;
        task_for(ctx, run.task_id).await.map_err(|_| missing())?;
        let shown = Run {
            run_id: run.id,
            task_id: run.task_id,
            status: run.status.clone(),
            cause: run.cause,
            started_at: rfc3339(run.started_at),
            finished_at: run.finished_at.map(rfc3339),
            results: serde_json::from_str(&run.results).unwrap_or_default(),
            error: run.error,
        };
        Output::typed(
            format!("Run {} of task {} is {}.", run.id, run.task_id, run.status),
            &shown,
        )
    }
}
