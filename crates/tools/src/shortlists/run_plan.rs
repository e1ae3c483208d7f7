//! The plan hooks of `plan_run`: what a stored run depends on (each row's preview, read again),
//! how `apply_change` carries it out (each write to a media server and each request one
//! checkpointed step; a refused write stops that row, an uncertain one the whole run), and how
//! the owner sees it. Only collections Marquee made are ever changed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use store::ShortlistRow;

use super::row::{DisplayKind, DisplayView, Preview, Shown, preview};
use super::shelf;
use crate::media::servers;
use crate::saving::{Stepping, Steps, answer_of, on_behalf};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView, Run},
};

/// The plan hooks of `plan_run`.
pub(crate) const RUN: Stepping<RunSteps> = Stepping::new();

/// One item of a collection change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Item {
    pub item_id: String,
    pub title: String,
}

/// What a run does to one row.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RowRun {
    pub row_id: i64,
    pub name: String,
    pub instance_id: String,
    pub library_id: String,
    /// The collection Marquee made, when it still stands; `None`: the run creates it.
    pub collection_id: Option<String>,
    pub add: Vec<Item>,
    pub remove: Vec<String>,
    /// Missing titles to request.
    pub request: Vec<Shown>,
    /// Missing titles to acquire (a release found on the indexers, sent to a download client).
    #[serde(default)]
    pub acquire: Vec<Shown>,
    /// Missing titles beyond the run's max_requests and max_acquisitions.
    pub not_requested: usize,
    /// How the row shows (a made collection is ordered and given its poster as it says).
    #[serde(default)]
    pub display: DisplayView,
    /// A playlist's owner on the server; `None` for a collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// A planned run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunPlan {
    pub rows: Vec<RowRun>,
    /// Whose requests a scheduled run files (the schedule's planner, with their key's
    /// authority at run time); `None`: whoever applies the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<Requester>,
}

/// The person (and key) a run's requests are filed for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Requester {
    pub person_id: i64,
    pub key_id: String,
}

impl RunPlan {
    pub(crate) fn writes(&self) -> usize {
        self.rows
            .iter()
            .map(|r| match &r.collection_id {
                None => usize::from(!r.add.is_empty()),
                Some(_) => usize::from(!r.add.is_empty()) + usize::from(!r.remove.is_empty()),
            })
            .sum()
    }

    pub(crate) fn requests(&self) -> usize {
        self.rows.iter().map(|r| r.request.len()).sum()
    }

    pub(crate) fn acquisitions(&self) -> usize {
        self.rows.iter().map(|r| r.acquire.len()).sum()
    }
}

/// What a run did (or, dry, would do) to one row.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct RowReport {
    pub row_id: i64,
    pub name: String,
    pub instance_id: String,
    /// `dry_run`, `done`, `failed` (the server refused a write: nothing else was done on the
    /// row), `uncertain` (a write's outcome is unknown: the run stopped) or `not_done`.
    pub outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
    pub creates_collection: bool,
    pub added: usize,
    pub removed: usize,
    /// Each missing title the run requests (or, dry, would): its title and what came of it.
    pub requests: Vec<RequestReport>,
    /// Each missing title the run acquires (or, dry, would): `would_acquire`, `acquired`,
    /// `not_found` (no release to grab) or `refused`.
    pub acquisitions: Vec<RequestReport>,
    /// Missing titles left by the run's max_requests and max_acquisitions.
    pub not_requested: usize,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct RequestReport {
    pub title: String,
    /// `would_request`, `requested` or `refused`.
    pub outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A run's answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct RunData {
    pub dry_run: bool,
    pub rows: Vec<RowReport>,
}

/// How many missing titles a run may still request and acquire.
pub(crate) struct Budget {
    pub requests: usize,
    pub acquisitions: usize,
}

