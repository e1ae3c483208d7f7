//! `plan_organize`: plans putting media files where a media server expects them, from one
//! folder instance into another (or the same), by hard link, copy, move or symbolic link. The
//! whole input is checked and every destination worked out first (`naming`); an existing
//! destination refuses the plan. Nothing is written on the call: the plan waits for the owner
//! and `apply_change` carries it out file by file (`organize_run`).

use std::{collections::BTreeMap, sync::Arc};

use adapters_folder::{Root, WalkEntry, cap_std::fs::MetadataExt as _, write};
use domain::{Capability, FolderMedia, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    naming::{self, FileKind, Template},
    roles::{library_use, misplaced},
};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    error::ErrorCode,
    plan::{self, Proposal},
};

pub struct PlanOrganize;

/// The most paths one call names.
const MAX_PATHS: usize = 100;
/// The longest path accepted.
const MAX_PATH: usize = 1024;
/// The most files one plan moves.
pub(crate) const MAX_FILES: usize = 2000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The folder instance the files are in (list_instances names them).
    pub instance_id: String,
    /// Files or folders relative to that folder's root (a folder stands for every video beneath it), at most 100. Subtitles and NFO files beside a video travel with it.
    #[schemars(length(min = 1, max = MAX_PATHS))]
    pub paths: Vec<String>,
    /// The library folder instance the files go to (it may be the same instance; a folder with role = "downloads" is refused). Videos of another kind than a target's media_type are left where they are.
    pub target_instance_id: String,
    /// hardlink (the same file under a second name; both folders must be on one file system), copy, move, or symlink (a link to the file where it is).
    pub mode: Mode,
    /// The layout below the target's root, without extension: "{title}", "{year}", "{season}", "{episode}", "{episode_title}" and "{screen_size}" are values, "/" separates folders, "[...]" is left out when a value inside is missing. Default: "{title}[ ({year})]/{title}[ ({year})][ - {screen_size}]" for films and "{title}[ ({year})]/Season {season}/{title} - S{season}E{episode}[ - {episode_title}]" for episodes.
    #[serde(default)]
    #[schemars(length(max = naming::MAX_TEMPLATE))]
    pub template: Option<String>,
}

/// How a file reaches its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Hardlink,
    Copy,
    Move,
    Symlink,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Hardlink => "hardlink",
            Mode::Copy => "copy",
            Mode::Move => "move",
            Mode::Symlink => "symlink",
        }
    }
}

impl Tool for PlanOrganize {
    type Input = Input;
    const META: Meta = Meta {
        name: "plan_organize",
        title: "Plan organising media files",
        description: "Plans placing media files from one folder instance into another (or the same) the way Jellyfin, Plex and Kodi read them, by hard link, copy, move or symbolic link: films as \"Title (Year)/Title (Year) - 1080p.mkv\", episodes as \"Show (Year)/Season 01/Show - S01E02 - Episode Title.mkv\" (or your template), with their subtitle and NFO files beside them. Every path is checked and every destination worked out first; a destination that exists refuses the plan (nothing is ever replaced). Nothing is written on this call: the answer is a change_id for the owner to review (source → destination) and apply_change then places the files one at a time, each file's outcome in the operation; revert_change undoes an applied organise.",
        effect: Effect::Write,
        capability: Capability::FilesWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Files),
        plan: Some(&super::organize_run::ORGANIZE),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let (proposal, skipped) = propose(ctx, input).await?;
        let mut out = plan::propose(ctx, Self::META, ctx.needs_plan(), proposal).await?;
        if !skipped.is_empty() {
            let sample: Vec<String> = skipped
                .iter()
                .take(5)
                .map(|s| format!("{} ({})", s.path, s.reason))
                .collect();
            out = out.warn(format!(
                "{} file{} left where {}: {}",
                skipped.len(),
                if skipped.len() == 1 { " is" } else { "s are" },
                if skipped.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
                sample.join("; ")
            ));
        }
        Ok(out)
    }
}

/// What an approved organise does: these files, from one root to another, in this mode.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OrganizePlan {
    pub instance_id: String,
    pub target_instance_id: String,
    pub mode: Mode,
    pub files: Vec<PlannedFile>,
    /// Files named (or beneath a named folder) that the plan leaves where they are.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// For the undoing of an applied organise: the change it undoes. Its files are then put
    /// back: links and copies removed, moved files moved back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
    /// For the undoing: the destinations of the files the organise did not place, where a copy
    /// a crash cut off may have left its temporary file (removed once its writer is gone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leftovers: Vec<String>,
}

