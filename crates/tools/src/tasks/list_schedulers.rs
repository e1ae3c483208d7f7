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
}

impl Tool for ListSchedulers {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Schedulers>);
    const META: Meta = Meta {
        name: "list_schedulers",
        title: "List background jobs",
        description: "Lists Marquee's own background jobs (catalogue refresh, download sync, request follow-up, folder scans, media-server sync, the task scheduler): job_id, how often it runs, last_run, last_outcome (ok, panicked, running) and next_run. run_scheduler runs one now.",
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
            })
            .collect();
        Output::typed(
            format!("{} background jobs.", jobs.len()),
            &Schedulers { jobs },
        )
    }
}
