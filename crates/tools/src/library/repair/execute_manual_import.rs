//! `execute_manual_import`: imports chosen files of a queue item's download (or a folder) with
//! explicit mappings. The whole input is checked against the service's own candidates before
//! anything is imported, and the outcome is read back from the service's command status.

use std::time::Duration;

use adapters_library::ImportMapping;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{super::source::granted, download_of};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct ExecuteManualImport;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// A path as get_manual_import_candidates listed it.
    pub path: String,
    /// The service's id of the movie, series, album or book the file is.
    pub item_id: i64,
    /// TV: the episode ids the file holds.
    #[serde(default)]
    pub episode_ids: Vec<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: String,
    /// The queue item whose download holds the files.
    #[serde(default)]
    pub queue_id: Option<i64>,
    /// Or the folder that holds them.
    #[serde(default)]
    pub folder: Option<String>,
    /// 1 to 100 files with their mappings.
    #[schemars(length(min = 1, max = 100))]
    pub files: Vec<File>,
    /// move (default) or copy.
    #[serde(default)]
    pub copy: Option<bool>,
}

/// How long the command's outcome is awaited.
const WAIT: Duration = Duration::from_secs(10);

/// The answer's data: the import command and how many files it took.
#[derive(Serialize, JsonSchema)]
struct Imported<'a> {
    instance_id: &'a str,
    command: crate::library::shapes::Command,
    files: usize,
}

impl Tool for ExecuteManualImport {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Imported<'static>>);
    const META: Meta = Meta {
        name: "execute_manual_import",
        title: "Import files by hand",
        description: "Imports chosen files of a queue item's download (queue_id) or a folder into a library service, each mapped explicitly to a movie, series episodes, album or book (item_id, episode_ids for tv). Every path must be one get_manual_import_candidates listed; nothing is imported unless the whole list is valid. Answers the service's own outcome.",
        effect: Effect::Write,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input.files.is_empty() || input.files.len() > 100 {
            return Err(ToolError::invalid("give 1 to 100 files"));
        }
        if input.queue_id.is_some() == input.folder.is_some() {
            return Err(ToolError::invalid("give either queue_id or folder"));
        }
        let (source, allowed) = granted(ctx, Some(&input.instance_id), None)?;
        let client = source.client()?;
        let tv = source.kind == domain::InstanceKind::Sonarr;
        let download = match input.queue_id {
            Some(id) => Some(download_of(source, id).await?),
            None => None,
        };
        if let Some(folder) = &input.folder {
            super::get_manual_import_candidates::confine(source, folder).await?;
        }
        let candidates = client
            .manual_import_candidates(download.as_deref(), input.folder.as_deref())
            .await
            .map_err(|e| source.error(e))?;
        let mut chosen = Vec::new();
        for file in &input.files {
            let Some(candidate) = candidates.iter().find(|c| c.path == file.path) else {
                let valid: Vec<&str> = candidates
                    .iter()
                    .take(10)
                    .map(|c| c.path.as_str())
                    .collect();
                return Err(ToolError::invalid(format!(
                    "{} is not a candidate of this download; nothing was imported; candidates: {}",
                    file.path,
                    if valid.is_empty() {
                        "none".to_string()
                    } else {
                        valid.join(", ")
                    }
                )));
            };
            if tv == file.episode_ids.is_empty() {
                return Err(ToolError::invalid(if tv {
                    format!(
                        "{}: a tv file needs episode_ids; nothing was imported",
                        file.path
                    )
                } else {
                    format!(
                        "{}: episode_ids are for tv files; nothing was imported",
                        file.path
                    )
                }));
            }
            chosen.push((
                candidate.clone(),
                ImportMapping {
                    item_id: file.item_id,
                    episode_ids: file.episode_ids.clone(),
                },
            ));
        }
        let mode = if input.copy == Some(true) {
            "copy"
        } else {
            "move"
        };
        let mut command = source
            .writer(governance::authority::write_proof(&allowed)?)?
            .manual_import(&chosen, mode)
            .await
            .map_err(|e| source.error(e))?;
        let deadline = tokio::time::Instant::now() + WAIT;
        while matches!(command.status.as_str(), "queued" | "started")
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(250)).await;
            command = client
                .command(command.id)
                .await
                .map_err(|e| source.error(e))?;
        }
        let outcome = match command.status.as_str() {
            "completed" => format!(
                "{} imported {}.",
                source.id,
                super::super::count(chosen.len(), "file", "files")
            ),
            "queued" | "started" => format!(
                "{} is still importing {} (command {}); check_request_status or get_queue shows the result.",
                source.id,
                super::super::count(chosen.len(), "file", "files"),
                command.id
            ),
            other => format!(
                "{} could not import the files: the command ended {other}{}.",
                source.id,
                command
                    .message
                    .as_deref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default()
            ),
        };
        let failed = !matches!(command.status.as_str(), "completed" | "queued" | "started");
        let data = Imported {
            instance_id: &source.id,
            command: crate::library::shapes::Command::of(&command),
            files: chosen.len(),
        };
        if failed {
            return Err(ToolError::new(ErrorCode::BackendError, outcome)
                .with_data(crate::typed::tree(&data)));
        }
        crate::typed::output(outcome, &data)
    }
}
