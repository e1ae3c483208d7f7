//! One live daemon read shared by the callers of a single-torrent read (`torrent_detail`,
//! `torrent_files`) that ask within [`SHARED_FOR`] of it, and by every caller that asks while it
//! is under way.
//!
//! Why this is honest: a daemon's own view of a torrent moves on a second's scale (its speeds
//! are one-second averages), the listings already answer from a catalogue up to 5 seconds old,
//! and each answer carries `observed_at`, the moment of the read it shows. A read never outlives
//! a change to the rows the catalogue saw: it is kept under the catalogue's rows version, which a
//! refresh that changed a row and every write's re-read move on (a refresh that found nothing
//! new leaves it, so it makes no caller wait for a new read). A failed read is given to the
//! callers that waited for it and then forgotten, so the next caller asks again.
//!
//! Reading ahead: the first caller after [`READ_AGAIN_AFTER`] makes the next read and waits for
//! it, while the others are still answered by the current one, which is under [`SHARED_FOR`] old;
//! so a steady stream of callers does not all stop once a second for a daemon's round trip.
//! Only when that read takes longer than the rest of the second do callers wait for it.

use std::{convert::Infallible, sync::Arc, time::SystemTime};

use adapters_downloads::Result as DlResult;
use domain::InfoHash;
use kept::{Keep, Kept};
use tokio::time::Instant;

/// How long one read answers later callers.
pub(crate) const SHARED_FOR: std::time::Duration = std::time::Duration::from_secs(1);
/// From this age on, the next caller reads again while the others keep the current read.
pub(crate) const READ_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(750);
/// Past this many kept reads, the least recently used goes before another is added.
const KEPT: usize = 1024;

/// The instance and the torrent; the token is the catalogue rows version of the read.
type Key = (String, InfoHash);

/// A read and when it was made.
pub(crate) struct Read<T> {
    pub value: DlResult<Arc<T>>,
    /// When the daemon answered, for the answer's `observed_at`.
    pub observed_at: SystemTime,
    at: Instant,
}

/// The shared reads of one kind: kept for [`SHARED_FOR`] under their catalogue version, a
/// failed one only for the callers that waited for it.
pub(crate) struct LiveMemo<T> {
    reads: Kept<Key, Option<u64>, Read<T>, Infallible>,
}

impl<T> Default for LiveMemo<T> {
    fn default() -> LiveMemo<T> {
        LiveMemo {
            reads: Kept::new(KEPT).with_time_limit(SHARED_FOR),
        }
    }
}

impl<T> LiveMemo<T> {
    /// The read of `hash` on `instance` under catalogue rows `version`: one made less than
    /// [`SHARED_FOR`] ago, or the one under way, else `fetch`'s.
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
        let key: Key = (instance.to_owned(), hash);
        let current = self.reads.get(&key, &version);
        if let Some(current) = &current
            && (current.at.elapsed() < READ_AGAIN_AFTER || self.reads.computing(&key, &version))
        {
            return current.clone();
        }
        // No read, or one old enough that this caller makes the next while the others keep it.
        let Ok(read) = self
            .reads
            .compute(key, version, || async {
                let value = fetch().await.map(Arc::new);
                let keep = if value.is_ok() { Keep::Yes } else { Keep::No };
                let read = Read {
                    value,
                    observed_at: SystemTime::now(),
                    at: Instant::now(),
                };
                Ok::<_, Infallible>((read, keep))
            })
            .await;
        match current {
            // A read ahead that failed: the current read still holds.
            Some(current) if read.value.is_err() && current.at.elapsed() < SHARED_FOR => current,
            _ => read,
        }
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

    /// A read of `value` that takes `ms` milliseconds, counted in `calls`.
    async fn slow(calls: &AtomicUsize, ms: u64, value: usize) -> DlResult<usize> {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        calls.fetch_add(1, Ordering::SeqCst);
        Ok(value)
    }

    #[tokio::test(start_paused = true)]
    async fn others_keep_the_current_read_while_one_caller_reads_ahead() {
        let (memo, calls) = (LiveMemo::default(), AtomicUsize::new(0));
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        tokio::time::advance(READ_AGAIN_AFTER).await;
        let asked = Instant::now();
        let (ahead, other) = tokio::join!(
            memo.read("qb", hash(), Some(1), || slow(&calls, 100, 2)),
            async {
                let read = memo
                    .read("qb", hash(), Some(1), || slow(&calls, 100, 3))
                    .await;
                (*read.value.unwrap(), asked.elapsed())
            }
        );
        assert_eq!(*ahead.value.unwrap(), 2);
        assert_eq!(
            other,
            (1, std::time::Duration::ZERO),
            "answered at once by the current read"
        );
        assert_eq!(
            counted(&memo, &calls, 1).await,
            2,
            "the read ahead is now current"
        );
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_read_ahead_still_under_way_at_the_second_is_waited_for() {
        let (memo, calls) = (LiveMemo::default(), AtomicUsize::new(0));
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        tokio::time::advance(READ_AGAIN_AFTER).await;
        let (ahead, late) = tokio::join!(
            memo.read("qb", hash(), Some(1), || slow(&calls, 500, 2)),
            async {
                tokio::time::sleep(SHARED_FOR - READ_AGAIN_AFTER).await;
                memo.read("qb", hash(), Some(1), || slow(&calls, 0, 3))
                    .await
            }
        );
        assert!(Arc::ptr_eq(
            ahead.value.as_ref().unwrap(),
            late.value.as_ref().unwrap()
        ));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_read_ahead_leaves_the_current_read() {
        let (memo, calls) = (LiveMemo::default(), AtomicUsize::new(0));
        assert_eq!(counted(&memo, &calls, 1).await, 1);
        tokio::time::advance(READ_AGAIN_AFTER).await;
        let failed = memo
            .read("qb", hash(), Some(1), || async { Err(Error::Timeout) })
            .await;
        assert_eq!(*failed.value.unwrap(), 1);
        assert_eq!(
            counted(&memo, &calls, 1).await,
            2,
            "the next caller reads again"
        );
    }
}
