//! The cached catalogue of one instance's torrents: refreshed incrementally, queried for free.
//!
//! Reads never call the backend: [`TorrentCatalogue::query`] and friends answer from memory.
//! [`TorrentCatalogue::refresh`] asks the client for what changed (qBittorrent `rid`, Transmission
//! `recently-active`); when it fails the rows stay as the last good refresh left them and the
//! error is kept beside them, so an answer can say how old it is and why.
//! [`TorrentCatalogue::refresh_full`] reads the whole list again, saying how far it is.

mod recent;
pub(crate) mod state;
pub(crate) mod tally;
mod view;

use std::{
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use domain::{InfoHash, InstanceId, InstanceKind};
use parking_lot::RwLock;
use serde::Serialize;

pub use state::{RefreshError, ServerStats};
pub use view::{
    InstanceTorrent, MergedPage, Overview, SourceStatus, TrackerErrorGroup, query_merged,
    query_merged_map,
};

use crate::{
    client::DownloadClient,
    error::{Error, Result},
    model::Torrent,
    qbittorrent::{self, MainData, QbCursor},
    transmission::{self, TrCursor, TrDelta},
};
use recent::RecentMatches;
use state::CatalogueState;

/// Torrents without a working tracker whose messages are fetched per qBittorrent refresh.
const TRACKER_PROBES_PER_REFRESH: usize = 16;
/// How long a probed tracker message is trusted before it is fetched again.
const TRACKER_PROBE_AGE: Duration = Duration::from_secs(300);
/// A full read younger than this stands: asking again sooner reads nothing, so no caller can
/// keep a daemon busy sending its whole list.
pub const FULL_REFRESH_GAP: Duration = Duration::from_secs(10);

/// Hears how far a full refresh is: torrents read so far, and the total when it is known.
pub type OnRead<'a> = &'a (dyn Fn(usize, Option<usize>) + Send + Sync);

/// What one refresh did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RefreshReport {
    /// True when the whole list was read (first refresh, or the client asked for it).
    pub full: bool,
    pub upserted: usize,
    pub removed: usize,
    pub rows: usize,
}

#[derive(Debug)]
enum Cursor {
    Qb(QbCursor),
    Tr(TrCursor),
}

/// One instance's torrents in memory, keyed by info hash.
#[derive(Debug)]
pub struct TorrentCatalogue {
    instance: InstanceId,
    client: Arc<DownloadClient>,
    /// Serializes refreshes; held across the backend call, never by readers.
    cursor: tokio::sync::Mutex<Cursor>,
    state: RwLock<CatalogueState>,
    /// What recent queries matched, until the rows change.
    recent: RecentMatches,
    /// When the last full refresh succeeded (tokio's clock, so tests can move it).
    full_at: parking_lot::Mutex<Option<tokio::time::Instant>>,
}

impl TorrentCatalogue {
    pub fn new(instance: InstanceId, client: Arc<DownloadClient>) -> TorrentCatalogue {
        let cursor = match &*client {
            DownloadClient::Qbittorrent(_) => Cursor::Qb(QbCursor::default()),
            DownloadClient::Transmission(_) => Cursor::Tr(TrCursor::default()),
        };
        TorrentCatalogue {
            instance,
            client,
            cursor: tokio::sync::Mutex::new(cursor),
            state: RwLock::new(CatalogueState::default()),
            recent: RecentMatches::default(),
            full_at: parking_lot::Mutex::new(None),
        }
    }

    pub fn instance(&self) -> &InstanceId {
        &self.instance
    }

    pub fn kind(&self) -> InstanceKind {
        self.client.kind()
    }

    /// The write-capable client this catalogue reads through. Callers that govern writes hand
    /// out their own gated handle instead (see `tools::downloads::source`); this bypass says so.
    pub fn unchecked_client(&self) -> &Arc<DownloadClient> {
        &self.client
    }

