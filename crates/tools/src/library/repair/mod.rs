//! Library repair (issue 11): interactive release search and grab by reference, and queue
//! clean-up. The scope of a search is resolved the same way for searching and for grabbing, so a
//! reference found in one scope or instance can never match in another.

mod client;
pub(super) mod diagnose_queue;
pub(super) mod execute_manual_import;
pub(super) mod get_manual_import_candidates;
pub(super) mod grab_release;
pub(super) mod remove_queue_item;
pub(super) mod search_releases;
mod verdict;

use adapters_library::ReleaseScope;
use domain::{MediaSource, MediaType};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    source::{Source, one},
    title::{held, media_ref},
};
use crate::{Ctx, ToolError};

/// One exact scope, as search_releases and grab_release take it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The library instance (default: the instance of media_type's kind).
    #[serde(default)]
    pub instance_id: Option<String>,
    /// As a discovery row gave it.
    pub media_source: MediaSource,
    /// The title's id within media_source.
    pub media_id: String,
    /// movie, tv or music (an album).
    pub media_type: MediaType,
    /// TV: the season (required for tv).
    #[serde(default)]
    pub season: Option<u32>,
    /// TV: one episode of the season.
    #[serde(default)]
    pub episode: Option<u32>,
}

/// The instance and the service's own scope of a search, and a label for people.
pub(crate) async fn resolve<'c>(
    ctx: &'c Ctx,
    scope: &Scope,
) -> Result<(&'c Source, ReleaseScope, String), ToolError> {
    let tv = scope.media_type == MediaType::Tv;
    if !tv && (scope.season.is_some() || scope.episode.is_some()) {
        return Err(ToolError::invalid("season and episode are for tv titles"));
    }
    if tv && scope.season.is_none() {
        return Err(ToolError::invalid(
            "a tv search needs a season (and optionally an episode): searching a whole series at once is not an interactive search",
        ));
    }
    let media = media_ref(scope.media_source, &scope.media_id, scope.media_type)?;
    let source = one(ctx, scope.instance_id.as_deref(), Some(scope.media_type))?;
    let item = held(source, &media).await?;
    let resolved = match (scope.media_type, scope.season, scope.episode) {
        (MediaType::Movie, _, _) => (ReleaseScope::Movie(item.id), item.title.clone()),
        (MediaType::Music, _, _) => (ReleaseScope::Album(item.id), item.title.clone()),
        (MediaType::Book, _, _) => (ReleaseScope::Book(item.id), item.title.clone()),
        (MediaType::Tv, Some(season), None) => {
            if !item.seasons.iter().any(|s| s.season == season) {
                let seasons: Vec<String> =
                    item.seasons.iter().map(|s| s.season.to_string()).collect();
                return Err(ToolError::invalid(format!(
                    "{} has no season {season}; its seasons: {}",
                    item.title,
                    seasons.join(", ")
                )));
            }
            (
                ReleaseScope::Season {
                    series_id: item.id,
                    season,
                },
                format!("{} season {season}", item.title),
            )
        }
        (MediaType::Tv, Some(season), Some(episode)) => {
            let episodes = source
                .client()?
                .episodes(item.id, Some(season))
                .await
                .map_err(|e| source.error(e))?;
            let Some(found) = episodes.iter().find(|e| e.episode == i64::from(episode)) else {
                return Err(ToolError::invalid(format!(
                    "{} has no episode {season}x{episode:02}",
                    item.title
                )));
            };
            (
                ReleaseScope::Episode(found.id),
                format!("{} {season}x{episode:02}", item.title),
            )
        }
        (MediaType::Tv, None, _) => return Err(ToolError::invalid("a tv search needs a season")),
    };
    Ok((source, resolved.0, resolved.1))
}

/// The download id of a queue item; an unknown id is refused with what to do.
pub(crate) async fn download_of(source: &Source, queue_id: i64) -> Result<String, ToolError> {
    let queue = source
        .client()?
        .queue()
        .await
        .map_err(|e| source.error(e))?;
    let item = queue.iter().find(|q| q.id == queue_id).ok_or_else(|| {
        ToolError::invalid(format!(
            "the queue of {} has no item {queue_id}; get_queue shows its items",
            source.id
        ))
    })?;
    item.download_id
        .clone()
        .filter(|d| !d.is_empty())
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "queue item {queue_id} of {} has no download id; give the folder instead",
                source.id
            ))
        })
}
