//! `list_requests`: requests, newest first, paged: your own, or everyone's (optionally one
//! person's) with requests.manage.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::{RequestQuery, RequestStatus};

use super::{RequestRow, sees_all};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::Requests];
pub struct ListRequests;

/// A request status to filter by.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Approved,
    Rejected,
    Available,
    Failed,
}

impl Status {
    fn store(self) -> RequestStatus {
        match self {
            Status::Pending => RequestStatus::Pending,
            Status::Approved => RequestStatus::Approved,
            Status::Rejected => RequestStatus::Rejected,
            Status::Available => RequestStatus::Available,
            Status::Failed => RequestStatus::Failed,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only requests in this status.
    #[serde(default)]
    pub status: Option<Status>,
    /// Only this person's requests; needs requests.manage for anyone but yourself.
    #[serde(default)]
    pub person: Option<String>,
    /// Requests per page, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
    /// Continue after this request id (the previous page's next_before_id).
    #[serde(default)]
    pub before_id: Option<i64>,
    /// true: only the archived requests (plan_requests archives finished ones); default false:
    /// every request but those.
    #[serde(default)]
    pub archived: bool,
}

impl Tool for ListRequests {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Page<'static>>);
    const META: Meta = Meta {
        name: "list_requests",
        title: "List requests",
        description: "Lists requests, newest first, optionally by status: your own, or everyone's (or one person's) when your grant has requests.manage. Archived requests (plan_requests) are left out unless archived is true, which lists only them.",
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
        let limit = governance::contract::page_limit(input.limit)?;
        let all = sees_all(ctx);
        let view = stored::view(ctx, (all, &input));
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || async {
                Ok((page(ctx, input, limit, all).await?, Keep::WhileUnchanged))
            })
            .await
    }
}

/// A page as answered, keys in sorted order (as a JSON tree of it has them).
#[derive(Serialize, JsonSchema)]
struct Page<'a> {
    next_before_id: Option<i64>,
    requests: Vec<RequestRow<'a>>,
}

/// One page, read from the store alone.
async fn page(ctx: &Ctx, input: Input, limit: u32, all: bool) -> Result<Output, ToolError> {
    let me = &ctx.caller.authority.person;
    let person = ctx
            .person_scope(input.person.as_deref(), all, "only admins (requests.manage) may list other people's requests; omit person to see your own")
            .await?;
    let rows = ctx
        .store()
        .requests_page(&RequestQuery {
            person,
            status: input.status.map(Status::store),
            media: None,
            before_id: input.before_id,
            limit: limit + 1,
            archived: Some(input.archived),
        })
        .await?;
    let (rows, next_before_id) = governance::contract::keyset_page(rows, limit, |r| r.id);
    let status = input
        .status
        .map(|s| format!("{} ", s.store().as_str()))
        .unwrap_or_default();
    let whose = match (person, input.person.as_deref()) {
        (None, _) => "from everyone".to_string(),
        (Some(p), _) if p == me.id => "of yours".to_string(),
        (Some(_), Some(name)) => format!("of {name}'s"),
        (Some(_), None) => String::new(),
    };
    let summary = match rows.len() {
        0 if input.before_id.is_some() => "No older requests.".to_string(),
        0 => format!("No {status}requests {whose}."),
        n => format!(
            "{n} {status}request{} {whose}, newest first{}.",
            if n == 1 { "" } else { "s" },
            if next_before_id.is_some() {
                "; more with next_before_id"
            } else {
                ""
            }
        ),
    };
    let page = Page {
        next_before_id,
        requests: rows.iter().map(|r| RequestRow::of(r, true)).collect(),
    };
    let mut out = Output::typed(summary, &page)?;
    if let Some(id) = next_before_id {
        out = out.next(format!("list_requests {{\"before_id\":{id}}}"));
    }
    Ok(out)
}
