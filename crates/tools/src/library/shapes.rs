//! The library services' nouns as the library tools answer with them: each is built from the
//! adapter's record by naming every field (a field the adapter adds or drops fails the build
//! here, so an answer and its schema cannot drift from the record), and its schema is generated
//! from the same type.

use adapters_library as lib;
use schemars::JsonSchema;
use serde::Serialize;

mod media_file;
pub(crate) use media_file::MediaFile;
mod service_config;
pub(crate) use service_config::ServiceConfig;

/// The ids a library item carries from the metadata sources.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ExternalIds {
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

impl ExternalIds {
    pub fn of(x: &lib::ExternalIds) -> Self {
        let lib::ExternalIds {
            tmdb,
            imdb,
            tvdb,
            musicbrainz,
            book_source,
        } = x;
        ExternalIds {
            tmdb: tmdb.clone(),
            imdb: imdb.clone(),
            tvdb: tvdb.clone(),
            musicbrainz: musicbrainz.clone(),
            book_source: book_source.clone(),
        }
    }
}

/// One season of a series as the service holds it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Season {
    pub season: u32,
    pub monitored: bool,
    pub episodes_with_files: u32,
    pub episodes: u32,
}

impl Season {
    pub fn of(x: &lib::Season) -> Self {
        let lib::Season {
            season,
            monitored,
            episodes_with_files,
            episodes,
        } = x;
        Season {
            season: *season,
            monitored: *monitored,
            episodes_with_files: *episodes_with_files,
            episodes: *episodes,
        }
    }
}

/// One item of the library: a movie, series, artist, album, author or book.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Item {
    pub id: i64,
    /// movie, series, artist, album, author or book.
    #[schemars(with = "String")]
    pub kind: lib::ItemKind,
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

impl Item {
    pub fn of(x: &lib::LibraryItem) -> Self {
        let lib::LibraryItem {
            id,
            kind,
            title,
            year,
            monitored,
            files_held,
            files_wanted,
            size_on_disk,
            quality_profile_id,
            path,
            added,
            ids,
            seasons,
            parent_id,
        } = x;
        Item {
            id: *id,
            kind: *kind,
            title: title.clone(),
            year: *year,
            monitored: *monitored,
            files_held: *files_held,
            files_wanted: *files_wanted,
            size_on_disk: *size_on_disk,
            quality_profile_id: *quality_profile_id,
            path: path.clone(),
            added: added.clone(),
            ids: ExternalIds::of(ids),
            seasons: seasons.iter().map(Season::of).collect(),
            parent_id: *parent_id,
        }
    }
}

/// One download the service tracks.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct QueueItem {
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
    pub messages: Vec<String>,
    pub error: Option<String>,
}

impl QueueItem {
    pub fn of(x: &lib::QueueItem) -> Self {
        let lib::QueueItem {
            id,
            title,
            status,
            tracked_state,
            tracked_status,
            item_id,
            episode_id,
            season,
            progress,
            size,
            size_left,
            time_left,
            estimated_completion,
            download_client,
            indexer,
            protocol,
            quality,
            download_id,
            // Where the download is, as the service sees it: never shown.
            output_path: _,
            messages,
            error,
        } = x;
        QueueItem {
            id: *id,
            title: title.clone(),
            status: status.clone(),
            tracked_state: tracked_state.clone(),
            tracked_status: tracked_status.clone(),
            item_id: *item_id,
            episode_id: *episode_id,
            season: *season,
            progress: *progress,
            size: *size,
            size_left: *size_left,
            time_left: time_left.clone(),
            estimated_completion: estimated_completion.clone(),
            download_client: download_client.clone(),
            indexer: indexer.clone(),
            protocol: protocol.clone(),
            quality: quality.clone(),
            download_id: download_id.clone(),
            messages: messages.clone(),
            error: error.clone(),
        }
    }
}

/// One history event.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct HistoryEvent {
    pub id: i64,
    pub date: Option<String>,
    pub event: String,
    pub source_title: Option<String>,
    pub item_id: Option<i64>,
    pub episode_id: Option<i64>,
    pub quality: Option<String>,
    pub download_id: Option<String>,
}

impl HistoryEvent {
    pub fn of(x: &lib::HistoryEvent) -> Self {
        let lib::HistoryEvent {
            id,
            date,
            event,
            source_title,
            item_id,
            episode_id,
            quality,
            download_id,
        } = x;
        HistoryEvent {
            id: *id,
            date: date.clone(),
            event: event.clone(),
            source_title: source_title.clone(),
            item_id: *item_id,
            episode_id: *episode_id,
            quality: quality.clone(),
            download_id: download_id.clone(),
        }
    }
}

/// One health check the service reports.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Health {
    pub source: Option<String>,
    /// ok, notice, warning, error.
    pub level: String,
    pub message: String,
}

impl Health {
    pub fn of(x: &lib::Health) -> Self {
        let lib::Health {
            source,
            level,
            message,
        } = x;
        Health {
            source: source.clone(),
            level: level.clone(),
            message: message.clone(),
        }
    }
}

/// One disk the service sees.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Disk {
    pub path: String,
    pub label: Option<String>,
    pub free_bytes: i64,
    pub total_bytes: i64,
}

impl Disk {
    pub fn of(x: &lib::Disk) -> Self {
        let lib::Disk {
            path,
            label,
            free_bytes,
            total_bytes,
        } = x;
        Disk {
            path: path.clone(),
            label: label.clone(),
            free_bytes: *free_bytes,
            total_bytes: *total_bytes,
        }
    }
}

