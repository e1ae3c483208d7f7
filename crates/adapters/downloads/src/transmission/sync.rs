//! Keeping a catalogue in step with Transmission: full `torrent-get`, then `recently-active`.
//!
//! `ids: "recently-active"` returns the torrents that changed in the daemon's last 60 seconds and
//! the ids removed in that window, so it is only used while the previous good refresh is younger
//! than [`INCREMENTAL_WINDOW`]; otherwise, and every [`FULL_EVERY`], the whole list is read again.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    time::{Duration, Instant},
};

use domain::InfoHash;
use serde_json::json;

use super::{
    api::SessionStats,
    fields::{LIST_FIELDS, TrTorrent},
    rpc::TrClient,
};
use crate::{catalogue::state::CatalogueState, error::Result};

/// Younger than Transmission's own 60-second "recently active" window, with room for a slow answer.
pub const INCREMENTAL_WINDOW: Duration = Duration::from_secs(45);
/// A full read now and then catches changes that do not count as activity (a label edit, say).
pub const FULL_EVERY: Duration = Duration::from_secs(600);

/// The sync position of one Transmission catalogue.
#[derive(Debug, Default)]
pub(crate) struct TrCursor {
    /// `removed` names torrents by their session-local numeric id, so remember which is which.
    ids: HashMap<i64, InfoHash>,
    last_ok: Option<Instant>,
    last_full: Option<Instant>,
}

/// What one refresh read, applied under the catalogue's write lock.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct TrDelta {
    pub full: bool,
    pub torrents: Vec<TrTorrent>,
    pub removed: Vec<serde_json::Value>,
    /// For a targeted refresh: the hashes asked about; those not returned are gone.
    pub asked: Option<Vec<InfoHash>>,
    pub base: Arc<str>,
    pub stats: Option<(u64, u64)>,
    pub free_space: Option<u64>,
}

impl TrCursor {
    fn wants_full(&self, now: Instant) -> bool {
        match (self.last_ok, self.last_full) {
            (Some(ok), Some(full)) => now - ok > INCREMENTAL_WINDOW || now - full > FULL_EVERY,
            _ => true,
        }
    }
}

pub(crate) async fn fetch(client: &TrClient, cursor: &TrCursor) -> Result<TrDelta> {
    let full = cursor.wants_full(Instant::now());
    let base = client.download_dir().await?;
    let ids = if full {
        serde_json::Value::Null
    } else {
        json!("recently-active")
    };
    let got = client.torrent_get(ids, LIST_FIELDS).await?;
    let mut delta = TrDelta {
        full,
        torrents: got.torrents,
        removed: got.removed,
        base,
        ..TrDelta::default()
    };
    side_figures(client, &mut delta).await;
    Ok(delta)
}

/// Torrents per `torrent-get` of a full read with progress: a request or two per thousand.
const FULL_BATCH: usize = 500;

/// Reads the whole list, in batches of [`FULL_BATCH`] ids, telling `on_read` how many torrents
/// are read so far of the total (the ids the daemon listed first). A torrent added between the
/// two steps is left to the next refresh; one removed meanwhile is simply not returned.
pub(crate) async fn fetch_full(
    client: &TrClient,
    on_read: &(dyn Fn(usize, Option<usize>) + Send + Sync),
) -> Result<TrDelta> {
    #[derive(Debug, Default, serde::Deserialize)]
    struct Id {
        id: Option<i64>,
    }
    let base = client.download_dir().await?;
    let listed = client
        .torrent_get_as::<Id>(serde_json::Value::Null, &["id"])
        .await?;
    let ids: Vec<i64> = listed.torrents.iter().filter_map(|t| t.id).collect();
    on_read(0, Some(ids.len()));
    let mut torrents = Vec::with_capacity(ids.len());
    for batch in ids.chunks(FULL_BATCH) {
        let got = client.torrent_get(json!(batch), LIST_FIELDS).await?;
        torrents.extend(got.torrents);
        on_read(torrents.len(), Some(ids.len().max(torrents.len())));
    }
    let mut delta = TrDelta {
        full: true,
        torrents,
        base,
        ..TrDelta::default()
    };
    side_figures(client, &mut delta).await;
    Ok(delta)
}

