//! One live daemon read shared by the callers of a single-torrent read (`torrent_detail`,
//! `torrent_files`) that ask within [`SHARED_FOR`] of it, and by every caller that asks while it
//! is under way.
//!
//! Why this is honest: a daemon's own view of a torrent moves on a second's scale (its speeds
//! are one-second averages), the listings already answer from a catalogue up to 5 seconds old,
//! and each answer carries `observed_at`, the moment of the read it shows. A read never outlives
//! a change to the rows the catalogue saw: the key holds the catalogue's rows version, which a
//! refresh that changed a row and every write's re-read move on (a refresh that found nothing
//! new leaves it, so it makes no caller wait for a new read). A failed read is given to the callers that waited for it and then
//! forgotten, so the next caller asks again.

use std::{collections::HashMap, sync::Arc, time::SystemTime};

use adapters_downloads::Result as DlResult;
use domain::InfoHash;
use parking_lot::Mutex;
use tokio::{sync::OnceCell, time::Instant};

/// How long one read answers later callers.
pub(crate) const SHARED_FOR: std::time::Duration = std::time::Duration::from_secs(1);
/// Past this many kept reads, the old ones are dropped before another is added.
const KEPT: usize = 1024;

/// The instance, the torrent and the catalogue rows version the read was made under.
type Key = (String, InfoHash, Option<u64>);

/// A read and when it was made.
pub(crate) struct Read<T> {
    pub value: DlResult<Arc<T>>,
    /// When the daemon answered, for the answer's `observed_at`.
    pub observed_at: SystemTime,
    at: Instant,
}

/// The shared reads of one kind.
pub(crate) struct LiveMemo<T> {
    slots: Mutex<HashMap<Key, Arc<OnceCell<Read<T>>>>>,
}

impl<T> Default for LiveMemo<T> {
    fn default() -> LiveMemo<T> {
        LiveMemo {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> LiveMemo<T> {
    /// The read of `hash` on `instance` under catalogue rows `version`: the one under way, or one
    /// made less than [`SHARED_FOR`] ago, else `fetch`'s.
    pub(crate) async fn read<F, Fut>(
        &self,
        instance: &str,
        hash: InfoHash,
        version: Option<u64>,
        fetch: F,
    ) -> Read<T>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = DlResult<T>>,
    {
        let key: Key = (instance.to_owned(), hash, version);
        let slot = {
            let mut slots = self.slots.lock();
            match slots.get(&key) {
                Some(slot) if usable(slot) => slot.clone(),
                _ => {
                    if slots.len() >= KEPT {
                        slots.retain(|_, s| usable(s));
                    }
                    let slot = Arc::new(OnceCell::new());
                    slots.insert(key.clone(), slot.clone());
                    slot
                }
            }
        };
        let read = slot
            .get_or_init(|| async {
                let value = fetch().await.map(Arc::new);
                Read {
                    value,
                    observed_at: SystemTime::now(),
                    at: Instant::now(),
                }
            })
            .await;
        if read.value.is_err() {
            let mut slots = self.slots.lock();
            if slots.get(&key).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                slots.remove(&key);
            }
        }
        read.clone()
    }
}

impl<T> Clone for Read<T> {
    fn clone(&self) -> Read<T> {
        Read {
            value: self.value.clone(),
            observed_at: self.observed_at,
            at: self.at,
        }
    }
}

/// Under way, or answered less than [`SHARED_FOR`] ago.
fn usable<T>(slot: &OnceCell<Read<T>>) -> bool {
    slot.get().is_none_or(|r| r.at.elapsed() < SHARED_FOR)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use adapters_downloads::Error;

    use super::*;

    fn hash() -> InfoHash {
        InfoHash::from_bytes([7; 20])
    }

    async fn counted(memo: &LiveMemo<usize>, calls: &AtomicUsize, version: u64) -> usize {
        let read = memo
            .read("qb", hash(), Some(version), || async {
                Ok(calls.fetch_add(1, Ordering::SeqCst) + 1)
            })
            .await;
        *read.value.unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn back_to_back_callers_share_one_read_for_a_second() {
        let (memo, calls) = (LiveMemo::default(), AtomicUsize::new(0));
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        tokio::time::advance(SHARED_FOR / 2).await;
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        tokio::time::advance(SHARED_FOR).await;
        assert_eq!(counted(&memo, &calls, 1).await, 2);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_wait_for_the_read_under_way() {
        let (memo, calls) = (LiveMemo::<usize>::default(), AtomicUsize::new(0));
        let slow = || async {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            Ok(calls.fetch_add(1, Ordering::SeqCst) + 1)
        };
        let (a, b) = tokio::join!(
            memo.read("qb", hash(), Some(1), slow),
            memo.read("qb", hash(), Some(1), slow)
        );
        assert!(Arc::ptr_eq(
            a.value.as_ref().unwrap(),
            b.value.as_ref().unwrap()
        ));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_catalogue_version_reads_again() {
        let (memo, calls) = (LiveMemo::default(), AtomicUsize::new(0));
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        assert_eq!(counted(&memo, &calls, 2).await, 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_read_is_not_kept() {
        let memo = LiveMemo::<usize>::default();
        let failed = memo
            .read("qb", hash(), Some(1), || async { Err(Error::Timeout) })
            .await;
        assert_eq!(failed.value, Err(Error::Timeout));
        let again = memo.read("qb", hash(), Some(1), || async { Ok(5) }).await;
        assert_eq!(*again.value.unwrap(), 5);
    }
}
