//! `set_tags`: replaces the tags (Transmission: labels) of torrents named by info hash.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    hashes, labels,
    write::{self, Op},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SetTags;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 100; repeats are ignored. One malformed entry refuses the whole call.
    #[schemars(length(min = 1, max = super::hashes::MAX_HASHES))]
    #[schemars(inner(regex(pattern = crate::ids::INFO_HASH)))]
    pub info_hashes: Vec<String>,
    /// The complete new set of tags, each exactly as list_categories shows it; an empty list removes every tag.
    #[schemars(length(max = super::labels::MAX_TAGS))]
    pub tags: Vec<String>,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for SetTags {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "set_tags",
        title: "Set torrent tags",
        description: "Replaces the tags (Transmission: labels) of torrents named by info hash with exactly the given set; an empty set removes them all. Every tag must already be known on the torrent's instance (list_categories); an unknown one refuses the whole call with the valid names. Answers {ok, failed, results} per torrent.",
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
        let tags = labels::tag_list(&input.tags)?;
        let plan = write::plan(
            ctx,
            &input.info_hashes,
            hashes::MAX_HASHES,
            input.instance_id.as_deref(),
        )
        .await?;
        if !tags.is_empty() {
            labels::require_tags(&plan.sources(), &tags)?;
        }
        Ok(write::finish(plan, Op::SetTags(&tags)).await)
    }
}
