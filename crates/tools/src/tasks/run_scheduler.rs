//! `run_scheduler`: runs one pass of a background job now (admins only); answers at once,
//! the pass goes on in the background and list_schedulers shows how it ended.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use governance::{Ctx, Delegate, ErrorCode, Meta, Output, Tool, ToolError};

pub struct RunScheduler;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The job's id, as list_schedulers gives it (requests.follow, files.scan:library, ...).
    #[schemars(length(min = 1, max = 200))]
    pub job_id: String,
}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Started {
    job_id: String,
    status: &'static str,
}

impl Tool for RunScheduler {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Started>);
    const META: Meta = Meta {
        name: "run_scheduler",
        title: "Run a background job now",
        description: "Admins only: runs one pass of a background job now (a job_id from list_schedulers), answering at once; list_schedulers shows its last_outcome once it ends.",
        effect: Effect::Write,
        capability: Capability::Automation,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if !ctx.caller.scope.household {
            return Err(ToolError::denied(
                "only the owner and admins run background jobs",
            ));
        }
        let delegate = ctx.family::<Delegate>()?.clone();
        let job_id = input.job_id.trim().to_owned();
        let jobs = delegate.jobs();
        if !jobs.iter().any(|j| j.name == job_id) {
            let known: Vec<String> = jobs.into_iter().map(|j| j.name).collect();
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("no background job \"{job_id}\"; jobs: {}", known.join(", ")),
            ));
        }
        let name = job_id.clone();
        tokio::spawn(async move {
            delegate.run_job(&name).await;
        });
        Output::typed(
            format!("The job {job_id} is running now."),
            &Started {
                job_id,
                status: "running",
            },
        )
        .map(|o| o.next("list_schedulers shows how it ended"))
    }
}
