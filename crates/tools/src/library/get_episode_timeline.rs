//! `get_episode_timeline`: one season of a series, episode by episode: air date, aired or not,
//! file held, and files imported before their episode aired (often a wrong mapping) flagged.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    source::one,
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetEpisodeTimeline;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The sonarr instance (default: the default sonarr instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// tvdb, tmdb or imdb, as a discovery row gave it.
    pub media_source: MediaSource,
    /// The series' id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// The season number (0 for specials).
    pub season: u32,
}

fn parse(t: &Option<String>) -> Option<DateTime<Utc>> {
    t.as_deref()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
}

/// The answer's data: a season's episodes, each with when it aired and when its file came.
#[derive(Serialize, JsonSchema)]
struct Timeline<'a> {
    instance_id: &'a str,
    series_id: i64,
    title: &'a str,
    season: u32,
    episodes: Vec<EpisodeRow>,
}

/// One episode: when it aired, whether its file is held and when that was imported.
#[derive(Serialize, JsonSchema)]
struct EpisodeRow {
    episode: i64,
    title: Option<String>,
    air_date_utc: Option<String>,
    aired: bool,
    monitored: bool,
    has_file: bool,
    imported_at: Option<String>,
    /// The file came before the episode aired: usually mapped to the wrong episode.
    imported_before_air: bool,
}

impl Tool for GetEpisodeTimeline {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Timeline<'static>>);
    const META: Meta = Meta {
        name: "get_episode_timeline",
        title: "Episode timeline",
        description: "One season of a series in Sonarr, episode by episode: air date, whether it has aired, whether a file is held and when it was imported. A file imported before its episode aired is flagged (usually a wrong episode mapping).",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let media = media_ref(input.media_source, &input.media_id, MediaType::Tv)?;
        let source = one(ctx, input.instance_id.as_deref(), Some(MediaType::Tv))?;
        let series = held(source, &media).await?;
        if !series.seasons.iter().any(|s| s.season == input.season) {
            let valid: Vec<String> = series
                .seasons
                .iter()
                .map(|s| s.season.to_string())
                .collect();
            return Err(ToolError::invalid(format!(
                "{} has no season {}; its seasons: {}",
                series.title,
                input.season,
                valid.join(", ")
            )));
        }
        let client = source.client()?;
        let (episodes, files) = tokio::try_join!(
            client.episodes(series.id, Some(input.season)),
            client.files(series.id)
        )
        .map_err(|e| source.error(e))?;
        let imported: HashMap<i64, Option<String>> =
            files.into_iter().map(|f| (f.id, f.date_added)).collect();
        let now = Utc::now();
        let mut early = 0;
        let rows: Vec<_> = episodes
            .iter()
            .map(|e| {
                let aired_at = parse(&e.air_date_utc);
                let imported_at = e
                    .episode_file_id
                    .and_then(|id| imported.get(&id).cloned().flatten());
                let before_air = match (parse(&imported_at), aired_at) {
                    (Some(i), Some(a)) => i < a,
                    _ => false,
                };
                early += usize::from(before_air);
                EpisodeRow {
                    episode: e.episode,
                    title: e.title.clone(),
                    air_date_utc: e.air_date_utc.clone(),
                    aired: aired_at.is_some_and(|a| a <= now),
                    monitored: e.monitored,
                    has_file: e.has_file,
                    imported_at,
                    imported_before_air: before_air,
                }
            })
            .collect();
        let held_n = episodes.iter().filter(|e| e.has_file).count();
        let mut out = crate::typed::output(
            format!(
                "{} season {} in {}: {} episodes, {held_n} with files{}.",
                series.title,
                input.season,
                source.id,
                episodes.len(),
                if early > 0 {
                    format!(", {early} imported before their air date (check the episode mapping)")
                } else {
                    String::new()
                }
            ),
            &Timeline {
                instance_id: &source.id,
                series_id: series.id,
                title: &series.title,
                season: input.season,
                episodes: rows,
            },
        )?;
        if early > 0 {
            out = out.warn(
                "files imported before their episode aired are usually mapped to the wrong episode",
            );
        }
        Ok(out)
    }
}
