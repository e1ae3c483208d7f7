//! Media identity: a title is always named by a source and an id together.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

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
)]
#[serde(rename_all = "lowercase")]
pub enum MediaSource {
    Builtin,
    Tmdb,
    Imdb,
    Tvdb,
    Musicbrainz,
    /// The book source Readarr's lookup answers with (`foreignBookId`: Goodreads work ids).
    Goodreads,
}

impl MediaSource {
    pub const ALL: [MediaSource; 6] = [
        MediaSource::Builtin,
        MediaSource::Tmdb,
        MediaSource::Imdb,
        MediaSource::Tvdb,
        MediaSource::Musicbrainz,
        MediaSource::Goodreads,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MediaSource::Builtin => "builtin",
            MediaSource::Tmdb => "tmdb",
            MediaSource::Imdb => "imdb",
            MediaSource::Tvdb => "tvdb",
            MediaSource::Musicbrainz => "musicbrainz",
            MediaSource::Goodreads => "goodreads",
        }
    }
}

impl fmt::Display for MediaSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MediaSource {
    type Err = String;
    fn from_str(s: &str) -> Result<MediaSource, String> {
        MediaSource::ALL.into_iter().find(|m| m.as_str() == s).ok_or_else(|| {
            format!("unknown media_source \"{s}\"; valid sources: builtin, tmdb, imdb, tvdb, musicbrainz, goodreads")
        })
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
)]
#[serde(rename_all = "lowercase")]
pub enum MediaType {
    Movie,
    Tv,
    Music,
    Book,
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
