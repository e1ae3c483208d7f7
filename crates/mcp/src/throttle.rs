//! Throttling of failures by source address: after `limit` failures within `window`, a source
//! is answered 429 with `Retry-After` until `block` has passed. Other sources are not slowed
//! down. A source is an address, or an address and a name ([`Throttle::failed_for`]): guesses
//! of one person's password from one address block those guesses only. Memory is bounded: at
//! most `capacity` sources are remembered (IPv6 addresses by their /64, which one host usually
//! holds whole); when full, expired entries go first, then the oldest unblocked one.

use std::{
    collections::HashMap,
    future::Future,
    hash::{BuildHasher, RandomState},
    net::{IpAddr, Ipv6Addr},
    pin::Pin,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;
use tokio::time::Instant;

/// Failures counted where every replica of the gateway sees them (its store), beside each
/// process's own count: a source is refused after `limit` failures wherever they landed.
pub trait SharedFailures: Send + Sync + 'static {
    /// Records one failure of `source` (an address, or an address and a name) now: how many
    /// failures it has had within the last `window`, or `None` when they cannot be counted.
    fn record<'a>(
        &'a self,
        source: &'a str,
        window: Duration,
    ) -> Pin<Box<dyn Future<Output = Option<u32>> + Send + 'a>>;
}

/// What the edge remembers of failing sources.
pub struct Throttle {
    /// The count every replica shares, once the store is open.
    shared: OnceLock<Arc<dyn SharedFailures>>,
    sources: Mutex<HashMap<Key, Entry>>,
    /// Hashes names into keys, seeded per process so no one can aim at a collision.
    names: RandomState,
    /// Failures within `window` that block a source.
    limit: u32,
    window: Duration,
    /// How long a blocked source waits.
    block: Duration,
    /// Most sources remembered at once.
    capacity: usize,
    /// When the latest-ending block ends, in milliseconds after `base` (rounded up): until
    /// then sources are looked up, after it no source is blocked and none is (every request
    /// asks, so the common case takes no lock).
    blocks_end: AtomicU64,
    base: Instant,
}

/// A source: its address (or /64), and the hash of a name when failures count per name.
type Key = (IpAddr, u64);

#[derive(Debug, Clone, Copy)]
struct Entry {
    failures: u32,
    /// When the current window of failures began.
    since: Instant,
    blocked_until: Option<Instant>,
}

impl Entry {
    fn blocked_at(&self, now: Instant) -> Option<Instant> {
        self.blocked_until.filter(|until| *until > now)
    }

    /// Whether the entry still says anything at `now`.
    fn live(&self, now: Instant, window: Duration) -> bool {
        self.blocked_at(now).is_some() || now.duration_since(self.since) < window
    }
}

