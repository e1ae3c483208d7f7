//! Shortlists: themed rows for the household's media servers. A theme is a named set of picked
//! titles (each resolved through discovery when it is planned: a remembered id is refused) and
//! rules; a row shows a theme as a collection in one library of one media server, for chosen
//! people. Saving either is always a plan the owner approves; `preview_row` shows what a run
//! would do. Needs `shortlists`.

pub mod get_row;
pub mod get_run_report;
pub mod get_theme;
pub mod list_libraries;
pub mod list_rows;
pub mod list_runs;
pub mod list_themes;
pub mod plan_row;
pub mod plan_run;
pub mod plan_setup;
pub mod plan_theme;
pub mod preview_row;
mod row;
mod row_plan;
mod run_plan;
mod run_report;
mod saving;
mod theme;
mod theme_plan;

use governance::{Ctx, DynTool, ErrorCode, ToolError};
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
            Box::new(list_runs::ListRuns),
            Box::new(get_run_report::GetRunReport),
        ]
    }
}
