//! `remove_queue_item`: removes queue items of one instance: remove, remove and blocklist,
//! blocklist without a new search, or only change the download client's category. Per-item
//! outcomes; every id is checked against the queue before anything is removed.

use adapters_library::Removal;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::super::source::granted;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RemoveQueueItem;

/// How the items leave the queue.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
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
    pub instance_id: String,
    /// Queue item ids as get_queue showed them (1 to 50).
    pub queue_ids: Vec<i64>,
    pub action: Action,
}

impl Tool for RemoveQueueItem {
    type Input = Input;
    const META: Meta = Meta {
        name: "remove_queue_item",
        title: "Remove queue items",
        description: "Removes items from a library instance's download queue: remove (also from the download client), remove_and_blocklist (the service then searches for another release), blocklist_only (no new search), or change_category (keeps the download, moves it to the post-import category). Give the queue ids get_queue showed; answers one outcome per item.",
        effect: Effect::Write,
        capability: Capability::LibraryWrite,
        needs_plan: false,
        // Removing a download and blocklisting a release cannot be undone from here.
        allowance: Some(domain::AllowanceKind::Destructive),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input.queue_ids.is_empty() || input.queue_ids.len() > 50 {
            return Err(ToolError::invalid("give 1 to 50 queue_ids"));
        }
        let (source, allowed) = granted(ctx, Some(&input.instance_id), None)?;
        let client = source.client()?;
        let queue = client.queue().await.map_err(|e| source.error(e))?;
        let unknown: Vec<String> = input
            .queue_ids
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
        let how = match input.action {
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
        };
        let writer = source.writer(governance::authority::write_proof(&allowed)?)?;
        let mut outcomes = Vec::new();
        for id in &input.queue_ids {
            let title = queue.iter().find(|q| q.id == *id).map(|q| q.title.clone());
            let outcome = match writer.remove_queue_item(*id, how).await {
                Ok(()) => json!({ "queue_id": id, "title": title, "ok": true }),
                Err(e) => {
                    json!({ "queue_id": id, "title": title, "ok": false, "error": source.error(e).message })
                }
            };
            outcomes.push(outcome);
        }
        let done = outcomes.iter().filter(|o| o["ok"] == json!(true)).count();
        Ok(Output::new(
            format!(
                "{} removed {done} of {} queue items.",
                source.id,
                outcomes.len()
            ),
            json!({ "instance_id": source.id, "action": input.action_name(), "items": outcomes }),
        ))
    }
}

impl Input {
    fn action_name(&self) -> &'static str {
        match self.action {
            Action::Remove => "remove",
            Action::RemoveAndBlocklist => "remove_and_blocklist",
            Action::BlocklistOnly => "blocklist_only",
            Action::ChangeCategory => "change_category",
        }
    }
}
