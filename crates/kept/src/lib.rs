//! Kept answers: the one type every cache of Marquee is made of.
//!
//! An answer is kept under its key with a validity token (the versions of what it read); a
//! lookup hands it out again only under an equal token, before its time limit if it has one.
//! The store is bounded: keeping one more in a full store lets the least recently used go.
//! Callers that ask for the same key and token while its answer is computed wait for that one
//! computation (single flight) and share its answer, even one that is not kept; a failure is
//! handed to those waiting callers and never kept.
//!
//! A hit takes a shared lock for a hash lookup and a clone of the answer; the lock is never
//! held across an await.

use std::{
    borrow::Borrow,
    collections::HashMap,
    convert::Infallible,
    fmt,
    future::Future,
    hash::Hash,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use parking_lot::{Mutex, RwLock};
use tokio::{sync::OnceCell, time::Instant};

/// How long a computed answer may be handed out again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// While its token holds (and within the store's time limit, when it has one).
    Yes,
    /// While its token holds, and before this instant (and the store's time limit).
    Until(Instant),
    /// Not again: the callers that waited for it share it, no later one.
    No,
}

struct Entry<T, V> {
    token: T,
    value: V,
    /// From this instant on it is not handed out.
    until: Option<Instant>,
    /// A stamp of the store's use clock: the least recently used has the smallest.
    used: AtomicU64,
}

/// A computation under way, with every caller that waits for it.
type Cell<V, E> = Arc<OnceCell<Result<V, E>>>;

/// The computations under way: each key and token with its computation.
type Flights<K, T, V, E> = Mutex<Vec<(K, T, Cell<V, E>)>>;

/// Answers `V` kept under keys `K`, each valid while its token `T` is unchanged. `E` is the
/// error a computation may fail with (only for [`Kept::get_or_compute`] and [`Kept::compute`]).
pub struct Kept<K, T, V, E = Infallible> {
    capacity: usize,
    time_limit: Option<Duration>,
    /// Read by every hit at once; written when an answer is kept.
    entries: RwLock<HashMap<K, Entry<T, V>>>,
    /// Ticks once per use that changed which answer was used last.
    clock: AtomicU64,
    /// The computations under way, by key and token (few at a time).
    flights: Flights<K, T, V, E>,
}

impl<K, T, V, E> fmt::Debug for Kept<K, T, V, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kept")
            .field("capacity", &self.capacity)
            .field("time_limit", &self.time_limit)
            .field("kept", &self.entries.read().len())
            .finish_non_exhaustive()
    }
}

impl<K, T, V, E> Kept<K, T, V, E>
where
    K: Hash + Eq + Clone,
    T: PartialEq + Clone,
    V: Clone,
{
    /// At most `capacity` answers, kept while their token holds.
    pub fn new(capacity: usize) -> Self {
        Kept {
            capacity,
            time_limit: None,
            entries: RwLock::new(HashMap::new()),
            clock: AtomicU64::new(0),
            flights: Mutex::new(Vec::new()),
        }
    }

    /// Each answer also for at most `limit` after it was kept.
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// The answer kept for `key` under `token`, if it still holds.
    pub fn get<Q>(&self, key: &Q, token: &T) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let entries = self.entries.read();
        let entry = entries.get(key)?;
        if entry.token != *token || entry.until.is_some_and(|until| Instant::now() >= until) {
            return None;
        }
        // Already the most recently used: no write, so back-to-back hits share cache lines.
        if entry.used.load(Ordering::Relaxed) != self.clock.load(Ordering::Relaxed) {
            entry.used.store(self.tick(), Ordering::Relaxed);
        }
        Some(entry.value.clone())
    }

    /// Keeps `value` for `key` under `token` ([`Keep::Yes`]).
    pub fn insert(&self, key: K, token: T, value: V) {
        self.keep(key, token, value, Keep::Yes);
    }

    /// Keeps `value` for `key` under `token` as `keep` says, replacing what `key` had; a full
    /// store first lets its least recently used answer go.
    pub fn keep(&self, key: K, token: T, value: V, keep: Keep) {
        let limit = self.time_limit.map(|d| Instant::now() + d);
        let until = match keep {
            Keep::No => return,
            Keep::Yes => limit,
            Keep::Until(at) => Some(limit.map_or(at, |l| l.min(at))),
        };
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.entries.write();
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            let oldest = entries
                .iter()
                .min_by_key(|(_, e)| e.used.load(Ordering::Relaxed))
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        let used = AtomicU64::new(self.tick());
        entries.insert(
            key,
            Entry {
                token,
                value,
                until,
                used,
            },
        );
    }

    /// Lets go every answer for which `keep` says false.
    pub fn retain(&self, mut keep: impl FnMut(&K, &T) -> bool) {
        self.entries.write().retain(|k, e| keep(k, &e.token));
    }

    /// Lets go every answer.
    pub fn clear(&self) {
        self.entries.write().clear();
    }

    /// How many answers are kept (some may no longer hold).
    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys of the kept answers, in no order.
    pub fn keys(&self) -> Vec<K> {
        self.entries.read().keys().cloned().collect()
    }

    /// Whether a computation for `key` under `token` is under way.
    pub fn computing(&self, key: &K, token: &T) -> bool {
        self.flights
            .lock()
            .iter()
            .any(|(k, t, _)| k == key && t == token)
    }

    /// How many computations are under way.
    pub fn flights(&self) -> usize {
        self.flights.lock().len()
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }
}

