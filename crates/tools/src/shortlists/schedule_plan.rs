//! The plan hooks of `plan_schedule`: what a stored schedule plan depends on (the row as it was
//! planned), how `apply_change` saves it (the schedule, who planned it and the key its runs'
//! requests are filed under), and how the owner sees it.

use serde::{Deserialize, Serialize};
use store::{Change, RowSchedule};

use crate::saving::{Saves, Saving};
use crate::tasks::{rfc3339, schedule};
use governance::{
    Ctx, ErrorCode, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

/// What an approved schedule plan saves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SchedulePlan {
    pub row_id: i64,
    pub row: String,
    pub instance_id: String,
    /// `None`: the schedule is removed.
    pub cron: Option<String>,
    pub paused: bool,
    pub max_requests: u32,
    #[serde(default)]
    pub max_acquisitions: u32,
    /// The planner's name and key id (the key files the runs' requests).
    pub by: String,
    pub key_id: String,
}

/// What an applied schedule plan answers.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ScheduleSaved {
    pub row_id: i64,
    /// The cron expression; absent when the schedule was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    pub paused: bool,
    /// When it runs next (RFC 3339), while scheduled and not paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
}

/// The plan hooks of `plan_schedule`.
pub(crate) const SCHEDULE: Saving<ScheduleSaves> = Saving::new();

#[derive(Debug)]
pub(crate) struct ScheduleSaves;

pub(crate) async fn dependencies_of(
    ctx: &Ctx,
    plan: &SchedulePlan,
) -> Result<Dependencies, ToolError> {
    let row = ctx.store().shortlist_row(plan.row_id).await?;
    let mut deps = Dependencies::new();
    deps.insert(
        format!("row:{}", plan.row_id),
        row.map_or_else(|| "gone".into(), |r| r.updated_at.to_string()),
    );
    Ok(deps)
}

/// The first due time of `cron` after now, in the tasks' time zone.
pub(crate) fn next_due(ctx: &Ctx, cron: &str) -> Result<i64, ToolError> {
    let scheduler = crate::tasks::scheduler(ctx)?;
    let parsed = schedule::parse_cron(cron).map_err(ToolError::invalid)?;
    schedule::next_cron(&parsed, scheduler.config().zone, scheduler.now())
        .map(|t| t.timestamp_millis())
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "the cron expression \"{cron}\" names no time to come"
            ))
        })
}

impl Saves for ScheduleSaves {
    type Plan = SchedulePlan;
    const WHAT: &'static str = "schedule";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a SchedulePlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: SchedulePlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let schedule = match &plan.cron {
                None => None,
                Some(cron) => Some(RowSchedule {
                    cron: cron.clone(),
                    paused: plan.paused,
                    max_requests: plan.max_requests,
                    max_acquisitions: plan.max_acquisitions,
                    by: Some(change.created_by),
                    key_id: plan.key_id.clone(),
                    next_at: if plan.paused {
                        None
                    } else {
                        Some(next_due(ctx, cron)?)
                    },
                }),
            };
            ctx.store()
                .set_row_schedule(plan.row_id, schedule.as_ref())
                .await
                .map_err(|e| match e {
                    store::Error::NotFound(_) => ToolError::new(
                        ErrorCode::NotFound,
                        format!("row {} is gone; nothing was scheduled", plan.row_id),
                    ),
                    other => other.into(),
                })?;
            let next_run = schedule.as_ref().and_then(|s| s.next_at).map(rfc3339);
            let summary = match (&plan.cron, &next_run) {
                (None, _) => format!("Row {} is no longer scheduled.", plan.row_id),
                (Some(cron), Some(next)) => {
                    format!("Row {} runs on \"{cron}\"; next at {next}.", plan.row_id)
                }
                (Some(cron), None) => {
                    format!("Row {} is scheduled on \"{cron}\", paused.", plan.row_id)
                }
            };
            let data = ScheduleSaved {
                row_id: plan.row_id,
                schedule: plan.cron,
                paused: plan.paused,
                next_run,
            };
            Output::typed(summary, &data)
        })
    }

    fn describe(plan: &SchedulePlan) -> PlanView {
        let column = |header, look, wide| PlanColumn { header, look, wide };
        let rows = vec![
            vec![
                "Row".into(),
                format!("{} (row {}) on {}", plan.row, plan.row_id, plan.instance_id),
            ],
            vec![
                "Schedule".into(),
                plan.cron
                    .clone()
                    .unwrap_or_else(|| "none: the row no longer runs on its own".into()),
            ],
            vec![
                "Paused".into(),
                if plan.paused { "yes" } else { "no" }.into(),
            ],
            vec![
                "Requests per run".into(),
                format!(
                    "at most {}, filed for {} with the authority their key has at each run",
                    plan.max_requests, plan.by
                ),
            ],
            vec![
                "Acquisitions per run".into(),
                format!(
                    "at most {}: a release grabbed into the default download client for {}, within their grabs allowance at each run",
                    plan.max_acquisitions, plan.by
                ),
            ],
            vec!["Planned by".into(), plan.by.clone()],
        ];
        PlanView {
            effect: match &plan.cron {
                Some(cron) => format!(
                    "Runs the shortlist row \"{}\" on its own on \"{cron}\": each run updates only the collection Marquee made, requests at most {} missing title(s) and acquires at most {}. It keeps running until you pause it or remove it, even if the key that planned it is revoked (that only stops its requests and acquisitions).",
                    plan.row, plan.max_requests, plan.max_acquisitions
                ),
                None => format!(
                    "Stops running the shortlist row \"{}\" on its own.",
                    plan.row
                ),
            },
            tables: vec![PlanTable {
                id: "schedule",
                title: "Schedule",
                columns: vec![
                    column("Field", Look::Text, false),
                    column("Value", Look::New, false),
                ],
                rows,
            }],
        }
    }
}
