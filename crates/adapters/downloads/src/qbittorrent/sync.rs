//! qBittorrent's `sync/maindata` (rid-based incremental updates) and its torrent fields, normalized.

use std::collections::HashMap;

use domain::InfoHash;
use serde::Deserialize;

use super::stream::{self, Staged};
use crate::{
    catalogue::state::CatalogueState,
    error::{Error, Result},
    intern::Interner,
    metainfo::host_of,
    model::{Torrent, TorrentState},
    tracker_class,
};

/// qBittorrent's "infinite" ETA.
const ETA_INFINITE: i64 = 8_640_000;

/// One answer of `sync/maindata?rid=N`. Every part is optional: a partial update holds only what changed.
#[derive(Debug, Default, Deserialize)]
pub struct MainData {
    #[serde(default)]
    pub rid: u64,
    #[serde(default)]
    pub full_update: bool,
    #[serde(default)]
    pub torrents: HashMap<String, QbTorrent>,
    #[serde(default)]
    pub torrents_removed: Vec<String>,
    #[serde(default)]
    pub categories: HashMap<String, QbCategory>,
    #[serde(default)]
    pub categories_removed: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub tags_removed: Vec<String>,
    #[serde(default)]
    pub server_state: Option<ServerState>,
    /// A full update's torrents as rows, when they were read after `full_update` (then
    /// `torrents` is empty).
    #[serde(skip)]
    pub(crate) staged: Option<Staged>,
}

