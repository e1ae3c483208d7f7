//! The plan hooks of `plan_maintenance`: what a stored maintenance plan depends on (each media
//! server to re-read; each row to clean up, with the collection Marquee made and exactly the
//! items it holds on the server now), how `apply_change` carries it out (each server read and
//! each collection removal a checkpointed step; a refused removal stops that row, an uncertain
//! one the whole plan), and how the owner sees it. Only collections Marquee made are removed.

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::shelf;
use crate::media::servers;
use crate::saving::{Stepping, Steps};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView, Run},
};

/// The plan hooks of `plan_maintenance`.
pub(crate) const MAINTENANCE: Stepping<MaintenanceSteps> = Stepping::new();

/// One row to clean up: its collection on the server, as it was when planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Cleanup {
    pub row_id: i64,
    pub name: String,
    pub instance_id: String,
    pub library_id: String,
    pub collection_id: String,
    /// The item ids the collection held when planned.
    pub items: Vec<String>,
    /// A playlist's owner on the server; `None` for a collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// A planned maintenance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MaintenancePlan {
    /// Media servers whose library index is read again.
    #[serde(default)]
    pub refresh: Vec<String>,
    #[serde(default)]
    pub cleanup: Vec<Cleanup>,
}

/// What maintenance did (each step's outcome).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct MaintenanceData {
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct Step {
    /// `refresh_cache` or `cleanup`.
    pub action: String,
    pub instance_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_id: Option<i64>,
    /// `done`, `failed` (refused: nothing else was done for it), `uncertain` (the outcome is
    /// unknown: the plan stopped) or `not_done`.
    pub outcome: String,
    pub message: String,
}

/// The item ids of `collection` (or `user`'s playlist) on `instance`, sorted, or why they
/// could not be read.
pub(crate) async fn collection_items(
    ctx: &Ctx,
    instance: &str,
    user: Option<&str>,
    collection: &str,
) -> Result<Vec<String>, String> {
    let server = servers(ctx)
        .by_id(instance)
        .ok_or_else(|| format!("{instance} is no longer a media server"))?;
    let client = server.client()?;
    let mut items = shelf::items(client, user, collection)
        .await
        .map_err(|e| server.failure(&e))?;
    items.sort();
    Ok(items)
}

/// Each row as a cleanup would find it: its collection and that collection's items.
pub(crate) async fn dependencies_of(
    ctx: &Ctx,
    plan: &MaintenancePlan,
) -> Result<Dependencies, ToolError> {
    let mut deps = Dependencies::new();
    for c in &plan.cleanup {
        let row = ctx.store().shortlist_row(c.row_id).await?;
        let seen = match row.and_then(|r| r.collection_id) {
            None => "no collection".to_owned(),
            Some(id) => {
                let items = collection_items(ctx, &c.instance_id, c.user.as_deref(), &id)
                    .await
                    .unwrap_or_else(|why| vec![format!("unreadable: {why}")]);
                hex::encode(Sha256::digest(json!([id, items]).to_string().as_bytes()))
            }
        };
        deps.insert(format!("collection:{}", c.row_id), seen);
    }
    Ok(deps)
}

#[derive(Debug)]
pub(crate) struct MaintenanceSteps;

impl Steps for MaintenanceSteps {
    type Plan = MaintenancePlan;

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a MaintenancePlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn apply<'a>(
        ctx: &'a Ctx,
        _change: &'a store::Change,
        plan: MaintenancePlan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(apply(ctx, plan, run))
    }

    fn describe(plan: &MaintenancePlan) -> PlanView {
        describe(plan)
    }
}

