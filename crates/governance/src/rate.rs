//! The per-person call rate: each person may make `per_minute` tool calls a minute, whatever
//! key, token or transport they come by, so no caller (a kid's key, a looping agent) can grow
//! the audit log or load the backends without bound. A token bucket per person: a full
//! minute's calls may come at once, then they refill evenly. A refused call did nothing and
//! says when to try again (`rate_limited`, REST 429 with `Retry-After`).

use std::{
    collections::HashMap,
    sync::atomic::{AtomicU32, Ordering},
};

use parking_lot::Mutex;
use serde_json::json;
use tokio::time::Instant;

use crate::{ErrorCode, ToolError, context::Caller};

/// Calls a minute when the config says nothing: more than a household's agents make, far fewer
/// than a loop would.
pub const DEFAULT_PER_MINUTE: u32 = 600;

/// People remembered at once before full buckets are let go.
const REMEMBERED: usize = 1024;

/// The call rate of every person.
#[derive(Debug)]
pub struct CallRate {
    /// Calls a minute per person; 0: no limit.
    per_minute: AtomicU32,
    buckets: Mutex<HashMap<i64, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Calls left, with the part of one refilled so far.
    left: f64,
    at: Instant,
}

impl Default for CallRate {
    fn default() -> CallRate {
        CallRate::new(DEFAULT_PER_MINUTE)
    }
}

impl CallRate {
    pub fn new(per_minute: u32) -> CallRate {
        CallRate {
            per_minute: AtomicU32::new(per_minute),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    pub fn per_minute(&self) -> u32 {
        self.per_minute.load(Ordering::Relaxed)
    }

    /// A new rate (from a changed config); 0 switches the limit off.
    pub fn set_per_minute(&self, per_minute: u32) {
        self.per_minute.store(per_minute, Ordering::Relaxed);
    }

    /// Counts one call of `caller`'s person, or refuses it with the seconds to wait.
    pub fn check(&self, caller: &Caller) -> Result<(), ToolError> {
        match self.take(caller.authority.person.id.0) {
            Ok(()) => Ok(()),
            Err(wait) => Err(ToolError::new(
                ErrorCode::RateLimited,
                format!(
                    "too many calls: at most {} a minute per person; nothing was done; try again in {wait} seconds",
                    self.per_minute()
                ),
            )
            .with_data(json!({"retry_after_seconds": wait}))),
        }
    }

    /// Takes one call from `person`'s bucket; `Err(seconds)` to wait while it is empty.
    pub fn take(&self, person: i64) -> Result<(), u64> {
        let per_minute = self.per_minute();
        if per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(per_minute);
        let per_second = capacity / 60.0;
        let now = Instant::now();
        let mut buckets = self.buckets.lock();
        if buckets.len() >= REMEMBERED && !buckets.contains_key(&person) {
            // A full bucket says nothing a new one would not.
            buckets.retain(|_, b| refilled(b, now, per_second, capacity) < capacity);
        }
        let bucket = buckets.entry(person).or_insert(Bucket {
            left: capacity,
            at: now,
        });
        bucket.left = refilled(bucket, now, per_second, capacity);
        bucket.at = now;
        if bucket.left >= 1.0 {
            bucket.left -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - bucket.left) / per_second).ceil().max(1.0);
        Err(wait as u64)
    }
}

/// What `b` holds at `now`.
fn refilled(b: &Bucket, now: Instant, per_second: f64, capacity: f64) -> f64 {
    (b.left + now.duration_since(b.at).as_secs_f64() * per_second).min(capacity)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_minute_of_calls_then_an_even_refill() {
        let rate = CallRate::new(60);
        for _ in 0..60 {
            assert_eq!(rate.take(7), Ok(()));
        }
        assert_eq!(rate.take(7), Err(1), "spent: one call a second comes back");
        assert_eq!(rate.take(8), Ok(()), "another person has their own");
        tokio::time::advance(Duration::from_millis(1500)).await;
        assert_eq!(rate.take(7), Ok(()));
        assert_eq!(rate.take(7), Err(1));
        tokio::time::advance(Duration::from_secs(3600)).await;
        for _ in 0..60 {
            assert_eq!(rate.take(7), Ok(()), "never more than a minute's worth");
        }
        assert!(rate.take(7).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn zero_is_no_limit_and_the_rate_can_change() {
        let rate = CallRate::new(0);
        for _ in 0..10_000 {
            assert_eq!(rate.take(1), Ok(()));
        }
        rate.set_per_minute(6);
        for _ in 0..6 {
            assert_eq!(rate.take(1), Ok(()));
        }
        assert_eq!(rate.take(1), Err(10), "one call every ten seconds");
    }

    #[tokio::test(start_paused = true)]
    async fn memory_stays_bounded() {
        let rate = CallRate::new(600);
        for person in 0..5000 {
            let _ = rate.take(person);
            tokio::time::advance(Duration::from_millis(200)).await;
        }
        assert!(rate.buckets.lock().len() <= REMEMBERED);
    }
}
