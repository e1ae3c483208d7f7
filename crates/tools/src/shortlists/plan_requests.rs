//! `plan_requests`: plans one action on an explicit, bounded set of requests: reject or send
//! (approve and hand to the library) pending ones, archive finished ones, restore archived
//! ones. Every id is checked now (it exists, the caller may act on it, its status fits the
//! action); nothing is done on this call: the owner approves the plan and `apply_change`
//! carries it out, request by request.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use store::RequestStatus;

use super::requests_plan::{
    Action, REQUESTS, RequestsData, RequestsPlan, SeenRequest, dependencies_of,
};
use crate::requests::request_label;
use governance::{
    Ctx, ErrorCode, Meta, Output, Tool, ToolError,
    plan::{self, Proposal},
};

pub struct PlanRequests;

/// Longest note kept, in characters.
const MAX_NOTE: usize = 500;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// reject or send (pending requests), archive (finished ones), restore (archived ones).
    pub action: Action,
    /// The requests (list_requests gives the ids), 1 to 50.
    #[schemars(length(min = 1, max = 50))]
    pub request_ids: Vec<i64>,
    /// For reject and send: a short reason shown to the requester.
    #[serde(default)]
    #[schemars(length(max = 500))]
    pub note: Option<String>,
}

impl Tool for PlanRequests {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<RequestsData>);
    const META: Meta = Meta {
        name: "plan_requests",
        title: "Plan an action on requests",
        description: "Plans one action on 1 to 50 requests named by id: reject (pending ones; their quota comes back) or send (approve pending ones and hand them to the library backend), both through decide_request with the applier's authority (requests.manage for anyone's but your own); archive (finished ones: rejected, available, failed) leaves them out of list_requests; restore shows archived ones again. Every id is checked now and a request that does not fit the action is refused by id. Nothing is done on this call: the answer is a change_id for the owner to review, then apply_change carries it out request by request.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Library),
        plan: Some(&REQUESTS),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let note = input
            .note
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        if note
            .as_deref()
            .is_some_and(|n| n.chars().count() > MAX_NOTE || n.chars().any(char::is_control))
        {
            return Err(ToolError::invalid(format!(
                "invalid argument \"note\": at most {MAX_NOTE} characters on one line"
            )));
        }
        if note.is_some() && matches!(input.action, Action::Archive | Action::Restore) {
            return Err(ToolError::invalid("note goes with reject or send"));
        }
        let deciding = matches!(input.action, Action::Reject | Action::Send);
        if deciding && !ctx.caller.can(Capability::RequestsManage) {
            return Err(ToolError::denied(
                "rejecting or sending requests needs requests.manage, which your grant lacks",
            ));
        }
        let me = ctx.caller.authority.person.id;
        let mut requests = Vec::with_capacity(input.request_ids.len());
        for (i, &id) in input.request_ids.iter().enumerate() {
            if input.request_ids[..i].contains(&id) {
                return Err(ToolError::invalid(format!("request {id} is named twice")));
            }
            let r = ctx
                .store()
                .request(id)
                .await?
                .filter(|r| r.person == me || crate::requests::sees_all(ctx))
                .ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::NotFound,
                        format!("no request {id} you may act on; list_requests lists them"),
                    )
                })?;
            let archived = ctx.store().request_archived(id).await?.unwrap_or(false);
            let fits = match input.action {
                Action::Reject | Action::Send => r.status == RequestStatus::Pending && !archived,
                Action::Archive => !archived && !RequestStatus::OPEN.contains(&r.status),
                Action::Restore => archived,
            };
            if !fits {
                let wants = match input.action {
                    Action::Reject | Action::Send => "a pending request",
                    Action::Archive => {
                        "a finished request (rejected, available or failed) not archived yet"
                    }
                    Action::Restore => "an archived request",
                };
                return Err(ToolError::invalid(format!(
                    "request {id} is {}{}; {} needs {wants}",
                    r.status.as_str(),
                    if archived { " and archived" } else { "" },
                    input.action.as_str()
                )));
            }
            requests.push(SeenRequest {
                request_id: id,
                label: format!("{} for {}", request_label(&r), r.person_name),
                status: r.status.as_str().into(),
                archived,
            });
        }
        let plan = RequestsPlan {
            action: input.action,
            note,
            requests,
        };
        let proposal = Proposal {
            summary: format!(
                "{} {} request{}",
                input.action.as_str(),
                plan.requests.len(),
                if plan.requests.len() == 1 { "" } else { "s" }
            ),
            plan: json!(plan),
            dependencies: dependencies_of(ctx, &plan).await?,
        };
        plan::propose(ctx, Self::META, ctx.needs_plan(), proposal).await
    }
}