async fn apply(ctx: &Ctx, plan: MaintenancePlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let mut steps = Vec::new();
    let mut halted = false;
    for id in &plan.refresh {
        let mut step = Step {
            action: "refresh_cache".into(),
            instance_id: id.clone(),
            row_id: None,
            outcome: "done".into(),
            message: String::new(),
        };
        if halted
            || !run
                .step(json!({"call": "read library", "instance": id}))
                .await?
        {
            halted = true;
            step.outcome = "not_done".into();
            steps.push(step);
            continue;
        }
        match servers(ctx).by_id(id) {
            None => {
                step.outcome = "failed".into();
                step.message = format!("{id} is no longer a media server");
            }
            Some(server) => {
                let found = server.index.refresh(id).await;
                match (found.failure, found.snapshot) {
                    (Some(why), _) => {
                        step.outcome = "failed".into();
                        step.message = why;
                    }
                    (None, Some(s)) => step.message = format!("{} items read", s.len()),
                    (None, None) => step.message = "nothing to read".into(),
                }
            }
        }
        steps.push(step);
    }
    for c in &plan.cleanup {
        let mut step = Step {
            action: "cleanup".into(),
            instance_id: c.instance_id.clone(),
            row_id: Some(c.row_id),
            outcome: "done".into(),
            message: String::new(),
        };
        if halted {
            step.outcome = "not_done".into();
            steps.push(step);
            continue;
        }
        let call =
            json!({"call": "delete collection", "row": c.row_id, "collection": c.collection_id});
        if !run.step(call).await? {
            halted = true;
            step.outcome = "not_done".into();
            steps.push(step);
            continue;
        }
        match remove(ctx, c).await? {
            Ok(message) => step.message = message,
            Err((uncertain, why)) => {
                step.outcome = if uncertain { "uncertain" } else { "failed" }.into();
                step.message = why;
                halted = uncertain;
            }
        }
        steps.push(step);
    }
    let done = steps.iter().filter(|s| s.outcome == "done").count();
    Output::typed(
        format!("Maintenance: {done} of {} step(s) done.", steps.len()),
        &MaintenanceData { steps },
    )
}

/// Removes `c`'s collection from its server and retires the row. `Err((uncertain, why))`.
async fn remove(ctx: &Ctx, c: &Cleanup) -> Result<Result<String, (bool, String)>, ToolError> {
    let Some(server) = servers(ctx).by_id(&c.instance_id) else {
        return Ok(Err((
            false,
            format!("{} is no longer a media server", c.instance_id),
        )));
    };
    let client = match server.client() {
        Ok(client) => client,
        Err(why) => return Ok(Err((false, why))),
    };
    let failed = |e: adapters_media::Error| (e.is_unreachable(), server.failure(&e));
    let user = c.user.as_deref();
    let message = match shelf::delete(client, user, &c.library_id, &c.collection_id).await {
        Ok(()) => format!("collection \"{}\" removed", c.name),
        Err(e) if e.is_not_found() => format!("collection \"{}\" was already gone", c.name),
        Err(e) => {
            let stop = failed(e);
            return Ok(Err((
                stop.0,
                format!("{}; the row was left as it was", stop.1),
            )));
        }
    };
    ctx.store().retire_shortlist_row(c.row_id).await?;
    Ok(Ok(format!(
        "{message}; row {} is disabled and unscheduled",
        c.row_id
    )))
}

fn describe(plan: &MaintenancePlan) -> PlanView {
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let mut tables = Vec::new();
    if !plan.refresh.is_empty() {
        tables.push(PlanTable {
            id: "refresh",
            title: "Caches read again",
            columns: vec![
                column("Cache", Look::Text, false),
                column("Media server", Look::Text, false),
            ],
            rows: plan
                .refresh
                .iter()
                .map(|id| vec!["media_index".into(), id.clone()])
                .collect(),
        });
    }
    if !plan.cleanup.is_empty() {
        tables.push(PlanTable {
            id: "cleanup",
            title: "Collections removed",
            columns: vec![
                column("Row", Look::Text, false),
                column("Collection", Look::Old, false),
                column("Items it holds now", Look::Old, false),
            ],
            rows: plan
                .cleanup
                .iter()
                .map(|c| {
                    vec![
                        format!("{} (row {}) on {}", c.name, c.row_id, c.instance_id),
                        format!("{} ({})", c.name, c.collection_id),
                        c.items.len().to_string(),
                    ]
                })
                .collect(),
        });
    }
    PlanView {
        effect: format!(
            "Reads {} media server librar{} again and removes {} collection(s) Marquee made (only the collections; the titles stay), disabling and unscheduling their rows.",
            plan.refresh.len(),
            if plan.refresh.len() == 1 { "y" } else { "ies" },
            plan.cleanup.len()
        ),
        tables,
    }
}