/// One file as planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlannedFile {
    /// Relative to the source instance's root.
    pub source: String,
    /// Relative to the target instance's root.
    pub destination: String,
    pub size: u64,
    /// video, subtitle or nfo.
    pub kind: String,
}

/// A file the plan leaves where it is, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Skipped {
    pub path: String,
    pub reason: String,
}

/// A folder instance's root, opened, with its id.
pub(crate) struct Folder {
    pub id: String,
    pub root: Arc<Root>,
}

/// Opens the folder instance `id` for this call, decided by policy (`field` names the argument
/// in messages: an unknown id is answered with the valid ones).
pub(crate) fn open_folder(ctx: &Ctx, field: &str, id: &str) -> Result<Folder, ToolError> {
    let (spec, _allowed) = ctx.instance(KindFamily::Files, Some(id)).map_err(|mut e| {
        if e.code == ErrorCode::UnknownInstance {
            e.message = e.message.replacen("instance_id", field, 1);
        }
        e
    })?;
    let path = spec.path.as_deref().ok_or_else(|| {
        ToolError::new(
            ErrorCode::Internal,
            format!("the folder instance {} has no path configured", spec.id),
        )
    })?;
    let root = Root::open(path).map_err(|e| {
        ToolError::new(
            ErrorCode::BackendUnavailable,
            format!("folder instance {}: {e}", spec.id),
        )
    })?;
    Ok(Folder {
        id: spec.id.clone(),
        root: Arc::new(root),
    })
}

/// Runs blocking file-system work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ToolError::new(
            ErrorCode::Internal,
            format!("a file-system task stopped unexpectedly: {e}"),
        )
    })
}

/// What identifies a file as read: device, inode, size and modification time.
pub(crate) fn fingerprint(id: Option<write::Identity>) -> String {
    match id {
        None => "absent".into(),
        Some(i) => format!(
            "{}:{}:{}:{}{}",
            i.dev,
            i.ino,
            i.facts.size,
            i.facts.mtime_ns,
            if i.symlink { ":symlink" } else { "" }
        ),
    }
}

pub(crate) fn source_key(plan: &OrganizePlan, path: &str) -> String {
    format!("source:{}/{path}", plan.instance_id)
}

pub(crate) fn destination_key(plan: &OrganizePlan, path: &str) -> String {
    format!("destination:{}/{path}", plan.target_instance_id)
}

/// Checks the call, reads the source tree and works out every destination.
async fn propose(ctx: &Ctx, input: Input) -> Result<(Proposal, Vec<Skipped>), ToolError> {
    let template = input
        .template
        .as_deref()
        .map(Template::parse)
        .transpose()
        .map_err(|e| ToolError::invalid(format!("invalid argument \"template\": {e}")))?;
    for p in &input.paths {
        if p.len() > MAX_PATH {
            return Err(ToolError::invalid(format!(
                "each path is at most {MAX_PATH} bytes"
            )));
        }
    }
    let source = open_folder(ctx, "instance_id", &input.instance_id)?;
    let target = open_folder(ctx, "target_instance_id", &input.target_instance_id)?;
    let holds = library_use(ctx, &target.id)?;
    let (src, dst) = (source.root.clone(), target.root.clone());
    let same = source.id == target.id;
    let paths = input.paths.clone();
    let mode = input.mode;
    let worked =
        blocking(move || work_out(&src, &dst, same, mode, &paths, template.as_ref(), holds))
            .await?;
    let (files, skipped) = worked.map_err(|e| e.into_error(&source.id, &target.id))?;
    if files.is_empty() {
        return Err(ToolError::invalid(format!(
            "nothing to organise: no video among the paths given ({} left where they are); nothing was planned",
            skipped.len()
        )));
    }
    let mut plan = OrganizePlan {
        instance_id: source.id,
        target_instance_id: target.id,
        mode: input.mode,
        files,
        skipped: skipped.clone(),
        reverts: None,
        leftovers: Vec::new(),
    };
    let dependencies = super::organize_run::read_dependencies(ctx, &plan).await?;
    plan.skipped.truncate(200);
    let videos = plan.files.iter().filter(|f| f.kind == "video").count();
    let bytes: u64 = plan.files.iter().map(|f| f.size).sum();
    let summary = format!(
        "{} {} file{} ({videos} video{}, {}) from {} into {}",
        plan.mode.as_str(),
        plan.files.len(),
        if plan.files.len() == 1 { "" } else { "s" },
        if videos == 1 { "" } else { "s" },
        super::organize_run::size_text(bytes),
        plan.instance_id,
        plan.target_instance_id
    );
    let plan_json = serde_json::to_value(&plan).map_err(|e| {
        ToolError::new(
            ErrorCode::Internal,
            format!("the plan could not be written: {e}"),
        )
    })?;
    Ok((
        Proposal {
            summary,
            plan: plan_json,
            dependencies,
        },
        skipped,
    ))
}

