//! Work done while nobody is calling: a scheduled task's calls, made for the person whose key
//! made the task with the authority that key has *now* (a revoked key or a narrowed grant
//! applies), and the background jobs as the owner's tools see them (when each last ran, how it
//! ended, when it runs next). A family reaches it through its slot (`Slots::get::<Delegate>`).

use std::{
    collections::HashMap, future::Future, panic::AssertUnwindSafe, sync::Weak, time::Duration,
};

use chrono::{DateTime, Utc};
use domain::PersonId;
use futures::FutureExt;
use parking_lot::Mutex;
use serde_json::{Map, Value};

use crate::{
    App, Called, Ctx,
    app::Shared,
    context::{Caller, Credential},
};

/// The core, for a family's work done without a call. Holds no strong handle: the core ends
/// when its last `App` is dropped.
#[derive(Clone)]
pub struct Delegate {
    core: Weak<Shared>,
}

/// A background job as the owner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobView {
    /// `family.what[:instance]`.
    pub name: String,
    pub every: Duration,
    /// When its last pass started, in this process.
    pub last_run: Option<DateTime<Utc>>,
    /// `ok`, `panicked` or `running`; `None` before its first pass.
    pub last_outcome: Option<&'static str>,
    /// When its next pass is due: `None` while the jobs are not running (a command line), or
    /// do not run here (another replica leads a job that runs on one replica only).
    pub next_run: Option<DateTime<Utc>>,
    /// Whether it runs on every replica (keeping the process's own memory fresh), or only on
    /// the one leading the jobs.
    pub on_every_replica: bool,
}

/// What the passes of each job did, in this process.
#[derive(Default)]
pub(crate) struct JobRuns {
    by_name: Mutex<HashMap<String, Pass>>,
}

#[derive(Clone, Copy)]
struct Pass {
    started: DateTime<Utc>,
    outcome: &'static str,
}

impl JobRuns {
    /// Runs one pass of `name`, recording when it started and how it ended (a panic is
    /// contained and recorded).
    pub(crate) async fn record(&self, name: &str, pass: impl Future<Output = ()>) {
        let started = Utc::now();
        let set = |outcome| {
            self.by_name
                .lock()
                .insert(name.to_owned(), Pass { started, outcome });
        };
        set("running");
        let outcome = match AssertUnwindSafe(pass).catch_unwind().await {
            Ok(()) => "ok",
            Err(_) => {
                tracing::error!(job = name, "a background job's pass panicked");
                "panicked"
            }
        };
        set(outcome);
    }

    fn last(&self, name: &str) -> Option<Pass> {
        self.by_name.lock().get(name).copied()
    }
}

impl Delegate {
    pub(crate) fn new(core: Weak<Shared>) -> Delegate {
        Delegate { core }
    }

    fn app(&self) -> Option<App> {
        self.core.upgrade().map(|shared| App { shared })
    }