    /// Brings the rows up to date with what changed since the last refresh.
    pub async fn refresh(&self) -> Result<RefreshReport> {
        let started = Instant::now();
        let mut cursor = self.cursor.lock().await;
        let result = self.refresh_locked(&mut cursor).await;
        self.record(&result);
        tracing::debug!(instance = %self.instance, took_us = started.elapsed().as_micros() as u64, ok = result.is_ok(), "download catalogue refreshed");
        result
    }

    /// Refreshes unless the last attempt (good or bad) is younger than `max_age`,
    /// so a burst of queries costs at most one backend call per `max_age`.
    pub async fn refresh_if_older_than(&self, max_age: Duration) -> Option<Result<RefreshReport>> {
        let fresh = |s: &CatalogueState| s.last_attempt.is_some_and(|t| t.elapsed() < max_age);
        if fresh(&self.state.read()) {
            return None;
        }
        let mut cursor = self.cursor.lock().await;
        // Someone else may have refreshed while we waited.
        if fresh(&self.state.read()) {
            return None;
        }
        let result = self.refresh_locked(&mut cursor).await;
        self.record(&result);
        Some(result)
    }

    /// Re-reads just these torrents, typically right after a write to them. Transmission reads
    /// only them (so `observed_at` stays that of the last whole refresh); qBittorrent's maindata
    /// is incremental anyway, so there this is a plain [`TorrentCatalogue::refresh`].
    /// Either way the rows count as changed ([`TorrentCatalogue::rows_version`] moves), so no
    /// live read made before the write is handed out after it.
    pub async fn refresh_hashes(&self, hashes: &[InfoHash]) -> Result<RefreshReport> {
        let mut cursor = self.cursor.lock().await;
        let result = if let (DownloadClient::Transmission(c), Cursor::Tr(cur)) =
            (&*self.client, &mut *cursor)
        {
            transmission::fetch_hashes(c, hashes)
                .await
                .map(|delta| self.apply_tr(cur, delta))
        } else {
            let result = self.refresh_locked(&mut cursor).await;
            self.record(&result);
            result
        };
        self.state.write().touch_rows();
        result
    }

    /// Reads the whole list again, not just what changed (qBittorrent `rid=0`, Transmission's
    /// every id in batches), telling `on_read` how many torrents are read so far of the total.
    /// The total is exact for Transmission (its ids are listed first); for qBittorrent, which
    /// cannot count without sending everything, it is the rows held before, grown to what was
    /// read if more arrive, and unknown before the first load. `None` when a full refresh
    /// succeeded less than [`FULL_REFRESH_GAP`] ago (it stands, nothing is read).
    pub async fn refresh_full(&self, on_read: OnRead<'_>) -> Result<Option<RefreshReport>> {
        let mut cursor = self.cursor.lock().await;
        let recent =
            |at: &Option<tokio::time::Instant>| at.is_some_and(|t| t.elapsed() < FULL_REFRESH_GAP);
        if recent(&self.full_at.lock()) {
            return Ok(None);
        }
        let expected = {
            let mut s = self.state.write();
            s.last_attempt = Some(Instant::now());
            s.observed_at.map(|_| s.rows().len())
        };
        let result = match (&*self.client, &mut *cursor) {
            (DownloadClient::Qbittorrent(c), Cursor::Qb(cur)) => {
                on_read(0, expected);
                let tell = |n: usize| on_read(n, expected.map(|e| e.max(n)));
                match c.maindata_counted(0, Some(&tell)).await {
                    Ok(md) => {
                        let report = self.apply_qb(cur, md);
                        self.probe_trackers(c, cur).await;
                        Ok(report)
                    }
                    Err(e) => Err(e),
                }
            }
            (DownloadClient::Transmission(c), Cursor::Tr(cur)) => {
                match transmission::fetch_full(c, on_read).await {
                    Ok(delta) => Ok(self.apply_tr(cur, delta)),
                    Err(e) => Err(e),
                }
            }
            _ => Err(Error::invalid("catalogue cursor does not match its client")),
        };
        self.record(&result);
        if result.is_ok() {
            *self.full_at.lock() = Some(tokio::time::Instant::now());
        }
        result.map(Some)
    }

