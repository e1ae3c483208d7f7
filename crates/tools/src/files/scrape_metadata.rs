//! `scrape_metadata`: plans writing Kodi/Jellyfin NFO files beside the media in a folder
//! instance (`movie.nfo`, `tvshow.nfo`, one `.nfo` per episode) from the catalogue's record of
//! each title (the builtin catalogue offline, TMDB when configured). The exact bytes are in the
//! plan the owner approves; a file Marquee did not write is left alone unless the call asks
//! for `overwrite`, which the plan shows. The XML is built here (`nfo`), escaped.

use std::{collections::BTreeMap, sync::Arc};

use adapters_catalogue::{Catalogue, EpisodeDetails, TitleDetails, TitleKind, TitleSearch};
use domain::{Capability, InstanceKind, KindFamily, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{
    naming::{self, FileKind},
    nfo,
    plan_organize::{Folder, Skipped, blocking, open_folder},
};
use crate::discover::{identity::TitleType, lookup, pick};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    error::ErrorCode,
    plan::{self, Dependencies, Proposal},
};

pub struct ScrapeMetadata;

/// The most videos one plan describes.
const MAX_VIDEOS: usize = 500;
/// The largest existing NFO file read to tell whether Marquee wrote it.
const MAX_NFO: u64 = 1 << 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The folder instance (list_instances names them).
    pub instance_id: String,
    /// A video file, or a folder (a film's, a show's or a season's) relative to that folder's root: every video beneath it is described.
    #[schemars(length(min = 1, max = 1024))]
    pub path: String,
    /// True also replaces NFO files that Marquee did not write (the plan says so); false (the default) leaves them as they are and lists them.
    #[serde(default)]
    pub overwrite: bool,
}

impl Tool for ScrapeMetadata {
    type Input = Input;
    const META: Meta = Meta {
        name: "scrape_metadata",
        title: "Plan writing NFO metadata files",
        description: "Plans writing Kodi/Jellyfin NFO files beside the videos of a folder instance (a file, or every video beneath a folder): movie.nfo for a film, tvshow.nfo in a show's folder and one .nfo per episode, with uniqueid (tmdb, imdb), title, year, plot, genres, certification and artwork URLs (poster, fanart) from the builtin catalogue or TMDB (images are not downloaded), and each episode's title, plot and air date where TMDB has them. An NFO file Marquee did not write is never replaced unless overwrite is true, which the plan shows. Nothing is written on this call: the answer is a change_id for the owner to review, then apply_change writes the files one at a time.",
        effect: Effect::Write,
        capability: Capability::FilesWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Files),
        plan: Some(&super::scrape_run::SCRAPE),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let (proposal, notes) = propose(ctx, input).await?;
        let mut out = plan::propose(ctx, Self::META, ctx.needs_plan(), proposal).await?;
        for n in notes.into_iter().take(10) {
            out = out.warn(n);
        }
        Ok(out)
    }
}

/// What an approved scrape writes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScrapePlan {
    pub instance_id: String,
    /// Whether the call asked to replace files Marquee did not write.
    pub overwrite: bool,
    pub files: Vec<NfoFile>,
    /// NFO files left as they are, and videos not described, with why.
    #[serde(default)]
    pub kept: Vec<Skipped>,
}

/// One NFO file as planned, with its exact contents.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NfoFile {
    /// Relative to the instance's root.
    pub path: String,
    /// movie, tvshow or episode.
    pub kind: String,
    /// create, or replace.
    pub action: String,
    /// The file it replaces was not written by Marquee (only with overwrite).
    pub replaces_foreign: bool,
    pub title: String,
    /// "tmdb 949, imdb tt0113277".
    pub ids: String,
    pub content: String,
}

/// What is at an NFO path now.
pub(crate) enum Existing {
    Absent,
    Ours(String),
    Foreign(String),
}

impl Existing {
    pub(crate) fn fingerprint(&self) -> String {
        match self {
            Existing::Absent => "absent".into(),
            Existing::Ours(h) | Existing::Foreign(h) => h.clone(),
        }
    }
}