/// The run of one row from its preview: missing titles requested while the budget's requests
/// last, the next ones acquired while its acquisitions last.
pub(crate) fn planned_row(row: &ShortlistRow, p: &Preview, budget: &mut Budget) -> RowRun {
    let title_of = |id: &String| {
        p.shown
            .iter()
            .find(|s| s.item_id.as_ref() == Some(id))
            .map_or_else(String::new, |s| s.title.clone())
    };
    let take = p.missing.len().min(budget.requests);
    budget.requests -= take;
    let acquire = (p.missing.len() - take).min(budget.acquisitions);
    budget.acquisitions -= acquire;
    RowRun {
        row_id: row.id,
        name: row.name.clone(),
        instance_id: row.instance_id.clone(),
        library_id: row.library_id.clone(),
        collection_id: row.collection_id.clone().filter(|_| !p.creates_collection),
        add: p
            .to_add
            .iter()
            .map(|id| Item {
                item_id: id.clone(),
                title: title_of(id),
            })
            .collect(),
        remove: p.to_remove.clone(),
        request: p.missing[..take].to_vec(),
        acquire: p.missing[take..take + acquire].to_vec(),
        not_requested: p.missing.len() - take - acquire,
        display: DisplayView::of(&row.display),
        user: p.user.clone(),
    }
}

impl RowRun {
    fn report(&self, outcome: &str) -> RowReport {
        RowReport {
            row_id: self.row_id,
            name: self.name.clone(),
            instance_id: self.instance_id.clone(),
            outcome: outcome.into(),
            message: None,
            collection_id: self.collection_id.clone(),
            creates_collection: self.collection_id.is_none() && !self.add.is_empty(),
            added: 0,
            removed: 0,
            requests: Vec::new(),
            acquisitions: Vec::new(),
            not_requested: self.not_requested,
        }
    }

    pub(crate) fn as_dry_run(&self) -> RowReport {
        let mut r = self.report("dry_run");
        r.added = self.add.len();
        r.removed = self.remove.len();
        r.requests = self
            .request
            .iter()
            .map(|m| RequestReport {
                title: m.title.clone(),
                outcome: "would_request".into(),
                message: None,
            })
            .collect();
        r.acquisitions = self
            .acquire
            .iter()
            .map(|m| RequestReport {
                title: m.title.clone(),
                outcome: "would_acquire".into(),
                message: None,
            })
            .collect();
        r
    }
}

/// Each row's state as a run would find it: its preview, read again.
pub(crate) async fn dependencies_of(ctx: &Ctx, plan: &RunPlan) -> Result<Dependencies, ToolError> {
    let mut deps = Dependencies::new();
    for planned in &plan.rows {
        let seen = match ctx.store().shortlist_row(planned.row_id).await? {
            Some(row) if row.enabled => match ctx.store().theme(row.theme_id).await? {
                Some(theme) => {
                    let p = preview(ctx, &row, &theme).await?;
                    let text = json!([row.updated_at, p.creates_collection, p.to_add, p.to_remove]);
                    hex::encode(Sha256::digest(text.to_string().as_bytes()))
                }
                None => "theme gone".into(),
            },
            Some(_) => "disabled".into(),
            None => "gone".into(),
        };
        deps.insert(format!("row:{}", planned.row_id), seen);
    }
    Ok(deps)
}

/// A run: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct RunSteps;

impl Steps for RunSteps {
    type Plan = RunPlan;

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a RunPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn apply<'a>(
        ctx: &'a Ctx,
        _change: &'a store::Change,
        plan: RunPlan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(apply(ctx, plan, run))
    }

    fn describe(plan: &RunPlan) -> PlanView {
        describe(plan)
    }
}

/// What stopped a row: the server refused (the row stops) or the outcome is unknown (the
/// whole run stops).
enum Stop {
    Refused(String),
    Uncertain(String),
    Cancelled,
}

async fn apply(ctx: &Ctx, plan: RunPlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let mut reports = Vec::with_capacity(plan.rows.len());
    let mut halted = false;
    for planned in &plan.rows {
        let mut report = planned.report("done");
        if halted {
            report.outcome = "not_done".into();
            reports.push(report);
            continue;
        }
        match run_row(ctx, planned, plan.requester.as_ref(), run, &mut report).await? {
            None => {}
            Some(Stop::Refused(why)) => {
                report.outcome = "failed".into();
                report.message = Some(why);
            }
            Some(Stop::Uncertain(why)) => {
                report.outcome = "uncertain".into();
                report.message = Some(format!(
                    "{why}; the run stopped: check the server before running it again"
                ));
                halted = true;
            }
            Some(Stop::Cancelled) => {
                report.outcome = "not_done".into();
                halted = true;
            }
        }
        reports.push(report);
    }
    let done = reports.iter().filter(|r| r.outcome == "done").count();
    let summary = format!(
        "Ran {done} of {} shortlist row{}.",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" }
    );
    Output::typed(
        summary,
        &RunData {
            dry_run: false,
            rows: reports,
        },
    )
}