/// Re-reads only these torrents (after a write); the ones not returned are removed.
pub(crate) async fn fetch_hashes(client: &TrClient, hashes: &[InfoHash]) -> Result<TrDelta> {
    let base = client.download_dir().await?;
    let ids = json!(hashes.iter().map(InfoHash::to_hex).collect::<Vec<_>>());
    let got = client.torrent_get(ids, LIST_FIELDS).await?;
    Ok(TrDelta {
        torrents: got.torrents,
        asked: Some(hashes.to_vec()),
        base,
        ..TrDelta::default()
    })
}

/// Speeds and free space are nice to have: their failure does not fail the refresh.
async fn side_figures(client: &TrClient, delta: &mut TrDelta) {
    match client.session_stats().await {
        Ok(SessionStats {
            download_speed,
            upload_speed,
        }) => {
            delta.stats = Some((download_speed.max(0) as u64, upload_speed.max(0) as u64));
        }
        Err(e) => tracing::warn!(error = %e, "transmission session-stats failed"),
    }
    match client.free_space().await {
        Ok(v) => delta.free_space = v,
        Err(e) => tracing::warn!(error = %e, "transmission free-space failed"),
    }
}

/// Applies one delta; returns (rows upserted, rows removed).
pub(crate) fn apply(
    state: &mut CatalogueState,
    cursor: &mut TrCursor,
    delta: TrDelta,
) -> (usize, usize) {
    let now = Instant::now();
    if delta.full {
        state.clear_rows();
        cursor.ids.clear();
    }
    let mut upserted = 0;
    let mut seen = HashSet::new();
    for t in &delta.torrents {
        let row = match t.to_torrent(&delta.base, &mut state.interner) {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!(error = %e, "transmission sent a torrent without a readable hash");
                continue;
            }
        };
        if let Some(id) = t.id {
            cursor.ids.insert(id, row.info_hash);
        }
        if delta.asked.is_some() {
            seen.insert(row.info_hash);
        }
        state.upsert(row.info_hash, |r, _| *r = row);
        upserted += 1;
    }
    let mut removed = 0;
    for r in &delta.removed {
        let hash = match r {
            serde_json::Value::Number(n) => n.as_i64().and_then(|id| cursor.ids.remove(&id)),
            serde_json::Value::String(s) => s.parse().ok(),
            _ => None,
        };
        if let Some(h) = hash {
            removed += usize::from(state.remove(&h));
        }
    }
    if let Some(asked) = &delta.asked {
        let gone: HashSet<InfoHash> = asked
            .iter()
            .filter(|h| !seen.contains(*h))
            .copied()
            .collect();
        for h in &gone {
            removed += usize::from(state.remove(h));
        }
        if !gone.is_empty() {
            cursor.ids.retain(|_, h| !gone.contains(h));
        }
    }
    if let Some((dl, ul)) = delta.stats {
        state.server.dl_speed = Some(dl);
        state.server.ul_speed = Some(ul);
    }
    if delta.free_space.is_some() {
        state.server.free_space = delta.free_space;
    }
    if delta.asked.is_none() {
        cursor.last_ok = Some(now);
    }
    if delta.full {
        cursor.last_full = Some(now);
        state.shrink();
    }
    (upserted, removed)
}

/// Builds a delta from a raw `torrent-get` answer, for benchmarks and offline tests.
#[doc(hidden)]
pub fn delta_from_body(body: &[u8], full: bool, download_dir: &str) -> Result<TrDelta> {
    #[derive(serde::Deserialize)]
    struct Answer {
        arguments: super::api::TorrentGet<TrTorrent>,
    }
    let a: Answer =
        serde_json::from_slice(body).map_err(|e| crate::error::Error::decode("torrent-get", e))?;
    Ok(TrDelta {
        full,
        torrents: a.arguments.torrents,
        removed: a.arguments.removed,
        base: Arc::from(download_dir),
        ..TrDelta::default()
    })
}