/// Reads what is at `rel` (blocking): absent, or the hash of its bytes and whether Marquee
/// wrote it.
pub(crate) fn existing(root: &adapters_folder::Root, rel: &str) -> Existing {
    use std::io::Read as _;
    let Ok((file, facts)) = root.open_file(rel) else {
        return match adapters_folder::write::identity(root, rel) {
            Ok(None) => Existing::Absent,
            // Something that is not a readable regular file: never ours to replace.
            _ => Existing::Foreign("unreadable".into()),
        };
    };
    let mut bytes = Vec::new();
    if file.take(MAX_NFO).read_to_end(&mut bytes).is_err() || facts.size > MAX_NFO {
        return Existing::Foreign("unreadable".into());
    }
    let hash = format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
    if String::from_utf8_lossy(&bytes).contains(nfo::MARKER) {
        Existing::Ours(hash)
    } else {
        Existing::Foreign(hash)
    }
}

/// One video to describe.
struct Video {
    path: String,
    facts: naming::Facts,
}

/// A title's record and the catalogue that holds it.
type Found = (TitleDetails, Arc<dyn Catalogue>);

/// A title as the catalogue knows it, by (film?, title, year).
type Known = BTreeMap<(bool, String, Option<u32>), Option<Found>>;

async fn propose(ctx: &Ctx, input: Input) -> Result<(Proposal, Vec<String>), ToolError> {
    let folder = open_folder(ctx, "instance_id", &input.instance_id)?;
    let (videos, mut kept, counts) = find_videos(&folder, &input.path).await?;
    let mut notes = Vec::new();
    let mut known: Known = BTreeMap::new();
    for v in &videos {
        let key = (v.facts.movie, v.facts.title.clone(), v.facts.year);
        if known.contains_key(&key) {
            continue;
        }
        let (found, note) = identify(ctx, &v.facts).await?;
        notes.extend(note);
        known.insert(key, found);
    }
    let mut planned: Vec<(String, String, String, String, String)> = Vec::new();
    let mut shows_done: Vec<String> = Vec::new();
    for v in &videos {
        let key = (v.facts.movie, v.facts.title.clone(), v.facts.year);
        let Some(Some((d, catalogue))) = known.get(&key) else {
            kept.push(Skipped {
                path: v.path.clone(),
                reason: format!(
                    "no catalogue record of \"{}\"{} was found",
                    v.facts.title,
                    v.facts.year.map(|y| format!(" ({y})")).unwrap_or_default()
                ),
            });
            continue;
        };
        let folder_path = naming::folder_of(&v.path);
        let stem = naming::stem(naming::file_name(&v.path));
        let at = |name: String| {
            if folder_path.is_empty() {
                name
            } else {
                format!("{folder_path}/{name}")
            }
        };
        if v.facts.movie {
            let alone = counts.get(folder_path).copied().unwrap_or(0) == 1;
            let path = if alone && !folder_path.is_empty() {
                at("movie.nfo".into())
            } else {
                at(format!("{stem}.nfo"))
            };
            planned.push((
                path,
                "movie".into(),
                d.summary.title.clone(),
                nfo::ids_text(d),
                nfo::movie(d),
            ));
            continue;
        }
        let (episode, note) = episode_of(catalogue.as_ref(), d, &v.facts).await;
        notes.extend(note);
        planned.push((
            at(format!("{stem}.nfo")),
            "episode".into(),
            format!("{} {}", d.summary.title, episode_label(&v.facts)),
            nfo::ids_text(d),
            nfo::episode(d, &v.facts, episode.as_ref()),
        ));
        let show_folder = if season_folder(naming::file_name(folder_path)) {
            naming::folder_of(folder_path)
        } else {
            folder_path
        };
        if show_folder.is_empty() {
            notes.push(format!(
                "{}: an episode at the top of the folder has no show folder for tvshow.nfo",
                v.path
            ));
        } else if !shows_done.iter().any(|s| s == show_folder) {
            shows_done.push(show_folder.to_string());
            planned.push((
                format!("{show_folder}/tvshow.nfo"),
                "tvshow".into(),
                d.summary.title.clone(),
                nfo::ids_text(d),
                nfo::tvshow(d),
            ));
        }
    }
    planned.sort_by(|a, b| a.0.cmp(&b.0));
    planned.dedup_by(|a, b| a.0 == b.0);
    let root = folder.root.clone();
    let paths: Vec<String> = planned.iter().map(|p| p.0.clone()).collect();
    let now =
        blocking(move || paths.iter().map(|p| existing(&root, p)).collect::<Vec<_>>()).await?;
    let mut files = Vec::new();
    let mut dependencies = Dependencies::new();
    for ((path, kind, title, ids, content), there) in planned.into_iter().zip(now) {
        let (action, foreign) = match &there {
            Existing::Absent => ("create", false),
            Existing::Ours(_) => ("replace", false),
            Existing::Foreign(_) if input.overwrite => ("replace", true),
            Existing::Foreign(_) => {
                kept.push(Skipped {
                    path,
                    reason: "an NFO file Marquee did not write; overwrite true replaces it".into(),
                });
                continue;
            }
        };
        dependencies.insert(key(&folder.id, &path), there.fingerprint());
        files.push(NfoFile {
            path,
            kind,
            action: action.into(),
            replaces_foreign: foreign,
            title,
            ids,
            content,
        });
    }
    if files.is_empty() {
        let why: Vec<String> = kept
            .iter()
            .take(5)
            .map(|k| format!("{} ({})", k.path, k.reason))
            .collect();
        return Err(ToolError::invalid(format!(
            "no NFO file to write beneath \"{}\": {}; nothing was planned",
            input.path,
            if why.is_empty() {
                "no video there".to_string()
            } else {
                why.join("; ")
            }
        )));
    }
    let replaced = files.iter().filter(|f| f.action == "replace").count();
    let summary = format!(
        "write {} NFO file{} in {}{}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        folder.id,
        if replaced > 0 {
            format!(" ({replaced} replacing an existing file)")
        } else {
            String::new()
        }
    );
    let plan = ScrapePlan {
        instance_id: folder.id.clone(),
        overwrite: input.overwrite,
        files,
        kept,
    };
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
        notes,
    ))
}