impl MainData {
    /// Parses a whole answer, torrent by torrent (see `stream`).
    pub fn parse(body: &[u8]) -> Result<MainData> {
        stream::parse_slice(body)
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct QbCategory {
    #[serde(default, rename = "savePath")]
    pub save_path: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ServerState {
    pub free_space_on_disk: Option<i64>,
    pub dl_info_speed: Option<i64>,
    pub up_info_speed: Option<i64>,
}

/// A torrent's fields as `torrents/info` lists them, or the changed subset a partial update holds.
#[derive(Debug, Default, Deserialize)]
pub struct QbTorrent {
    /// Only in `torrents/info`; maindata keys torrents by hash instead.
    pub hash: Option<String>,
    pub name: Option<String>,
    pub state: Option<QbState>,
    pub progress: Option<f64>,
    pub size: Option<i64>,
    pub downloaded: Option<i64>,
    pub uploaded: Option<i64>,
    pub ratio: Option<f64>,
    pub dlspeed: Option<i64>,
    pub upspeed: Option<i64>,
    pub eta: Option<i64>,
    pub category: Option<String>,
    pub tags: Option<String>,
    pub save_path: Option<String>,
    pub added_on: Option<i64>,
    pub completion_on: Option<i64>,
    /// URL of the tracker that currently works; empty when none does.
    pub tracker: Option<String>,
    pub trackers_count: Option<i64>,
    pub num_seeds: Option<i64>,
    pub num_leechs: Option<i64>,
}

/// A torrent's state as qBittorrent spells it (4.x `paused*`, 5.x `stopped*`); any state this
/// build does not know is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QbState {
    Downloading,
    ForcedDL,
    Allocating,
    Uploading,
    StalledUP,
    ForcedUP,
    PausedDL,
    PausedUP,
    StoppedDL,
    StoppedUP,
    QueuedDL,
    QueuedUP,
    CheckingDL,
    CheckingUP,
    CheckingResumeData,
    StalledDL,
    Error,
    MissingFiles,
    MetaDL,
    ForcedMetaDL,
    Moving,
    #[serde(other)]
    Other,
}

impl From<QbState> for TorrentState {
    /// qBittorrent's states onto the closed set both clients share.
    fn from(s: QbState) -> TorrentState {
        use QbState::*;
        match s {
            Downloading | ForcedDL | Allocating => TorrentState::Downloading,
            Uploading | StalledUP | ForcedUP => TorrentState::Seeding,
            PausedDL | PausedUP | StoppedDL | StoppedUP => TorrentState::Paused,
            QueuedDL | QueuedUP => TorrentState::Queued,
            CheckingDL | CheckingUP | CheckingResumeData => TorrentState::Checking,
            StalledDL => TorrentState::Stalled,
            Error | MissingFiles => TorrentState::Error,
            MetaDL | ForcedMetaDL => TorrentState::Metadata,
            Moving => TorrentState::Moving,
            Other => TorrentState::Unknown,
        }
    }
}

fn nonneg(v: i64) -> u64 {
    v.max(0) as u64
}

impl QbTorrent {
    /// Writes the fields present onto `t`. `tracker` changes clear a stale tracker message.
    pub(crate) fn apply(&self, t: &mut Torrent, i: &mut Interner) {
        if let Some(v) = &self.name {
            t.name = v.as_str().into();
        }
        if let Some(v) = self.state {
            t.state = v.into();
        }
        if let Some(v) = self.progress {
            t.progress = v.clamp(0.0, 1.0);
        }
        if let Some(v) = self.size {
            t.size = nonneg(v);
        }
        if let Some(v) = self.downloaded {
            t.downloaded = nonneg(v);
        }
        if let Some(v) = self.uploaded {
            t.uploaded = nonneg(v);
        }
        if let Some(v) = self.ratio {
            t.ratio = if v.is_finite() {
                v.clamp(0.0, 9999.0)
            } else {
                9999.0
            };
        }
        if let Some(v) = self.dlspeed {
            t.dl_speed = nonneg(v);
        }
        if let Some(v) = self.upspeed {
            t.ul_speed = nonneg(v);
        }
        if let Some(v) = self.eta {
            t.eta = (0..ETA_INFINITE)
                .contains(&v)
                .then(|| v.min(u32::MAX as i64) as u32);
        }
        if let Some(v) = &self.category {
            t.category = i.opt(v);
        }
        if let Some(v) = &self.tags {
            t.tags = i.tags(v.split(','));
        }
        if let Some(v) = &self.save_path {
            t.save_path = i.str(v);
        }
        if let Some(v) = self.added_on {
            t.added_at = v;
        }
        if let Some(v) = self.completion_on {
            t.completed_at = (v > 0).then_some(v);
        }
        if let Some(v) = &self.tracker
            && !v.is_empty()
        {
            t.tracker = host_of(v).map(|h| i.str(&h));
            t.tracker_message = None;
            t.tracker_error = None;
        }
        if let Some(v) = self.trackers_count {
            t.trackers = v.clamp(0, u16::MAX as i64) as u16;
        }
        if let Some(v) = self.num_seeds {
            t.num_seeds = v.clamp(0, u32::MAX as i64) as u32;
        }
        if let Some(v) = self.num_leechs {
            t.num_peers = v.clamp(0, u32::MAX as i64) as u32;
        }
    }

    /// A whole row from a `torrents/info` entry.
    pub(crate) fn to_torrent(&self, i: &mut Interner) -> Result<Torrent> {
        let hash = self.hash.as_deref().unwrap_or_default();
        let hash: InfoHash = hash
            .parse()
            .map_err(|e| Error::decode("torrents/info", e))?;
        let mut t = Torrent::blank(hash, &i.empty, &i.no_tags);
        self.apply(&mut t, i);
        Ok(t)
    }
}

/// The sync position of one qBittorrent catalogue.
#[derive(Debug, Default)]
pub(crate) struct QbCursor {
    /// The `rid` of the last applied answer; 0 asks for everything.
    pub(crate) rid: u64,
    /// Torrents whose `tracker` is empty although they have trackers: none of them works.
    /// Their tracker messages are fetched a few at a time (see `catalogue`).
    pub(crate) no_working_tracker: HashMap<InfoHash, Option<std::time::Instant>>,
}

/// Applies one maindata answer. A hash that does not parse is skipped with a warning.
pub(crate) fn apply_maindata(
    state: &mut CatalogueState,
    cursor: &mut QbCursor,
    mut md: MainData,
) -> (usize, usize) {
    let mut upserted = 0;
    if md.full_update {
        state.clear_rows();
        state.categories.clear();
        state.tags.clear();
        cursor.no_working_tracker.clear();
        if let Some(staged) = md.staged.take() {
            if staged.skipped > 0 {
                tracing::warn!(
                    skipped = staged.skipped,
                    "qbittorrent sent torrent keys that are not info hashes"
                );
            }
            upserted += staged.state.rows().len();
            state.replace_rows(staged.state);
            for hash in staged.no_working_tracker {
                cursor.no_working_tracker.entry(hash).or_insert(None);
            }
        }
    }
    for (key, patch) in &md.torrents {
        let Ok(hash) = key.parse::<InfoHash>() else {
            tracing::warn!(key = %key.chars().take(64).collect::<String>(), "qbittorrent sent a torrent key that is not an info hash");
            continue;
        };
        state.upsert(hash, |t, i| patch.apply(t, i));
        if let Some(tracker) = &patch.tracker {
            if tracker.is_empty() {
                cursor.no_working_tracker.entry(hash).or_insert(None);
            } else {
                cursor.no_working_tracker.remove(&hash);
            }
        }
        upserted += 1;
    }
    let mut removed = 0;
    for key in &md.torrents_removed {
        if let Ok(hash) = key.parse::<InfoHash>() {
            removed += usize::from(state.remove(&hash));
            cursor.no_working_tracker.remove(&hash);
        }
    }
    for (name, cat) in md.categories {
        let path = cat.save_path.as_deref().and_then(|p| state.interner.opt(p));
        let name = state.interner.str(&name);
        state.categories.insert(name, path);
    }
    for name in &md.categories_removed {
        state.categories.remove(name.as_str());
    }
    for tag in &md.tags {
        let tag = state.interner.str(tag);
        state.tags.insert(tag);
    }
    for tag in &md.tags_removed {
        state.tags.remove(tag.as_str());
    }
    if let Some(s) = md.server_state {
        if let Some(v) = s.free_space_on_disk {
            state.server.free_space = Some(nonneg(v));
        }
        if let Some(v) = s.dl_info_speed {
            state.server.dl_speed = Some(nonneg(v));
        }
        if let Some(v) = s.up_info_speed {
            state.server.ul_speed = Some(nonneg(v));
        }
    }
    if md.full_update {
        state.shrink();
    }
    cursor.rid = md.rid;
    (upserted, removed)
}

/// Records what a probe of `torrents/trackers` found for one torrent.
pub(crate) fn apply_tracker_probe(
    state: &mut CatalogueState,
    hash: InfoHash,
    host: Option<String>,
    message: Option<String>,
) {
    if !state.contains(&hash) {
        return;
    }
    state.upsert(hash, |t, i| {
        if t.tracker.is_none() {
            t.tracker = host.as_deref().map(|h| i.str(h));
        }
        let message = message.as_deref().map(httpx::redact);
        t.tracker_error = message.as_deref().and_then(tracker_class::classify);
        t.tracker_message = message.as_deref().and_then(|m| i.opt(m));
    });
}

#[cfg(test)]
mod tests;
