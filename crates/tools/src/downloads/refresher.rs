//! Keeps every download catalogue fresh in the background, so reads never call a backend;
//! the one bounded wait a read makes for a catalogue that was never loaded; and the full
//! refresh a caller asks for (`downloads_overview` with `refresh`), with its progress.

use std::{sync::Arc, time::Duration};

use governance::{Job, JobFuture};

use super::Source;
use governance::{Ctx, report::Level};

/// How often each catalogue asks its client what changed.
pub(crate) const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// How long a read waits for the first refresh of a catalogue before answering without it.
const FIRST_LOAD_WAIT: Duration = Duration::from_secs(3);
/// Every backend call: a client that accepts but does not answer is a timeout, never a hang.
pub(crate) const TIMEOUTS: httpx::Timeouts = httpx::Timeouts {
    connect: Duration::from_secs(2),
    request: Duration::from_secs(10),
};

/// One refresh job per working instance (`downloads.refresh:<id>`), run every
/// [`REFRESH_EVERY`] from the server's start. A job holds only a weak reference: once the
/// downloads are dropped, its passes do nothing.
pub(super) fn jobs(sources: &[Source]) -> Vec<Job> {
    sources
        .iter()
        .filter_map(|source| {
            let catalogue = Arc::downgrade(&source.working()?.catalogue);
            let pass = move || -> JobFuture {
                let catalogue = catalogue.clone();
                Box::pin(async move {
                    if let Some(c) = catalogue.upgrade() {
                        // Failures are kept beside the rows by the catalogue and shown by
                        // every read.
                        let _ = c.refresh().await;
                    }
                })
            };
            Some(Job {
                name: format!("downloads.refresh:{}", source.id),
                every: REFRESH_EVERY,
                on_every_replica: true,
                pass: Arc::new(pass),
            })
        })
        .collect()
}

/// Waits (at most [`FIRST_LOAD_WAIT`], all instances at once) for the first refresh of the
/// catalogues that have never been read nor failed; the refreshers are already on it.
/// Loaded catalogues are not touched.
pub(crate) async fn ensure_loaded(sources: &[&Source]) {
    let settled = |s: &Source| s.working().is_none_or(|b| b.catalogue.settled());
    if sources.iter().all(|s| settled(s)) {
        return;
    }
    let _ = tokio::time::timeout(FIRST_LOAD_WAIT, async {
        while !sources.iter().all(|s| settled(s)) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// A fresh look before concluding that hashes are on no instance: refreshes the catalogues
/// whose last attempt is older than a second, bounded like a first load.
pub(crate) async fn refresh_recent(sources: &[&Source]) {
    let waits = sources.iter().filter_map(|s| {
        let c = s.working()?.catalogue.clone();
        Some(async move {
            let _ = tokio::time::timeout(
                FIRST_LOAD_WAIT,
                c.refresh_if_older_than(Duration::from_secs(1)),
            )
            .await;
        })
    });
    futures::future::join_all(waits).await;
}

/// What a full refresh of one instance came to.
pub(crate) enum Full {
    /// The whole list was read: this many torrents.
    Read(usize),
    /// A full read under [`adapters_downloads::FULL_REFRESH_GAP`] ago stands; nothing was read.
    Recent,
    /// The instance could not be read (or was never set up); the sentence says why.
    Failed(String),
}

/// Reads every one of `sources` in full, all at once, telling the client (when it asked, with
/// a progress token) how many torrents are read so far of the total, per instance in the
/// message; each instance's end is logged. The outcomes come in the order of `sources`.
/// A catalogue never loaded gets its first load first (bounded), so its total is known.
pub(crate) async fn full(ctx: &Ctx, sources: &[&Source]) -> Vec<Full> {
    ensure_loaded(sources).await;
    let tally = Tally::new(sources);
    ctx.progress(0, tally.total(), &tally.message());
    let reads = sources.iter().enumerate().map(|(i, s)| {
        let tally = &tally;
        async move {
            let Some(b) = s.working() else {
                let why = format!("download instance {} is not set up", s.id);
                return Full::Failed(why);
            };
            let on_read = |read: usize, total: Option<usize>| tally.update(ctx, i, read, total);
            match b.catalogue.refresh_full(&on_read).await {
                Ok(Some(report)) => {
                    tally.update(ctx, i, report.rows, Some(report.rows));
                    let n = report.rows;
                    ctx.log(
                        Level::Info,
                        &format!("read download instance {} in full: {n} torrents", s.id),
                    );
                    Full::Read(n)
                }
                Ok(None) => Full::Recent,
                Err(e) => {
                    let why = format!(
                        "download instance {} could not be read in full ({}: {e}); check that it is running and its credentials in marquee.toml",
                        s.id,
                        e.class()
                    );
                    ctx.log(Level::Warning, &why);
                    Full::Failed(why)
                }
            }
        }
    });
    futures::future::join_all(reads).await
}

/// Torrents read so far per instance (and its total when known), and the sum last told,
/// which only ever grows.
struct Tally<'s> {
    ids: Vec<&'s str>,
    state: parking_lot::Mutex<(Vec<Count>, usize)>,
}

/// Torrents read of one instance, and its total when known.
type Count = (usize, Option<usize>);

impl<'s> Tally<'s> {
    fn new(sources: &[&'s Source]) -> Tally<'s> {
        Tally {
            ids: sources.iter().map(|s| s.id.as_str()).collect(),
            state: parking_lot::Mutex::new((vec![(0, None); sources.len()], 0)),
        }
    }

    fn total(&self) -> Option<usize> {
        self.state.lock().0.iter().map(|(_, t)| *t).sum()
    }

    /// "qb: 120 of 300 torrents read; tr: 50 of 50 torrents read".
    fn message(&self) -> String {
        let state = self.state.lock();
        let parts: Vec<String> = self
            .ids
            .iter()
            .zip(&state.0)
            .map(|(id, (read, total))| match total {
                Some(t) => format!("{id}: {read} of {t} torrents read"),
                None => format!("{id}: {read} torrents read"),
            })
            .collect();
        parts.join("; ")
    }

    /// Records instance `i`'s count and tells the client when the sum grew.
    fn update(&self, ctx: &Ctx, i: usize, read: usize, total: Option<usize>) {
        let (sum, total) = {
            let mut state = self.state.lock();
            state.0[i] = (read, total.or(state.0[i].1));
            let sum: usize = state.0.iter().map(|(r, _)| r).sum();
            if sum <= state.1 {
                return;
            }
            state.1 = sum;
            (sum, state.0.iter().map(|(_, t)| *t).sum::<Option<usize>>())
        };
        ctx.progress(sum, total.map(|t| t.max(sum)), &self.message());
    }
}