/// The catalogue's record of one episode (its first, for a multi-episode file). A catalogue
/// that has none, or does not know episodes, is `None`: the NFO then leaves the plot out. A
/// catalogue that cannot be asked is `None` too, with a note.
async fn episode_of(
    catalogue: &dyn Catalogue,
    show: &TitleDetails,
    facts: &naming::Facts,
) -> (Option<EpisodeDetails>, Option<String>) {
    let (Some(season), Some(episode)) = (facts.season, facts.episodes.first().copied()) else {
        return (None, None);
    };
    match catalogue
        .episode_details(&show.summary.id, season, episode)
        .await
    {
        Ok(found) => (Some(found), None),
        Err(
            adapters_catalogue::Error::NotFound { .. }
            | adapters_catalogue::Error::Unsupported { .. },
        ) => (None, None),
        Err(e) => (
            None,
            Some(format!(
                "{} {}: the catalogue could not be asked about the episode ({e}); its plot is left out",
                show.summary.title,
                episode_label(facts)
            )),
        ),
    }
}

pub(crate) fn key(instance: &str, path: &str) -> String {
    format!("nfo:{instance}/{path}")
}

fn episode_label(f: &naming::Facts) -> String {
    format!(
        "S{:02}E{:02}",
        f.season.unwrap_or_default(),
        f.episodes.first().copied().unwrap_or_default()
    )
}

/// `Season 01`, `Season 1`, `S01`, `Specials`.
fn season_folder(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    lower == "specials"
        || lower
            .strip_prefix("season")
            .is_some_and(|r| digits(r.trim()))
        || lower.strip_prefix('s').is_some_and(digits)
}

