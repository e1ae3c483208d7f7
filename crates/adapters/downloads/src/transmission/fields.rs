//! Transmission's torrent fields (3.x camelCase, 4.1+ snake_case aliases) and their normalization.

use domain::InfoHash;
use serde::Deserialize;

use crate::{
    error::{Error, Result},
    intern::Interner,
    metainfo::host_of,
    model::{Torrent, TorrentState},
    tracker_class,
};

/// The fields every listing asks for. Unknown names are ignored by the daemon, so the list
/// works on 2.9x (no `labels`), 3.x and 4.x alike.
pub(crate) const LIST_FIELDS: &[&str] = &[
    "id",
    "hashString",
    "name",
    "status",
    "error",
    "errorString",
    "percentDone",
    "sizeWhenDone",
    "downloadedEver",
    "uploadedEver",
    "uploadRatio",
    "rateDownload",
    "rateUpload",
    "eta",
    "labels",
    "downloadDir",
    "addedDate",
    "doneDate",
    "trackers",
    "peersSendingToUs",
    "peersGettingFromUs",
    "isStalled",
    "metadataPercentComplete",
];

/// Transmission's `uploadRatio` sentinels.
const RATIO_NA: f64 = -1.0;
const RATIO_INF: f64 = -2.0;

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TrTorrent {
    pub id: Option<i64>,
    #[serde(rename = "hashString", alias = "hash_string")]
    pub hash_string: Option<String>,
    pub name: Option<String>,
    pub status: Option<i64>,
    /// 0 ok, 1 tracker warning, 2 tracker error, 3 local error.
    pub error: Option<i64>,
    #[serde(rename = "errorString", alias = "error_string")]
    pub error_string: Option<String>,
    #[serde(rename = "percentDone", alias = "percent_done")]
    pub percent_done: Option<f64>,
    #[serde(rename = "sizeWhenDone", alias = "size_when_done")]
    pub size_when_done: Option<i64>,
    #[serde(rename = "downloadedEver", alias = "downloaded_ever")]
    pub downloaded_ever: Option<i64>,
    #[serde(rename = "uploadedEver", alias = "uploaded_ever")]
    pub uploaded_ever: Option<i64>,
    #[serde(rename = "uploadRatio", alias = "upload_ratio")]
    pub upload_ratio: Option<f64>,
    #[serde(rename = "rateDownload", alias = "rate_download")]
    pub rate_download: Option<i64>,
    #[serde(rename = "rateUpload", alias = "rate_upload")]
    pub rate_upload: Option<i64>,
    pub eta: Option<i64>,
    pub labels: Option<Vec<String>>,
    #[serde(rename = "downloadDir", alias = "download_dir")]
    pub download_dir: Option<String>,
    #[serde(rename = "addedDate", alias = "added_date")]
    pub added_date: Option<i64>,
    #[serde(rename = "doneDate", alias = "done_date")]
    pub done_date: Option<i64>,
    pub trackers: Option<Vec<TrTracker>>,
    #[serde(rename = "peersSendingToUs", alias = "peers_sending_to_us")]
    pub peers_sending_to_us: Option<i64>,
    #[serde(rename = "peersGettingFromUs", alias = "peers_getting_from_us")]
    pub peers_getting_from_us: Option<i64>,
    #[serde(rename = "isStalled", alias = "is_stalled")]
    pub is_stalled: Option<bool>,
    #[serde(
        rename = "metadataPercentComplete",
        alias = "metadata_percent_complete"
    )]
    pub metadata_percent_complete: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TrTracker {
    pub announce: String,
}

/// Transmission's status codes 0..=6 onto the closed set. A local error (3) wins; tracker
/// errors (1, 2) leave the state alone and show up as the tracker message instead.
pub fn map_status(status: i64, error: i64, stalled: bool, metadata: f64) -> TorrentState {
    if error == 3 {
        return TorrentState::Error;
    }
    match status {
        0 => TorrentState::Paused,
        1 | 2 => TorrentState::Checking,
        3 | 5 => TorrentState::Queued,
        4 if metadata < 1.0 => TorrentState::Metadata,
        4 if stalled => TorrentState::Stalled,
        4 => TorrentState::Downloading,
        6 => TorrentState::Seeding,
        _ => TorrentState::Unknown,
    }
}

/// The category of a torrent under this crate's Transmission convention: the last component
/// of its download folder when that folder sits directly in the session's download folder.
pub fn category_of<'a>(download_dir: &'a str, base: &str) -> Option<&'a str> {
    let dir = download_dir.trim_end_matches('/');
    let base = base.trim_end_matches('/');
    let (parent, last) = dir.rsplit_once('/')?;
    (parent == base && !last.is_empty() && !base.is_empty()).then_some(last)
}

fn nonneg(v: Option<i64>) -> u64 {
    v.unwrap_or(0).max(0) as u64
}

impl TrTorrent {
    pub(crate) fn info_hash(&self) -> Result<InfoHash> {
        let h = self.hash_string.as_deref().unwrap_or_default();
        h.parse().map_err(|e| Error::decode("torrent-get", e))
    }

