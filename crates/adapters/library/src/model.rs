//! What the adapters answer with: the services' shared nouns in one shape, vendor JSON left
//! behind in the service modules.

use domain::{MediaSource, MediaType};
use serde::Serialize;

/// Which service an instance runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    Radarr,
    Sonarr,
    Lidarr,
    Readarr,
}

impl Service {
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Radarr => "radarr",
            Service::Sonarr => "sonarr",
            Service::Lidarr => "lidarr",
            Service::Readarr => "readarr",
        }
    }

    /// The media type this service holds.
    pub fn media_type(self) -> MediaType {
        match self {
            Service::Radarr => MediaType::Movie,
            Service::Sonarr => MediaType::Tv,
            Service::Lidarr => MediaType::Music,
            Service::Readarr => MediaType::Book,
        }
    }

    pub(crate) fn api(self) -> crate::core::Root {
        use crate::core::Root;
        match self {
            Service::Radarr => Root::Fixed("/api/v3"),
            Service::Sonarr => Root::Sonarr(tokio::sync::OnceCell::new()),
            Service::Lidarr | Service::Readarr => Root::Fixed("/api/v1"),
        }
    }
}

/// A title as discovery names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaRef {
    pub source: MediaSource,
    pub id: String,
    pub media_type: MediaType,
}

/// What a library item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Movie,
    Series,
    Artist,
    Album,
    Author,
    Book,
}

/// The ids a library item carries from the metadata sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExternalIds {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmdb: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imdb: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tvdb: Option<String>,
    /// MusicBrainz release group (album) or artist id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub musicbrainz: Option<String>,
    /// The book source's id (Readarr's `foreignBookId` / `foreignAuthorId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub book_source: Option<String>,
}

/// One season of a series as the service holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Season {
    pub season: u32,
    pub monitored: bool,
    pub episodes_with_files: u32,
    pub episodes: u32,
}

/// One item of the library: a movie, series, artist, album, author or book.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LibraryItem {
    pub id: i64,
    pub kind: ItemKind,
    pub title: String,
    pub year: Option<i64>,
    pub monitored: bool,
    /// Files held of files wanted (1 of 1 for a downloaded movie; episodes, tracks, books).
    pub files_held: u32,
    pub files_wanted: u32,
    pub size_on_disk: u64,
    pub quality_profile_id: Option<i64>,
    pub path: Option<String>,
    pub added: Option<String>,
    pub ids: ExternalIds,
    /// Series only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<Season>,
    /// An album's artist or a book's author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<i64>,
}

impl LibraryItem {
    /// Held completely: every wanted file is on disk.
    pub fn available(&self) -> bool {
        self.files_wanted > 0 && self.files_held >= self.files_wanted
    }
}

/// One download the service tracks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueItem {
    pub id: i64,
    pub title: String,
    /// queued, paused, downloading, completed, failed, warning, delay, ...
    pub status: String,
    /// downloading, importBlocked, importPending, importing, imported, failedPending, failed, ignored.
    pub tracked_state: Option<String>,
    /// ok, warning, error.
    pub tracked_status: Option<String>,
    /// The movie, series, album or book it is for.
    pub item_id: Option<i64>,
    pub episode_id: Option<i64>,
    pub season: Option<i64>,
    /// 0 to 100.
    pub progress: f64,
    pub size: f64,
    pub size_left: f64,
    pub time_left: Option<String>,
    pub estimated_completion: Option<String>,
    pub download_client: Option<String>,
    pub indexer: Option<String>,
    pub protocol: Option<String>,
    pub quality: Option<String>,
    /// The download client's id (a torrent's info hash).
    pub download_id: Option<String>,
    /// Where the download is, as the service sees it: what confines a manual import's folder.
    /// Not shown to callers.
    #[serde(skip)]
    pub output_path: Option<String>,
    pub messages: Vec<String>,
    pub error: Option<String>,
}

/// One history event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryEvent {
    pub id: i64,
    pub date: Option<String>,
    pub event: String,
    pub source_title: Option<String>,
    pub item_id: Option<i64>,
    pub episode_id: Option<i64>,
    pub quality: Option<String>,
    pub download_id: Option<String>,
}

/// One health check the service reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Health {
    pub source: Option<String>,
    /// ok, notice, warning, error.
    pub level: String,
    pub message: String,
}

/// One disk the service sees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disk {
    pub path: String,
    pub label: Option<String>,
    pub free_bytes: i64,
    pub total_bytes: i64,
}

/// A quality (or metadata) profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    pub id: i64,
    pub name: String,
    pub upgrade_allowed: Option<bool>,
    pub cutoff: Option<String>,
    /// Qualities the profile accepts, by name.
    pub allowed: Vec<String>,
    pub min_format_score: Option<i64>,
}