/// A quality (or metadata) profile.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Profile {
    pub id: i64,
    pub name: String,
    pub upgrade_allowed: Option<bool>,
    pub cutoff: Option<String>,
    /// Qualities the profile accepts, by name.
    pub allowed: Vec<String>,
    pub min_format_score: Option<i64>,
}

impl Profile {
    pub fn of(x: &lib::Profile) -> Self {
        let lib::Profile {
            id,
            name,
            upgrade_allowed,
            cutoff,
            allowed,
            min_format_score,
        } = x;
        Profile {
            id: *id,
            name: name.clone(),
            upgrade_allowed: *upgrade_allowed,
            cutoff: cutoff.clone(),
            allowed: allowed.clone(),
            min_format_score: *min_format_score,
        }
    }
}

/// A custom format.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CustomFormat {
    pub id: i64,
    pub name: String,
    /// Each specification's name and kind ("ReleaseTitleSpecification").
    pub specifications: Vec<String>,
}

impl CustomFormat {
    pub fn of(x: &lib::CustomFormat) -> Self {
        let lib::CustomFormat {
            id,
            name,
            specifications,
        } = x;
        CustomFormat {
            id: *id,
            name: name.clone(),
            specifications: specifications.clone(),
        }
    }
}

/// A command the service runs (a search, a rescan) and where it stands.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Command {
    pub id: i64,
    pub name: String,
    /// queued, started, completed, failed, aborted, cancelled, orphaned.
    pub status: String,
    pub message: Option<String>,
    pub queued: Option<String>,
    pub ended: Option<String>,
}

impl Command {
    pub fn of(x: &lib::Command) -> Self {
        let lib::Command {
            id,
            name,
            status,
            message,
            queued,
            ended,
        } = x;
        Command {
            id: *id,
            name: name.clone(),
            status: status.clone(),
            message: message.clone(),
            queued: queued.clone(),
            ended: ended.clone(),
        }
    }
}

/// One calendar entry: a movie release or an episode air date.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CalendarEntry {
    pub item_id: Option<i64>,
    pub title: String,
    pub date: Option<String>,
    pub season: Option<i64>,
    pub episode: Option<i64>,
    pub has_file: bool,
    pub monitored: bool,
}

impl CalendarEntry {
    pub fn of(x: &lib::CalendarEntry) -> Self {
        let lib::CalendarEntry {
            item_id,
            title,
            date,
            season,
            episode,
            has_file,
            monitored,
        } = x;
        CalendarEntry {
            item_id: *item_id,
            title: title.clone(),
            date: date.clone(),
            season: *season,
            episode: *episode,
            has_file: *has_file,
            monitored: *monitored,
        }
    }
}

/// A command a library write started (a search, a rescan), for the item it is about.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Commanded {
    pub instance_id: String,
    pub item_id: i64,
    pub command: Command,
}

/// An instance a merged read could not read.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Unreadable {
    pub instance_id: String,
    /// The error's code (backend_unavailable, ...).
    pub code: &'static str,
    pub error: String,
}

/// `xs` as the tool shows them.
pub(crate) fn all<X, Y>(xs: &[X], f: impl Fn(&X) -> Y) -> Vec<Y> {
    xs.iter().map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Each shape writes what the adapter's own record writes, key by key.
    #[test]
    fn each_shape_writes_the_record_as_the_adapter_does() {
        let ids = lib::ExternalIds {
            tmdb: Some("603".into()),
            imdb: None,
            tvdb: None,
            musicbrainz: None,
            book_source: Some("b".into()),
        };
        let item = lib::LibraryItem {
            id: 1,
            kind: lib::ItemKind::Series,
            title: "T".into(),
            year: Some(1999),
            monitored: true,
            files_held: 1,
            files_wanted: 2,
            size_on_disk: 3,
            quality_profile_id: None,
            path: Some("/p".into()),
            added: None,
            ids,
            seasons: vec![lib::Season {
                season: 1,
                monitored: false,
                episodes_with_files: 1,
                episodes: 2,
            }],
            parent_id: None,
        };
        let same = |a: Value, b: Value| assert_eq!(a, b);
        same(
            serde_json::to_value(Item::of(&item)).unwrap(),
            serde_json::to_value(&item).unwrap(),
        );
        let file = lib::MediaFile {
            id: 1,
            item_id: Some(2),
            relative_path: None,
            size: 5,
            date_added: Some("2024-01-01".into()),
            quality: None,
            media_info: Some(lib::MediaInfo {
                resolution: Some("1080p".into()),
                video_codec: None,
                audio_codec: None,
                audio_channels: Some(5.1),
                audio_languages: None,
                subtitles: None,
                run_time: None,
                dynamic_range: None,
                audio_streams: vec![lib::AudioStream::default()],
                subtitle_streams: vec![lib::SubtitleStream::default()],
            }),
        };
        same(
            serde_json::to_value(MediaFile::of(&file)).unwrap(),
            serde_json::to_value(&file).unwrap(),
        );
        let config = lib::ServiceConfig {
            indexers: vec![lib::ConfigEntry {
                id: 1,
                name: "i".into(),
                implementation: None,
                protocol: Some("torrent".into()),
                enabled: true,
                priority: Some(25),
            }],
            ..lib::ServiceConfig::default()
        };
        same(
            serde_json::to_value(ServiceConfig::of(&config)).unwrap(),
            serde_json::to_value(&config).unwrap(),
        );
    }
}
