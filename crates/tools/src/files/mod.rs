//! Files: the household's media folders (`folder` instances). Its tools appear only where a
//! folder instance is configured; `recognize_media` reads a release or file name into
//! structured facts with the `recognize` crate's rules and names the best catalogue identity.
//! Diagnose looks at each folder on disk (the server family's check of an instance no adapter
//! checks).

pub mod find_local_media;
pub(crate) mod index;
pub(crate) mod index_read;
pub(crate) mod naming;
pub(crate) mod nfo;
pub(crate) mod organize_run;
pub mod plan_organize;
pub mod probe_media_file;
pub mod recognize_media;
pub(crate) mod roles;
pub mod scan_library;
pub mod scrape_metadata;
pub(crate) mod scrape_run;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{DynTool, Instances, Job, Slots};

/// The media folders.
pub struct FilesFamily;

impl governance::Family for FilesFamily {
    fn name(&self) -> &'static str {
        "files"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Folder]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(recognize_media::RecognizeMedia),
            Box::new(probe_media_file::ProbeMediaFile),
            Box::new(scan_library::ScanLibrary),
            Box::new(find_local_media::FindLocalMedia),
            Box::new(plan_organize::PlanOrganize),
            Box::new(scrape_metadata::ScrapeMetadata),
        ]
    }

    /// The kept probes of `probe_media_file`; the index of media files on disk (`index.rs`).
    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(probe_media_file::Probes::default());
        index::install(instances, slots);
    }

    /// `files.scan:<id>`: each folder indexed at start and every 30 minutes.
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        index::jobs(slots)
    }
}
