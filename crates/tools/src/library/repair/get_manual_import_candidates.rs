//! `get_manual_import_candidates`: the files of a queue item's download (or of a folder) that a
//! library service could import, with its own parse (title, season, episodes, quality,
//! languages) and its rejections.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{super::source::one, download_of};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetManualImportCandidates;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance.
    pub instance_id: String,
    /// A queue item (get_queue, diagnose_queue): its download's files.
    #[serde(default)]
    pub queue_id: Option<i64>,
    /// Or a folder as the service sees it.
    #[serde(default)]
    pub folder: Option<String>,
}

impl Tool for GetManualImportCandidates {
    type Input = Input;
    const META: Meta = Meta {
        name: "get_manual_import_candidates",
        title: "Manual import candidates",
        description: "Lists the files of a queue item's download (queue_id) or of a folder (folder) that a library service could import, with the service's own parse (title, season, episodes, quality, languages) and why it would not import each on its own. Pass chosen paths with explicit mappings to execute_manual_import.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let folder = input
            .folder
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty());
        if input.queue_id.is_some() == folder.is_some() {
            return Err(ToolError::invalid("give either queue_id or folder"));
        }
        if folder.is_some_and(|f| !f.starts_with('/') && !f.contains(":\\")) {
            return Err(ToolError::invalid(
                "invalid argument \"folder\": give an absolute path as the service sees it",
            ));
        }
        let source = one(ctx, Some(&input.instance_id), None)?;
        let client = source.client()?;
        let download = match input.queue_id {
            Some(id) => Some(download_of(source, id).await?),
            None => None,
        };
        let files = client
            .manual_import_candidates(download.as_deref(), folder)
            .await
            .map_err(|e| source.error(e))?;
        let importable = files.iter().filter(|f| f.rejections.is_empty()).count();
        let rows: Vec<_> = files
            .iter()
            .map(|f| {
                json!({
                    "path": f.path, "name": f.name, "size_bytes": f.size, "quality": f.quality,
                    "languages": f.languages, "item_id": f.item_id, "item_title": f.item_title,
                    "season": f.season,
                    "episodes": f.episodes.iter().map(|(id, n)| json!({ "episode_id": id, "episode": n })).collect::<Vec<_>>(),
                    "rejections": f.rejections,
                })
            })
            .collect();
        Ok(Output::new(
            format!(
                "{} has {} to import ({importable} without rejections).",
                source.id,
                super::super::count(files.len(), "file", "files")
            ),
            json!({ "instance_id": source.id, "queue_id": input.queue_id, "files": rows }),
        ))
    }
}
