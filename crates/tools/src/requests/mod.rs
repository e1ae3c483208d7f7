//! Requests: asking for a movie or seasons of a show, checked against content limits and
//! quotas (checked and charged atomically in the store), decided by an admin, and handed to a
//! library backend once one exists. Until then approved requests wait, and answers say so.

mod arrive;
mod by_title;
pub mod check_request_status;
pub mod decide_request;
pub mod get_request_options;
pub mod list_requests;
pub mod request_media;
mod row;
mod seasons;
pub(crate) mod title;
mod waiting;

use chrono::{SecondsFormat, TimeZone, Utc};
use domain::KindFamily;
use serde::Serialize;
use serde_json::{Value, json};
use store::{Fit, MediaRequest, QuotaCheck, QuotaScope};

pub(crate) use row::RequestRow;

use crate::discover::render::media_type_str;
use governance::{Ctx, DynTool, ErrorCode, Job, Slots, ToolError, contract::BoxFuture};

/// A request quota is spent for now: the answer says when a unit comes back.
pub const REQUEST_QUOTA_EXCEEDED: ErrorCode =
    ErrorCode::new("request_quota_exceeded", governance::ErrorKind::Quota);

/// Requests of movies, seasons, albums and books, with quotas and an admin's decision.
pub struct RequestsFamily;

impl governance::Family for RequestsFamily {
    fn name(&self) -> &'static str {
        "requests"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        tools()
    }

    fn error_codes(&self) -> &'static [ErrorCode] {
        &[REQUEST_QUOTA_EXCEEDED]
    }

    fn health<'a>(&'a self, ctx: &'a Ctx) -> BoxFuture<'a, Result<Vec<String>, ToolError>> {
        Box::pin(notes(ctx))
    }

    /// `requests.follow`: approved requests handed over once a library serves them, and
    /// followed through their service (`waiting.rs`).
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        waiting::job(slots).into_iter().collect()
    }
}

fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(get_request_options::GetRequestOptions),
        Box::new(request_media::RequestMedia),
        Box::new(check_request_status::CheckRequestStatus),
        Box::new(list_requests::ListRequests),
        Box::new(decide_request::DecideRequest),
    ]
}

/// What approved requests wait for, while no library backend is configured.
pub const NO_LIBRARY: &str =
    "no library backend is configured: approved requests wait until one is";

/// Whether a library backend (Radarr, Sonarr, ...) this build can hand requests to is configured.
pub(crate) fn library_configured(ctx: &Ctx) -> bool {
    ctx.instances()
        .all()
        .iter()
        .any(|s| s.kind.family() == KindFamily::Library && ctx.supports(s.kind))
}

/// What diagnose says about requests: approved requests not handed to a library yet, whether
/// or not a library is configured now.
async fn notes(ctx: &Ctx) -> Result<Vec<String>, ToolError> {
    let waiting = waiting::count(ctx.store()).await?;
    let plural = if waiting == 1 { "" } else { "s" };
    if !library_configured(ctx) {
        return Ok(vec![format!(
            "{NO_LIBRARY} ({waiting} approved request{plural} waiting)"
        )]);
    }
    if waiting == 0 {
        return Ok(Vec::new());
    }
    Ok(vec![format!(
        "{waiting} approved request{plural} not handed to a library yet: the background job requests.follow hands each over within a minute once a library instance serves its media type"
    )])
}

pub(crate) fn time(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// Owners, admins and grants with requests.manage see everyone's requests.
pub(crate) fn sees_all(ctx: &Ctx) -> bool {
    ctx.caller.scope.all_requests
}

/// "Heat (1995)" / "Bluey (2018) seasons 1, 2".
pub(crate) fn request_label(r: &MediaRequest) -> String {
    let mut s = match r.year {
        Some(y) => format!("{} ({y})", r.title),
        None => r.title.clone(),
    };
    if !r.seasons.is_empty() {
        let list: Vec<String> = r.seasons.iter().map(u32::to_string).collect();
        s.push_str(&format!(
            " season{} {}",
            if r.seasons.len() == 1 { "" } else { "s" },
            list.join(", ")
        ));
    }
    s
}

fn unit_noun(media_type: domain::MediaType, n: u32) -> String {
    let (one, many) = match media_type {
        domain::MediaType::Tv => ("season", "seasons"),
        domain::MediaType::Music => ("album", "albums"),
        domain::MediaType::Book => ("book", "books"),
        domain::MediaType::Movie => ("movie", "movies"),
    };
    format!("{n} {}", if n == 1 { one } else { many })
}

fn fit_at(fit: Fit) -> Option<String> {
    match fit {
        Fit::At(at) => Some(time(at)),
        Fit::Now | Fit::Never => None,
    }
}

/// Each allowance of a quota check as shown: the rule, what is used and left, when it fits.
fn allowance_rows(q: &QuotaCheck) -> Vec<AllowanceData> {
    q.allowances
        .iter()
        .map(|a| {
            let scope = match &a.rule.scope {
                QuotaScope::Role { role } => format!("role {role}"),
                QuotaScope::Person { name, .. } => format!("person {name}"),
            };
            AllowanceData {
                scope,
                media_type: media_type_str(a.rule.media_type),
                units: a.rule.units,
                window_days: a.rule.window_days,
                used: a.used,
                remaining: a.remaining,
                fits_now: a.fit == Fit::Now,
                fits_at: fit_at(a.fit),
            }
        })
        .collect()
}

/// [`allowance_rows`] as JSON trees.
fn allowances_data(q: &QuotaCheck) -> Vec<Value> {
    allowance_rows(q).iter().map(crate::typed::tree).collect()
}

/// A quota check as shown: every allowance, the cost, and when it fits.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct QuotaData {
    /// Owners and admins: no quota applies.
    exempt: bool,
    media_type: &'static str,
    requested_units: u32,
    fits_now: bool,
    never_fits: bool,
    /// When the whole selection fits every quota (`null`: now, or never).
    earliest_fits_at: Option<String>,
    /// The most units that would fit now; `null` when unlimited.
    max_units_now: Option<u32>,
    allowances: Vec<AllowanceData>,
}

