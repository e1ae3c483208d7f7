//! The plan hooks of `plan_requests`: what a stored request plan depends on (each request's
//! status and whether it is archived), how `apply_change` carries it out (one checkpointed
//! step per request: reject and send through `decide_request` with the applier's authority,
//! archive and restore in the store), and how the owner sees it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::saving::{Stepping, Steps, on_behalf};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView, Run},
};

/// The plan hooks of `plan_requests`.
pub(crate) const REQUESTS: Stepping<RequestsSteps> = Stepping::new();

/// What to do with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Reject pending requests (their quota comes back).
    Reject,
    /// Put archived requests back in list_requests.
    Restore,
    /// Leave finished requests (rejected, available, failed) out of list_requests.
    Archive,
    /// Approve pending requests and hand them to the library backend.
    Send,
}

impl Action {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Reject => "reject",
            Action::Restore => "restore",
            Action::Archive => "archive",
            Action::Send => "send",
        }
    }
}

/// One request of the plan, as it was when planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SeenRequest {
    pub request_id: i64,
    /// "Heat (1995) for ana".
    pub label: String,
    pub status: String,
    pub archived: bool,
}

/// A planned request action.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RequestsPlan {
    pub action: Action,
    pub note: Option<String>,
    pub requests: Vec<SeenRequest>,
}

/// What the plan did to each request.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct RequestsData {
    pub action: String,
    pub requests: Vec<Outcome>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct Outcome {
    pub request_id: i64,
    /// `done`, `refused` or `not_done` (the operation was cancelled first).
    pub outcome: String,
    pub message: String,
}

/// The state a request is in now: its status and whether it is archived.
async fn state(ctx: &Ctx, id: i64) -> Result<String, ToolError> {
    let Some(r) = ctx.store().request(id).await? else {
        return Ok("gone".into());
    };
    let archived = ctx.store().request_archived(id).await?.unwrap_or(false);
    Ok(format!("{}:{archived}", r.status.as_str()))
}

pub(crate) async fn dependencies_of(
    ctx: &Ctx,
    plan: &RequestsPlan,
) -> Result<Dependencies, ToolError> {
    let mut deps = Dependencies::new();
    for r in &plan.requests {
        deps.insert(
            format!("request:{}", r.request_id),
            state(ctx, r.request_id).await?,
        );
    }
    Ok(deps)
}

#[derive(Debug)]
pub(crate) struct RequestsSteps;

impl Steps for RequestsSteps {
    type Plan = RequestsPlan;

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a RequestsPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn apply<'a>(
        ctx: &'a Ctx,
        _change: &'a store::Change,
        plan: RequestsPlan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(apply(ctx, plan, run))
    }

    fn describe(plan: &RequestsPlan) -> PlanView {
        describe(plan)
    }
}

async fn apply(ctx: &Ctx, plan: RequestsPlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let mut out = Vec::with_capacity(plan.requests.len());
    let mut stopped = false;
    for r in &plan.requests {
        let id = r.request_id;
        if stopped
            || !run
                .step(json!({"call": plan.action.as_str(), "request": id}))
                .await?
        {
            stopped = true;
            out.push(Outcome {
                request_id: id,
                outcome: "not_done".into(),
                message: "the operation was cancelled first".into(),
            });
            continue;
        }
        let (ok, message) = match plan.action {
            Action::Reject | Action::Send => decide(ctx, &plan, id).await?,
            Action::Archive | Action::Restore => {
                let archive = plan.action == Action::Archive;
                if ctx.store().set_request_archived(id, archive).await? {
                    (true, format!("request {id} {}d", plan.action.as_str()))
                } else {
                    let was = if archive { "archived" } else { "shown" };
                    (false, format!("request {id} was already {was}"))
                }
            }
        };
        out.push(Outcome {
            request_id: id,
            outcome: if ok { "done" } else { "refused" }.into(),
            message,
        });
    }
    let done = out.iter().filter(|o| o.outcome == "done").count();
    Output::typed(
        format!(
            "{} {done} of {} request(s).",
            plan.action.as_str(),
            out.len()
        ),
        &RequestsData {
            action: plan.action.as_str().into(),
            requests: out,
        },
    )
}

/// Rejects or approves request `id` through `decide_request`, with the applier's authority.
async fn decide(ctx: &Ctx, plan: &RequestsPlan, id: i64) -> Result<(bool, String), ToolError> {
    let authority = &ctx.caller.authority;
    let mut args = Map::new();
    args.insert("request_id".into(), json!(id));
    let decision = if plan.action == Action::Send {
        "approve"
    } else {
        "reject"
    };
    args.insert("decision".into(), Value::String(decision.into()));
    if let Some(note) = &plan.note {
        args.insert("note".into(), Value::String(note.clone()));
    }
    on_behalf(
        ctx,
        &authority.key_id,
        authority.person.id,
        "decide_request",
        args,
    )
    .await
}

fn describe(plan: &RequestsPlan) -> PlanView {
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let (verb, after) = match plan.action {
        Action::Reject => ("Rejects", "rejected (quota returned)"),
        Action::Send => ("Approves and sends", "approved and sent to the library"),
        Action::Archive => ("Archives", "archived: left out of list_requests"),
        Action::Restore => ("Restores", "shown again"),
    };
    PlanView {
        effect: format!(
            "{verb} {} request(s){}.",
            plan.requests.len(),
            plan.note
                .as_deref()
                .map(|n| format!(", noting \"{n}\""))
                .unwrap_or_default()
        ),
        tables: vec![PlanTable {
            id: "requests",
            title: "Requests",
            columns: vec![
                column("Request", Look::Text, false),
                column("Now", Look::Old, false),
                column("After", Look::New, false),
            ],
            rows: plan
                .requests
                .iter()
                .map(|r| {
                    let archived = if r.archived { ", archived" } else { "" };
                    vec![
                        format!("{} ({})", r.label, r.request_id),
                        format!("{}{archived}", r.status),
                        after.into(),
                    ]
                })
                .collect(),
        }],
    }
}
