//! How a torrent looks in an answer: a compact row naming its instance, times as RFC 3339,
//! sizes in bytes, speeds in bytes per second.

use std::sync::Arc;

use adapters_downloads::{Torrent, TorrentState, TrackerErrorClass};
use domain::InfoHash;
use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use super::freshness::unix_rfc3339;

/// One torrent on one instance, borrowed from the catalogue and written straight to JSON.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Row<'a> {
    /// 40 hexadecimal characters.
    #[schemars(with = "String")]
    info_hash: InfoHash,
    instance_id: &'a str,
    name: &'a str,
    /// downloading, seeding, paused, ... as the catalogue names it.
    #[schemars(with = "String")]
    state: TorrentState,
    progress: f64,
    size: u64,
    ratio: f64,
    dl_speed: u64,
    ul_speed: u64,
    eta_seconds: Option<u32>,
    category: Option<&'a str>,
    #[schemars(with = "Vec<String>")]
    tags: Tags<'a>,
    added_at: Option<String>,
    tracker: Option<&'a str>,
    #[schemars(with = "Option<String>")]
    tracker_error: Option<TrackerErrorClass>,
}

impl<'a> Row<'a> {
    pub(crate) fn new(instance: &'a str, t: &'a Torrent) -> Row<'a> {
        Row {
            info_hash: t.info_hash,
            instance_id: instance,
            name: &t.name,
            state: t.state,
            progress: (t.progress * 1000.0).round() / 1000.0,
            size: t.size,
            ratio: (t.ratio * 100.0).round() / 100.0,
            dl_speed: t.dl_speed,
            ul_speed: t.ul_speed,
            eta_seconds: t.eta,
            category: t.category.as_deref(),
            tags: Tags(&t.tags),
            added_at: unix_rfc3339(t.added_at),
            tracker: t.tracker.as_deref(),
            tracker_error: t.tracker_error,
        }
    }
}

/// Interned tag names as a JSON list of strings.
struct Tags<'a>(&'a [Arc<str>]);

impl Serialize for Tags<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| &**t))
    }
}

/// One torrent with everything the catalogue knows about it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct FullRow<'a> {
    #[serde(flatten)]
    row: Row<'a>,
    downloaded: u64,
    uploaded: u64,
    save_path: &'a str,
    completed_at: Option<String>,
    tracker_message: Option<&'a str>,
    /// How many trackers it has.
    trackers: u16,
    num_seeds: u32,
    num_peers: u32,
}

/// One torrent with everything the catalogue knows about it.
pub(crate) fn full_row<'a>(instance: &'a str, t: &'a Torrent) -> FullRow<'a> {
    FullRow {
        row: Row::new(instance, t),
        downloaded: t.downloaded,
        uploaded: t.uploaded,
        save_path: &t.save_path,
        completed_at: t.completed_at.and_then(unix_rfc3339),
        tracker_message: t.tracker_message.as_deref(),
        trackers: t.trackers,
        num_seeds: t.num_seeds,
        num_peers: t.num_peers,
    }
}