/// Carries out one row: its collection, then its requests and acquisitions; `Some` when it
/// stopped.
async fn run_row(
    ctx: &Ctx,
    planned: &RowRun,
    requester: Option<&Requester>,
    run: &Run<'_>,
    report: &mut RowReport,
) -> Result<Option<Stop>, ToolError> {
    let Some(server) = servers(ctx).by_id(&planned.instance_id) else {
        return Ok(Some(Stop::Refused(format!(
            "{} is no longer a media server",
            planned.instance_id
        ))));
    };
    let client = match server.client() {
        Ok(c) => c,
        Err(e) => return Ok(Some(Stop::Refused(e))),
    };
    let stop = |e: adapters_media::Error| {
        let why = server.failure(&e);
        if e.is_unreachable() {
            Stop::Uncertain(why)
        } else {
            Stop::Refused(why)
        }
    };
    let ids: Vec<String> = planned.add.iter().map(|i| i.item_id.clone()).collect();
    let user = planned.user.as_deref();
    match &planned.collection_id {
        None if !ids.is_empty() => {
            let step =
                json!({"call": "create collection", "row": planned.row_id, "name": planned.name});
            if !run.step(step).await? {
                return Ok(Some(Stop::Cancelled));
            }
            let made = shelf::create(client, user, &planned.library_id, &planned.name, &ids);
            let id = match made.await {
                Ok(id) => id,
                Err(e) => return Ok(Some(stop(e))),
            };
            ctx.store()
                .set_row_collection(planned.row_id, Some(&id))
                .await?;
            report.collection_id = Some(id.clone());
            report.added = ids.len();
            if let Some(stopped) = dress(client, planned, &id, run, &stop).await? {
                return Ok(Some(stopped));
            }
        }
        None => {}
        Some(collection) => {
            if !ids.is_empty() {
                let step =
                    json!({"call": "add to collection", "row": planned.row_id, "items": ids.len()});
                if !run.step(step).await? {
                    return Ok(Some(Stop::Cancelled));
                }
                if let Err(e) = shelf::add(client, user, collection, &ids).await {
                    return Ok(Some(stop(e)));
                }
                report.added = ids.len();
            }
            if !planned.remove.is_empty() {
                let step = json!({"call": "remove from collection", "row": planned.row_id, "items": planned.remove.len()});
                if !run.step(step).await? {
                    return Ok(Some(Stop::Cancelled));
                }
                if let Err(e) = shelf::remove(client, user, collection, &planned.remove).await {
                    return Ok(Some(stop(e)));
                }
                report.removed = planned.remove.len();
            }
        }
    }
    if planned.request.is_empty() && planned.acquire.is_empty() {
        return Ok(None);
    }
    let authority = &ctx.caller.authority;
    let (key_id, person) = match requester {
        Some(r) => (r.key_id.as_str(), domain::PersonId(r.person_id)),
        None => (authority.key_id.as_str(), authority.person.id),
    };
    for missing in &planned.request {
        let step = json!({"call": "request_media", "row": planned.row_id, "title": missing.title});
        if !run.step(step).await? {
            return Ok(Some(Stop::Cancelled));
        }
        let mut args = Map::new();
        args.insert("media_source".into(), json!(missing.media_source));
        args.insert("media_id".into(), Value::String(missing.media_id.clone()));
        args.insert("media_type".into(), json!(missing.media_type));
        let (ok, message) = on_behalf(ctx, key_id, person, "request_media", args).await?;
        let outcome = if ok { "requested" } else { "refused" };
        report.requests.push(RequestReport {
            title: missing.title.clone(),
            outcome: outcome.into(),
            message: Some(message),
        });
    }
    for missing in &planned.acquire {
        let step = json!({"call": "acquire", "row": planned.row_id, "title": missing.title});
        if !run.step(step).await? {
            return Ok(Some(Stop::Cancelled));
        }
        let (outcome, message) = acquire(ctx, key_id, person, missing).await?;
        report.acquisitions.push(RequestReport {
            title: missing.title.clone(),
            outcome: outcome.into(),
            message: Some(message),
        });
    }
    Ok(None)
}

