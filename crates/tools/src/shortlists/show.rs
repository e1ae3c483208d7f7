//! A show's seasons as the season tools read them: how many the catalogue knows, and which
//! seasons (with their episodes) each media server the caller reaches has.

use domain::{MediaSource, MediaType};
use schemars::JsonSchema;
use serde::Serialize;

use crate::{
    media::{playable, rows::Season},
    requests::title,
};
use governance::{Ctx, ToolError};

/// One season.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SeasonView {
    pub season: u32,
    /// The media servers that have it, each with its episode numbers.
    pub on: Vec<OnServer>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct OnServer {
    pub instance_id: String,
    pub episodes: Vec<u32>,
}

/// A show and its seasons.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Show {
    pub media_source: MediaSource,
    pub media_id: String,
    /// "Bluey (2018)".
    pub title: String,
    /// How many seasons the catalogue knows, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalogue_seasons: Option<u32>,
    /// Every season the catalogue knows or a server has, in order.
    pub seasons: Vec<SeasonView>,
    /// The catalogue's seasons no media server has.
    pub missing: Vec<u32>,
    /// Servers that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Reads the show named by the pair, through its catalogue (with the caller's limits) and the
/// media servers the caller reaches.
pub(crate) async fn read(ctx: &Ctx, source: MediaSource, id: &str) -> Result<Show, ToolError> {
    let asked = title::read(
        ctx,
        Some(source),
        Some(id.to_owned()),
        MediaType::Tv,
        None,
        None,
    )
    .await?;
    let media = playable::for_caller(ctx).await;
    let on = media
        .of(
            MediaType::Tv,
            std::iter::once(&asked.id).chain(&asked.external_ids),
        )
        .unwrap_or_default();
    let mut numbers: Vec<u32> = (1..=asked.seasons.unwrap_or(0)).collect();
    for p in &on {
        numbers.extend(p.seasons.iter().flatten().map(|s: &Season| s.season));
    }
    numbers.sort_unstable();
    numbers.dedup();
    let seasons: Vec<SeasonView> = numbers
        .iter()
        .map(|&n| SeasonView {
            season: n,
            on: on
                .iter()
                .filter_map(|p| {
                    let s = p.seasons.iter().flatten().find(|s| s.season == n)?;
                    Some(OnServer {
                        instance_id: p.instance_id.clone(),
                        episodes: s.episodes.clone(),
                    })
                })
                .collect(),
        })
        .collect();
    let missing = seasons
        .iter()
        .filter(|s| s.season > 0 && s.on.is_empty())
        .map(|s| s.season)
        .collect();
    Ok(Show {
        media_source: asked.id.media_source,
        media_id: asked.id.media_id.clone(),
        title: asked.label(),
        catalogue_seasons: asked.seasons,
        seasons,
        missing,
        warnings: media.warnings().to_vec(),
    })
}
