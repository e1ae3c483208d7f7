//! The music part of the catalogue model: searches and rows of artists, release groups and recordings.

use domain::{MediaId, MediaType};
use serde::Serialize;

use super::Certification;

/// What a music search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MusicKind {
    Artist,
    ReleaseGroup,
    Recording,
}

/// A release group's primary type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReleaseType {
    Album,
    Ep,
    Single,
}

impl ReleaseType {
    /// MusicBrainz's search field value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseType::Album => "album",
            ReleaseType::Ep => "ep",
            ReleaseType::Single => "single",
        }
    }
}

/// A music search.
#[derive(Clone, Debug, PartialEq)]
pub struct MusicSearch {
    pub kind: MusicKind,
    pub query: String,
    /// Release groups only.
    pub release_type: Option<ReleaseType>,
    /// 1-based; pages of 25.
    pub page: u32,
}

/// One artist, release group or recording.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MusicItem {
    /// `musicbrainz` + MBID.
    pub id: MediaId,
    pub kind: MusicKind,
    /// Always `Music`.
    pub media_type: MediaType,
    /// The artist's name, or the release group's or recording's title.
    pub title: String,
    /// The credited artist (release groups, recordings).
    pub artist: Option<String>,
    /// The album a recording is on, when the source says (LRCLIB).
    pub album: Option<String>,
    pub year: Option<i32>,
    /// MusicBrainz has no rating system: always `Unrated { region: None }`.
    pub certification: Certification,
    /// Genres (lookups) or folksonomy tags (searches), as MusicBrainz spells them.
    pub genres: Vec<String>,
    /// "Album", "EP", "Single" (release groups); "Person", "Group" (artists).
    pub type_name: Option<String>,
    pub disambiguation: Option<String>,
    pub country: Option<String>,
    /// Recordings only.
    pub length_ms: Option<u64>,
    /// Search relevance 0-100 (searches only).
    pub score: Option<u8>,
}

/// Which song's lyrics: a record of the lyrics source, or a song named by its track and artist
/// (album and duration narrow it, as LRCLIB's exact lookup wants them).
#[derive(Clone, Debug, PartialEq)]
pub enum LyricsQuery {
    Id(MediaId),
    Song {
        track: String,
        artist: String,
        album: Option<String>,
        /// Seconds; a record within two seconds of it matches.
        duration: Option<f64>,
    },
}

/// A song's lyrics as the source holds them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lyrics {
    /// `lrclib` + its record id.
    pub id: MediaId,
    pub track: String,
    pub artist: String,
    pub album: Option<String>,
    /// Seconds.
    pub duration: Option<f64>,
    /// The song has no words.
    pub instrumental: bool,
    /// The words, line by line.
    pub plain: Option<String>,
    /// The words with LRC time stamps ("[00:12.30] …"), when the source has them.
    pub synced: Option<String>,
}
