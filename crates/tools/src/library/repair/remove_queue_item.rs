//! `remove_queue_item`: removes queue items of one instance: remove, remove and blocklist,
//! blocklist without a new search, or only change the download client's category. Per-item
//! outcomes; every id is checked against the queue before anything is removed. Destructive:
//! planned for the owner's approval unless the caller is the owner or holds
//! `destructive.direct`.

use adapters_library::{QueueItem, Removal};
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use store::Change;

use super::super::source::{Source, granted};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    contract::BoxFuture,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Proposal, Run},
};

pub struct RemoveQueueItem;

/// How the items leave the queue.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Remove from the queue and the download client.
    Remove,
    /// Remove, blocklist the release, and let the service search for another.
    RemoveAndBlocklist,
    /// Remove and blocklist, without a new search.
    BlocklistOnly,
    /// Keep the download in the client; move it to the post-import category.
    ChangeCategory,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance whose queue holds the items.
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: String,
    /// Queue item ids as get_queue showed them (1 to 50).
    #[schemars(length(min = 1, max = 50))]
    pub queue_ids: Vec<i64>,
    pub action: Action,
}

impl Tool for RemoveQueueItem {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Removals<'static>>);
    const META: Meta = Meta {
        name: "remove_queue_item",
        title: "Remove queue items",
        description: "Removes items from a library instance's download queue: remove (also from the download client), remove_and_blocklist (the service then searches for another release), blocklist_only (no new search), or change_category (keeps the download, moves it to the post-import category). Give the queue ids get_queue showed; answers one outcome per item.",
        effect: Effect::Destructive,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        // Removing a download and blocklisting a release cannot be undone from here.
        allowance: Some(domain::AllowanceKind::Destructive),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: Some(&RemovePlanned),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input.queue_ids.is_empty() || input.queue_ids.len() > 50 {
            return Err(ToolError::invalid("give 1 to 50 queue_ids"));
        }
        let (source, allowed) = granted(ctx, Some(&input.instance_id), None)?;
        let queue = source
            .client()?
            .queue()
            .await
            .map_err(|e| source.error(e))?;
        let items = chosen(source, &queue, &input.queue_ids)?;
        let plan = RemovePlan {
            instance_id: source.id.clone(),
            action: input.action,
            items,
        };
        if let Some(missing) = ctx.needs_plan() {
            return plan::propose(ctx, Self::META, Some(missing), proposal(&plan, &queue)).await;
        }
        remove(source, &allowed, &plan, None).await
    }
}

/// A removal as planned: the instance, how, and each item as it was when planned.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct RemovePlan {
    instance_id: String,
    action: Action,
    items: Vec<PlannedItem>,
}

/// One queue item as the owner reviews it.
#[derive(Debug, Serialize, Deserialize)]
struct PlannedItem {
    queue_id: i64,
    title: String,
}

/// The named items of `queue`, refusing the whole call when one is not in it.
fn chosen(
    source: &Source,
    queue: &[QueueItem],
    ids: &[i64],
) -> Result<Vec<PlannedItem>, ToolError> {
    let unknown: Vec<String> = ids
        .iter()
        .filter(|id| !queue.iter().any(|q| q.id == **id))
        .map(i64::to_string)
        .collect();
    if !unknown.is_empty() {
        return Err(ToolError::invalid(format!(
            "the queue of {} has no item {}; nothing was removed; get_queue shows its items",
            source.id,
            unknown.join(", ")
        )));
    }
    Ok(ids
        .iter()
        .filter_map(|id| queue.iter().find(|q| q.id == *id))
        .map(|q| PlannedItem {
            queue_id: q.id,
            title: q.title.clone(),
        })
        .collect())
}

fn proposal(plan: &RemovePlan, queue: &[QueueItem]) -> Proposal {
    Proposal {
        summary: format!(
            "{} {} on {}",
            plan.action.name(),
            super::super::count(plan.items.len(), "queue item", "queue items"),
            plan.instance_id
        ),
        plan: serde_json::to_value(plan).unwrap_or_default(),
        dependencies: fingerprints(&plan.instance_id, queue, &plan.items),
    }
}

