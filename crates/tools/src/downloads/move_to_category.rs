//! `move_to_category`: moves torrents' data into a category's folder. Transmission models a
//! category as a sub-folder of the download folder; qBittorrent gets the category plus Automatic
//! Torrent Management, and then moves the data into the category's save path itself.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    hashes, labels,
    write::{self, Op},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct MoveToCategory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 100; repeats are ignored. One malformed entry refuses the whole call.
    #[schemars(length(min = 1, max = super::hashes::MAX_HASHES))]
    #[schemars(inner(regex(pattern = crate::ids::INFO_HASH)))]
    pub info_hashes: Vec<String>,
    /// The category to move into, exactly as list_categories shows it.
    pub category: String,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for MoveToCategory {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "move_to_category",
        title: "Move torrents to a category",
        description: "Moves the data of torrents named by info hash into the folder of an existing category and files them under it. On Transmission a category is a sub-folder of the download folder. On qBittorrent the torrents get the category and automatic torrent management, and qBittorrent moves the data to the category's save path (without one set: <default save path>/<category>) in the background; the torrents then follow later changes of that save path. The whole call is refused, changing nothing, when the category is unknown on an instance holding a named torrent. Answers {ok, failed, results} per torrent.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
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
        labels::require_category(&plan.sources(), &input.category)?;
        Ok(write::finish(plan, Op::MoveToCategory(&input.category)).await)
    }
}
