//! The one torrent model both clients are normalized into, and the shapes of their answers.

use std::sync::Arc;

use domain::InfoHash;
use serde::Serialize;
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::{error::Error, tracker_class::TrackerErrorClass};

/// What a torrent is doing, a small closed set both clients map into.
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
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = Error,
    parse_err_fn = unknown_state
)]
pub enum TorrentState {
    /// Transferring data down (qBittorrent `downloading`, `forcedDL`, `allocating`; Transmission 4).
    Downloading,
    /// Complete and serving (qBittorrent `uploading`, `stalledUP`, `forcedUP`; Transmission 6).
    Seeding,
    /// Stopped by someone (qBittorrent `paused*`/`stopped*`; Transmission 0).
    Paused,
    /// Waiting for a queue slot (qBittorrent `queued*`; Transmission 3 and 5).
    Queued,
    /// Verifying data (qBittorrent `checking*`; Transmission 1 and 2).
    Checking,
    /// Wants data but nobody sends any (qBittorrent `stalledDL`; Transmission 4 with `isStalled`).
    Stalled,
    /// The client reports a local error: missing files, disk full (qBittorrent `error`,
    /// `missingFiles`; Transmission `error` 3). Tracker trouble is not this: see `tracker_error`.
    Error,
    /// Fetching the metadata of a magnet link.
    Metadata,
    /// Moving data to another folder (qBittorrent `moving`).
    Moving,
    /// Anything the client reported that is not above.
    Unknown,
}

impl TorrentState {
    /// Every state, in declaration order (the order lists and messages show).
    pub const ALL: [TorrentState; TorrentState::COUNT] = *TorrentState::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

fn unknown_state(text: &str) -> Error {
    Error::invalid(format!(
        "unknown torrent state \"{text}\"; valid states: {}",
        TorrentState::ALL.map(TorrentState::as_str).join(", ")
    ))
}

/// One torrent as the catalogue holds it. Repeated strings (category, tags, save path,
/// tracker host and message) are interned per catalogue, so 100,000 rows share them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Torrent {
    pub info_hash: InfoHash,
    pub name: Arc<str>,
    pub state: TorrentState,
    /// 0.0 ..= 1.0 of the wanted data.
    pub progress: f64,
    /// Bytes wanted (selected files), as both clients show "size".
    pub size: u64,
    pub downloaded: u64,
    pub uploaded: u64,
    /// Uploaded / downloaded; 0 when unknown, 9999 when infinite (qBittorrent's own cap).
    pub ratio: f64,
    /// Bytes per second.
    pub dl_speed: u64,
    pub ul_speed: u64,
    /// Seconds to completion; `None` when unknown or infinite.
    pub eta: Option<u32>,
    /// qBittorrent's category; Transmission: see the `transmission` module for the convention.
    pub category: Option<Arc<str>>,
    /// qBittorrent tags; Transmission labels. Sorted; the whole set is shared between rows.
    pub tags: Arc<[Arc<str>]>,
    pub save_path: Arc<str>,
    /// Unix seconds.
    pub added_at: i64,
    /// Unix seconds; `None` while incomplete (or when the client forgot).
    pub completed_at: Option<i64>,
    /// Host of the current (or first) tracker, never its URL: announce URLs carry passkeys.
    pub tracker: Option<Arc<str>>,
    /// The tracker's last complaint, when there is one (redacted).
    pub tracker_message: Option<Arc<str>>,
    /// `tracker_message` classified once at refresh time, so queries filter on it cheaply.
    pub tracker_error: Option<TrackerErrorClass>,
    /// How many real trackers the torrent has (0: trackerless, DHT only).
    pub trackers: u16,
    /// Connected peers that have the whole torrent / connected peers that do not.
    pub num_seeds: u32,
    pub num_peers: u32,
}

impl Torrent {
    /// A row with nothing known but its hash, for the clients to fill in.
    pub(crate) fn blank(
        info_hash: InfoHash,
        empty: &Arc<str>,
        no_tags: &Arc<[Arc<str>]>,
    ) -> Torrent {
        Torrent {
            info_hash,
            name: empty.clone(),
            state: TorrentState::Unknown,
            progress: 0.0,
            size: 0,
            downloaded: 0,
            uploaded: 0,
            ratio: 0.0,
            dl_speed: 0,
            ul_speed: 0,
            eta: None,
            category: None,
            tags: no_tags.clone(),
            save_path: empty.clone(),
            added_at: 0,
            completed_at: None,
            tracker: None,
            tracker_message: None,
            tracker_error: None,
            trackers: 0,
            num_seeds: 0,
            num_peers: 0,
        }
    }
}