impl<K, T, V, E> Kept<K, T, V, E>
where
    K: Hash + Eq + Clone,
    T: PartialEq + Clone,
    V: Clone,
    E: Clone,
{
    /// The answer kept for `key` under `token`, else `compute`'s (see [`Kept::compute`]).
    pub async fn get_or_compute<F, Fut>(&self, key: K, token: T, compute: F) -> Result<V, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(V, Keep), E>>,
    {
        if let Some(hit) = self.get(&key, &token) {
            return Ok(hit);
        }
        self.compute(key, token, compute).await
    }

    /// `compute`'s answer for `key` under `token`, kept as it says (a failure is not); a
    /// caller that asks the same while it runs waits for it instead of computing again. The
    /// answer is kept before the computation ends, so a later caller finds it.
    pub async fn compute<F, Fut>(&self, key: K, token: T, compute: F) -> Result<V, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(V, Keep), E>>,
    {
        let cell = {
            let mut flights = self.flights.lock();
            match flights.iter().find(|(k, t, _)| *k == key && *t == token) {
                Some((.., cell)) => cell.clone(),
                None => {
                    let cell = Cell::default();
                    flights.push((key.clone(), token.clone(), cell.clone()));
                    cell
                }
            }
        };
        // Ends the flight when this caller is done or dropped: later callers find the answer
        // kept, or compute anew.
        let _landed = Landed {
            flights: &self.flights,
            cell: &cell,
        };
        cell.get_or_init(|| async {
            let (value, keep) = compute().await?;
            self.keep(key, token, value.clone(), keep);
            Ok(value)
        })
        .await
        .clone()
    }
}

/// Takes a flight off the list when its caller leaves.
struct Landed<'a, K, T, V, E> {
    flights: &'a Flights<K, T, V, E>,
    cell: &'a Cell<V, E>,
}

