//! `list_schedulers`: Marquee's own background jobs (catalogue refreshes, download sync,
//! request follow-up, folder scans, media-server sync, the task scheduler), each with when it
//! last ran, how that ended and when it runs next.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::rfc3339;
use governance::{Ctx, Delegate, Meta, Output, Tool, ToolError};

pub struct ListSchedulers;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Schedulers {
    /// Whether this process runs the jobs that run on one replica only (of several replicas on
    /// one store, the holder of the store's jobs lease; a single server always).
    leads_jobs: bool,
    jobs: Vec<JobRow>,
}

#[derive(Serialize, JsonSchema)]
struct JobRow {
    /// `family.what[:instance]`: what run_scheduler takes.
    job_id: String,
    every_seconds: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_run: Option<String>,
    /// ok, panicked or running.
    #[serde(skip_serializing_if = "Option::is_none")]
    last_outcome: Option<&'static str>,
    /// Absent while the jobs do not run in this process.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_run: Option<String>,
    /// `every_replica` (it keeps this process's own memory fresh) or `leader` (it acts on what
    /// replicas share: only the replica leading the jobs runs it).
    runs_on: &'static str,
}

impl Tool for ListSchedulers {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Schedulers>);
    const META: Meta = Meta {
        name: "list_schedulers",
        title: "List background jobs",
        description: "Lists Marquee's own background jobs (catalogue refresh, download sync, request follow-up, folder scans, media-server sync, the task scheduler): job_id, how often it runs, last_run, last_outcome (ok, panicked, running) and next_run, and where it runs (runs_on: every_replica, or leader: of several replicas on one store, only the one leading the jobs, leads_jobs). run_scheduler runs one now.",
        effect: Effect::Read,
        capability: Capability::Automation,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let jobs: Vec<JobRow> = ctx
            .family::<Delegate>()?
            .jobs()
            .into_iter()
            .map(|j| JobRow {
                job_id: j.name,
                every_seconds: j.every.as_secs(),
                last_run: j.last_run.map(|t| rfc3339(t.timestamp_millis())),
                last_outcome: j.last_outcome,
                next_run: j.next_run.map(|t| rfc3339(t.timestamp_millis())),
                runs_on: if j.on_every_replica {
                    "every_replica"
                } else {
                    "leader"
                },
            })
            .collect();
        let leads_jobs = ctx.family::<Delegate>()?.leads_jobs();
        Output::typed(
            format!(
                "{} background jobs{}.",
                jobs.len(),
                if leads_jobs {
                    ""
                } else {
                    "; another replica leads the jobs that run on one replica only"
                }
            ),
            &Schedulers { leads_jobs, jobs },
        )
    }
}