    /// The whole row. `base` is the session's download folder (for the category convention).
    pub(crate) fn to_torrent(&self, base: &str, i: &mut Interner) -> Result<Torrent> {
        let mut t = Torrent::blank(self.info_hash()?, &i.empty, &i.no_tags);
        let error = self.error.unwrap_or(0);
        t.name = self.name.as_deref().unwrap_or_default().into();
        t.state = map_status(
            self.status.unwrap_or(-1),
            error,
            self.is_stalled.unwrap_or(false),
            self.metadata_percent_complete.unwrap_or(1.0),
        );
        t.progress = self.percent_done.unwrap_or(0.0).clamp(0.0, 1.0);
        t.size = nonneg(self.size_when_done);
        t.downloaded = nonneg(self.downloaded_ever);
        t.uploaded = nonneg(self.uploaded_ever);
        t.ratio = match self.upload_ratio {
            Some(r) if r == RATIO_INF => 9999.0,
            Some(r) if r == RATIO_NA || !r.is_finite() => 0.0,
            Some(r) => r.clamp(0.0, 9999.0),
            None => 0.0,
        };
        t.dl_speed = nonneg(self.rate_download);
        t.ul_speed = nonneg(self.rate_upload);
        t.eta = self
            .eta
            .filter(|&e| e >= 0)
            .map(|e| e.min(u32::MAX as i64) as u32);
        let dir = self.download_dir.as_deref().unwrap_or_default();
        t.category = category_of(dir, base).map(|c| i.str(c));
        t.save_path = i.str(dir);
        t.tags = i.tags(self.labels.iter().flatten().map(String::as_str));
        t.added_at = self.added_date.unwrap_or(0);
        t.completed_at = self.done_date.filter(|&d| d > 0);
        let trackers = self.trackers.as_deref().unwrap_or_default();
        t.trackers = trackers.len().min(u16::MAX as usize) as u16;
        t.tracker = trackers
            .iter()
            .find_map(|tr| host_of(&tr.announce))
            .map(|h| i.str(&h));
        if matches!(error, 1 | 2) {
            let msg = httpx::redact(self.error_string.as_deref().unwrap_or_default().trim());
            t.tracker_error =
                tracker_class::classify(&msg).or(Some(tracker_class::TrackerErrorClass::Other));
            t.tracker_message = i.opt(&msg);
        }
        t.num_seeds = nonneg(self.peers_sending_to_us).min(u32::MAX as u64) as u32;
        t.num_peers = nonneg(self.peers_getting_from_us).min(u32::MAX as u64) as u32;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_status_codes() {
        use TorrentState::*;
        let cases = [
            ((0, 0, false, 1.0), Paused),
            ((1, 0, false, 1.0), Checking),
            ((2, 0, false, 1.0), Checking),
            ((3, 0, false, 1.0), Queued),
            ((4, 0, false, 1.0), Downloading),
            ((4, 0, true, 1.0), Stalled),
            ((4, 0, false, 0.5), Metadata),
            ((5, 0, false, 1.0), Queued),
            ((6, 0, false, 1.0), Seeding),
            ((6, 2, false, 1.0), Seeding),
            ((6, 3, false, 1.0), Error),
            ((9, 0, false, 1.0), Unknown),
        ];
        for ((s, e, st, m), want) in cases {
            assert_eq!(map_status(s, e, st, m), want, "{s} {e}");
        }
    }

    #[test]
    fn category_is_a_direct_subfolder_of_the_download_dir() {
        assert_eq!(category_of("/data/dl/movies", "/data/dl"), Some("movies"));
        assert_eq!(category_of("/data/dl/movies/", "/data/dl/"), Some("movies"));
        assert_eq!(category_of("/data/dl", "/data/dl"), None);
        assert_eq!(category_of("/data/dl/a/b", "/data/dl"), None);
        assert_eq!(category_of("/elsewhere/movies", "/data/dl"), None);
    }

    #[test]
    fn reads_snake_case_names_too() {
        let body = r#"{"hash_string":"5786608cfd105697c068b1318df4918abe05a9cc","percent_done":0.5,
            "upload_ratio":-2,"status":6,"error":2,"error_string":"Tracker gave an error: unregistered torrent",
            "download_dir":"/dl/tv","labels":["b","a"],"trackers":[{"announce":"https://t.example/abcdefabcdefabcdef12/announce"}]}"#;
        let t: TrTorrent = serde_json::from_str(body).unwrap();
        let mut i = Interner::default();
        let row = t.to_torrent("/dl", &mut i).unwrap();
        assert_eq!(row.progress, 0.5);
        assert_eq!(row.ratio, 9999.0);
        assert_eq!(row.category.as_deref(), Some("tv"));
        assert_eq!(
            row.tags.iter().map(|s| &**s).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(row.tracker.as_deref(), Some("t.example"));
        assert_eq!(
            row.tracker_error,
            Some(tracker_class::TrackerErrorClass::Unregistered)
        );
        assert_eq!(row.state, TorrentState::Seeding);
    }
}
