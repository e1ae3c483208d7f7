//! `list_runs`: the shortlist runs carried out (the operations of applied `plan_run` changes),
//! newest first, each with how every row ended.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::run_report::{RunView, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListRuns;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only runs that included this row.
    #[schemars(range(min = 1))]
    pub row_id: Option<i64>,
    /// How many, newest first (default 20, at most 100).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Runs {
    runs: Vec<RunView>,
}

impl Tool for ListRuns {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Runs>);
    const META: Meta = Meta {
        name: "list_runs",
        title: "List shortlist runs",
        description: "Lists the shortlist runs carried out, newest first (optionally only those of row_id): each run's id (the operation of its approved plan_run), status (running, succeeded, failed, cancelled, outcome_unknown), when, and per row its outcome (done, failed, uncertain, not_done), items added and taken out, and requests filed. get_run_report shows one with each request's answer.",
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
        let limit = input.limit.unwrap_or(20).clamp(1, 100);
        // A row's runs are among the newest; read a wider window when filtering by row.
        let window = if input.row_id.is_some() { 200 } else { limit };
        let mut runs: Vec<RunView> = ctx
            .store()
            .operations_of_tool("plan_run", window)
            .await?
            .iter()
            .map(|op| view(ctx, op))
            .collect();
        if let Some(row) = input.row_id {
            runs.retain(|r| r.rows.iter().any(|x| x.row_id == row));
        }
        runs.truncate(limit as usize);
        let summary = match runs.len() {
            0 => "No shortlist runs yet.".to_owned(),
            1 => "1 shortlist run.".to_owned(),
            n => format!("{n} shortlist runs, newest first."),
        };
        Output::typed(summary, &Runs { runs })
    }
}
