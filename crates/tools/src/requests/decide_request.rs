//! `decide_request`: an admin approves or rejects a pending request. A rejection gives the
//! requester's quota units back; an approval waits for a library backend while none is configured.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{NO_LIBRARY, RequestRow, arrive, library_configured, request_label};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct DecideRequest;

/// The decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approve,
    Reject,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The pending request's id (list_requests {"status":"pending"} shows them).
    #[schemars(range(min = 1))]
    pub request_id: i64,
    /// approve or reject.
    pub decision: Decision,
    /// A short reason, shown to the requester.
    #[serde(default)]
    #[schemars(length(max = MAX_NOTE))]
    pub note: Option<String>,
}

/// Longest note kept, in characters.
const MAX_NOTE: usize = 500;

/// The answer's data: the request as decided.
#[derive(serde::Serialize, JsonSchema)]
struct Decided<'a> {
    request: RequestRow<'a>,
}

impl Tool for DecideRequest {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Decided<'static>>);
    const META: Meta = Meta {
        name: "decide_request",
        title: "Decide a request",
        description: "Approves or rejects a pending request (admins). A rejection gives the requester's quota back. Approved requests go to the library backend once one is configured; until then they wait as approved.",
        effect: Effect::Write,
        capability: Capability::RequestsManage,
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
        let note = input
            .note
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty());
        if note.is_some_and(|n| n.chars().count() > MAX_NOTE || n.chars().any(char::is_control)) {
            return Err(ToolError::invalid(format!(
                "invalid argument \"note\": at most {MAX_NOTE} characters on one line"
            )));
        }
        let approve = input.decision == Decision::Approve;
        let decided = ctx
            .store()
            .decide_request(
                input.request_id,
                ctx.caller.authority.person.id,
                approve,
                note,
            )
            .await
            .map_err(|e| match e {
                store::Error::NotFound(m) => ToolError::new(ErrorCode::NotFound, m),
                store::Error::Conflict(m) => ToolError::new(ErrorCode::Conflict, m),
                other => other.into(),
            })?;
        let mut summary = format!(
            "Request {} for {} by {} is {}.",
            decided.id,
            request_label(&decided),
            decided.person_name,
            decided.status
        );
        let mut decided = decided;
        if approve {
            // The background pass does not hand this request over meanwhile.
            let claim = arrive::claim(decided.id);
            match crate::library::source::library_for(ctx, decided.media_type, None) {
                Ok(Some(source)) if claim.is_none() => summary.push_str(&format!(
                    " The server is handing it to {} already.",
                    source.id
                )),
                Ok(Some(source)) => {
                    if ctx.store().library_link(decided.id).await?.is_none() {
                        ctx.store()
                            .plan_arrival(decided.id, &source.id, None, None)
                            .await?;
                    }
                    summary.push_str(&arrive::hand_over(ctx, &decided, None).await?);
                    decided = ctx.store().request(decided.id).await?.unwrap_or(decided);
                }
                Ok(None) if !library_configured(ctx) => {
                    summary.push_str(&format!(" It waits: {NO_LIBRARY}."));
                }
                Ok(None) => {
                    summary.push_str(" It waits: no library instance holds this media type.")
                }
                Err(e) => summary.push_str(&format!(" It waits: {}.", e.message)),
            }
        }
        if !approve && decided.units > 0 {
            summary.push_str(&format!(
                " {} quota unit{} returned to {}.",
                decided.units,
                if decided.units == 1 { " was" } else { "s were" },
                decided.person_name
            ));
        }
        crate::typed::output(
            summary,
            &Decided {
                request: RequestRow::of(&decided, true),
            },
        )
    }
}
