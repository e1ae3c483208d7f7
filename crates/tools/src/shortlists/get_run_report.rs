//! `get_run_report`: one shortlist run, row by row, each request with the answer it got.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::run_report::{RunView, view};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetRunReport;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The run (list_runs gives the ids).
    #[schemars(length(min = 1, max = 64))]
    pub run_id: String,
}

impl Tool for GetRunReport {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<RunView>);
    const META: Meta = Meta {
        name: "get_run_report",
        title: "Show a shortlist run's report",
        description: "Shows one shortlist run: its status and, per row, the outcome (done, failed, uncertain, not_done) with why, the collection, the items added and taken out, and each requested title with the answer request_media gave; a run still under way shows its rows once it finishes.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let found = ctx.store().operation(&input.run_id).await?;
        let Some(op) = found.filter(|o| o.tool.as_deref() == Some("plan_run")) else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("no shortlist run {}; list_runs lists them", input.run_id),
            ));
        };
        let run = view(ctx, &op);
        let done = run.rows.iter().filter(|r| r.outcome == "done").count();
        let summary = format!(
            "Run {} {}: {done} of {} row{} done.",
            run.run_id,
            run.status,
            run.rows.len(),
            if run.rows.len() == 1 { "" } else { "s" }
        );
        Output::typed(summary, &run)
    }
}