/// Gives a collection just made its order and its poster (its first title's artwork), each a
/// checkpointed step; `Some` when one stopped the row. A playlist keeps the order its titles
/// were added in.
async fn dress(
    client: &adapters_media::MediaClient,
    planned: &RowRun,
    id: &str,
    run: &Run<'_>,
    stop: &(dyn Fn(adapters_media::Error) -> Stop + Sync),
) -> Result<Option<Stop>, ToolError> {
    if planned.display.kind == DisplayKind::Collection {
        let step = json!({"call": "order collection", "row": planned.row_id});
        if !run.step(step).await? {
            return Ok(Some(Stop::Cancelled));
        }
        let order = match planned.display.sort {
            super::row::Sort::Release => adapters_media::Order::Release,
            super::row::Sort::Title => adapters_media::Order::Title,
        };
        if let Err(e) = client.order_collection(id, order).await {
            return Ok(Some(stop(e)));
        }
    }
    if let (true, Some(first)) = (planned.display.poster, planned.add.first()) {
        let step = json!({"call": "set poster", "row": planned.row_id, "from": first.title});
        if !run.step(step).await? {
            return Ok(Some(Stop::Cancelled));
        }
        if let Err(e) = client.copy_poster(&first.item_id, id).await {
            return Ok(Some(stop(e)));
        }
    }
    Ok(None)
}

/// Acquires one missing title for `person`: the best-seeded grabbable release search_indexers
/// finds for it, sent with grab_release to the default download instance (both with the
/// authority `key_id` has now). The outcome and its sentence.
async fn acquire(
    ctx: &Ctx,
    key_id: &str,
    person: domain::PersonId,
    missing: &Shown,
) -> Result<(&'static str, String), ToolError> {
    let mut args = Map::new();
    args.insert("media_source".into(), json!(missing.media_source));
    args.insert("media_id".into(), Value::String(missing.media_id.clone()));
    args.insert("media_type".into(), json!(missing.media_type));
    let found = match answer_of(ctx, key_id, person, "search_indexers", args).await? {
        Ok(data) => data,
        Err(why) => return Ok(("refused", why)),
    };
    let best = found["releases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["grabbable"] == true && r["release_ref"].is_string())
        .max_by_key(|r| r["seeders"].as_u64().unwrap_or(0));
    let Some(best) = best else {
        return Ok(("not_found", "no grabbable release on the indexers".into()));
    };
    let mut args = Map::new();
    args.insert("release_ref".into(), best["release_ref"].clone());
    let (ok, message) = on_behalf(ctx, key_id, person, "grab_release", args).await?;
    let title = best["title"].as_str().unwrap_or_default();
    Ok(if ok {
        ("acquired", format!("{title}: {message}"))
    } else {
        ("refused", message)
    })
}

fn describe(plan: &RunPlan) -> PlanView {
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let mut rows = Vec::new();
    for r in &plan.rows {
        let collection = match &r.collection_id {
            None if r.add.is_empty() => "nothing to show yet: no collection is made".to_owned(),
            None => format!("create \"{}\" with {} title(s)", r.name, r.add.len()),
            Some(id) => format!(
                "collection {id}: add {}, take out {}",
                r.add.len(),
                r.remove.len()
            ),
        };
        let titles: Vec<&str> = r.add.iter().map(|i| i.title.as_str()).collect();
        let requests: Vec<&str> = r.request.iter().map(|m| m.title.as_str()).collect();
        let acquired: Vec<&str> = r.acquire.iter().map(|m| m.title.as_str()).collect();
        rows.push(vec![
            format!("{} on {}", r.name, r.instance_id),
            collection,
            titles.join(", "),
            if requests.is_empty() {
                "none".into()
            } else {
                requests.join(", ")
            },
            if acquired.is_empty() {
                "none".into()
            } else {
                acquired.join(", ")
            },
        ]);
    }
    PlanView {
        effect: format!(
            "Runs {} shortlist row(s): {} write(s) to the media servers, only to collections Marquee made, {} request(s) of missing titles and {} acquisition(s) (a release grabbed from the indexers into the default download client), each a checkpointed step.",
            plan.rows.len(),
            plan.writes(),
            plan.requests(),
            plan.acquisitions()
        ),
        tables: vec![PlanTable {
            id: "run-rows",
            title: "Rows",
            columns: vec![
                column("Row", Look::Text, false),
                column("Collection", Look::New, false),
                column("Titles added", Look::New, true),
                column("Requested", Look::New, false),
                column("Acquired", Look::New, false),
            ],
            rows,
        }],
    }
}
