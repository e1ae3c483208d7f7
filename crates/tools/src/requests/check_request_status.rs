//! `check_request_status`: where a request stands, by its id or by the title it asked for.
//! Your own requests, or anyone's with requests.manage.

use domain::{Capability, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use store::{RequestQuery, RequestStatus};

use super::{NO_LIBRARY, arrive, library_configured, request_label, request_row, sees_all};
use crate::discover::identity;
use governance::ErrorCode;
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::Requests];
pub struct CheckRequestStatus;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The request's id, as request_media or list_requests gave it. Or name the title instead.
    #[serde(default)]
    pub request_id: Option<i64>,
    /// The requested title's source; always with media_id (instead of request_id).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The requested title's id; always with media_source (instead of request_id).
    #[serde(default)]
    pub media_id: Option<String>,
}

impl Tool for CheckRequestStatus {
    type Input = Input;
    const META: Meta = Meta {
        name: "check_request_status",
        title: "Check a request",
        description: "Shows where a request stands (pending, approved, rejected, available, failed) and, once approved, where it is in the library, read live: added, searching, downloading (with progress), available, or failed with the reason, by request_id or by the title's media_source + media_id. Your own requests, or anyone's with requests.manage.",
        effect: Effect::Read,
        capability: Capability::Request,
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
        let all = sees_all(ctx);
        let view = stored::view(ctx, (all, &input));
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || {
                status(ctx, input, all)
            })
            .await
    }
}

/// Where the requests stand; kept unless one of them was followed into a library (read live).
async fn status(ctx: &Ctx, input: Input, all: bool) -> Result<(Output, Keep), ToolError> {
    let media = identity::optional(input.media_source, input.media_id)?;
    let me = ctx.caller.authority.person.id;
    let requests = match (input.request_id, media) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid(
                "give request_id or media_source + media_id, not both",
            ));
        }
        (None, None) => {
            return Err(ToolError::invalid(
                "give request_id, or media_source + media_id of the requested title; list_requests shows your requests",
            ));
        }
        (Some(id), None) => match ctx.store().request(id).await? {
            Some(r) if all || r.person == me => vec![r],
            // Someone else's request is as unknown as a missing one.
            _ => {
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!("no request {id} of yours; list_requests shows your requests"),
                ));
            }
        },
        (None, Some(media)) => {
            let query = RequestQuery {
                person: (!all).then_some(me),
                media: Some(media.clone()),
                limit: 50,
                ..RequestQuery::default()
            };
            let found = ctx.store().requests_page(&query).await?;
            if found.is_empty() {
                return Ok((
                    Output::new(
                        format!(
                            "No request for {media}{}.",
                            if all { "" } else { " of yours" }
                        ),
                        json!({ "requests": [] }),
                    )
                    .next("list_requests {}"),
                    Keep::WhileUnchanged,
                ));
            }
            found
        }
    };
    let followed = requests
        .iter()
        .any(|r| matches!(r.status, RequestStatus::Approved | RequestStatus::Failed));
    let keep = if followed {
        Keep::Never
    } else {
        Keep::WhileUnchanged
    };
    let waiting =
        !library_configured(ctx) && requests.iter().any(|r| r.status == RequestStatus::Approved);
    let mut parts = Vec::new();
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for r in &requests {
        let followed = match r.status {
            RequestStatus::Approved | RequestStatus::Failed => {
                arrive::follow(ctx, r).await.map_err(|e| {
                    warnings.push(format!("request {}: {}", r.id, e.message));
                })
            }
            _ => Ok(None),
        };
        let mut row = request_row(r, true);
        match followed {
            Ok(Some(p)) => {
                parts.push(format!(
                    "request {} for {} is {}: {}",
                    r.id,
                    request_label(r),
                    p.state,
                    p.detail
                ));
                row["state"] = json!(p.state);
                // follow() recorded these in the store; the row was read before.
                if p.state == "available" {
                    row["status"] = json!(p.state);
                }
                row["library"] = p.data;
                row["library"]["detail"] = json!(p.detail);
            }
            _ => {
                parts.push(format!(
                    "request {} for {} is {}",
                    r.id,
                    request_label(r),
                    r.status
                ));
                row["state"] = json!(r.status.as_str());
            }
        }
        rows.push(row);
    }
    let mut summary = format!("{}.", parts.join("; "));
    if waiting {
        summary.push_str(&format!(" Approved requests wait: {NO_LIBRARY}."));
    }
    let mut out = Output::new(summary, json!({ "requests": rows }));
    for w in warnings {
        out = out.warn(w);
    }
    Ok((out, keep))
}