/// The videos at or beneath `path` (the same not-found answer for a missing path and one
/// outside the root), the files left out, and how many videos each folder of the root holds.
async fn find_videos(
    folder: &Folder,
    path: &str,
) -> Result<(Vec<Video>, Vec<Skipped>, BTreeMap<String, usize>), ToolError> {
    let root = folder.root.clone();
    let p = path.trim_matches('/').to_string();
    let found = blocking(move || {
        let (entries, _) = root.walk().map_err(|e| e.to_string())?;
        let valid = adapters_folder::confine::relative(&p).is_ok();
        let prefix = format!("{p}/");
        let chosen: Vec<String> = if valid && root.is_dir(&p) {
            entries
                .iter()
                .filter(|e| e.path.starts_with(&prefix))
                .map(|e| e.path.clone())
                .collect()
        } else if valid && entries.iter().any(|e| e.path == p) {
            vec![p.clone()]
        } else {
            return Ok(None);
        };
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for e in &entries {
            if naming::kind_of(&e.path) == FileKind::Video && !naming::is_sample(&e.path) {
                *counts
                    .entry(naming::folder_of(&e.path).to_string())
                    .or_default() += 1;
            }
        }
        Ok(Some((chosen, counts)))
    })
    .await?
    .map_err(|e: String| ToolError::new(ErrorCode::BackendUnavailable, e))?;
    let Some((chosen, counts)) = found else {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no such file or folder beneath folder instance {}: \"{path}\"; paths are relative to its root",
                folder.id
            ),
        ));
    };
    let mut videos = Vec::new();
    let mut kept = Vec::new();
    for c in chosen {
        if naming::kind_of(&c) != FileKind::Video || naming::is_sample(&c) {
            continue;
        }
        match naming::Facts::of_path(&c) {
            Ok(facts) => videos.push(Video { path: c, facts }),
            Err(why) => kept.push(Skipped {
                path: c,
                reason: why.to_string(),
            }),
        }
    }
    if videos.len() > MAX_VIDEOS {
        return Err(ToolError::invalid(format!(
            "\"{path}\" holds {} videos, more than {MAX_VIDEOS} in one plan; name a smaller folder",
            videos.len()
        )));
    }
    Ok((videos, kept, counts))
}

/// The catalogue's record of a recognised title: the same title (and year, when the name has
/// one), read through the caller's limits. No catalogue, no match or a title the limits hide:
/// `None`, with a note where the caller can act on it.
async fn identify(
    ctx: &Ctx,
    facts: &naming::Facts,
) -> Result<(Option<Found>, Option<String>), ToolError> {
    let kinds: &[InstanceKind] = if facts.movie {
        &[InstanceKind::Builtin, InstanceKind::Tmdb]
    } else {
        &[InstanceKind::Tmdb]
    };
    let Ok(entry) = pick(ctx, None, kinds, "describing a title") else {
        return Ok((
            None,
            Some(format!(
                "no catalogue that knows {} is configured (a tmdb instance{}); \"{}\" is not described",
                if facts.movie { "films" } else { "shows" },
                if facts.movie {
                    " or the builtin catalogue"
                } else {
                    ""
                },
                facts.title
            )),
        ));
    };
    let catalogue = entry.catalogue().await?;
    let search = TitleSearch {
        kind: if facts.movie {
            TitleKind::Movie
        } else {
            TitleKind::Tv
        },
        query: facts.title.clone(),
        year: None,
        page: 1,
    };
    let rows = match catalogue.search_titles(&search).await {
        Ok(page) => page.items,
        Err(e) => {
            return Ok((
                None,
                Some(format!(
                    "the catalogue \"{}\" could not be asked about \"{}\": {e}",
                    entry.id, facts.title
                )),
            ));
        }
    };
    let want = words(&facts.title);
    let year = facts.year.map(|y| y as i32);
    let same: Vec<_> = rows.iter().filter(|r| words(&r.title) == want).collect();
    let pick_row = same
        .iter()
        .find(|r| year.is_some() && r.year == year)
        .or_else(|| same.iter().find(|_| year.is_none()))
        .or_else(|| {
            same.iter()
                .find(|r| matches!((year, r.year), (Some(a), Some(b)) if (a - b).abs() <= 1))
        });
    let Some(row) = pick_row else {
        return Ok((None, None));
    };
    let media_type = if facts.movie {
        TitleType::Movie
    } else {
        TitleType::Tv
    };
    match lookup::read(ctx, entry, row.id.clone(), media_type).await {
        Ok(looked) => Ok((Some((looked.details, catalogue)), None)),
        Err(e) if e.code == ErrorCode::NotAvailable => Ok((None, None)),
        Err(e) => Err(e),
    }
}

fn words(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The uniqueid type a media source is written as in an NFO file.
pub(crate) fn uniqueid_type(source: MediaSource) -> Option<&'static str> {
    match source {
        MediaSource::Tmdb => Some("tmdb"),
        MediaSource::Imdb => Some("imdb"),
        MediaSource::Tvdb => Some("tvdb"),
        _ => None,
    }
}
