//! Library repair: interactive release search and grab by reference, and queue
//! clean-up. The scope of a search is resolved the same way for searching and for grabbing, so a
//! reference found in one scope or instance can never match in another.

mod client;
pub(super) mod diagnose_queue;
pub(super) mod execute_manual_import;
pub(super) mod get_manual_import_candidates;
pub(super) mod grab_release;
mod refs;
pub(super) mod remove_queue_item;
pub(super) mod search_releases;
mod verdict;

use adapters_library::{LibraryItem, ReleaseScope};
use domain::{MediaSource, MediaType};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    source::{Source, media_type_word, one, serves},
    title::{held, media_ref, sources_for},
};
use governance::{Ctx, ErrorCode, ToolError};

/// One exact scope, as search_releases and grab_release take it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The library instance (default: the instance of media_type's kind).
    #[serde(default)]
    pub instance_id: Option<String>,
    /// As a discovery row gave it (required for movie, tv and music; left out for a book).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The title's id within media_source; for a book, the book_source_id search_books shows.
    pub media_id: String,
    /// movie, tv, music (an album) or book.
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
    let book = scope.media_type == MediaType::Book;
    let media = match (scope.media_source, book) {
        (Some(_), true) => {
            return Err(ToolError::invalid(
                "a book is named by the book_source_id search_books shows, as media_id, without media_source",
            ));
        }
        (None, true) => None,
        (Some(s), false) => Some(media_ref(s, &scope.media_id, scope.media_type)?),
        (None, false) => {
            let names: Vec<&str> = sources_for(scope.media_type)
                .iter()
                .map(|s| s.as_str())
                .collect();
            return Err(ToolError::invalid(format!(
                "media_source is required for a {} title; valid sources: {}",
                media_type_word(scope.media_type),
                names.join(", ")
            )));
        }
    };
    let source = one(ctx, scope.instance_id.as_deref(), Some(scope.media_type))?;
    let item = match &media {
        Some(media) => held(source, media).await?,
        None => held_book(source, &scope.media_id).await?,
    };
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

/// The book of `source`'s library whose book source id is `id`; not held is `not_found` with
/// what to do.
async fn held_book(source: &Source, id: &str) -> Result<LibraryItem, ToolError> {
    let id = id.trim();
    if id.is_empty() || id.len() > 64 || id.chars().any(char::is_control) {
        return Err(ToolError::invalid(
            "invalid argument \"media_id\": give the book_source_id as search_books showed it",
        ));
    }
    serves(source, MediaType::Book)?;
    let client = source.client()?;
    client
        .held_book(id)
        .await
        .map_err(|e| source.error(e))?
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no book with book_source_id {id} is in the library of {}; search_books finds books and says which are in the library",
                    source.id
                ),
            )
        })
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
