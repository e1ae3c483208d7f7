//! `list_missing_subtitles`: the scanned videos (the files index `scan_library` keeps) that
//! lack a subtitle in one of the asked languages, counting subtitle files beside them (by their
//! names) and, when probed, the subtitle streams inside them; and what each Bazarr instance
//! lists as wanted in those languages.

use std::{collections::HashMap, ffi::OsStr, time::Duration};

use adapters_folder::{Root, probe};
use domain::{Capability, InstanceKind, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{languages, source::Client, subtitles};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct ListMissingSubtitles;

/// How long ffprobe may take over one file.
const PROBE_LIMIT: Duration = Duration::from_secs(30);
/// The most videos probed in one call.
const MAX_PROBED: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Languages wanted: ISO 639-1 codes with a region where meant (en, fr, pt-BR), or names.
    #[schemars(length(min = 1, max = 10), inner(length(min = 1, max = 40)))]
    pub languages: Vec<String>,
    /// One folder or Bazarr instance; every one you can read by default.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub instance_id: Option<String>,
    /// Look inside the videos with ffprobe for subtitle streams too (default true; at most 50
    /// videos a call, the rest judged by their subtitle files).
    #[serde(default)]
    pub probe_streams: Option<bool>,
    /// The most rows answered (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Missing {
    pub instance_id: String,
    /// The video, relative to the folder's root.
    pub path: String,
    pub title: Option<String>,
    /// The asked languages it has no subtitle in.
    pub missing: Vec<String>,
    /// Languages of the subtitle files beside it.
    pub files: Vec<String>,
    /// Languages of the subtitle streams inside it (when probed).
    pub streams: Vec<String>,
    /// Whether its streams were read.
    pub probed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Wanted {
    /// The Bazarr instance.
    pub service: String,
    /// movie or episode.
    pub kind: String,
    /// "The Matrix", "Show 1x02 Title".
    pub title: String,
    pub missing: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Data {
    pub languages: Vec<String>,
    pub missing: Vec<Missing>,
    /// Videos looked at in the index.
    pub videos: usize,
    /// Videos whose streams were read.
    pub probed: usize,
    pub bazarr_wanted: Vec<Wanted>,
}

impl Tool for ListMissingSubtitles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "list_missing_subtitles",
        title: "List missing subtitles",
        description: "Lists the scanned videos of the folder instances (scan_library's index) that have no subtitle in one of the given languages (ISO 639-1 with a region where meant: en, fr, pt-BR; names accepted): subtitle files beside them count by their names (Movie.en.srt), and subtitle streams inside them when probed with ffprobe (probe_streams, default true, at most 50 videos a call). With a Bazarr instance, also what Bazarr lists as wanted in those languages. instance_id limits it to one folder or Bazarr instance.",
        effect: Effect::Read,
        capability: Capability::SubtitlesRead,
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
        let langs = languages::parse(&input.languages)?;
        let named = input
            .instance_id
            .as_deref()
            .map(|id| {
                ctx.instances()
                    .all()
                    .iter()
                    .find(|s| s.id == id)
                    .ok_or_else(|| {
                        let ids: Vec<&str> = ctx
                            .instances()
                            .all()
                            .iter()
                            .filter(|s| {
                                matches!(s.kind.family(), KindFamily::Files | KindFamily::Subtitles)
                            })
                            .map(|s| s.id.as_str())
                            .collect();
                        ToolError::new(
                            ErrorCode::NotFound,
                            format!(
                                "unknown instance \"{id}\"; folder and subtitle instances: {}",
                                ids.join(", ")
                            ),
                        )
                    })
            })
            .transpose()?;
        let folders: Vec<(String, Option<String>)> = match named {
            Some(s) if s.kind == InstanceKind::Folder => {
                ctx.authorize(&s.id)?;
                vec![(s.id.clone(), s.path.clone())]
            }
            Some(_) => Vec::new(),
            None => ctx
                .instances()
                .all()
                .iter()
                .filter(|s| s.kind == InstanceKind::Folder && ctx.covers(&s.id))
                .map(|s| (s.id.clone(), s.path.clone()))
                .collect(),
        };
        let rows = ctx
            .store()
            .find_local_media(&store::LocalMediaQuery {
                instance_ids: folders.iter().map(|(id, _)| id.clone()).collect(),
                ..Default::default()
            })
            .await?;
        // Subtitle files by instance and folder.
        let mut beside: HashMap<(String, String), Vec<String>> = HashMap::new();
        for r in rows.iter().filter(|r| r.file_kind == "subtitle") {
            let (dir, name) = split(&r.path);
            beside
                .entry((r.instance_id.clone(), dir.to_owned()))
                .or_default()
                .push(name.to_owned());
        }
        let probe_streams = input.probe_streams.unwrap_or(true);
        let limit = input.limit.unwrap_or(100) as usize;
        let mut missing = Vec::new();
        let mut videos = 0usize;
        let mut probed = 0usize;
        let mut warnings = Vec::new();
        for r in rows.iter().filter(|r| r.file_kind == "video") {
            videos += 1;
            let (dir, name) = split(&r.path);
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            let files: Vec<String> = beside
                .get(&(r.instance_id.clone(), dir.to_owned()))
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|n| file_language(stem, n))
                        .collect()
                })
                .unwrap_or_default();
            let lacking = |have: &[String]| -> Vec<String> {
                langs
                    .iter()
                    .filter(|w| !have.iter().any(|h| languages::satisfies(h, w)))
                    .cloned()
                    .collect()
            };
            if lacking(&files).is_empty() {
                continue;
            }
            let mut streams = Vec::new();
            let mut was_probed = false;
            if probe_streams && probed < MAX_PROBED {
                let root = folders
                    .iter()
                    .find(|(id, _)| *id == r.instance_id)
                    .and_then(|(_, p)| p.clone());
                if let Some(root) = root {
                    match streams_of(&root, &r.path).await {
                        Ok(s) => {
                            streams = s;
                            was_probed = true;
                            probed += 1;
                        }
                        Err(why) => warnings.push(format!("{}: {why}", r.path)),
                    }
                }
            }
            let mut have = files.clone();
            have.extend(streams.iter().cloned());
            let gaps = lacking(&have);
            if gaps.is_empty() {
                continue;
            }
            missing.push(Missing {
                instance_id: r.instance_id.clone(),
                path: r.path.clone(),
                title: r.title.clone(),
                missing: gaps,
                files,
                streams,
                probed: was_probed,
            });
        }
        if probe_streams && videos > MAX_PROBED && probed >= MAX_PROBED {
            warnings.push(format!(
                "only {MAX_PROBED} videos were probed for subtitle streams; the rest were judged by their subtitle files"
            ));
        }
        let total_missing = missing.len();
        missing.truncate(limit);
        let bazarr_wanted =
            bazarr(ctx, named.map(|s| s.id.as_str()), &langs, &mut warnings).await?;
        let data = Data {
            languages: langs,
            missing,
            videos,
            probed,
            bazarr_wanted,
        };
        let mut summary = format!(
            "{total_missing} of {videos} videos lack a subtitle in {}",
            data.languages.join(", ")
        );
        if !data.bazarr_wanted.is_empty() {
            summary.push_str(&format!("; Bazarr wants {}", data.bazarr_wanted.len()));
        }
        let mut out = Output::typed(summary, &data)?;
        for w in warnings.into_iter().take(10) {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// What the Bazarr instances (the named one, or every one covered) list as wanted.
async fn bazarr(
    ctx: &Ctx,
    named: Option<&str>,
    langs: &[String],
    warnings: &mut Vec<String>,
) -> Result<Vec<Wanted>, ToolError> {
    let mut out = Vec::new();
    for source in subtitles(ctx).sources() {
        if named.is_some_and(|n| n != source.id) || (named.is_none() && !ctx.covers(&source.id)) {
            continue;
        }
        if named.is_some() {
            ctx.authorize(&source.id)?;
        }
        let Ok(Client::Bazarr(b)) = source.client() else {
            continue;
        };
        let pick = |l: &[adapters_subtitles::bazarr::Language]| -> Vec<String> {
            l.iter()
                .filter_map(|x| languages::one(x.code2.as_deref().unwrap_or(&x.name)))
                .filter(|c| langs.iter().any(|w| languages::satisfies(c, w)))
                .collect()
        };
        match b.wanted_movies().await {
            Ok(list) => out.extend(list.into_iter().filter_map(|m| {
                let missing = pick(&m.missing_subtitles);
                (!missing.is_empty()).then(|| Wanted {
                    service: source.id.clone(),
                    kind: "movie".into(),
                    title: m.title,
                    missing,
                })
            })),
            Err(e) => warnings.push(source.error(&e).message),
        }
        match b.wanted_episodes().await {
            Ok(list) => out.extend(list.into_iter().filter_map(|e| {
                let missing = pick(&e.missing_subtitles);
                (!missing.is_empty()).then(|| Wanted {
                    service: source.id.clone(),
                    kind: "episode".into(),
                    title: format!(
                        "{} {} {}",
                        e.series_title, e.episode_number, e.episode_title
                    )
                    .trim()
                    .to_owned(),
                    missing,
                })
            })),
            Err(e) => warnings.push(source.error(&e).message),
        }
    }
    Ok(out)
}

fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// The language a subtitle file's name gives it when it belongs to the video `stem`
/// (`Stem.en.srt`, `Stem.French.forced.srt`); `None` for another video's or an unnamed one.
fn file_language(stem: &str, name: &str) -> Option<String> {
    let rest = name.strip_prefix(stem)?.strip_prefix('.')?;
    let (words, _ext) = rest.rsplit_once('.')?;
    words
        .split('.')
        .filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "forced" | "foreign" | "sdh" | "cc" | "hi" | "default"
            )
        })
        .find_map(languages::one)
}

