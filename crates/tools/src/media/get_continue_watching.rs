//! `get_continue_watching`: what a person started on the household's media servers and did not
//! finish (a half-watched episode, a film paused halfway), for the media-server user they are
//! linked to; within the caller's content limits.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::watched::{Watched, Which, answer};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetContinueWatching;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Whose (a person's name); default yourself. Anyone else's needs admin rights.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub person: Option<String>,
    /// Items at most, 1 to 100 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

impl Tool for GetContinueWatching {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Watched>);
    const META: Meta = Meta {
        name: "get_continue_watching",
        title: "Continue watching",
        description: "What a person started on the household's media servers (Jellyfin, Emby, Plex) and has not finished: each item with its server and item id, show/season/episode, position and percent watched. Reads the media-server user the person is linked to (`marquee people link`); an unlinked person is told how to link. Default: yourself; another person needs admin rights. Kids see only titles within their limits.",
        effect: Effect::Read,
        capability: Capability::MediaRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        answer(
            ctx,
            input.person.as_deref(),
            input.limit.unwrap_or(20),
            Which::ContinueWatching,
        )
        .await
    }
}