/// What the plan relies on of each item: that it is still queued, for the same download.
fn fingerprints(instance: &str, queue: &[QueueItem], items: &[PlannedItem]) -> Dependencies {
    items
        .iter()
        .map(|i| {
            let now = queue.iter().find(|q| q.id == i.queue_id).map_or_else(
                || "absent".to_string(),
                |q| {
                    let text = format!(
                        "{}\u{0}{}\u{0}{}",
                        q.title,
                        q.download_id.as_deref().unwrap_or(""),
                        q.item_id.unwrap_or_default()
                    );
                    hex(&Sha256::digest(text.as_bytes()))
                },
            );
            (format!("{instance}/queue/{}", i.queue_id), now)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Removes the planned items, one call each, checkpointed first when it runs as an operation.
async fn remove(
    source: &Source,
    allowed: &policy::Allowed,
    plan: &RemovePlan,
    run: Option<&Run<'_>>,
) -> Result<Output, ToolError> {
    let how = plan.action.removal();
    let writer = source.writer(governance::authority::write_proof(allowed)?)?;
    let mut outcomes = Vec::new();
    for item in &plan.items {
        if let Some(run) = run {
            run.checkpoint(json!({
                "call": "remove_queue_item",
                "instance_id": plan.instance_id,
                "queue_id": item.queue_id,
                "action": plan.action.name(),
            }))
            .await?;
        }
        let error = match writer.remove_queue_item(item.queue_id, how).await {
            Ok(()) => None,
            Err(e) => Some(source.error(e).message),
        };
        outcomes.push(Removed {
            queue_id: item.queue_id,
            title: &item.title,
            ok: error.is_none(),
            error,
        });
    }
    let done = outcomes.iter().filter(|o| o.ok).count();
    crate::typed::output(
        format!(
            "{} removed {done} of {} queue items.",
            source.id,
            outcomes.len()
        ),
        &Removals {
            instance_id: &source.id,
            action: plan.action.name(),
            items: outcomes,
        },
    )
}

/// The answer's data: what was removed, item by item.
#[derive(Serialize, JsonSchema)]
struct Removals<'a> {
    instance_id: &'a str,
    /// remove or remove_and_blocklist.
    action: &'static str,
    items: Vec<Removed<'a>>,
}

/// One queue item's removal.
#[derive(Serialize, JsonSchema)]
struct Removed<'a> {
    queue_id: i64,
    title: &'a str,
    ok: bool,
    /// Why it was not removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The plan hooks of `remove_queue_item`.
#[derive(Debug)]
pub(crate) struct RemovePlanned;

impl Planned for RemovePlanned {
    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let plan: RemovePlan = plan::parse_plan(change)?;
            let (source, _) = granted(ctx, Some(&plan.instance_id), None)?;
            let queue = source
                .client()?
                .queue()
                .await
                .map_err(|e| source.error(e))?;
            Ok(fingerprints(&plan.instance_id, &queue, &plan.items))
        })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let plan: RemovePlan = plan::parse_plan(change)?;
            let (source, allowed) = granted(ctx, Some(&plan.instance_id), None)?;
            remove(source, &allowed, &plan, Some(run)).await
        })
    }

    fn describe(&self, change: &Change) -> PlanView {
        let Ok(plan) = serde_json::from_str::<RemovePlan>(&change.plan) else {
            return PlanView::unknown(&change.tool);
        };
        PlanView {
            effect: format!(
                "{} on {}: {}.",
                plan.action.name(),
                plan.instance_id,
                plan.action.meaning()
            ),
            tables: vec![PlanTable {
                id: "queue-items",
                title: "Queue items",
                columns: vec![
                    PlanColumn {
                        header: "Queue id",
                        look: Look::Code,
                        wide: false,
                    },
                    PlanColumn {
                        header: "Title",
                        look: Look::Old,
                        wide: false,
                    },
                ],
                rows: plan
                    .items
                    .iter()
                    .map(|i| vec![i.queue_id.to_string(), i.title.clone()])
                    .collect(),
            }],
        }
    }
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Remove => "remove",
            Action::RemoveAndBlocklist => "remove_and_blocklist",
            Action::BlocklistOnly => "blocklist_only",
            Action::ChangeCategory => "change_category",
        }
    }

    /// What the action does, for the owner's review.
    fn meaning(self) -> &'static str {
        match self {
            Action::Remove => {
                "each item leaves the queue and its download is removed from the download client"
            }
            Action::RemoveAndBlocklist => {
                "each item leaves the queue and the download client, its release is blocklisted and the service searches for another"
            }
            Action::BlocklistOnly => {
                "each item leaves the queue and the download client and its release is blocklisted, with no new search"
            }
            Action::ChangeCategory => {
                "each item leaves the queue; its download stays in the client, moved to the post-import category"
            }
        }
    }

    fn removal(self) -> Removal {
        match self {
            Action::Remove => Removal {
                remove_from_client: true,
                ..Removal::default()
            },
            Action::RemoveAndBlocklist => Removal {
                remove_from_client: true,
                blocklist: true,
                ..Removal::default()
            },
            Action::BlocklistOnly => Removal {
                remove_from_client: true,
                blocklist: true,
                skip_redownload: true,
                ..Removal::default()
            },
            Action::ChangeCategory => Removal {
                change_category: true,
                ..Removal::default()
            },
        }
    }
}