impl<K, T, V, E> Drop for Landed<'_, K, T, V, E> {
    fn drop(&mut self) {
        self.flights
            .lock()
            .retain(|(.., cell)| !Arc::ptr_eq(cell, self.cell));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    type Cache = Kept<String, u64, String, String>;

    /// Asks `cache` for `key` under `token`; counts the computations in `n`.
    async fn ask(cache: &Cache, key: &str, token: u64, n: &AtomicUsize) -> String {
        cache
            .get_or_compute(key.to_owned(), token, || async {
                let i = n.fetch_add(1, Ordering::SeqCst);
                Ok((format!("{key}#{i}"), Keep::Yes))
            })
            .await
            .unwrap_or_else(|e| e)
    }

    #[tokio::test]
    async fn a_kept_answer_is_handed_out_again_under_the_same_token() {
        let (cache, n) = (Cache::new(4), AtomicUsize::new(0));
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#0");
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#0");
        assert_eq!(cache.get("a", &1).as_deref(), Some("a#0"), "borrowed key");
        assert_eq!(n.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_changed_token_is_a_miss_and_its_answer_replaces_the_old() {
        let (cache, n) = (Cache::new(4), AtomicUsize::new(0));
        ask(&cache, "a", 1, &n).await;
        assert_eq!(ask(&cache, "a", 2, &n).await, "a#1");
        assert_eq!(cache.get("a", &1), None, "the old token's answer is gone");
        assert_eq!(cache.len(), 1);
        assert_eq!(ask(&cache, "b", 2, &n).await, "b#2", "another key");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_expires_at_its_time_limit_or_its_own_instant() {
        let limit = Duration::from_secs(60);
        let (cache, n) = (Cache::new(4).with_time_limit(limit), AtomicUsize::new(0));
        ask(&cache, "a", 1, &n).await;
        tokio::time::advance(limit - Duration::from_millis(1)).await;
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#0");
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#1");
        // Its own instant, when sooner than the limit, holds.
        let soon = Instant::now() + Duration::from_secs(5);
        cache.keep("b".into(), 1, "b".into(), Keep::Until(soon));
        tokio::time::advance(Duration::from_secs(4)).await;
        assert!(cache.get("b", &1).is_some());
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(cache.get("b", &1).is_none());
        // And without a limit an answer holds for good.
        let forever = Cache::new(4);
        forever.insert("c".into(), 1, "c".into());
        tokio::time::advance(Duration::from_secs(365 * 24 * 3600)).await;
        assert!(forever.get("c", &1).is_some());
    }

    #[tokio::test]
    async fn a_full_store_lets_the_least_recently_used_go() {
        let cache: Kept<u32, (), u32> = Kept::new(3);
        for k in 0..3 {
            cache.insert(k, (), k);
        }
        assert_eq!(
            cache.get(&0, &()),
            Some(0),
            "0 is now the most recently used"
        );
        cache.insert(3, (), 3);
        assert_eq!(cache.get(&1, &()), None, "1 was the least recently used");
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get(&2, &()), Some(2));
        assert_eq!(cache.get(&0, &()), Some(0));
        cache.insert(4, (), 4);
        assert_eq!(cache.get(&3, &()), None);
        let mut keys = cache.keys();
        keys.sort();
        assert_eq!(keys, [0, 2, 4]);
        // Replacing a key's answer in a full store lets none of the others go.
        cache.insert(4, (), 40);
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get(&4, &()), Some(40));
    }

    #[tokio::test(start_paused = true)]
    async fn callers_asking_at_once_share_one_computation() {
        let (cache, n) = (Cache::new(4), AtomicUsize::new(0));
        let slow = || async {
            n.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(("answer".to_string(), Keep::No))
        };
        let answers =
            futures::future::join_all((0..8).map(|_| cache.get_or_compute("a".into(), 1, slow)))
                .await;
        assert!(answers.iter().all(|a| a.as_deref() == Ok("answer")));
        assert_eq!(n.load(Ordering::SeqCst), 1, "one computation for 8 callers");
        assert!(!cache.computing(&"a".into(), &1));
        assert_eq!(cache.flights(), 0, "the flight is over");
        assert!(cache.is_empty(), "an answer not to keep is not kept");
        assert_eq!(
            ask(&cache, "a", 1, &n).await,
            "a#1",
            "the next caller computes"
        );
        // Another token is another computation.
        let (x, y) = tokio::join!(
            cache.get_or_compute("k".into(), 1, slow),
            cache.get_or_compute("k".into(), 2, slow)
        );
        assert!(x.is_ok() && y.is_ok());
        assert_eq!(n.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn a_failure_is_shared_by_its_waiters_and_not_kept() {
        let (cache, n) = (Cache::new(4), AtomicUsize::new(0));
        let failing = || async {
            n.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            Err::<(String, Keep), _>("down".to_string())
        };
        let (a, b) = tokio::join!(
            cache.get_or_compute("a".into(), 1, failing),
            cache.get_or_compute("a".into(), 1, failing)
        );
        assert_eq!((a, b), (Err("down".into()), Err("down".into())));
        assert_eq!(n.load(Ordering::SeqCst), 1);
        assert!(cache.is_empty());
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#1", "asked again");
    }

    #[tokio::test]
    async fn a_dropped_caller_leaves_no_flight_behind() {
        let cache = Cache::new(4);
        let mut pending = Box::pin(cache.get_or_compute("a".into(), 1, std::future::pending));
        assert!(futures::poll!(&mut pending).is_pending());
        assert_eq!(cache.flights(), 1);
        assert!(cache.computing(&"a".into(), &1) && !cache.computing(&"a".into(), &2));
        drop(pending);
        assert_eq!(cache.flights(), 0);
        let n = AtomicUsize::new(0);
        assert_eq!(ask(&cache, "a", 1, &n).await, "a#0");
    }
}
