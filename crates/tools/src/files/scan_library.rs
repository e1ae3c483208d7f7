//! `scan_library`: walks a folder instance and brings the index of media files on disk up to
//! date (`index.rs`), answering what changed. A read of the folder that maintains Marquee's own
//! index: nothing on disk or in a backend changes, a rescan of an unchanged folder changes
//! nothing, and a cancelled call stops between steps (what it recorded stays true).

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::index::{LocalIndex, ScanReport};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ScanLibrary;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The folder instance to scan (list_instances names them).
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
}

impl Tool for ScanLibrary {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ScanReport>);
    const LONG: bool = true;
    const META: Meta = Meta {
        name: "scan_library",
        title: "Scan a media folder",
        description: "Walks a folder instance and updates Marquee's index of the media files in it: every video, audio and subtitle file is recognised (names, folder names and music tags) and matched to a catalogue identity; files whose size and modification time are unchanged are not read again, and files gone from disk leave the index. Answers counts: added, changed, removed, unchanged, unrecognised (with a few of their paths), samples and non-media files ignored. Reports progress when asked. Each folder is also scanned at start and every 30 minutes; find_local_media reads the index.",
        effect: Effect::Read,
        capability: Capability::FilesRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Files),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let (spec, _allowed) = ctx.instance(KindFamily::Files, Some(&input.instance_id))?;
        let index = ctx.family::<std::sync::Arc<LocalIndex>>()?;
        let progress = |done: usize, total: Option<usize>, message: &str| {
            ctx.progress(done, total, message);
        };
        let mut report = index
            .scan(ctx.store(), &spec.id, &progress)
            .await
            .map_err(|e| e.into_tool_error())?;
        let limited = ctx.caller.scope.content_limited;
        if limited {
            report.unrecognised_sample.clear();
        }
        let summary = format!(
            "Scanned \"{}\": {} media files; {} added, {} changed, {} removed, {} unchanged, {} unrecognised.",
            report.instance_id,
            report.media_files,
            report.added,
            report.changed,
            report.removed,
            report.unchanged,
            report.unrecognised
        );
        let mut out = Output::typed(summary, &report)?.next("find_local_media");
        if !report.unreadable_folders.is_empty() {
            out = out.warn(format!(
                "{} folders beneath it could not be read; what was indexed beneath them stays until they can be",
                report.unreadable_folders.len()
            ));
        }
        if report.catalogue_failures > 0 {
            out = out.warn(format!(
                "the catalogue could not be asked about {} titles; their files are indexed without an identity",
                report.catalogue_failures
            ));
        }
        if limited && report.unrecognised > 0 {
            out = out.warn("the unrecognised paths are not shown to a content-limited account");
        }
        Ok(out)
    }
}
