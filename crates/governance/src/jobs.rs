//! The families' background jobs as the core runs them: started once with the server's
//! shutdown future, each pass recorded (when it ran, how it ended) for the owner's tools, or
//! one pass run on demand.

use std::{
    future::Future,
    sync::{Arc, atomic::Ordering},
};

use futures::FutureExt;

use crate::{App, Job};

impl App {
    /// Starts every family's background jobs, once: each runs a pass, waits its interval and
    /// runs again, until `shutdown` resolves or the core is dropped. Needs a tokio runtime.
    pub fn start_jobs(&self, shutdown: impl Future<Output = ()> + Send + 'static) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!("background jobs need a tokio runtime; none were started");
            return;
        };
        if self.shared.jobs_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let shutdown = shutdown.boxed().shared();
        for (index, job) in self.shared.jobs.iter().enumerate() {
            let pass = job.pass.clone();
            let every = job.every;
            let stop = shutdown.clone();
            let mut alive = self.shared.alive.subscribe();
            let shared = Arc::downgrade(&self.shared);
            runtime.spawn(async move {
                let passes = async {
                    loop {
                        let Some(core) = shared.upgrade() else { return };
                        let name = &core.jobs[index].name;
                        core.job_runs.record(name, pass()).await;
                        drop(core);
                        tokio::time::sleep(every).await;
                    }
                };
                tokio::select! {
                    () = passes => {}
                    () = stop => {}
                    _ = alive.changed() => {}
                }
            });
        }
    }

    /// The background jobs, by name, in the order the families made them.
    pub fn jobs(&self) -> Vec<&Job> {
        self.shared.jobs.iter().collect()
    }

    /// Runs one pass of the job `name` now; `false` when no job has that name.
    pub async fn run_job(&self, name: &str) -> bool {
        let Some(job) = self.shared.jobs.iter().find(|j| j.name == name) else {
            return false;
        };
        self.shared.job_runs.record(name, (job.pass)()).await;
        true
    }

    /// Whether the background jobs run in this process ([`App::start_jobs`] was called).
    pub fn jobs_running(&self) -> bool {
        self.shared.jobs_started.load(Ordering::Acquire)
    }
}
