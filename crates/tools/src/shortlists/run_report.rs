//! A shortlist run as `list_runs` and `get_run_report` answer it: the operation of an applied
//! `plan_run` change, its per-row reports read from the operation's result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::Operation;

/// One row of a run, as the run reported it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub(crate) struct RowResult {
    pub row_id: i64,
    pub name: String,
    #[serde(default)]
    pub instance_id: String,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
    #[serde(default)]
    pub added: usize,
    #[serde(default)]
    pub removed: usize,
    #[serde(default)]
    pub requests: Vec<RequestResult>,
    /// Each missing title the run acquired: `acquired`, `not_found` or `refused`.
    #[serde(default)]
    pub acquisitions: Vec<RequestResult>,
    /// Missing titles left by the run's allowances.
    #[serde(default)]
    pub not_requested: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub(crate) struct RequestResult {
    pub title: String,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A run.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RunView {
    /// The operation of the applied plan_run change.
    pub run_id: String,
    pub change_id: Option<String>,
    /// running, succeeded, failed, cancelled or outcome_unknown.
    pub status: String,
    /// ISO 8601.
    pub started_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Each row's report, once the run finished.
    pub rows: Vec<RowResult>,
}

#[derive(Deserialize)]
struct Result {
    #[serde(default)]
    rows: Vec<RowResult>,
}

/// A run as `ctx`'s caller may see it: only the rows on servers their grant reaches.
pub(crate) fn view(ctx: &governance::Ctx, op: &Operation) -> RunView {
    let mut rows: Vec<RowResult> = op
        .result
        .as_deref()
        .and_then(|r| serde_json::from_str::<Result>(r).ok())
        .map(|r| r.rows)
        .unwrap_or_default();
    rows.retain(|r| ctx.authorize(&r.instance_id).is_ok());
    RunView {
        run_id: op.id.clone(),
        change_id: op.change_id.clone(),
        status: op.status.as_str().to_owned(),
        started_at: crate::tasks::rfc3339(op.created_at),
        updated_at: crate::tasks::rfc3339(op.updated_at),
        message: op.message.clone(),
        rows,
    }
}
