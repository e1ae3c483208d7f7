//! `trigger_search`: asks a library service to search its indexers for a movie, a series, a
//! season (optionally aired episodes only), an episode or an album. A direct, audited write.

use adapters_library::SearchTarget;
use chrono::{DateTime, Utc};
use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::shapes;
use super::{
    source::granted,
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct TriggerSearch;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// As a discovery row gave it.
    pub media_source: MediaSource,
    /// The title's id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie, tv or music (an album).
    pub media_type: MediaType,
    /// TV: search this season only.
    #[serde(default)]
    pub season: Option<u32>,
    /// TV: search this episode only (with season).
    #[serde(default)]
    pub episode: Option<u32>,
    /// TV with season: only episodes that have aired and are monitored.
    #[serde(default)]
    pub aired_only: Option<bool>,
}

impl Tool for TriggerSearch {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<shapes::Commanded>);
    const META: Meta = Meta {
        name: "trigger_search",
        title: "Search for a title",
        description: "Starts the library service's own indexer search for a title it holds: a movie (radarr), a whole series, one season (aired_only: only aired monitored episodes) or one episode (sonarr), or an album (lidarr). Answers the command id and its status; get_queue shows what it grabbed.",
        effect: Effect::ExternalCost,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(domain::AllowanceKind::Searches),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let tv = input.media_type == MediaType::Tv;
        if !tv && (input.season.is_some() || input.episode.is_some() || input.aired_only.is_some())
        {
            return Err(ToolError::invalid(
                "season, episode and aired_only are for tv titles",
            ));
        }
        if input.episode.is_some() && input.season.is_none() {
            return Err(ToolError::invalid("give season with episode"));
        }
        if input.aired_only.is_some() && (input.season.is_none() || input.episode.is_some()) {
            return Err(ToolError::invalid(
                "aired_only goes with a season (and no episode)",
            ));
        }
        let media = media_ref(input.media_source, &input.media_id, input.media_type)?;
        let (source, allowed) = granted(ctx, input.instance_id.as_deref(), Some(input.media_type))?;
        let item = held(source, &media).await?;
        let client = source.client()?;
        let (target, scope) = match (input.media_type, input.season, input.episode) {
            (MediaType::Movie, _, _) => (SearchTarget::Movie(item.id), item.title.clone()),
            (MediaType::Music, _, _) => (SearchTarget::Album(item.id), item.title.clone()),
            (MediaType::Book, _, _) => (SearchTarget::Book(item.id), item.title.clone()),
            (MediaType::Tv, None, _) => (SearchTarget::Series(item.id), item.title.clone()),
            (MediaType::Tv, Some(season), episode) => {
                if !item.seasons.iter().any(|s| s.season == season) {
                    let valid: Vec<String> =
                        item.seasons.iter().map(|s| s.season.to_string()).collect();
                    return Err(ToolError::invalid(format!(
                        "{} has no season {season}; its seasons: {}",
                        item.title,
                        valid.join(", ")
                    )));
                }
                if episode.is_none() && !input.aired_only.unwrap_or(false) {
                    (
                        SearchTarget::Season {
                            series_id: item.id,
                            season,
                        },
                        format!("{} season {season}", item.title),
                    )
                } else {
                    let now = Utc::now();
                    let episodes = client
                        .episodes(item.id, Some(season))
                        .await
                        .map_err(|e| source.error(e))?;
                    let ids: Vec<i64> = episodes
                        .iter()
                        .filter(|e| match episode {
                            Some(n) => e.episode == i64::from(n),
                            None => {
                                e.monitored
                                    && e.air_date_utc
                                        .as_deref()
                                        .and_then(|d| DateTime::parse_from_rfc3339(d).ok())
                                        .is_some_and(|d| d <= now)
                            }
                        })
                        .map(|e| e.id)
                        .collect();
                    if ids.is_empty() {
                        return Err(ToolError::invalid(match episode {
                            Some(n) => format!("{} season {season} has no episode {n}", item.title),
                            None => format!(
                                "{} season {season} has no aired monitored episode to search",
                                item.title
                            ),
                        }));
                    }
                    let what = match episode {
                        Some(n) => format!("{} S{season:02}E{n:02}", item.title),
                        None => format!(
                            "{} season {season} ({} aired episodes)",
                            item.title,
                            ids.len()
                        ),
                    };
                    (SearchTarget::Episodes(ids), what)
                }
            }
        };
        let command = source
            .writer(governance::authority::write_proof(&allowed)?)?
            .search(&target)
            .await
            .map_err(|e| source.error(e))?;
        Ok(crate::typed::output(
            format!(
                "{} is searching for {scope} (command {}, {}).",
                source.id, command.id, command.status
            ),
            &shapes::Commanded {
                instance_id: source.id.clone(),
                item_id: item.id,
                command: shapes::Command::of(&command),
            },
        )?
        .next("get_queue {} shows what the search grabbed"))
    }
}
