//! `plan_run`: runs shortlist rows. A dry run answers what each row's run would do and stores
//! nothing; otherwise the plan names, per row, the collection to make or the items to add and
//! take out, and up to `max_requests` missing titles to request, for the owner to approve.
//! Only enabled rows run.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{
    row::preview,
    run_plan::{Budget, RUN, RowRun, RunData, RunPlan, dependencies_of, planned_row},
};
use governance::{
    Ctx, ErrorCode, Meta, Output, Tool, ToolError,
    plan::{self, Proposal},
};

pub struct PlanRun;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The rows to run (list_rows gives the ids), 1 to 20; each must be enabled.
    #[schemars(length(min = 1, max = 20))]
    pub row_ids: Vec<i64>,
    /// true: answer what the run would do and store nothing; false: plan the run for approval.
    pub dry_run: bool,
    /// How many of the rows' missing titles the run requests (request_media, under the authority of whoever applies it), at most 20; default 0.
    #[serde(default)]
    #[schemars(range(max = 20))]
    pub max_requests: u32,
    /// How many further missing titles the run acquires (the best-seeded release search_indexers finds, sent with grab_release to the default download client, under the authority of whoever applies it), at most 10; default 0.
    #[serde(default)]
    #[schemars(range(max = 10))]
    pub max_acquisitions: u32,
}

impl Tool for PlanRun {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<RunData>);
    const META: Meta = Meta {
        name: "plan_run",
        title: "Plan a run of shortlist rows",
        description: "Runs enabled shortlist rows. With dry_run true it answers, per row, what a run would do (the collection to create, items to add and take out, missing titles) and stores nothing. With dry_run false it plans the run: per row the collection Marquee makes or updates on the media server (only its own collections are ever changed), up to max_requests (default 0, at most 20) of the missing titles requested with request_media, and up to max_acquisitions (default 0, at most 10) of the next ones acquired (the best-seeded release search_indexers finds, sent with grab_release to the default download client). Nothing is written on this call: the answer is a change_id for the owner to review, then apply_change runs it, each write checkpointed; a write the server refuses stops that row's further writes and is reported, never retried on its own.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&RUN),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let mut rows = Vec::with_capacity(input.row_ids.len());
        for (i, &id) in input.row_ids.iter().enumerate() {
            if input.row_ids[..i].contains(&id) {
                return Err(ToolError::invalid(format!("row {id} is named twice")));
            }
            let row = super::row_or_not_found(ctx, id).await?;
            if !row.enabled {
                return Err(ToolError::invalid(format!(
                    "row {id} (\"{}\") is disabled; plan_row with enabled true enables it",
                    row.name
                )));
            }
            let Some(theme) = ctx.store().theme(row.theme_id).await? else {
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!("row {id}'s theme {} is gone", row.theme_id),
                ));
            };
            rows.push((row.clone(), preview(ctx, &row, &theme).await?));
        }
        let mut budget = Budget {
            requests: input.max_requests as usize,
            acquisitions: input.max_acquisitions as usize,
        };
        let planned: Vec<RowRun> = rows
            .iter()
            .map(|(row, p)| planned_row(row, p, &mut budget))
            .collect();
        if input.dry_run {
            let data = RunData {
                dry_run: true,
                rows: planned.iter().map(RowRun::as_dry_run).collect(),
            };
            let summary = format!(
                "Dry run of {} row{}: nothing was written.",
                planned.len(),
                if planned.len() == 1 { "" } else { "s" }
            );
            return Output::typed(summary, &data);
        }
        let plan = RunPlan {
            rows: planned,
            requester: None,
        };
        let summary = format!(
            "run {} shortlist row{} ({} write{}, {} request{}, {} acquisition{})",
            plan.rows.len(),
            if plan.rows.len() == 1 { "" } else { "s" },
            plan.writes(),
            if plan.writes() == 1 { "" } else { "s" },
            plan.requests(),
            if plan.requests() == 1 { "" } else { "s" },
            plan.acquisitions(),
            if plan.acquisitions() == 1 { "" } else { "s" }
        );
        let proposal = Proposal {
            summary,
            plan: json!(plan),
            dependencies: dependencies_of(ctx, &plan).await?,
        };
        plan::propose(ctx, Self::META, ctx.needs_plan(), proposal).await
    }
}
