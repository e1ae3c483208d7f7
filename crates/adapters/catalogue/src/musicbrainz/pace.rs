//! The pacing gate: at most one MusicBrainz request per interval per client (MusicBrainz asks for one
//! per second). Requests pass one at a time, and the next may start only `interval` after the previous
//! one finished, so arrivals at the server are spaced by at least the interval whatever the network does.

use std::time::Duration;

use tokio::{sync::Mutex, time::Instant};

pub(crate) struct Pacer {
    interval: Duration,
    /// When the next request may start; None before the first.
    next: Mutex<Option<Instant>>,
}

/// Held while a request is in flight; dropping it schedules the next start.
pub(crate) struct Turn<'a> {
    interval: Duration,
    next: tokio::sync::MutexGuard<'a, Option<Instant>>,
}

impl Pacer {
    pub fn new(interval: Duration) -> Pacer {
        Pacer {
            interval,
            next: Mutex::new(None),
        }
    }

    /// Waits for this client's turn.
    pub async fn turn(&self) -> Turn<'_> {
        let next = self.next.lock().await;
        if let Some(at) = *next {
            tokio::time::sleep_until(at).await;
        }
        Turn {
            interval: self.interval,
            next,
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *self.next = Some(Instant::now() + self.interval);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn spaces_turns_by_the_interval_even_when_callers_race() {
        let pacer = Arc::new(Pacer::new(Duration::from_secs(1)));
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..3 {
            let pacer = pacer.clone();
            tasks.push(tokio::spawn(async move {
                let _turn = pacer.turn().await;
                let began = Instant::now();
                tokio::time::sleep(Duration::from_millis(200)).await; // the request itself
                began
            }));
        }
        let mut began = Vec::new();
        for t in tasks {
            began.push(t.await.unwrap() - start);
        }
        began.sort();
        assert_eq!(
            began,
            [
                Duration::ZERO,
                Duration::from_millis(1200),
                Duration::from_millis(2400)
            ]
        );
    }
}
