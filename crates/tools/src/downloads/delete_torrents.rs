//! `delete_torrents`: removes torrents, named by info hash, with or without their data.
//! Destructive: listed and callable only with `[mcp] allow_destructive = true`. Planned: a
//! caller without `destructive.direct` gets a change for the owner (which torrents, their
//! sizes, hashes of what was read) instead of a deletion; `apply` carries it out once approved.

use std::collections::BTreeMap;

use adapters_downloads::Torrent;
use domain::{Capability, InfoHash};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{
    Backend, Source, granted, hashes, one, outcome,
    write::{self, Op},
};
use governance::{
    contract::BoxFuture,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Proposal, Run},
};
use store::Change;

use governance::{Ctx, Meta, Output, Tool, ToolError, error::ErrorCode};

pub struct DeleteTorrents;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 50; repeats are ignored. One malformed entry refuses the whole call.
    #[schemars(length(min = 1, max = super::hashes::MAX_DELETE))]
    #[schemars(inner(regex(pattern = crate::ids::INFO_HASH)))]
    pub info_hashes: Vec<String>,
    /// True also deletes the downloaded files (cannot be undone); false removes the torrents from the client and keeps the files.
    pub delete_data: bool,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers; a torrent on several is refused).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for DeleteTorrents {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "delete_torrents",
        title: "Delete torrents",
        description: "Removes torrents named by info hash from their download instance; with delete_data true their downloaded files are deleted too, which cannot be undone. The whole list is validated first; an unknown hash is a per-torrent failure. Answers {ok, failed, results} per torrent. Without destructive.direct in your grant nothing is deleted: the answer is a change_id and a review_url for the owner, then apply_change.",
        effect: Effect::Destructive,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: Some(domain::AllowanceKind::Destructive),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: Some(&DeletePlanned),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if let Some(missing) = ctx.needs_plan() {
            let proposal = propose(ctx, &input).await?;
            return plan::propose(ctx, Self::META, Some(missing), proposal).await;
        }
        let plan = write::plan(
            ctx,
            &input.info_hashes,
            hashes::MAX_DELETE,
            input.instance_id.as_deref(),
        )
        .await?;
        let op = Op::Delete {
            with_data: input.delete_data,
        };
        Ok(write::finish(plan, op).await)
    }
}

/// The plan hooks of `delete_torrents`.
#[derive(Debug)]
pub(crate) struct DeletePlanned;

impl Planned for DeletePlanned {
    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move { dependencies(ctx, &plan::parse_plan(change)?).await })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move { apply(ctx, plan::parse_plan(change)?, run).await })
    }

    fn describe(&self, change: &Change) -> PlanView {
        let Ok(plan) = serde_json::from_str::<DeletePlan>(&change.plan) else {
            return PlanView::unknown(&change.tool);
        };
        let count: usize = plan.instances.iter().map(|g| g.torrents.len()).sum();
        let data = if plan.delete_data {
            "and deletes their downloaded files, which cannot be undone"
        } else {
            "and keeps their downloaded files"
        };
        let column = |header, look, wide| PlanColumn { header, look, wide };
        let rows = plan
            .instances
            .iter()
            .flat_map(|g| {
                g.torrents.iter().map(|t| {
                    vec![
                        t.name.clone(),
                        size_text(t.size),
                        g.instance_id.clone(),
                        t.category.clone().unwrap_or_else(|| "none".into()),
                        t.save_path.clone(),
                        t.info_hash.clone(),
                    ]
                })
            })
            .collect();
        PlanView {
            effect: format!(
                "Removes {count} torrent{} ({}) from the download client {data}.",
                if count == 1 { "" } else { "s" },
                size_text(plan.total_size)
            ),
            tables: vec![PlanTable {
                id: "diff",
                title: "Torrents",
                columns: vec![
                    column("Name", Look::Text, false),
                    column("Size", Look::Text, false),
                    column("Instance", Look::Text, false),
                    column("Category", Look::Text, true),
                    column("Folder", Look::Code, true),
                    column("Info hash", Look::Code, true),
                ],
                rows,
            }],
        }
    }
}

/// A size for people: "1.2 GB" (powers of 1000), bytes below a kilobyte.
fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// What an approved deletion does: these torrents, on these instances.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeletePlan {
    delete_data: bool,
    instances: Vec<Group>,
    /// Bytes of all the torrents together.
    total_size: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    instance_id: String,
    torrents: Vec<PlannedTorrent>,
}

/// One torrent as it was when planned: what the owner sees.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlannedTorrent {
    info_hash: String,
    name: String,
    size: u64,
    category: Option<String>,
    save_path: String,
}

