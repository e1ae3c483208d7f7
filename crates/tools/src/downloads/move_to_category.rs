//! `move_to_category`: moves torrents' data into a category's folder, where the client models
//! categories as folders (Transmission). qBittorrent is refused: this adapter cannot move its data yet.

use adapters_downloads::DownloadClient;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    hashes, labels,
    write::{self, Op},
};
use crate::{Ctx, Meta, Output, Tool, ToolError};

pub struct MoveToCategory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 100; repeats are ignored. One malformed entry refuses the whole call.
    pub info_hashes: Vec<String>,
    /// The category to move into, exactly as list_categories shows it.
    pub category: String,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for MoveToCategory {
    type Input = Input;
    const META: Meta = Meta {
        name: "move_to_category",
        title: "Move torrents to a category",
        description: "Moves the data of torrents named by info hash into the folder of an existing category and files them under it. Transmission only (a category there is a sub-folder of the download folder); on qBittorrent use set_category. The whole call is refused, changing nothing, when a category is unknown or a torrent is on qBittorrent. Answers {ok, failed, results} per torrent.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        needs_plan: false,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input.category.is_empty() {
            return Err(ToolError::invalid(
                "category is empty; name a category from list_categories",
            ));
        }
        let plan = write::plan(
            ctx,
            &input.info_hashes,
            hashes::MAX_HASHES,
            input.instance_id.as_deref(),
        )
        .await?;
        let qb: Vec<&str> = plan
            .sources()
            .into_iter()
            .filter(|s| {
                s.backend
                    .as_ref()
                    .is_ok_and(|b| matches!(*b.client, DownloadClient::Qbittorrent(_)))
            })
            .map(|s| s.id.as_str())
            .collect();
        if !qb.is_empty() {
            return Err(ToolError::new(
                "unsupported",
                format!(
                    "move_to_category cannot move data on qbittorrent instance {} in this version; use set_category (qbittorrent moves data for torrents in automatic management); nothing was changed",
                    qb.join(", ")
                ),
            ));
        }
        labels::require_category(&plan.sources(), &input.category)?;
        Ok(write::finish(plan, Op::MoveToCategory(&input.category)).await)
    }
}
