//! `list_seasons`: a show's seasons: how many its catalogue knows, which each media server the
//! caller reaches has (with the episode numbers), and which no server has. The show is named by
//! the identity search_titles gave.

use domain::{Capability, KindFamily, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::show::{Show, read};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListSeasons;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The show's media_source, as search_titles gave it.
    pub media_source: MediaSource,
    /// The show's media_id, as search_titles gave it.
    #[schemars(length(min = 1, max = 64))]
    pub media_id: String,
}

impl Tool for ListSeasons {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Show>);
    const META: Meta = Meta {
        name: "list_seasons",
        title: "List a show's seasons on the media servers",
        description: "Lists a show's seasons (media_source + media_id from search_titles, read within your content limits): how many its catalogue knows, each season with the media servers your grant reaches that have it and their episode numbers, and the seasons no server has (missing). plan_season plans requesting missing ones.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let show = read(ctx, input.media_source, &input.media_id).await?;
        let held = show.seasons.iter().filter(|s| !s.on.is_empty()).count();
        let summary = format!(
            "{}: {} season{} on the media servers, {} missing{}.",
            show.title,
            held,
            if held == 1 { "" } else { "s" },
            show.missing.len(),
            if show.missing.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    show.missing
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
        Output::typed(summary, &show)
    }
}
