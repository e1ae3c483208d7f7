//! The families' background jobs as the core runs them: started once with the server's
//! shutdown future, each pass recorded (when it ran, how it ended) for the owner's tools, or
//! one pass run on demand. Of several replicas on one store, only the holder of the store's
//! `jobs` lease runs the passes of jobs that act on what replicas share (renewed every
//! [`BEAT`]; another takes it over once it lapses), and it sweeps up the unfinished work of
//! replicas that are gone; jobs that keep a process's own memory fresh run on every replica.

use std::{
    future::Future,
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use futures::FutureExt;

use crate::{App, Job, app::Shared};

/// How often a replica renews (or tries to take) the jobs' lease.
const BEAT: Duration = Duration::from_secs(5);
/// How long the jobs' lease holds without renewal: another replica leads within this and a
/// beat of the leader's end.
const LEASE_MS: i64 = 15_000;

/// One beat: the lease, and (leading) the sweep of gone replicas' work.
async fn beat(core: &Shared) {
    let store = &core.store;
    let leads = match store.take_lease("jobs", LEASE_MS).await {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(error = %e, "the jobs' lease could not be read; this replica runs no passes until it can");
            false
        }
    };
    if core.leads_jobs.swap(leads, Ordering::AcqRel) != leads {
        tracing::info!(leads, "this replica's lead of the background jobs changed");
    }
    if leads {
        match store.recover_gone_replicas().await {
            Ok((0, 0, 0)) => {}
            Ok((unknown, failed, audit)) => tracing::warn!(
                unknown,
                failed,
                audit,
                "work left unfinished by a replica that is gone was closed; none is retried"
            ),
            Err(e) => tracing::warn!(error = %e, "gone replicas' work could not be swept"),
        }
    }
}

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
        if self.shared.store.replica().is_some() {
            // A replica leads only once it holds the lease (its first beat, below).
            self.shared.leads_jobs.store(false, Ordering::Release);
            let stop = shutdown.clone();
            let mut alive = self.shared.alive.subscribe();
            let shared = Arc::downgrade(&self.shared);
            runtime.spawn(async move {
                let beats = async {
                    loop {
                        let Some(core) = shared.upgrade() else { return };
                        beat(&core).await;
                        drop(core);
                        tokio::time::sleep(BEAT).await;
                    }
                };
                tokio::select! {
                    () = beats => {}
                    () = stop => {}
                    _ = alive.changed() => {}
                }
            });
        }
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
                        // A replica that does not lead looks again at the next beat, so that
                        // it takes over within a beat of winning the lease.
                        let runs_here = core.jobs[index].on_every_replica
                            || core.leads_jobs.load(Ordering::Acquire);
                        let wait = if runs_here {
                            let name = &core.jobs[index].name;
                            core.job_runs.record(name, pass()).await;
                            every
                        } else {
                            every.min(BEAT)
                        };
                        drop(core);
                        tokio::time::sleep(wait).await;
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

    /// Whether this process runs the jobs' passes now (of several replicas, the one holding
    /// the store's `jobs` lease).
    pub fn leads_jobs(&self) -> bool {
        self.shared.leads_jobs.load(Ordering::Acquire)
    }
}
