//! Library: Radarr, Sonarr, Lidarr and Readarr behind one tool family. Every tool takes an
//! optional `instance_id` and every answer names the instance it read; merged reads ask the
//! instances concurrently and name the ones that could not be read while showing the rest.

mod get_calendar;
mod get_custom_formats;
mod get_disk_space;
mod get_episode_timeline;
mod get_health;
mod get_history;
mod get_item_timeline;
mod get_library;
mod get_media_file_details;
mod get_quality_profiles;
mod get_queue;
mod get_service_config;
pub(crate) mod held;
pub(crate) mod reader;
mod repair;
mod rescan_media;
mod search_books;
pub(crate) mod settings;
pub(crate) mod shapes;
pub(crate) mod source;
pub(crate) mod title;
mod trigger_search;

pub use source::Libraries;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{CheckFuture, Ctx, DynTool, InstanceSpec, Instances, Job, Slots};

/// The library services: Radarr, Sonarr, Lidarr and Readarr.
pub struct LibraryFamily;

impl governance::Family for LibraryFamily {
    fn name(&self) -> &'static str {
        "library"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[
            InstanceKind::Radarr,
            InstanceKind::Sonarr,
            InstanceKind::Lidarr,
            InstanceKind::Readarr,
        ]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        tools()
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Libraries::from_instances(instances));
    }

    /// Each instance's held-ids refresh (`library.held:<id>`, see `held.rs`).
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        slots.get::<Libraries>().map_or_else(Vec::new, |l| {
            l.sources().map(|s| s.held.job(&s.id)).collect()
        })
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<Libraries>()?.check(spec).await })
    }
}

/// The library instances, as the family installed them (none in a core without it).
pub(crate) fn libraries(ctx: &Ctx) -> &Libraries {
    static NONE: std::sync::OnceLock<Libraries> = std::sync::OnceLock::new();
    ctx.family::<Libraries>()
        .unwrap_or_else(|_| NONE.get_or_init(Libraries::default))
}

fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(get_library::GetLibrary),
        Box::new(get_queue::GetQueue),
        Box::new(get_calendar::GetCalendar),
        Box::new(get_history::GetHistory),
        Box::new(get_disk_space::GetDiskSpace),
        Box::new(get_health::GetHealth),
        Box::new(get_episode_timeline::GetEpisodeTimeline),
        Box::new(get_media_file_details::GetMediaFileDetails),
        Box::new(get_service_config::GetServiceConfig),
        Box::new(get_item_timeline::GetItemTimeline),
        Box::new(get_quality_profiles::GetQualityProfiles),
        Box::new(get_custom_formats::GetCustomFormats),
        Box::new(trigger_search::TriggerSearch),
        Box::new(rescan_media::RescanMedia),
        Box::new(search_books::SearchBooks),
        Box::new(repair::search_releases::SearchReleases),
        Box::new(repair::grab_release::GrabRelease),
        Box::new(repair::remove_queue_item::RemoveQueueItem),
        Box::new(repair::diagnose_queue::DiagnoseQueue),
        Box::new(repair::get_manual_import_candidates::GetManualImportCandidates),
        Box::new(repair::execute_manual_import::ExecuteManualImport),
        Box::new(settings::plan_profile_change::PlanProfileChange),
        Box::new(settings::upsert_custom_format::UpsertCustomFormat),
        Box::new(settings::revert_change::RevertChange),
    ]
}

/// "1 item" / "3 items".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
