//! `set_category`: gives torrents, named by info hash, a category (or none) on their instances.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    hashes, labels,
    write::{self, Op},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SetCategory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 100; repeats are ignored. One malformed entry refuses the whole call.
    #[schemars(length(min = 1, max = super::hashes::MAX_HASHES))]
    #[schemars(inner(regex(pattern = crate::ids::INFO_HASH)))]
    pub info_hashes: Vec<String>,
    /// The category, exactly as list_categories shows it; an empty string removes the category.
    pub category: String,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for SetCategory {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "set_category",
        title: "Set torrent category",
        description: "Sets the category of torrents named by info hash (an empty category removes it). The category must exist on the torrent's instance (list_categories); an unknown one refuses the whole call with the valid names. On qBittorrent the data moves only for torrents in automatic management; on Transmission a category is a sub-folder of the download folder, so the data moves there. Answers {ok, failed, results} per torrent.",
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
        let plan = write::plan(
            ctx,
            &input.info_hashes,
            hashes::MAX_HASHES,
            input.instance_id.as_deref(),
        )
        .await?;
        let category = Some(input.category.as_str()).filter(|c| !c.is_empty());
        if let Some(c) = category {
            labels::require_category(&plan.sources(), c)?;
        }
        Ok(write::finish(plan, Op::SetCategory(category)).await)
    }
}
