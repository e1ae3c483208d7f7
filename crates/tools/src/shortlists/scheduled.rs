//! Scheduled shortlist runs: the `shortlists.schedule` job finds the rows whose schedule is due
//! on the tasks' clock, claims each due time once (a time missed while the server was down is
//! skipped, never run late), and runs the row as an approved `plan_run` of its own: a change
//! recorded as the owner's approval of the schedule, an operation with its audit entry, each
//! external write checkpointed. The run acts with the owner's authority the schedule was
//! approved under; its requests are filed for the schedule's planner with the authority their
//! key has then (a revoked key files none, and the run report says so).

use std::sync::Arc;

use serde_json::json;
use store::{ChangeStatus, NewAudit, NewChange, RowSchedule, ShortlistRow, Store};

use super::{
    row::{DisplayView, preview},
    run_plan::{Budget, RUN, Requester, RowRun, RunPlan, dependencies_of, planned_row},
};
use crate::tasks::{MISSED_AFTER, Scheduler, schedule};
use governance::{
    Ctx, Delegate,
    plan::{self, Planned, Run},
};

/// The shortlist rows' schedules, on the tasks' clock.
pub struct Schedules {
    store: Store,
    delegate: Delegate,
    scheduler: Arc<Scheduler>,
}

impl Schedules {
    pub fn new(store: Store, delegate: Delegate, scheduler: Arc<Scheduler>) -> Schedules {
        Schedules {
            store,
            delegate,
            scheduler,
        }
    }

    /// Runs the rows due now; answers the operations of the runs it started.
    pub async fn tick(&self) -> Vec<String> {
        let now = self.scheduler.now();
        let due = match self.store.due_row_schedules(now.timestamp_millis()).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!(error = %e, "the shortlist schedules could not be read");
                return Vec::new();
            }
        };
        let mut started = Vec::new();
        for row in due {
            let Some(s) = row.schedule.clone() else {
                continue;
            };
            let Some(at) = s.next_at else { continue };
            let next = schedule::parse_cron(&s.cron).ok().and_then(|c| {
                schedule::next_cron(&c, self.scheduler.config().zone, now)
                    .map(|t| t.timestamp_millis())
            });
            match self.store.claim_row_schedule(row.id, at, next).await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(row = row.id, error = %e, "a shortlist schedule could not be claimed");
                    continue;
                }
            }
            if now.timestamp_millis() - at > MISSED_AFTER.num_milliseconds() {
                tracing::warn!(
                    row = row.id,
                    "a shortlist row's scheduled run was missed while the server was down; it runs at its next time"
                );
                continue;
            }
            match self.run(&row, &s, at).await {
                Ok(op) => started.push(op),
                Err(why) => {
                    tracing::warn!(row = row.id, reason = %why, "a scheduled shortlist run did not start");
                }
            }
        }
        started
    }

    /// Runs `row` once, as the owner approved it; answers the operation's id.
    async fn run(&self, row: &ShortlistRow, s: &RowSchedule, due: i64) -> Result<String, String> {
        let ctx = self.delegate.owner_ctx("plan_run").await?;
        let theme = self
            .store
            .theme(row.theme_id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("its theme {} is gone", row.theme_id))?;
        // A row that cannot be read (its server down) is still kept as a run, failed with why,
        // so the owner sees it beside the others.
        let read = preview(&ctx, row, &theme).await.map_err(|e| e.message);
        let mut budget = Budget {
            requests: s.max_requests as usize,
            acquisitions: s.max_acquisitions as usize,
        };
        let planned = match &read {
            Ok(p) => planned_row(row, p, &mut budget),
            Err(_) => RowRun {
                row_id: row.id,
                name: row.name.clone(),
                instance_id: row.instance_id.clone(),
                library_id: row.library_id.clone(),
                collection_id: row.collection_id.clone(),
                add: Vec::new(),
                remove: Vec::new(),
                request: Vec::new(),
                acquire: Vec::new(),
                not_requested: 0,
                display: DisplayView::of(&row.display),
                user: None,
            },
        };
        let plan = RunPlan {
            rows: vec![planned],
            requester: s.by.map(|p| Requester {
                person_id: p.0,
                key_id: s.key_id.clone(),
            }),
        };
        let change = self.record(&ctx, row, s, &plan).await?;
        let owner = ctx.caller.authority.person.id;
        let entry = NewAudit {
            person: owner,
            key_id: None,
            tool: "plan_run".into(),
            instance: None,
            args_digest: change.content_hash.clone(),
        };
        let key = format!("schedule:{}:{due}", row.id);
        let begun = self
            .store
            .begin_operation(&change.id, &key, &[ChangeStatus::Approved], &entry, None)
            .await
            .map_err(|e| e.to_string())?;
        let store::Begun::Started(op) = begun else {
            return Err("another pass ran this due time".into());
        };
        if let Err(why) = read {
            let failed = json!({"dry_run": false, "rows": [{"row_id": row.id, "name": row.name,
                "instance_id": row.instance_id, "outcome": "failed", "message": why}]});
            let message = format!("the row could not be read: {why}");
            if let Err(e) = self
                .store
                .finish_operation(&op.id, false, &failed.to_string(), &message)
                .await
            {
                tracing::warn!(operation = %op.id, error = %e, "a scheduled shortlist run's end could not be recorded");
            }
            return Ok(op.id);
        }
        let run = Run::new(&ctx, &op.id);
        let outcome = RUN.apply(&ctx, &change, &run).await;
        let message = governance::audit_message(&outcome, false);
        let (succeeded, result) = match outcome {
            Ok(out) => (true, out.data()),
            Err(e) => (false, json!({"code": e.code.as_str()})),
        };
        if let Err(e) = self
            .store
            .finish_operation(&op.id, succeeded, &result.to_string(), &message)
            .await
        {
            tracing::warn!(operation = %op.id, error = %e, "a scheduled shortlist run's end could not be recorded");
        }
        Ok(op.id)
    }

    /// Records the run as a change the owner approved with the schedule.
    async fn record(
        &self,
        ctx: &Ctx,
        row: &ShortlistRow,
        s: &RowSchedule,
        plan: &RunPlan,
    ) -> Result<store::Change, String> {
        // A plan that could not be read depends on nothing it read.
        let deps = dependencies_of(ctx, plan).await.unwrap_or_default();
        let text = json!(plan).to_string();
        let deps = serde_json::to_string(&deps).map_err(|e| e.to_string())?;
        let grant = &ctx.caller.authority.grant;
        let owner = ctx.caller.authority.person.id;
        let new = NewChange {
            created_by: s.by.unwrap_or(owner),
            grant_id: grant.id,
            grant_revision: grant.revision,
            tool: "plan_run".into(),
            summary: format!(
                "scheduled run of shortlist row \"{}\" ({})",
                row.name, s.cron
            ),
            content_hash: plan::content_hash("plan_run", &text, &deps),
            plan: text,
            dependency_hashes: deps,
        };
        self.store
            .create_approved_change(&new, owner)
            .await
            .map_err(|e| e.to_string())
    }
}