    async fn refresh_locked(&self, cursor: &mut Cursor) -> Result<RefreshReport> {
        self.state.write().last_attempt = Some(Instant::now());
        match (&*self.client, cursor) {
            (DownloadClient::Qbittorrent(c), Cursor::Qb(cur)) => {
                let md = c.maindata(cur.rid).await?;
                let report = self.apply_qb(cur, md);
                self.probe_trackers(c, cur).await;
                Ok(report)
            }
            (DownloadClient::Transmission(c), Cursor::Tr(cur)) => {
                let delta = transmission::fetch(c, cur).await?;
                Ok(self.apply_tr(cur, delta))
            }
            _ => Err(Error::invalid("catalogue cursor does not match its client")),
        }
    }

    fn apply_qb(&self, cursor: &mut QbCursor, md: MainData) -> RefreshReport {
        let full = md.full_update;
        let asked = Instant::now();
        let mut s = self.state.write();
        let waited = asked.elapsed();
        s.touch(); // categories, tags and server figures change outside the rows
        let (upserted, removed) = qbittorrent::apply_maindata(&mut s, cursor, md);
        let report = RefreshReport {
            full,
            upserted,
            removed,
            rows: s.rows().len(),
        };
        drop(s);
        self.log_applied(&report, waited, asked.elapsed() - waited);
        report
    }

    fn apply_tr(&self, cursor: &mut TrCursor, delta: TrDelta) -> RefreshReport {
        let full = delta.full;
        let asked = Instant::now();
        let mut s = self.state.write();
        let waited = asked.elapsed();
        s.touch();
        let (upserted, removed) = transmission::apply(&mut s, cursor, delta);
        let report = RefreshReport {
            full,
            upserted,
            removed,
            rows: s.rows().len(),
        };
        drop(s);
        self.log_applied(&report, waited, asked.elapsed() - waited);
        report
    }

    /// What a refresh applied and how long readers were kept out (readers wait for the whole
    /// write section, and for the wait before it: a waiting writer blocks new readers).
    fn log_applied(&self, report: &RefreshReport, waited: Duration, held: Duration) {
        tracing::debug!(
            instance = %self.instance,
            full = report.full,
            upserted = report.upserted,
            removed = report.removed,
            rows = report.rows,
            lock_wait_us = waited.as_micros() as u64,
            lock_held_us = held.as_micros() as u64,
            "download catalogue applied a refresh"
        );
    }

    /// maindata has no tracker messages: fetch them for a few torrents whose trackers all fail.
    async fn probe_trackers(&self, client: &qbittorrent::QbClient, cursor: &mut QbCursor) {
        let now = Instant::now();
        let mut due: Vec<(Option<Instant>, InfoHash)> = {
            let s = self.state.read();
            cursor
                .no_working_tracker
                .iter()
                .filter(|(_, probed)| probed.is_none_or(|p| now - p > TRACKER_PROBE_AGE))
                .filter(|(h, _)| s.get(h).is_some_and(|t| t.trackers > 0 && announces(t)))
                .map(|(h, p)| (*p, *h))
                .collect()
        };
        due.sort();
        for (_, hash) in due.into_iter().take(TRACKER_PROBES_PER_REFRESH) {
            match client.torrent_trackers(hash).await {
                Ok(entries) => {
                    let host = entries.iter().find_map(|e| e.host.clone());
                    let message = entries
                        .iter()
                        .find(|e| {
                            e.message.is_some()
                                && e.status == crate::model::TrackerStatus::NotWorking
                        })
                        .or_else(|| entries.iter().find(|e| e.message.is_some()))
                        .and_then(|e| e.message.clone());
                    qbittorrent::apply_tracker_probe(&mut self.state.write(), hash, host, message);
                    cursor.no_working_tracker.insert(hash, Some(now));
                }
                Err(e) => {
                    tracing::debug!(error = %e, "qbittorrent tracker probe failed");
                    break;
                }
            }
        }
    }

