//! Titles named as discovery names them (`media_source` + `media_id` + `media_type`), mapped to
//! what a library service can look up, and found in that service's library.

use adapters_library::{Found, LibraryItem, MediaRef};
use domain::{MediaSource, MediaType};

// Which library serves a media type is decided in `source.rs`.
use super::source::{Source, media_type_word, serves, service_of};
use governance::{ErrorCode, ToolError};

/// The sources each media type can be named by in the library services.
pub(crate) fn sources_for(mt: MediaType) -> &'static [MediaSource] {
    match mt {
        MediaType::Movie => &[MediaSource::Tmdb, MediaSource::Imdb, MediaSource::Builtin],
        MediaType::Tv => &[MediaSource::Tvdb, MediaSource::Tmdb, MediaSource::Imdb],
        MediaType::Music => &[MediaSource::Musicbrainz],
        MediaType::Book => &[MediaSource::Goodreads],
    }
}

/// Checks the pair and maps it: a builtin id is an IMDb id.
pub(crate) fn media_ref(
    source: MediaSource,
    id: &str,
    media_type: MediaType,
) -> Result<MediaRef, ToolError> {
    let id = id.trim();
    if id.is_empty() || id.len() > 64 || id.chars().any(char::is_control) {
        return Err(ToolError::invalid(
            "invalid argument \"media_id\": give the id as a discovery row showed it",
        ));
    }
    let valid = sources_for(media_type);
    if !valid.contains(&source) {
        let names: Vec<&str> = valid.iter().map(|s| s.as_str()).collect();
        return Err(ToolError::invalid(format!(
            "media_source \"{source}\" cannot name a {} title in the library; valid sources: {}",
            media_type_word(media_type),
            names.join(", ")
        )));
    }
    crate::ids::check_media_id(source, id)?;
    let source = match source {
        MediaSource::Builtin if id.starts_with("tt") => MediaSource::Imdb,
        MediaSource::Builtin => {
            return Err(ToolError::invalid(format!(
                "the builtin id \"{id}\" is not an imdb id; name the movie by tmdb or imdb"
            )));
        }
        other => other,
    };
    Ok(MediaRef {
        source,
        id: id.to_string(),
        media_type,
    })
}

/// The title through the service's own lookup (held or not).
pub(crate) async fn find(source: &Source, media: &MediaRef) -> Result<Found, ToolError> {
    serves(source, media.media_type)?;
    let client = source.client()?;
    debug_assert!(service_of(source.kind).is_some());
    client.find(media).await.map_err(|e| source.error(e))
}

/// The title as the library holds it; not held is `not_found` with what to do.
pub(crate) async fn held(source: &Source, media: &MediaRef) -> Result<LibraryItem, ToolError> {
    let found = find(source, media).await?;
    let Some(id) = found.library_id else {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "{} ({}:{}) is not in the library of {}; request it with request_media",
                found.title, media.source, media.id, source.id
            ),
        ));
    };
    source.client()?.item(id).await.map_err(|e| source.error(e))
}
