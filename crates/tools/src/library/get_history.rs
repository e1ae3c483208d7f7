//! `get_history`: the latest history events of the library services (grabbed, imported,
//! failed, deleted), merged; or one title's history read from its service's per-item history.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{
    count,
    source::{chosen, merged, one},
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError, contract::page_limit};

pub struct GetHistory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance (default: every library instance, or the instance of media_type's kind for a title).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// One title's history: its source, with media_id and media_type.
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// One title's history: its id, with media_source and media_type.
    #[serde(default)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// movie, tv or music; with media_source and media_id.
    #[serde(default)]
    pub media_type: Option<MediaType>,
    /// TV: only this season's history (with a title).
    #[serde(default)]
    pub season: Option<u32>,
    /// TV: only this episode's history (with season).
    #[serde(default)]
    pub episode: Option<u32>,
    /// Events per instance, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
}

/// The answer's data: one title's history, or the latest events of each instance.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum History {
    OfTitle {
        instance_id: String,
        item: Box<shapes::Item>,
        season: Option<u32>,
        episode: Option<u32>,
        /// Newest first.
        events: Vec<shapes::HistoryEvent>,
    },
    Latest {
        instances: Vec<InstanceHistory>,
        unreadable: Vec<shapes::Unreadable>,
    },
}

/// The latest events of one instance, newest first.
#[derive(Serialize, JsonSchema)]
struct InstanceHistory {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    events: Vec<shapes::HistoryEvent>,
}

impl Tool for GetHistory {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<History>);
    const META: Meta = Meta {
        name: "get_history",
        title: "Library history",
        description: "History events of the library services (grabbed, imported, download failed, file deleted or renamed) with date, release title, quality and download id. Without a title: the latest events of every instance. With media_source + media_id + media_type: that title's own history, read from the service's per-item history; for a series, season (and episode) narrow it to one season or one episode.",
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
        let limit = page_limit(input.limit)?;
        if input.episode.is_some() && input.season.is_none() {
            return Err(ToolError::invalid("give season with episode"));
        }
        if input.season.is_some()
            && (input.media_type != Some(MediaType::Tv) || input.media_id.is_none())
        {
            return Err(ToolError::invalid(
                "season and episode narrow one tv title's history: give media_source, media_id and media_type tv with them",
            ));
        }
        match (
            input.media_source,
            input.media_id.as_deref(),
            input.media_type,
        ) {
            (None, None, None) => {}
            (Some(source), Some(id), Some(mt)) => {
                let media = media_ref(source, id, mt)?;
                let src = one(ctx, input.instance_id.as_deref(), Some(mt))?;
                let item = held(src, &media).await?;
                let client = src.client()?;
                let mut events = match input.season {
                    None => client.item_history(&item).await,
                    Some(season) => {
                        let episode = episode_of(src, &item, season, input.episode).await?;
                        client.episode_history(item.id, season, episode).await
                    }
                }
                .map_err(|e| src.error(e))?;
                events.truncate(limit as usize);
                let scope = match (input.season, input.episode) {
                    (Some(s), Some(e)) => format!(" season {s} episode {e}"),
                    (Some(s), None) => format!(" season {s}"),
                    _ => String::new(),
                };
                return crate::typed::output(
                    format!(
                        "{} for {}{scope} in {}.",
                        count(events.len(), "history event", "history events"),
                        item.title,
                        src.id
                    ),
                    &History::OfTitle {
                        instance_id: src.id.clone(),
                        item: Box::new(shapes::Item::of(&item)),
                        season: input.season,
                        episode: input.episode,
                        events: shapes::all(&events, shapes::HistoryEvent::of),
                    },
                );
            }
            _ => {
                return Err(ToolError::invalid(
                    "name a title with media_source, media_id and media_type together, or none of them for the latest events",
                ));
            }
        }
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let m = merged(ctx, sources, |c| c.history(limit)).await;
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let n: usize = m.read.iter().map(|(_, v)| v.len()).sum();
        let instances: Vec<_> = m
            .read
            .iter()
            .map(|(s, events)| InstanceHistory {
                instance_id: s.id.clone(),
                kind: s.kind,
                events: shapes::all(events, shapes::HistoryEvent::of),
            })
            .collect();
        let mut out = crate::typed::output(
            format!(
                "{} from {}.",
                count(n, "history event", "history events"),
                count(m.read.len(), "instance", "instances")
            ),
            &History::Latest {
                instances,
                unreadable: m.failed_data(),
            },
        )?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// Checks that the series has `season` and, when one is named, finds the episode's id.
async fn episode_of(
    src: &super::source::Source,
    item: &adapters_library::LibraryItem,
    season: u32,
    episode: Option<u32>,
) -> Result<Option<i64>, ToolError> {
    if !item.seasons.iter().any(|s| s.season == season) {
        let valid: Vec<String> = item.seasons.iter().map(|s| s.season.to_string()).collect();
        return Err(ToolError::invalid(format!(
            "{} has no season {season}; its seasons: {}",
            item.title,
            valid.join(", ")
        )));
    }
    let Some(number) = episode else {
        return Ok(None);
    };
    let episodes = src
        .client()?
        .episodes(item.id, Some(season))
        .await
        .map_err(|e| src.error(e))?;
    match episodes.iter().find(|e| e.episode == i64::from(number)) {
        Some(e) => Ok(Some(e.id)),
        None => {
            let valid: Vec<String> = episodes.iter().map(|e| e.episode.to_string()).collect();
            Err(ToolError::invalid(format!(
                "{} season {season} has no episode {number}; its episodes: {}",
                item.title,
                if valid.is_empty() {
                    "none".to_string()
                } else {
                    valid.join(", ")
                }
            )))
        }
    }
}