    fn record(&self, result: &Result<RefreshReport>) {
        let mut s = self.state.write();
        s.touch();
        match result {
            Ok(_) => {
                s.observed_at = Some(SystemTime::now());
                s.last_error = None;
            }
            Err(e) => {
                tracing::warn!(instance = %self.instance, error = %e, "download catalogue refresh failed");
                s.last_error = Some(RefreshError {
                    class: e.class(),
                    message: e.to_string(),
                    at: SystemTime::now(),
                });
            }
        }
    }

    /// A catalogue whose client points at a closed port, filled only through
    /// `apply_maindata_bytes` / `apply_transmission_delta` (benchmarks, offline tests).
    #[doc(hidden)]
    pub fn offline(instance: &str, kind: InstanceKind) -> Result<TorrentCatalogue> {
        let config = crate::ClientConfig {
            kind,
            url: "http://127.0.0.1:9/"
                .parse()
                .map_err(|_| Error::invalid("offline url"))?,
            username: None,
            password: None,
            timeouts: httpx::Timeouts::default(),
        };
        Ok(TorrentCatalogue::new(
            InstanceId(instance.into()),
            Arc::new(DownloadClient::new(config)?),
        ))
    }

    /// Feeds a raw qBittorrent maindata answer, as if a refresh had read it (benchmarks, offline tests).
    #[doc(hidden)]
    pub fn apply_maindata_bytes(&self, body: &[u8]) -> Result<RefreshReport> {
        let md = MainData::parse(body)?;
        let mut cursor = self
            .cursor
            .try_lock()
            .map_err(|_| Error::invalid("a refresh is running"))?;
        let Cursor::Qb(cur) = &mut *cursor else {
            return Err(Error::invalid("not a qbittorrent catalogue"));
        };
        let report = self.apply_qb(cur, md);
        drop(cursor);
        self.record(&Ok(report));
        Ok(report)
    }

    /// Feeds a parsed Transmission delta, as if a refresh had read it (benchmarks, offline tests).
    #[doc(hidden)]
    pub fn apply_transmission_delta(&self, delta: TrDelta) -> Result<RefreshReport> {
        let mut cursor = self
            .cursor
            .try_lock()
            .map_err(|_| Error::invalid("a refresh is running"))?;
        let Cursor::Tr(cur) = &mut *cursor else {
            return Err(Error::invalid("not a transmission catalogue"));
        };
        let report = self.apply_tr(cur, delta);
        drop(cursor);
        self.record(&Ok(report));
        Ok(report)
    }

    pub fn get(&self, hash: &InfoHash) -> Option<Torrent> {
        self.state.read().get(hash).cloned()
    }

    /// Whether the cached rows hold `hash`, without copying its row.
    pub fn contains(&self, hash: &InfoHash) -> bool {
        self.state.read().contains(hash)
    }

    pub fn len(&self) -> usize {
        self.state.read().rows().len()
    }

    /// Changes whenever anything this catalogue shows changes: rows, categories, tags, the
    /// server figures or the freshness. Equal versions mean equal answers to every read.
    pub fn version(&self) -> u64 {
        self.state.read().generation()
    }

    /// Changes whenever a row changes, is added or removed, or a write was re-read; not when a
    /// refresh found nothing new. What is read live about a torrent stays valid while it holds.
    pub fn rows_version(&self) -> u64 {
        self.state.read().rows_generation()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a refresh has ever answered or failed (what a first read waits for), without
    /// copying the status.
    pub fn settled(&self) -> bool {
        let s = self.state.read();
        s.observed_at.is_some() || s.last_error.is_some()
    }

    pub fn status(&self) -> SourceStatus {
        let s = self.state.read();
        SourceStatus {
            instance: self.instance.clone(),
            kind: self.kind(),
            rows: s.rows().len(),
            observed_at: s.observed_at,
            last_error: s.last_error.clone(),
        }
    }
}

/// A torrent that should be announcing, so an empty working tracker means trouble.
fn announces(t: &Torrent) -> bool {
    use crate::model::TorrentState::*;
    matches!(t.state, Downloading | Seeding | Stalled | Metadata | Error)
}