    /// Calls `tool` for the person of the key (or OAuth connection) `key_id`, with the
    /// authority it has now: `Err` with the reason when that credential no longer acts
    /// (revoked or expired, its grant expired) or the server is stopping; otherwise the call's
    /// outcome, decided, audited and run exactly as a direct call with that key.
    pub async fn call_as(
        &self,
        key_id: &str,
        person: PersonId,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<Called, String> {
        let app = self.app().ok_or("the server is stopping")?;
        let caller = app
            .authenticate_delegated(key_id)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "a task's authority could not be read");
                "its authority could not be read (the store failed)".to_owned()
            })?
            .ok_or("the credential it was created with is no longer valid (revoked or expired)")?;
        // The credential must still stand for the person the work is for (a machine-local
        // credential follows the config, which may name someone else by now).
        if caller.authority.person.id != person {
            return Err(
                "the credential it was created with now stands for another person".to_owned(),
            );
        }
        Ok(app.call(&caller, tool, Some(arguments)).await)
    }

    /// The context in which work the owner approved to recur is carried out (a shortlist
    /// row's scheduled run): acting for the household's owner under the built-in owner grant,
    /// decided as `tool`'s approved plan (never planned again, never asking). It does not
    /// depend on the credential that planned the work: revoking that does not stop what the
    /// owner approved, only the owner's pause does. `Err` with the reason when the server is
    /// stopping, the store fails, or no owner (or owner grant) exists.
    pub async fn owner_ctx(&self, tool: &str) -> Result<Ctx, String> {
        let app = self.app().ok_or("the server is stopping")?;
        let shared = app.shared.clone();
        let meta = shared
            .registry
            .get(tool)
            .map(|t| t.meta())
            .ok_or_else(|| format!("{tool} is not served"))?;
        let store = &shared.store;
        let state = store.version();
        let failed = |e: store::Error| {
            tracing::error!(error = %e, "the owner's authority could not be read");
            "the owner's authority could not be read (the store failed)".to_owned()
        };
        let owner = store
            .people()
            .await
            .map_err(failed)?
            .into_iter()
            .find(|p| p.role == domain::Role::Owner)
            .ok_or("the household has no owner")?;
        let grant = store
            .grant_by_name(store::OWNER_GRANT)
            .await
            .map_err(failed)?
            .ok_or("the owner grant is missing")?;
        let switches = store.tool_switches().await.map_err(failed)?;
        let authority = store::Authority {
            person: owner,
            key_id: "owner".into(),
            grant,
        };
        let caller = Caller::new(
            Credential::Delegated {
                key_id: "owner".into(),
            },
            std::sync::Arc::new(authority),
            switches,
            state,
        );
        Ok(Ctx {
            state: None,
            caller,
            meta,
            shared,
            needs_plan: None,
            applying: true,
            report: None,
            asker: None,
        })
    }

    /// Where the owner reviews change `id` (`public_url` + `/changes/<id>`); `None` while
    /// no public URL is known or the core is gone.
    pub fn review_url(&self, id: &str) -> Option<String> {
        let base = self.core.upgrade()?.settings.public_url();
        (!base.is_empty()).then(|| format!("{base}/changes/{id}"))
    }

    /// Whether a tool of that name is served.
    pub fn has_tool(&self, name: &str) -> bool {
        self.core
            .upgrade()
            .is_some_and(|shared| shared.registry.get(name).is_some())
    }

    /// The background jobs, in the order the families made them.
    pub fn jobs(&self) -> Vec<JobView> {
        self.app().map(|app| app.job_views()).unwrap_or_default()
    }

    /// Whether this process runs the jobs that run on one replica only.
    pub fn leads_jobs(&self) -> bool {
        self.app().is_none_or(|app| app.leads_jobs())
    }

    /// Runs one pass of the job `name` now; `false` when no job has that name.
    pub async fn run_job(&self, name: &str) -> bool {
        match self.app() {
            Some(app) => app.run_job(name).await,
            None => false,
        }
    }
}

impl App {
    /// The caller a key id stands for now, with no secret presented: for work the person set
    /// up earlier (a scheduled task). `Ok(None)` when the key is unknown, revoked or expired,
    /// or its grant expired. `local` is the key-less local access, while it is configured.
    pub(crate) async fn authenticate_delegated(
        &self,
        key_id: &str,
    ) -> Result<Option<Caller>, store::Error> {
        if key_id == "local" {
            return self.authenticate_local().await;
        }
        let store = self.store();
        let state = store.version();
        let Some(authority) = store.key_authority(key_id).await? else {
            return Ok(None);
        };
        let switches = store.tool_switches().await?;
        Ok(Some(Caller::new(
            Credential::Delegated {
                key_id: key_id.to_owned(),
            },
            authority,
            switches,
            state,
        )))
    }

    /// The background jobs with when each last ran and runs next.
    pub fn job_views(&self) -> Vec<JobView> {
        let running = self.jobs_running();
        let leads = self.leads_jobs();
        self.jobs()
            .into_iter()
            .map(|job| {
                let started = running && (leads || job.on_every_replica);
                let last = self.shared.job_runs.last(&job.name);
                let every = chrono::Duration::from_std(job.every).ok();
                let next_run = match (started, last) {
                    (false, _) => None,
                    (true, None) => Some(Utc::now()),
                    (true, Some(p)) if p.outcome == "running" => None,
                    (true, Some(p)) => every.map(|e| p.started + e),
                };
                JobView {
                    name: job.name.clone(),
                    every: job.every,
                    last_run: last.map(|p| p.started),
                    last_outcome: last.map(|p| p.outcome),
                    next_run,
                    on_every_replica: job.on_every_replica,
                }
            })
            .collect()
    }
}