/// Why a plan cannot be made, found while reading the tree.
enum Refusal {
    /// Paths that are missing or outside the root (one answer for both).
    NotFound(Vec<String>),
    /// Videos whose names say too little to place them.
    Unrecognised(Vec<String>),
    /// Destinations that exist, or that two files would share.
    Conflicts(Vec<String>),
    TooMany(usize),
    /// Hard links asked between two file systems: how many files.
    CrossDevice(usize),
    Io(String),
}

impl Refusal {
    fn into_error(self, source: &str, target: &str) -> ToolError {
        let list = |v: &[String]| {
            let mut s = v.iter().take(10).cloned().collect::<Vec<_>>().join("; ");
            if v.len() > 10 {
                s.push_str(&format!("; and {} more", v.len() - 10));
            }
            s
        };
        match self {
            Refusal::NotFound(paths) => ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no such file or folder beneath folder instance {source}: {}; paths are relative to its root; nothing was planned",
                    list(&paths)
                ),
            ),
            Refusal::Unrecognised(why) => ToolError::invalid(format!(
                "these videos cannot be placed: {}; rename them, give a template that does without the missing values, or leave them out; nothing was planned",
                list(&why)
            )),
            Refusal::Conflicts(why) => ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "these destinations in folder instance {target} are taken: {}; nothing is ever replaced, so nothing was planned",
                    list(&why)
                ),
            ),
            Refusal::CrossDevice(n) => ToolError::invalid(format!(
                "{n} file{} cannot be hard-linked: folder instances {source} and {target} are on different file systems, and a hard link cannot cross file systems; plan it with mode copy (or move) instead; nothing was planned",
                if n == 1 { "" } else { "s" }
            )),
            Refusal::TooMany(n) => ToolError::invalid(format!(
                "the paths hold {n} files to organise, more than {MAX_FILES} in one plan; name fewer folders"
            )),
            Refusal::Io(e) => ToolError::new(ErrorCode::BackendUnavailable, e),
        }
    }
}