/// A custom format.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CustomFormat {
    pub id: i64,
    pub name: String,
    /// Each specification's name and kind ("ReleaseTitleSpecification").
    pub specifications: Vec<String>,
}

/// A root folder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RootFolder {
    pub id: i64,
    pub path: String,
    pub accessible: Option<bool>,
    pub free_bytes: Option<i64>,
}

/// A tag.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tag {
    pub id: i64,
    pub label: String,
}

/// A command the service runs (a search, a rescan) and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Command {
    pub id: i64,
    pub name: String,
    /// queued, started, completed, failed, aborted, cancelled, orphaned.
    pub status: String,
    pub message: Option<String>,
    pub queued: Option<String>,
    pub ended: Option<String>,
}

/// One calendar entry: a movie release or an episode air date.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalendarEntry {
    pub item_id: Option<i64>,
    pub title: String,
    pub date: Option<String>,
    pub season: Option<i64>,
    pub episode: Option<i64>,
    pub has_file: bool,
    pub monitored: bool,
}

/// One episode of a season.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Episode {
    pub id: i64,
    pub season: i64,
    pub episode: i64,
    pub title: Option<String>,
    pub air_date_utc: Option<String>,
    pub monitored: bool,
    pub has_file: bool,
    pub episode_file_id: Option<i64>,
}

/// A media file the service holds, with what its analysis found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MediaFile {
    pub id: i64,
    pub item_id: Option<i64>,
    pub relative_path: Option<String>,
    pub size: i64,
    pub date_added: Option<String>,
    pub quality: Option<String>,
    /// None: the service has not analysed the file.
    pub media_info: Option<MediaInfo>,
}

/// What the service's analysis of a file found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MediaInfo {
    pub resolution: Option<String>,
    pub video_codec: Option<String>,
    pub audio_codec: Option<String>,
    pub audio_channels: Option<f64>,
    pub audio_languages: Option<String>,
    pub subtitles: Option<String>,
    pub run_time: Option<String>,
    pub dynamic_range: Option<String>,
    /// Every audio stream. Sonarr v5 describes each (codec, channels, bitrate, title); the
    /// others list only each stream's language, and describe the main stream in the fields above.
    pub audio_streams: Vec<AudioStream>,
    /// Every subtitle stream: its language, and in Sonarr v5 its format and whether it is forced
    /// or for the hearing impaired.
    pub subtitle_streams: Vec<SubtitleStream>,
}

/// One audio stream of a file; what the service did not say is `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AudioStream {
    pub language: Option<String>,
    pub codec: Option<String>,
    pub channels: Option<f64>,
    pub bitrate: Option<i64>,
    pub title: Option<String>,
}

/// One subtitle stream of a file; what the service did not say is `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SubtitleStream {
    pub language: Option<String>,
    pub format: Option<String>,
    pub title: Option<String>,
    pub forced: Option<bool>,
    pub hearing_impaired: Option<bool>,
}

/// A title found by the service's own lookup, ready to be added.
#[derive(Clone, Debug)]
pub struct Found {
    pub title: String,
    pub year: Option<i64>,
    pub ids: ExternalIds,
    /// Already in the library: its id there.
    pub library_id: Option<i64>,
    /// Genres (or tags) the service's metadata gives; empty where it gives none.
    pub genres: Vec<String>,
    /// The lookup's answer (redacted), sent back when adding.
    pub(crate) raw: serde_json::Value,
}

/// How to add a title.
#[derive(Clone, Debug)]
pub struct AddOptions {
    pub quality_profile_id: i64,
    pub root_folder_path: String,
    /// Series: the seasons to monitor (every other season is unmonitored).
    pub seasons: Vec<u32>,
    /// Lidarr and Readarr: the metadata profile for the artist or author.
    pub metadata_profile_id: Option<i64>,
}

/// What a search covers.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchTarget {
    Movie(i64),
    Series(i64),
    Season { series_id: i64, season: u32 },
    Episodes(Vec<i64>),
    Album(i64),
    Book(i64),
}

/// The secret-free settings `get_service_config` shows, each list bounded.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ServiceConfig {
    pub indexers: Vec<ConfigEntry>,
    pub download_clients: Vec<ConfigEntry>,
    pub delay_profiles: Vec<serde_json::Value>,
    pub release_profiles: Vec<serde_json::Value>,
    pub remote_path_mappings: Vec<serde_json::Value>,
    /// Lists cut at the bound.
    pub truncated: bool,
}

/// An indexer or download client: what it is and whether it is on, never its settings.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigEntry {
    pub id: i64,
    pub name: String,
    pub implementation: Option<String>,
    pub protocol: Option<String>,
    pub enabled: bool,
    pub priority: Option<i64>,
}