/// The languages of the subtitle streams inside `rel`, read by ffprobe on the confined handle.
async fn streams_of(root: &str, rel: &str) -> Result<Vec<String>, String> {
    let (root, path) = (root.to_owned(), rel.to_owned());
    let file = tokio::task::spawn_blocking(move || {
        Root::open(&root)
            .and_then(|r| r.open_file(&path))
            .map(|(f, _)| f)
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|_| "could not be opened".to_string())??;
    let found = probe::probe(OsStr::new("ffprobe"), file, PROBE_LIMIT)
        .await
        .map_err(|e| e.to_string())?;
    Ok(found
        .subtitles
        .iter()
        .filter_map(|s| s.language.as_deref().and_then(languages::one))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subtitle_file_belongs_to_its_video_by_stem() {
        assert_eq!(
            file_language("Heat (1995)", "Heat (1995).en.srt").as_deref(),
            Some("en")
        );
        assert_eq!(
            file_language("Heat (1995)", "Heat (1995).French.forced.srt").as_deref(),
            Some("fr")
        );
        assert_eq!(
            file_language("Heat (1995)", "Heat (1995).pt-BR.hi.srt").as_deref(),
            Some("pt-BR")
        );
        assert_eq!(file_language("Heat (1995)", "Heat (1995).srt"), None);
        assert_eq!(file_language("Heat", "Other.en.srt"), None);
    }
}