/// Reads the source tree and places every file (blocking).
fn work_out(
    src: &Root,
    dst: &Root,
    same_root: bool,
    mode: Mode,
    paths: &[String],
    template: Option<&Template>,
    holds: Option<FolderMedia>,
) -> Result<(Vec<PlannedFile>, Vec<Skipped>), Refusal> {
    let (entries, _) = src.walk().map_err(|e| Refusal::Io(e.to_string()))?;
    let sizes: BTreeMap<&str, u64> = entries
        .iter()
        .map(|e| (e.path.as_str(), e.facts.size))
        .collect();
    // The files named, directly or as a folder.
    let mut chosen: Vec<&WalkEntry> = Vec::new();
    let mut missing = Vec::new();
    for raw in paths {
        let p = raw.trim_matches('/');
        let p = p.strip_prefix("./").unwrap_or(p);
        if adapters_folder::confine::relative(p).is_err() {
            missing.push(format!("\"{raw}\""));
            continue;
        }
        if src.is_dir(p) {
            let prefix = format!("{p}/");
            chosen.extend(entries.iter().filter(|e| e.path.starts_with(&prefix)));
        } else if let Some(e) = entries.iter().find(|e| e.path == p) {
            chosen.push(e);
        } else {
            missing.push(format!("\"{raw}\""));
        }
    }
    if !missing.is_empty() {
        return Err(Refusal::NotFound(missing));
    }
    chosen.sort_by(|a, b| a.path.cmp(&b.path));
    chosen.dedup_by(|a, b| a.path == b.path);
    let mut skipped = Vec::new();
    let mut videos: Vec<&str> = Vec::new();
    let mut sidecars: Vec<&str> = Vec::new();
    for e in &chosen {
        let p = e.path.as_str();
        match naming::kind_of(p) {
            FileKind::Video if naming::is_sample(p) => skipped.push(skip(p, "a sample clip")),
            FileKind::Video => videos.push(p),
            FileKind::Subtitle | FileKind::Nfo => sidecars.push(p),
            FileKind::Other => skipped.push(skip(p, "not a video, subtitle or NFO file")),
        }
    }
    // Sidecars beside a chosen video travel with it even when not named themselves.
    for v in &videos {
        let folder = naming::folder_of(v);
        for e in &entries {
            let f = naming::folder_of(&e.path);
            let beside = f == folder || (naming::folder_of(f) == folder && subs_folder(f));
            if beside
                && matches!(naming::kind_of(&e.path), FileKind::Subtitle | FileKind::Nfo)
                && !sidecars.contains(&e.path.as_str())
            {
                sidecars.push(&e.path);
            }
        }
    }
    let mut files = Vec::new();
    let mut unrecognised = Vec::new();
    for v in &videos {
        let facts = match naming::Facts::of_path(v) {
            Ok(f) => f,
            Err(why) => {
                unrecognised.push(format!("{v}: {why}"));
                continue;
            }
        };
        if let Some(why) = misplaced(&facts, holds) {
            skipped.push(skip(v, &why));
            continue;
        }
        let rendered = match template {
            Some(t) => t.render(&facts),
            None => {
                Template::parse(naming::default_template(&facts)).and_then(|t| t.render(&facts))
            }
        };
        let dest = match rendered {
            Ok(d) => format!("{d}.{}", naming::extension(v).unwrap_or_default()),
            Err(why) => {
                unrecognised.push(format!("{v}: {why}"));
                continue;
            }
        };
        files.push(PlannedFile {
            source: (*v).to_string(),
            destination: dest,
            size: sizes.get(v).copied().unwrap_or(0),
            kind: "video".into(),
        });
    }
    if !unrecognised.is_empty() {
        return Err(Refusal::Unrecognised(unrecognised));
    }
    let placed_videos: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.source.clone(), f.destination.clone()))
        .collect();
    for s in sidecars {
        match owner_of(s, &placed_videos) {
            Some((video, dest)) => files.push(PlannedFile {
                source: s.to_string(),
                destination: naming::sidecar_destination(video, dest, s),
                size: sizes.get(s).copied().unwrap_or(0),
                kind: match naming::kind_of(s) {
                    FileKind::Nfo => "nfo".into(),
                    _ => "subtitle".into(),
                },
            }),
            None => skipped.push(skip(s, "no video of this plan it belongs to")),
        }
    }
    if same_root {
        files.retain(|f| {
            let stays = f.source == f.destination;
            if stays {
                skipped.push(skip(&f.source, "already where it belongs"));
            }
            !stays
        });
    }
    if mode == Mode::Hardlink {
        let target = dst
            .dir()
            .dir_metadata()
            .map_err(|e| Refusal::Io(format!("the target folder cannot be read: {e}")))?
            .dev();
        let mut across = 0;
        for f in &files {
            let id = write::identity(src, &f.source).map_err(|e| Refusal::Io(e.to_string()))?;
            if id.is_some_and(|i| i.dev != target) {
                across += 1;
            }
        }
        if across > 0 {
            return Err(Refusal::CrossDevice(across));
        }
    }
    if files.len() > MAX_FILES {
        return Err(Refusal::TooMany(files.len()));
    }
    let mut conflicts = Vec::new();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for f in &files {
        if let Some(other) = seen.insert(&f.destination, &f.source) {
            conflicts.push(format!(
                "{} and {} would both go to {}",
                other, f.source, f.destination
            ));
        } else if write::identity(dst, &f.destination)
            .map_err(|e| Refusal::Io(e.to_string()))?
            .is_some()
        {
            conflicts.push(format!("{} (for {})", f.destination, f.source));
        }
    }
    if !conflicts.is_empty() {
        return Err(Refusal::Conflicts(conflicts));
    }
    Ok((files, skipped))
}

fn skip(path: &str, reason: &str) -> Skipped {
    Skipped {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

/// A subtitles folder inside a release folder (`Subs`, `Subtitles`).
fn subs_folder(folder: &str) -> bool {
    let name = naming::file_name(folder).to_ascii_lowercase();
    matches!(name.as_str(), "subs" | "subtitles" | "sub")
}

/// The video a sidecar belongs to: the one it is named after, else the only video in its
/// folder (or in the folder above a `Subs` folder).
fn owner_of<'v>(sidecar: &str, videos: &'v [(String, String)]) -> Option<(&'v str, &'v str)> {
    let folder = naming::folder_of(sidecar);
    let name = naming::file_name(sidecar);
    let home = if subs_folder(folder) {
        naming::folder_of(folder)
    } else {
        folder
    };
    let beside: Vec<&(String, String)> = videos
        .iter()
        .filter(|(v, _)| naming::folder_of(v) == home)
        .collect();
    let named = beside.iter().find(|(v, _)| {
        let stem = naming::stem(naming::file_name(v));
        name.strip_prefix(stem).is_some_and(|r| r.starts_with('.'))
    });
    match (named, beside.as_slice()) {
        (Some((v, d)), _) => Some((v, d)),
        (None, [(v, d)]) => Some((v, d)),
        _ => None,
    }
}
