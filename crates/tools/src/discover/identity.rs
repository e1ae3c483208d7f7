//! Media identity at the tool edge: `media_source` and `media_id` arrive as two fields and are
//! only ever accepted together; a source that cannot name the asked media type is refused with
//! the sources that can; and each source maps to the catalogue kinds that answer its ids.

use domain::{InstanceKind, MediaId, MediaSource, MediaType};
use schemars::JsonSchema;
use serde::Deserialize;

use governance::ErrorCode;
use governance::contract::ToolError;

/// Movie or TV show: what title tools and requests take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TitleType {
    Movie,
    Tv,
}

impl TitleType {
    pub fn media_type(self) -> MediaType {
        match self {
            TitleType::Movie => MediaType::Movie,
            TitleType::Tv => MediaType::Tv,
        }
    }
}

/// Movie, TV or both: what searches and trending lists cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TitleScope {
    Movie,
    Tv,
    Any,
}

impl TitleScope {
    pub fn kind(self) -> adapters_catalogue::TitleKind {
        match self {
            TitleScope::Movie => adapters_catalogue::TitleKind::Movie,
            TitleScope::Tv => adapters_catalogue::TitleKind::Tv,
            TitleScope::Any => adapters_catalogue::TitleKind::Any,
        }
    }
}

/// The pair, required: one without the other (or neither) is refused naming both.
pub(crate) fn required(
    source: Option<MediaSource>,
    id: Option<String>,
) -> Result<MediaId, ToolError> {
    optional(source, id)?.ok_or_else(|| {
        ToolError::invalid(
            "media_source and media_id are required, together (e.g. media_source \"tmdb\" with media_id \"603\"); the discovery tools return both on every row",
        )
    })
}

/// The pair, optional: both or neither.
pub(crate) fn optional(
    source: Option<MediaSource>,
    id: Option<String>,
) -> Result<Option<MediaId>, ToolError> {
    match (source, id) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(ToolError::invalid(
            "media_source and media_id go together: media_id is missing",
        )),
        (None, Some(_)) => Err(ToolError::invalid(
            "media_source and media_id go together: media_source is missing",
        )),
        (Some(source), Some(id)) => {
            let id = id.trim();
            if id.is_empty() {
                return Err(ToolError::invalid("media_id is empty"));
            }
            crate::ids::check_media_id(source, id)?;
            Ok(Some(MediaId::new(source, id)))
        }
    }
}

/// The sources whose ids can name a title of this media type.
fn sources_for(media_type: MediaType) -> &'static [MediaSource] {
    match media_type {
        MediaType::Movie => &[
            MediaSource::Tmdb,
            MediaSource::Imdb,
            MediaSource::Builtin,
            MediaSource::Tvdb,
            MediaSource::Anilist,
            MediaSource::Myanimelist,
        ],
        MediaType::Tv => &[
            MediaSource::Tmdb,
            MediaSource::Tvdb,
            MediaSource::Anilist,
            MediaSource::Myanimelist,
        ],
        MediaType::Music => &[MediaSource::Musicbrainz, MediaSource::Lrclib],
        MediaType::Book => &[],
    }
}

fn type_name(media_type: MediaType) -> &'static str {
    match media_type {
        MediaType::Movie => "movie",
        MediaType::Tv => "tv",
        MediaType::Music => "music",
        MediaType::Book => "book",
    }
}

/// Refuses a source that cannot name this media type, listing the ones that can.
pub(crate) fn check_type(id: &MediaId, media_type: MediaType) -> Result<(), ToolError> {
    let able = sources_for(media_type);
    if able.contains(&id.media_source) {
        return Ok(());
    }
    let names: Vec<&str> = able.iter().map(|s| s.as_str()).collect();
    let hint = if names.is_empty() {
        "no configured source answers it yet".to_string()
    } else {
        format!("use media_source {}", names.join(" or "))
    };
    Err(ToolError::new(
        ErrorCode::Unsupported,
        format!(
            "media_source \"{}\" cannot name a {} title here; {hint}",
            id.media_source,
            type_name(media_type)
        ),
    )
    .with_data(serde_json::json!({ "supported_sources": names })))
}

/// The catalogue kinds that answer ids of a source.
pub(crate) fn kinds_for(source: MediaSource) -> &'static [InstanceKind] {
    match source {
        MediaSource::Builtin => &[InstanceKind::Builtin],
        // TVDB maps IMDb and TMDB ids to its own records (`search/remoteid`).
        MediaSource::Imdb => &[InstanceKind::Builtin, InstanceKind::Tvdb],
        MediaSource::Tmdb => &[InstanceKind::Tmdb, InstanceKind::Tvdb],
        MediaSource::Tvdb => &[InstanceKind::Tvdb],
        // AniList reads its titles by MyAnimeList id too (`idMal`).
        MediaSource::Anilist | MediaSource::Myanimelist => &[InstanceKind::Anilist],
        MediaSource::Musicbrainz => &[InstanceKind::Musicbrainz],
        MediaSource::Lrclib => &[InstanceKind::Lrclib],
        MediaSource::Goodreads => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_are_refused_naming_both() {
        let e = required(Some(MediaSource::Tmdb), None).unwrap_err();
        assert!(e.message.contains("media_source") && e.message.contains("media_id"));
        let e = required(None, Some("603".into())).unwrap_err();
        assert!(e.message.contains("media_source") && e.message.contains("media_id"));
        let e = required(None, None).unwrap_err();
        assert!(e.message.contains("media_source") && e.message.contains("media_id"));
        assert_eq!(optional(None, None).unwrap(), None);
        let e = required(Some(MediaSource::Tmdb), Some("  ".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_source_that_cannot_name_the_type_is_refused_with_the_ones_that_can() {
        let mb = MediaId::new(MediaSource::Musicbrainz, "x");
        let e = check_type(&mb, MediaType::Movie).unwrap_err();
        assert_eq!(
            e.message,
            "media_source \"musicbrainz\" cannot name a movie title here; use media_source tmdb or imdb or builtin or tvdb or anilist or myanimelist"
        );
        let builtin = MediaId::new(MediaSource::Builtin, "tt0113277");
        assert!(check_type(&builtin, MediaType::Movie).is_ok());
        assert!(check_type(&builtin, MediaType::Tv).is_err());
    }
}
