//! Shortlists: themed rows for the household's media servers. A theme is a named set of picked
//! titles (each resolved through discovery when it is planned: a remembered id is refused) and
//! rules; a row shows a theme as a collection (or one person's playlist) in one library of one
//! media server, for chosen people. Saving either is always a plan the owner approves; `preview_row` shows what a run
//! would do. Needs `shortlists`.

pub mod get_row;
pub mod get_run_report;
pub mod get_theme;
pub mod list_libraries;
pub mod list_people;
pub mod list_rows;
pub mod list_runs;
pub mod list_seasons;
pub mod list_templates;
pub mod list_themes;
mod maintenance_plan;
pub mod pages;
pub mod plan_maintenance;
pub mod plan_people;
pub mod plan_requests;
pub mod plan_row;
pub mod plan_run;
pub mod plan_schedule;
pub mod plan_season;
pub mod plan_setup;
pub mod plan_theme;
pub mod preview_row;
mod requests_plan;
mod row;
mod row_plan;
mod run_plan;
mod run_report;

mod schedule_plan;
mod scheduled;
mod shelf;
mod show;
mod theme;
mod theme_plan;

use std::{sync::Arc, time::Duration};

use governance::{Ctx, Delegate, DynTool, ErrorCode, Job, Slots, ToolError};
use store::ShortlistRow;

/// Row `id`, or an error naming it; refused (by the core's rule) when it is on a server the
/// caller's grant does not reach.
async fn row_or_not_found(ctx: &Ctx, id: i64) -> Result<ShortlistRow, ToolError> {
    let row = ctx.store().shortlist_row(id).await?.ok_or_else(|| {
        ToolError::new(
            ErrorCode::NotFound,
            format!("no row {id}; list_rows lists them"),
        )
    })?;
    ctx.authorize(&row.instance_id)?;
    Ok(row)
}

pub use scheduled::Schedules;

/// How often the rows' schedules are looked at.
const EVERY: Duration = Duration::from_secs(15);

/// Themes and rows.
pub struct ShortlistsFamily;

impl governance::Family for ShortlistsFamily {
    fn name(&self) -> &'static str {
        "shortlists"
    }

    fn group(&self) -> &'static str {
        "shortlists"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(list_templates::ListTemplates),
            Box::new(list_themes::ListThemes),
            Box::new(get_theme::GetTheme),
            Box::new(plan_theme::PlanTheme),
            Box::new(list_libraries::ListLibraries),
            Box::new(list_rows::ListRows),
            Box::new(get_row::GetRow),
            Box::new(plan_row::PlanRow),
            Box::new(preview_row::PreviewRow),
            Box::new(plan_setup::PlanSetup),
            Box::new(plan_run::PlanRun),
            Box::new(plan_schedule::PlanSchedule),
            Box::new(plan_maintenance::PlanMaintenance),
            Box::new(list_people::ListPeople),
            Box::new(plan_people::PlanPeople),
            Box::new(list_seasons::ListSeasons),
            Box::new(plan_season::PlanSeason),
            Box::new(plan_requests::PlanRequests),
            Box::new(list_runs::ListRuns),
            Box::new(get_run_report::GetRunReport),
        ]
    }

    /// Rows need a media server: without one no schedule is looked at.
    fn install(&self, instances: &Arc<governance::Instances>, slots: &mut Slots) {
        if instances
            .ids_of(domain::KindFamily::MediaServers)
            .is_empty()
        {
            return;
        }
        let (Some(store), Some(delegate), Some(scheduler)) = (
            slots.get::<store::Store>(),
            slots.get::<Delegate>(),
            slots.get::<Arc<crate::tasks::Scheduler>>(),
        ) else {
            return;
        };
        let schedules = Arc::new(Schedules::new(
            store.clone(),
            delegate.clone(),
            scheduler.clone(),
        ));
        slots.insert(schedules);
    }

    /// `shortlists.schedule`: runs the rows whose schedule is due.
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        let Some(schedules) = slots.get::<Arc<Schedules>>().cloned() else {
            return Vec::new();
        };
        vec![Job {
            name: "shortlists.schedule".into(),
            every: EVERY,
            on_every_replica: false,
            pass: Arc::new(move || {
                let s = schedules.clone();
                Box::pin(async move {
                    s.tick().await;
                })
            }),
        }]
    }
}