impl std::fmt::Debug for Throttle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Throttle")
            .field("limit", &self.limit)
            .field("window", &self.window)
            .field("block", &self.block)
            .field("shared", &self.shared.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Throttle {
    /// 10 failures within 5 minutes block a source for 5 minutes; 10,000 sources at most.
    fn default() -> Throttle {
        Throttle::new(
            10,
            Duration::from_secs(300),
            Duration::from_secs(300),
            10_000,
        )
    }
}

impl Throttle {
    pub fn new(limit: u32, window: Duration, block: Duration, capacity: usize) -> Throttle {
        Throttle {
            shared: OnceLock::new(),
            sources: Mutex::new(HashMap::new()),
            names: RandomState::new(),
            limit: limit.max(1),
            window,
            block,
            capacity: capacity.max(1),
            blocks_end: AtomicU64::new(0),
            base: Instant::now(),
        }
    }

    /// Milliseconds from `base` to `at`, rounded down, and whether any part of one is left.
    fn ms(&self, at: Instant) -> (u64, bool) {
        let d = at.duration_since(self.base);
        let whole = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        (whole, !d.subsec_nanos().is_multiple_of(1_000_000))
    }

    /// Counts failures also in `shared` from now on (once; later calls change nothing).
    pub fn share(&self, shared: Arc<dyn SharedFailures>) {
        let _ = self.shared.set(shared);
    }

    /// [`Throttle::failed`], counted with the other replicas' failures too: blocked once this
    /// process's count or the shared one reaches the limit.
    pub async fn failed_shared(&self, ip: IpAddr) -> Option<u64> {
        let label = source(ip).to_string();
        self.failed_key_shared((source(ip), 0), &label).await
    }

    /// [`Throttle::failed_for`], counted with the other replicas' failures too.
    pub async fn failed_for_shared(&self, ip: IpAddr, name: &str) -> Option<u64> {
        let label = format!("{} {}", source(ip), name.to_lowercase());
        self.failed_key_shared(self.named(ip, name), &label).await
    }

    async fn failed_key_shared(&self, key: Key, label: &str) -> Option<u64> {
        if let Some(wait) = self.failed_key(key) {
            return Some(wait);
        }
        let shared = self.shared.get()?;
        let counted = shared.record(label, self.window).await?;
        (counted >= self.limit).then(|| self.block_key(key))
    }

    /// Blocks `key` from now for the block time: the seconds to wait.
    fn block_key(&self, key: Key) -> u64 {
        let now = Instant::now();
        let until = now + self.block;
        self.sources.lock().insert(
            key,
            Entry {
                failures: 0,
                since: now,
                blocked_until: Some(until),
            },
        );
        let (whole, part) = self.ms(until);
        self.blocks_end
            .fetch_max(whole.saturating_add(u64::from(part)), Ordering::AcqRel);
        seconds(self.block)
    }

    /// Whole seconds `ip` must wait before it may try again, while it is blocked.
    pub fn blocked(&self, ip: IpAddr) -> Option<u64> {
        self.blocked_key((source(ip), 0))
    }

    /// Counts one failure from `ip`; when it blocks the source, the seconds to wait.
    pub fn failed(&self, ip: IpAddr) -> Option<u64> {
        self.failed_key((source(ip), 0))
    }

    /// [`Throttle::failed`] for events that are no failure but are limited the same way (a
    /// registration, say).
    pub fn count(&self, ip: IpAddr) -> Option<u64> {
        self.failed(ip)
    }

    /// [`Throttle::blocked`] for failures about `name` (a person's name) from `ip`.
    pub fn blocked_for(&self, ip: IpAddr, name: &str) -> Option<u64> {
        self.blocked_key(self.named(ip, name))
    }

    /// [`Throttle::failed`] for failures about `name` from `ip`: they block that name from
    /// that address, not the address for other names or other credentials.
    pub fn failed_for(&self, ip: IpAddr, name: &str) -> Option<u64> {
        self.failed_key(self.named(ip, name))
    }

    fn named(&self, ip: IpAddr, name: &str) -> Key {
        // Never 0, the key of the address alone.
        let h = self.names.hash_one(name.to_lowercase()) | 1;
        (source(ip), h)
    }

    fn blocked_key(&self, key: Key) -> Option<u64> {
        let now = Instant::now();
        if self.ms(now).0 >= self.blocks_end.load(Ordering::Acquire) {
            return None;
        }
        let sources = self.sources.lock();
        let until = sources.get(&key)?.blocked_at(now)?;
        Some(seconds(until - now))
    }

    fn failed_key(&self, key: Key) -> Option<u64> {
        let now = Instant::now();
        let mut sources = self.sources.lock();
        if !sources.contains_key(&key) && sources.len() >= self.capacity {
            self.make_room(&mut sources, now);
        }
        let e = sources.entry(key).or_insert(Entry {
            failures: 0,
            since: now,
            blocked_until: None,
        });
        if let Some(until) = e.blocked_at(now) {
            return Some(seconds(until - now));
        }
        if now.duration_since(e.since) >= self.window {
            *e = Entry {
                failures: 0,
                since: now,
                blocked_until: None,
            };
        }
        e.failures += 1;
        if e.failures < self.limit {
            return None;
        }
        drop(sources);
        Some(self.block_key(key))
    }

    /// How many sources are remembered now.
    pub fn len(&self) -> usize {
        self.sources.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops what has expired; if still full, the oldest unblocked source, else the block that
    /// ends first.
    fn make_room(&self, sources: &mut HashMap<Key, Entry>, now: Instant) {
        sources.retain(|_, e| e.live(now, self.window));
        if sources.len() < self.capacity {
            return;
        }
        let victim = sources
            .iter()
            .min_by_key(|(_, e)| (e.blocked_at(now).is_some(), e.blocked_until, e.since))
            .map(|(k, _)| *k);
        if let Some(k) = victim {
            sources.remove(&k);
        }
    }
}

/// The key a source is remembered by: an IPv4 address, or the /64 of an IPv6 one (which one
/// host usually holds whole). Per-address limits elsewhere count by it too.
pub fn source(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// A wait in whole seconds, rounded up, at least one.
fn seconds(d: Duration) -> u64 {
    (d.as_millis().div_ceil(1000) as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn small() -> Throttle {
        Throttle::new(3, Duration::from_secs(60), Duration::from_secs(120), 100)
    }

    #[tokio::test(start_paused = true)]
    async fn the_limit_th_failure_blocks_the_source_for_the_block_time() {
        let t = small();
        let a = ip("203.0.113.5");
        assert_eq!((t.failed(a), t.failed(a)), (None, None));
        assert_eq!(t.blocked(a), None);
        assert_eq!(t.failed(a), Some(120));
        tokio::time::advance(Duration::from_millis(30_500)).await;
        assert_eq!(t.blocked(a), Some(90));
        tokio::time::advance(Duration::from_secs(90)).await;
        assert_eq!(t.blocked(a), None);
        assert_eq!(t.failed(a), None, "a new window begins after the block");
    }

    #[tokio::test(start_paused = true)]
    async fn failures_spread_over_more_than_the_window_do_not_block() {
        let t = small();
        let a = ip("203.0.113.5");
        for _ in 0..5 {
            assert_eq!((t.failed(a), t.failed(a)), (None, None));
            tokio::time::advance(Duration::from_secs(61)).await;
        }
        assert_eq!(t.blocked(a), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_blocked_source_does_not_block_another() {
        let t = small();
        for _ in 0..3 {
            t.failed(ip("203.0.113.5"));
        }
        assert!(t.blocked(ip("203.0.113.5")).is_some());
        assert_eq!(t.blocked(ip("203.0.113.6")), None);
        assert_eq!(t.blocked(ip("2001:db8:1::1")), None);
    }

    #[tokio::test(start_paused = true)]
    async fn an_ipv6_host_is_one_source_across_its_slash_64() {
        let t = small();
        t.failed(ip("2001:db8:1:2::1"));
        t.failed(ip("2001:db8:1:2::ffff"));
        assert!(t.failed(ip("2001:db8:1:2:aaaa::3")).is_some());
        assert!(t.blocked(ip("2001:db8:1:2::99")).is_some());
        assert_eq!(t.blocked(ip("2001:db8:1:3::1")), None);
    }

    #[tokio::test(start_paused = true)]
    async fn failures_about_a_name_block_that_name_from_that_address_only() {
        let t = small();
        let a = ip("203.0.113.5");
        assert_eq!(
            (t.failed_for(a, "owner"), t.failed_for(a, "owner")),
            (None, None)
        );
        assert_eq!(
            t.failed_for(a, "Owner"),
            Some(120),
            "names count case-blind"
        );
        assert!(t.blocked_for(a, "owner").is_some());
        assert_eq!(t.blocked_for(a, "alice"), None, "another name");
        assert_eq!(
            t.blocked_for(ip("203.0.113.6"), "owner"),
            None,
            "another address"
        );
        assert_eq!(t.blocked(a), None, "the address itself is not blocked");
        for _ in 0..3 {
            t.failed(a);
        }
        assert!(t.blocked(a).is_some());
        assert_eq!(
            t.blocked_for(a, "alice"),
            None,
            "nor is a name by the address"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn memory_stays_bounded_and_blocks_survive_a_flood_of_sources() {
        let t = small();
        let a = ip("203.0.113.5");
        for _ in 0..3 {
            t.failed(a);
        }
        for i in 0..5000u32 {
            let b = i.to_be_bytes();
            t.failed(IpAddr::from([10, b[1], b[2], b[3]]));
            assert!(t.len() <= 100);
        }
        assert!(
            t.blocked(a).is_some(),
            "the flood evicted the blocked source"
        );
        tokio::time::advance(Duration::from_secs(121)).await;
        t.failed(ip("198.51.100.1"));
        assert_eq!(t.len(), 1, "expired entries go first");
    }
}
