//! Keeps every download catalogue fresh in the background, so reads never call a backend;
//! and the one bounded wait a read makes for a catalogue that was never loaded.

use std::{
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use super::{Inner, Source};

/// How often each catalogue asks its client what changed.
pub(crate) const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// How long a read waits for the first refresh of a catalogue before answering without it.
const FIRST_LOAD_WAIT: Duration = Duration::from_secs(3);
/// Every backend call: a client that accepts but does not answer is a timeout, never a hang.
pub(crate) const TIMEOUTS: httpx::Timeouts = httpx::Timeouts {
    connect: Duration::from_secs(2),
    request: Duration::from_secs(10),
};

/// Spawns one refresher per instance, once, when a tokio runtime is at hand. The tasks hold
/// only weak references: when the downloads are dropped, they stop.
pub(super) fn start(inner: &Arc<Inner>) {
    if inner.refreshing.load(Ordering::Acquire) {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if inner.refreshing.swap(true, Ordering::AcqRel) {
        return;
    }
    for source in &inner.sources {
        let Some(backend) = source.working() else {
            continue;
        };
        let catalogue = Arc::downgrade(&backend.catalogue);
        runtime.spawn(async move {
            loop {
                let Some(c) = catalogue.upgrade() else { break };
                // Failures are kept beside the rows by the catalogue and shown by every read.
                let _ = c.refresh().await;
                drop(c);
                tokio::time::sleep(REFRESH_EVERY).await;
            }
        });
    }
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
