//! Media identity: a title is always named by a source and an id together.

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// Where a media id comes from.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = MediaError,
    parse_err_fn = MediaError::unknown_source
)]
pub enum MediaSource {
    Builtin,
    Tmdb,
    Imdb,
    Tvdb,
    Musicbrainz,
    /// The book source Readarr's lookup answers with (`foreignBookId`: Goodreads work ids).
    Goodreads,
    /// AniList media ids (anime).
    Anilist,
    /// MyAnimeList ids: AniList maps its titles to them (`idMal`).
    Myanimelist,
    /// LRCLIB record ids (song lyrics).
    Lrclib,
}

impl MediaSource {
    /// Every source, in declaration order (the order lists and messages show).
    pub const ALL: [MediaSource; MediaSource::COUNT] =
        *MediaSource::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What kind of title an id names.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = MediaError,
    parse_err_fn = MediaError::unknown_type
)]
pub enum MediaType {
    Movie,
    Tv,
    Music,
    Book,
}

impl MediaType {
    /// Every type, in declaration order (the order lists and messages show).
    pub const ALL: [MediaType; MediaType::COUNT] =
        *MediaType::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a text names no media source or media type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MediaError {
    #[error(
        "unknown media_source \"{0}\"; valid sources: {valid}",
        valid = MediaSource::ALL.map(MediaSource::as_str).join(", ")
    )]
    UnknownSource(String),
    #[error(
        "unknown media_type \"{0}\"; valid types: {valid}",
        valid = MediaType::ALL.map(MediaType::as_str).join(", ")
    )]
    UnknownType(String),
}

impl MediaError {
    fn unknown_source(text: &str) -> MediaError {
        MediaError::UnknownSource(text.to_owned())
    }

    fn unknown_type(text: &str) -> MediaError {
        MediaError::UnknownType(text.to_owned())
    }
}

/// A title's identity: `media_source` plus `media_id`, never one without the other.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MediaId {
    pub media_source: MediaSource,
    pub media_id: String,
}

impl MediaId {
    pub fn new(media_source: MediaSource, media_id: impl Into<String>) -> MediaId {
        MediaId {
            media_source,
            media_id: media_id.into(),
        }
    }
}

impl fmt::Display for MediaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.media_source, self.media_id)
    }
}
