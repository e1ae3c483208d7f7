//! Writes that run to their end whatever becomes of the connection that asked for them: once a
//! changing call has its audit entry, the work runs on a task of its own, owned here rather than
//! by the request, and records its outcome. The binary waits for them at shutdown, within a
//! grace period.

use std::{future::Future, time::Duration};

use tokio::{sync::watch, task::JoinHandle};

/// The core's writes under way.
pub(crate) struct Detached {
    /// How many are running.
    running: watch::Sender<usize>,
}

impl Default for Detached {
    fn default() -> Detached {
        Detached {
            running: watch::channel(0).0,
        }
    }
}

/// Counts one running write down when its task ends, however it ends.
struct Running(watch::Sender<usize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Detached {
    /// Runs `work` on a task of its own: dropping the handle does not stop it.
    pub(crate) fn spawn<F>(&self, work: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.running.send_modify(|n| *n += 1);
        let running = Running(self.running.clone());
        tokio::spawn(async move {
            let _running = running;
            work.await
        })
    }

    /// How many writes are running now.
    pub(crate) fn running(&self) -> usize {
        *self.running.borrow()
    }

    /// Waits until no write is running, at most `grace`; answers how many are still running.
    pub(crate) async fn drain(&self, grace: Duration) -> usize {
        let mut seen = self.running.subscribe();
        let _ = tokio::time::timeout(grace, seen.wait_for(|n| *n == 0)).await;
        self.running()
    }
}