/// Resolves the call against live state: every named torrent must be found, once.
async fn propose(ctx: &Ctx, input: &Input) -> Result<Proposal, ToolError> {
    let found = write::plan(
        ctx,
        &input.info_hashes,
        hashes::MAX_DELETE,
        input.instance_id.as_deref(),
    )
    .await?;
    if !found.failures.is_empty() {
        let problems: Vec<String> = found
            .failures
            .iter()
            .map(|f| match f.info_hash {
                Some(h) => format!("{h}: {}", f.message),
                None => f.message.clone(),
            })
            .collect();
        return Err(ToolError::invalid(format!(
            "cannot plan the deletion: {}; nothing was planned",
            problems.join("; ")
        )));
    }
    let mut groups = Vec::new();
    let mut dependencies = BTreeMap::new();
    for group in &found.groups {
        let (source, hashes) = (group.source, &group.hashes);
        let backend = live(source, hashes).await?;
        let mut torrents = Vec::new();
        for h in hashes {
            let t = backend.catalogue.get(h).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "the torrent {h} is no longer on instance {}; nothing was planned",
                        source.id
                    ),
                )
            })?;
            dependencies.insert(key(&source.id, h), fingerprint(&t));
            torrents.push(PlannedTorrent {
                info_hash: h.to_hex(),
                name: t.name.to_string(),
                size: t.size,
                category: t.category.as_deref().map(str::to_owned),
                save_path: t.save_path.to_string(),
            });
        }
        groups.push(Group {
            instance_id: source.id.clone(),
            torrents,
        });
    }
    let count: usize = groups.iter().map(|g| g.torrents.len()).sum();
    let total_size = groups
        .iter()
        .flat_map(|g| &g.torrents)
        .map(|t| t.size)
        .sum();
    let on: Vec<&str> = groups.iter().map(|g| g.instance_id.as_str()).collect();
    let summary = format!(
        "delete {count} torrent{} ({:.1} MB) on {}, {}",
        if count == 1 { "" } else { "s" },
        total_size as f64 / 1e6,
        on.join(", "),
        if input.delete_data {
            "with their downloaded files"
        } else {
            "keeping their files"
        }
    );
    let plan = DeletePlan {
        delete_data: input.delete_data,
        instances: groups,
        total_size,
    };
    Ok(Proposal {
        summary,
        plan: serde_json::to_value(&plan).unwrap_or_default(),
        dependencies,
    })
}

/// The state a stored plan depends on, read from the instances now.
pub(crate) async fn dependencies(
    ctx: &Ctx,
    plan: &DeletePlan,
) -> Result<BTreeMap<String, String>, ToolError> {
    let mut out = BTreeMap::new();
    for g in &plan.instances {
        let source = one(ctx, Some(&g.instance_id))?;
        let hashes = parsed(g)?;
        let backend = live(source, &hashes).await?;
        for h in &hashes {
            let now = backend
                .catalogue
                .get(h)
                .map_or_else(|| "absent".to_string(), |t| fingerprint(&t));
            out.insert(key(&source.id, h), now);
        }
    }
    Ok(out)
}

/// Carries out an approved plan one torrent at a time, each step checkpointed: a cancelled
/// operation stops before its next torrent, and the answer lists what was deleted and what was
/// left untouched.
pub(crate) async fn apply(ctx: &Ctx, plan: DeletePlan, run: &Run<'_>) -> Result<Output, ToolError> {
    let op = Op::Delete {
        with_data: plan.delete_data,
    };
    let mut results = Vec::new();
    let mut not_done = Vec::new();
    for g in &plan.instances {
        let hashes = parsed(g)?;
        for h in hashes {
            if !not_done.is_empty() {
                not_done.push(json!({"instance_id": g.instance_id, "info_hash": h}));
                continue;
            }
            let (source, allowed) = granted(ctx, Some(&g.instance_id))?;
            let go = run
                .step(json!({
                    "call": "delete",
                    "instance_id": g.instance_id,
                    "delete_data": plan.delete_data,
                    "info_hashes": [h],
                }))
                .await?;
            if !go {
                not_done.push(json!({"instance_id": g.instance_id, "info_hash": h}));
                continue;
            }
            results.extend(write::execute(write::Plan::exact(source, allowed, vec![h]), op).await);
        }
    }
    let out = outcome::output(op.verb(), results);
    if not_done.is_empty() {
        return Ok(out);
    }
    Ok(stopped(run.operation_id(), out, not_done))
}

/// The answer of a deletion cancelled part way: what was done, and the torrents not touched.
fn stopped(operation: &str, done: Output, not_done: Vec<serde_json::Value>) -> Output {
    let mut data = done.data().clone();
    let left = not_done.len();
    data["cancelled"] = json!(true);
    data["not_done"] = json!(not_done);
    Output::new(
        format!(
            "Operation {operation} was cancelled part way: {} {left} torrent{} not deleted, left untouched (see not_done).",
            done.summary,
            if left == 1 { " was" } else { "s were" }
        ),
        data,
    )
}

/// Re-reads `hashes` on `source`, so what follows sees the instance as it is now.
async fn live<'s>(source: &'s Source, hashes: &[InfoHash]) -> Result<&'s Backend, ToolError> {
    let backend = source.backend()?;
    backend.catalogue.refresh_hashes(hashes).await.map_err(|e| {
        ToolError::new(ErrorCode::BackendUnavailable,
            format!(
                "instance {} could not be read to check the torrents: {e}; nothing was done; try again when it answers",
                source.id
            ),
        )
    })?;
    Ok(backend)
}

fn parsed(g: &Group) -> Result<Vec<InfoHash>, ToolError> {
    g.torrents
        .iter()
        .map(|t| hashes::one(&t.info_hash))
        .collect()
}

fn key(instance: &str, hash: &InfoHash) -> String {
    format!("{instance}/{hash}")
}

/// What the plan relies on of one torrent: name, size, category and where its data is.
fn fingerprint(t: &Torrent) -> String {
    let text = format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        t.name,
        t.size,
        t.category.as_deref().unwrap_or(""),
        t.save_path
    );
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}
