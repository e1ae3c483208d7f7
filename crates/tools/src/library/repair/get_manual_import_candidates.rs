//! `get_manual_import_candidates`: the files of a queue item's download (or of a folder) that a
//! library service could import, with its own parse (title, season, episodes, quality,
//! languages) and its rejections.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    super::source::{Source, one},
    download_of,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetManualImportCandidates;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance.
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
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
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Candidates<'static>>);
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
        if let Some(folder) = folder {
            confine(source, folder).await?;
        }
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
            .map(|f| CandidateRow {
                path: &f.path,
                name: &f.name,
                size_bytes: f.size,
                quality: f.quality.as_deref(),
                languages: &f.languages,
                item_id: f.item_id,
                item_title: f.item_title.as_deref(),
                season: f.season,
                episodes: f
                    .episodes
                    .iter()
                    .map(|&(episode_id, episode)| EpisodeRef {
                        episode_id,
                        episode,
                    })
                    .collect(),
                rejections: &f.rejections,
            })
            .collect();
        crate::typed::output(
            format!(
                "{} has {} to import ({importable} without rejections).",
                source.id,
                super::super::count(files.len(), "file", "files")
            ),
            &Candidates {
                instance_id: &source.id,
                queue_id: input.queue_id,
                files: rows,
            },
        )
    }
}

/// The answer's data: the files the service would import, each with what it matched and why
/// it would not import it on its own.
#[derive(Serialize, JsonSchema)]
struct Candidates<'a> {
    instance_id: &'a str,
    queue_id: Option<i64>,
    files: Vec<CandidateRow<'a>>,
}

/// One file a manual import could take.
#[derive(Serialize, JsonSchema)]
struct CandidateRow<'a> {
    path: &'a str,
    name: &'a str,
    size_bytes: i64,
    quality: Option<&'a str>,
    languages: &'a [String],
    /// The movie, album or book (or series) the service matched.
    item_id: Option<i64>,
    item_title: Option<&'a str>,
    season: Option<i64>,
    episodes: Vec<EpisodeRef>,
    /// Why the service would not import it on its own (empty: it would).
    rejections: &'a [String],
}

/// An episode a file was matched to.
#[derive(Serialize, JsonSchema)]
struct EpisodeRef {
    episode_id: i64,
    episode: i64,
}

/// Confines a caller's `folder` to the folders `source`'s service reports as its own: its root
/// folders, the local side of its remote path mappings, and the folders its downloads are in
/// (the parent of each queue item's output path). Anything else (`/etc`, another service's
/// share) is refused before the service is asked to read it.
pub(in crate::library) async fn confine(source: &Source, folder: &str) -> Result<(), ToolError> {
    let client = source.client()?;
    let (roots, config, queue) = tokio::join!(
        client.root_folders(),
        client.service_config(),
        client.queue()
    );
    let mut own: Vec<String> = roots
        .map_err(|e| source.error(e))?
        .into_iter()
        .map(|r| r.path)
        .collect();
    own.extend(
        config
            .map_err(|e| source.error(e))?
            .remote_path_mappings
            .iter()
            .filter_map(|m| m.get("localPath")?.as_str().map(str::to_owned)),
    );
    own.extend(
        queue
            .map_err(|e| source.error(e))?
            .into_iter()
            .filter_map(|q| q.output_path)
            .filter_map(|p| parent(&p)),
    );
    if own.iter().any(|root| within(folder, root)) {
        return Ok(());
    }
    Err(ToolError::invalid(format!(
        "folder is not inside a folder instance {} reports as its own (its root folders, its remote path mappings' local folders and the folders its downloads are in); give a queue_id, or such a folder",
        source.id
    )))
}

/// A path's components, `/` and `\` alike; `None` when it climbs (`..`) or is not absolute.
fn components(path: &str) -> Option<Vec<String>> {
    let windows = path.get(1..3) == Some(":\\") || path.get(1..3) == Some(":/");
    if !path.starts_with('/') && !windows {
        return None;
    }
    let mut parts = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return None,
            // Windows paths compare without case.
            p if windows => parts.push(p.to_lowercase()),
            p => parts.push(p.to_string()),
        }
    }
    Some(parts)
}

/// Whether `path` is `root` or lies under it.
fn within(path: &str, root: &str) -> bool {
    match (components(path), components(root)) {
        (Some(p), Some(r)) => !r.is_empty() && p.starts_with(&r),
        _ => false,
    }
}

/// The folder a path is in, when it has one below the root.
fn parent(path: &str) -> Option<String> {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let cut = trimmed.rfind(['/', '\\'])?;
    (cut > 0).then(|| trimmed[..cut].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_within_a_root_only_by_whole_components_without_climbing() {
        assert!(within("/downloads/complete/Bluey", "/downloads/complete"));
        assert!(within("/downloads/complete", "/downloads/complete/"));
        assert!(!within("/downloads/completely-else", "/downloads/complete"));
        assert!(!within(
            "/downloads/complete/../../etc",
            "/downloads/complete"
        ));
        assert!(!within("/etc", "/downloads"));
        assert!(!within("relative/path", "/"));
        assert!(!within("/anything", "/"), "a root of / confines nothing");
        assert!(within("D:\\Media\\TV\\Bluey", "d:/media/tv"));
        assert!(!within("D:\\Media\\..\\Windows", "D:\\Media"));
    }

    #[test]
    fn a_downloads_folder_is_its_parent() {
        assert_eq!(
            parent("/downloads/complete/Bluey.S01E01/").as_deref(),
            Some("/downloads/complete")
        );
        assert_eq!(parent("/Bluey"), None);
        assert_eq!(parent("C:\\dl\\Bluey").as_deref(), Some("C:\\dl"));
    }
}
