//! `check_request_status`: where a request stands, by its id or by the title it asked for.
//! Your own requests, or anyone's with requests.manage.

use domain::{Capability, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::{RequestQuery, RequestStatus};

use super::{NO_LIBRARY, RequestRow, arrive, library_configured, request_label, sees_all};
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
    #[schemars(range(min = 1))]
    pub request_id: Option<i64>,
    /// The requested title's source; always with media_id (instead of request_id).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The requested title's id; always with media_source (instead of request_id).
    #[serde(default)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
}

/// The answer's data: each request found, with where it stands.
#[derive(Serialize, JsonSchema)]
struct Statuses<'a> {
    requests: Vec<Standing<'a>>,
}

/// A request as shown, with its state read live and, once handed to a library, where it is.
#[derive(Serialize, JsonSchema)]
struct Standing<'a> {
    #[serde(flatten)]
    row: RequestRow<'a>,
    /// added, searching, downloading, available or failed once followed; else the status.
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    library: Option<arrive::Followed>,
}

impl Tool for CheckRequestStatus {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Statuses<'static>>);
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
                    crate::typed::output(
                        format!(
                            "No request for {media}{}.",
                            if all { "" } else { " of yours" }
                        ),
                        &Statuses { requests: vec![] },
                    )?
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
        let row = RequestRow::of(r, true);
        let standing = match followed {
            Ok(Some(p)) => {
                parts.push(format!(
                    "request {} for {} is {}: {}",
                    r.id,
                    request_label(r),
                    p.state,
                    p.detail
                ));
                // follow() recorded these in the store; the row was read before.
                let row = if p.state == "available" {
                    row.with_status(RequestStatus::Available)
                } else {
                    row
                };
                let mut library = p.data;
                library.detail = Some(p.detail);
                Standing {
                    row,
                    state: p.state,
                    library: Some(library),
                }
            }
            _ => {
                parts.push(format!(
                    "request {} for {} is {}",
                    r.id,
                    request_label(r),
                    r.status
                ));
                Standing {
                    row,
                    state: r.status.as_str(),
                    library: None,
                }
            }
        };
        rows.push(standing);
    }
    let mut summary = format!("{}.", parts.join("; "));
    if waiting {
        summary.push_str(&format!(" Approved requests wait: {NO_LIBRARY}."));
    }
    let mut out = crate::typed::output(summary, &Statuses { requests: rows })?;
    for w in warnings {
        out = out.warn(w);
    }
    Ok((out, keep))
}