/// What `torrent_detail` adds to the row: the torrent's own metadata.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TorrentDetail {
    pub torrent: Torrent,
    pub comment: Option<String>,
    pub created_by: Option<String>,
    /// Unix seconds, from the torrent file.
    pub created_at: Option<i64>,
    pub piece_size: Option<u64>,
    pub pieces: Option<u64>,
    pub private: Option<bool>,
    /// Seconds spent seeding.
    pub seeding_time: Option<u64>,
    pub file_count: Option<u64>,
}

/// One file of a torrent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TorrentFile {
    pub index: u32,
    /// Path inside the torrent.
    pub name: String,
    pub size: u64,
    pub progress: f64,
    /// False when the file is deselected ("do not download").
    pub wanted: bool,
    pub priority: FilePriority,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilePriority {
    Skip,
    Low,
    Normal,
    High,
}

/// One tracker of a torrent. The URL is redacted: announce URLs carry passkeys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrackerEntry {
    /// Scheme, host, port and path with key-like parts replaced by `***`; no query.
    pub url: String,
    pub host: Option<String>,
    pub tier: i64,
    pub status: TrackerStatus,
    pub message: Option<String>,
    pub error_class: Option<TrackerErrorClass>,
    pub seeds: Option<i64>,
    pub leechers: Option<i64>,
    pub downloaded: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackerStatus {
    Disabled,
    NotContacted,
    Working,
    Updating,
    NotWorking,
}

/// The categories of one instance and how that instance models them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Categories {
    pub model: CategoryModel,
    pub items: Vec<Category>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CategoryModel {
    /// qBittorrent: categories are real objects; only the listed ones exist.
    Native,
    /// Transmission: a category is a sub-folder of the session's download folder. The list shows
    /// the folders torrents use now; any plain folder name is accepted and created on use.
    DownloadDirSubfolder { base: String },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Category {
    pub name: String,
    /// Where its torrents are saved, when the client says.
    pub save_path: Option<String>,
}

/// What to add.
#[derive(Clone, Debug)]
pub struct AddTorrent {
    pub source: AddSource,
    pub category: Option<String>,
    pub tags: Vec<String>,
    /// Add without starting. Hash checks are never skipped.
    pub paused: bool,
    /// The folder to save into instead of the category's or the client's default (absolute,
    /// on the client's machine). Callers check it against [`crate::DownloadClient::save_roots`].
    pub save_path: Option<String>,
}

#[derive(Clone)]
pub enum AddSource {
    /// The bytes of a .torrent file.
    File(Vec<u8>),
    /// An http(s) URL of a .torrent file, or a magnet link.
    Url(String),
}

impl std::fmt::Debug for AddSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddSource::File(b) => write!(f, "File({} bytes)", b.len()),
            // URLs of private trackers carry passkeys.
            AddSource::Url(u) => {
                write!(f, "Url({})", httpx::redact(&crate::metainfo::redact_url(u)))
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AddOutcome {
    /// Known for files and magnets before adding, for URLs when the client says.
    pub info_hash: Option<InfoHash>,
    pub status: AddStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddStatus {
    Added,
    /// The client already had this torrent; nothing was changed.
    AlreadyPresent,
}

/// The result of a write over several torrents. Hashes the client does not have are
/// never sent; they come back in `not_found`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BulkOutcome {
    pub done: Vec<InfoHash>,
    pub not_found: Vec<InfoHash>,
}

/// What a client says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClientVersion {
    /// The application version, e.g. `v4.5.2` or `3.00 (bb6b5a062e)`.
    pub app: String,
    /// The API version, e.g. `2.8.19` (qBittorrent WebAPI) or `16` (Transmission RPC).
    pub api: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    #[test]
    fn states_are_spelled_alike_in_answers_and_filters() {
        let mut names = Vec::new();
        for s in TorrentState::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(s.as_str().parse::<TorrentState>(), Ok(s));
            names.push(s.as_str());
        }
        assert_eq!(
            names.join(", "),
            "downloading, seeding, paused, queued, checking, stalled, error, metadata, moving, unknown"
        );
        assert_eq!(
            "Seeding".parse::<TorrentState>().unwrap_err().to_string(),
            "unknown torrent state \"Seeding\"; valid states: downloading, seeding, paused, queued, \
             checking, stalled, error, metadata, moving, unknown"
        );
        let classes = [
            ErrorClass::Unreachable,
            ErrorClass::NotFound,
            ErrorClass::RateLimited,
        ];
        for c in classes {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert_eq!(c.to_string(), c.as_str());
        }
        assert_eq!(
            classes.map(ErrorClass::as_str),
            ["unreachable", "not_found", "rate_limited"]
        );
    }
}
