//! `plan_schedule`: plans running a shortlist row on its own on a cron schedule (through the
//! scheduled-tasks machinery: its clock, time zone and background job), pausing it, or removing
//! it. Once the owner approves it the schedule is the owner's: revoking the key that planned it
//! does not stop it (that only stops its runs' requests); the owner pauses or removes it.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::schedule_plan::{SCHEDULE, SchedulePlan, ScheduleSaved, ScheduleSaves, next_due};
use crate::saving;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct PlanSchedule;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The row (list_rows gives the ids).
    #[schemars(range(min = 1))]
    pub row_id: i64,
    /// A 5-field cron expression in the server's task time zone ("0 18 * * 5": Fridays at 18:00). Omit it only with remove.
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    pub cron: Option<String>,
    /// true: the row no longer runs on its own.
    #[serde(default)]
    pub remove: bool,
    /// true: keep the schedule but do not run it until a plan resumes it.
    #[serde(default)]
    pub paused: bool,
    /// How many missing titles each run requests (request_media, for you with your key's authority at run time), at most 20; default 0.
    #[serde(default)]
    #[schemars(range(max = 20))]
    pub max_requests: u32,
    /// How many further missing titles each run acquires (the best-seeded release search_indexers finds, sent with grab_release to the default download client, with your key's authority at run time), at most 10; default 0.
    #[serde(default)]
    #[schemars(range(max = 10))]
    pub max_acquisitions: u32,
}

impl Tool for PlanSchedule {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ScheduleSaved>);
    const META: Meta = Meta {
        name: "plan_schedule",
        title: "Plan a shortlist row's schedule",
        description: "Plans running an enabled shortlist row on its own: cron (a 5-field expression in the server's task time zone), paused or not, each run requesting at most max_requests (default 0, at most 20) missing titles for you and acquiring at most max_acquisitions (default 0, at most 10) further ones (a release grabbed into the default download client, within your grabs allowance). remove true stops it. Each scheduled run is kept like an approved plan_run (list_runs, get_run_report) and changes only the collection Marquee made. Once approved the schedule is the owner's: revoking the key that planned it does not stop it (its runs then file no requests and acquire nothing); only the owner's pause or a new plan does. Nothing is saved on this call: the answer is a change_id for the owner to review, then apply_change saves it.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&SCHEDULE),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let cron = match (input.cron.as_deref().map(str::trim), input.remove) {
            (Some(_), true) => {
                return Err(ToolError::invalid("give cron or remove true, not both"));
            }
            (None, false) => {
                return Err(ToolError::invalid(
                    "give cron (a 5-field expression such as \"0 18 * * 5\"), or remove true",
                ));
            }
            (None, true) => None,
            (Some(cron), false) => {
                next_due(ctx, cron)?;
                Some(cron.to_owned())
            }
        };
        let row = super::row_or_not_found(ctx, input.row_id).await?;
        if cron.is_none() && row.schedule.is_none() {
            return Err(ToolError::invalid(format!(
                "row {} has no schedule to remove",
                row.id
            )));
        }
        if cron.is_some() && !row.enabled {
            return Err(ToolError::invalid(format!(
                "row {} (\"{}\") is disabled; plan_row with enabled true enables it first",
                row.id, row.name
            )));
        }
        let authority = &ctx.caller.authority;
        let plan = SchedulePlan {
            row_id: row.id,
            row: row.name.clone(),
            instance_id: row.instance_id.clone(),
            cron: cron.clone(),
            paused: input.paused,
            max_requests: input.max_requests,
            max_acquisitions: input.max_acquisitions,
            by: authority.person.name.clone(),
            key_id: authority.key_id.clone(),
        };
        let summary = match &cron {
            Some(c) => format!("run shortlist row \"{}\" on \"{c}\"", row.name),
            None => format!("stop running shortlist row \"{}\" on its own", row.name),
        };
        saving::propose::<ScheduleSaves>(ctx, Self::META, summary, &plan).await
    }
}