/// One allowance of a quota check as shown: the rule, what is used and left, when it fits.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct AllowanceData {
    /// `role <role>` or `person <name>`.
    scope: String,
    media_type: &'static str,
    units: u32,
    window_days: u32,
    used: u32,
    remaining: u32,
    fits_now: bool,
    fits_at: Option<String>,
}

/// A quota check as shown: every allowance, the cost, and when it fits.
pub(crate) fn quota_data(q: &QuotaCheck) -> QuotaData {
    QuotaData {
        exempt: q.exempt,
        media_type: media_type_str(q.media_type),
        requested_units: q.requested_units,
        fits_now: q.fits_now(),
        never_fits: q.fit == Fit::Never,
        earliest_fits_at: fit_at(q.fit),
        max_units_now: q.max_units_now,
        allowances: allowance_rows(q),
    }
}

/// What is left of each allowance: "2 of 5 movies per 7 days left".
fn allowances_left(q: &QuotaCheck) -> impl Iterator<Item = String> + '_ {
    q.allowances.iter().map(|a| {
        format!(
            "{} of {} per {} day{} left",
            a.remaining,
            unit_noun(a.rule.media_type, a.rule.units),
            a.rule.window_days,
            if a.rule.window_days == 1 { "" } else { "s" }
        )
    })
}

/// One sentence on the quotas: " Quota: 2 of 5 movies per 7 days left." (empty when unlimited).
pub(crate) fn quota_sentence(q: &QuotaCheck) -> String {
    if q.exempt {
        return " Admins have no request quota.".into();
    }
    let parts: Vec<String> = allowances_left(q).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" Quota: {}.", parts.join("; "))
    }
}

/// The caller's request quotas as whoami shows them.
pub(crate) struct QuotasLeft {
    pub(crate) data: Value,
    pub(crate) sentence: String,
    /// The first instant (unix ms) they read differently without a new charge.
    pub(crate) changes_at: Option<i64>,
}

/// For whoami: the caller's request quotas as they stand: movies, TV seasons, albums and books,
/// read in one go (`Store::quotas_now`). `None` when the
/// grant cannot request; admins (exempt) cost no database read.
pub(crate) async fn quotas_left(ctx: &Ctx) -> Result<Option<QuotasLeft>, ToolError> {
    if !ctx.caller.can(domain::Capability::Request) {
        return Ok(None);
    }
    if ctx.caller.scope.exempt {
        return Ok(Some(QuotasLeft {
            data: json!({ "exempt": true, "allowances": [] }),
            sentence: "no request quota".into(),
            changes_at: None,
        }));
    }
    let me = ctx.caller.authority.person.id;
    let mut allowances = Vec::new();
    let mut parts = Vec::new();
    let mut changes_at: Option<i64> = None;
    for q in ctx.store().quotas_now(me).await? {
        allowances.extend(allowances_data(&q));
        parts.extend(allowances_left(&q));
        changes_at = earliest(changes_at, q.changes_at);
    }
    let sentence = if parts.is_empty() {
        "no request quota set".to_string()
    } else {
        format!("request quota: {}", parts.join("; "))
    };
    Ok(Some(QuotasLeft {
        data: json!({ "exempt": false, "allowances": allowances }),
        sentence,
        changes_at,
    }))
}

/// The earlier of two instants, either of which may be missing.
pub(crate) fn earliest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// How to make a refused selection fit.
fn how_to_reduce(q: &QuotaCheck) -> String {
    let max = q.max_units_now.unwrap_or(0);
    let later = match q.fit {
        Fit::At(at) => format!("or ask again from {}", time(at)),
        Fit::Never => "the selection is larger than the quota itself, so split it".into(),
        Fit::Now => String::new(),
    };
    match (q.media_type, max) {
        (domain::MediaType::Tv, 0) => format!("no season fits now; {later}"),
        (domain::MediaType::Tv, n) => format!(
            "request at most {} now (name them with seasons), {later}",
            unit_noun(q.media_type, n)
        ),
        (domain::MediaType::Music, _) => format!("no album fits now; {later}"),
        (domain::MediaType::Book, _) => format!("no book fits now; {later}"),
        (domain::MediaType::Movie, _) => format!("no movie fits now; {later}"),
    }
}

/// The structured `request_quota_exceeded` refusal.
pub(crate) fn quota_refusal(q: &QuotaCheck) -> ToolError {
    let when = match q.fit {
        Fit::At(at) => format!("it fits from {}", time(at)),
        _ => "it can never fit as selected".into(),
    };
    let tight: Vec<String> = q
        .allowances
        .iter()
        .filter(|a| a.fit != Fit::Now)
        .map(|a| {
            format!(
                "{} per {} days with {} used",
                unit_noun(a.rule.media_type, a.rule.units),
                a.rule.window_days,
                a.used
            )
        })
        .collect();
    let reduce = how_to_reduce(q);
    let mut data = crate::typed::tree(&quota_data(q));
    data["how_to_reduce"] = json!(reduce);
    ToolError::new(REQUEST_QUOTA_EXCEEDED,
        format!(
            "request quota exceeded: this needs {} but the quota allows {}; {when}. Nothing was created; {reduce}.",
            unit_noun(q.media_type, q.requested_units),
            tight.join(" and ")
        ),
    )
    .with_data(data)
}
