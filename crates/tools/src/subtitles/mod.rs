//! Subtitles: OpenSubtitles and Bazarr instances. `search_subtitles` asks them by media
//! identity or for a local file (its OpenSubtitles movie hash narrows the search) and hands out
//! `subtitle_ref`s (`refs.rs`): bound to the person who searched, expiring, naming their origin
//! and nothing else. `download_subtitle` writes one beside its video inside a folder instance
//! (UTF-8, checked as SRT or ASS, never replacing a file), or asks Bazarr to download it.
//! `list_missing_subtitles` reads the scanned files, their subtitle files and probed streams.

mod download_subtitle;
mod identity;
mod languages;
mod list_missing_subtitles;
pub(crate) mod refs;
mod search_subtitles;
mod source;

pub use source::Subtitles;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{CheckFuture, Ctx, DynTool, InstanceSpec, Instances, Slots};

/// The subtitle services.
pub struct SubtitlesFamily;

impl governance::Family for SubtitlesFamily {
    fn name(&self) -> &'static str {
        "subtitles"
    }

    fn group(&self) -> &'static str {
        "library"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Opensubtitles, InstanceKind::Bazarr]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(search_subtitles::SearchSubtitles),
            Box::new(download_subtitle::DownloadSubtitle),
            Box::new(list_missing_subtitles::ListMissingSubtitles),
        ]
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Subtitles::from_instances(instances));
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<Subtitles>()?.check(&spec.id).await })
    }
}

/// The subtitle instances, as the family installed them (none in a core without it).
pub(crate) fn subtitles(ctx: &Ctx) -> &Subtitles {
    static NONE: std::sync::OnceLock<Subtitles> = std::sync::OnceLock::new();
    ctx.family::<Subtitles>()
        .unwrap_or_else(|_| NONE.get_or_init(Subtitles::default))
}
