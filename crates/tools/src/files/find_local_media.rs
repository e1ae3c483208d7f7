//! `find_local_media`: what is on disk, from the index `scan_library` keeps, grouped by title
//! (a catalogue identity, else the recognised title and year): a show by season and episode,
//! music by album, each with its files' sizes, quality and languages. A content-limited
//! caller sees only titles the catalogue rates within the limits, as discovery does: the rest
//! (and titles without an identity to rate) are hidden and counted, never named.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use adapters_catalogue::Error as CatalogueError;
use domain::{Capability, InstanceKind, KindFamily, MediaId, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use store::{LocalFile, LocalMediaQuery};

use super::{index::LocalIndex, index_read::title_key};
use crate::discover::{identity, limits, pick, render};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

pub struct FindLocalMedia;

/// Titles a content-limited call checks against the catalogue at most; past it they are
/// hidden and counted.
const MAX_CHECKED: usize = 200;
/// The furthest a page may start.
const MAX_OFFSET: u32 = 100_000;
/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::LocalMedia];
/// How long a content-limited caller's page is kept although the index is unchanged: its
/// titles were rated by a catalogue, whose ratings may change.
const RATED_FOR_MS: i64 = 10 * 60 * 1000;

/// Movie, TV show or music.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LocalType {
    Movie,
    Tv,
    Music,
}

impl LocalType {
    fn as_str(self) -> &'static str {
        match self {
            LocalType::Movie => "movie",
            LocalType::Tv => "tv",
            LocalType::Music => "music",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Words of the title (or, for music, the artist or album); letters and digits compared.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub query: Option<String>,
    /// With media_id: only files matched to this catalogue identity.
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source (e.g. "tt0113277" for builtin); always with media_source.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub media_id: Option<String>,
    /// One folder instance (default: every folder instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: Option<String>,
    /// movie, tv or music.
    #[serde(default)]
    pub media_type: Option<LocalType>,
    /// Titles per page, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
    /// Titles to skip (the previous page's next_offset).
    #[serde(default)]
    #[schemars(range(max = MAX_OFFSET))]
    pub offset: Option<u32>,
}

/// The answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Found {
    pub titles: Vec<TitleRow>,
    /// Titles that match, on every page (hidden ones not counted).
    pub total_titles: usize,
    pub offset: usize,
    /// Where the next page starts, when there is one.
    pub next_offset: Option<usize>,
    /// Titles this account's content limits hide (never named).
    pub hidden: u32,
    /// Indexed media files whose names said nothing recognisable (not grouped).
    pub unrecognised_files: usize,
    /// The folder instances read.
    pub instances: Vec<String>,
}

/// One title on disk.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TitleRow {
    /// movie, tv or music.
    pub media_type: String,
    /// The title (music: the album).
    pub title: String,
    pub year: Option<i64>,
    /// Music: the (album) artist.
    pub artist: Option<String>,
    /// The catalogue identity the files were matched to, when one was.
    pub media_source: Option<String>,
    pub media_id: Option<String>,
    pub confidence: Option<f64>,
    /// Bytes of every file of the title.
    pub size_bytes: u64,
    /// Screen sizes held (2160p, 1080p, ...), best first.
    pub screen_sizes: Vec<String>,
    /// Audio languages the names state (ISO 639-1).
    pub languages: Vec<String>,
    /// Subtitle languages: from subtitle files beside the videos and from the names.
    pub subtitle_languages: Vec<String>,
    /// TV: the seasons held, with their episodes.
    pub seasons: Vec<SeasonRow>,
    pub files: Vec<FileRow>,
}

/// One season of a show on disk.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SeasonRow {
    pub season: i64,
    /// Episode numbers held.
    pub episodes: Vec<i64>,
    /// Episode numbers below the highest held that are not on disk. No catalogue lists a
    /// season's episodes, so episodes after the last one held are not known to be missing.
    pub gaps: Vec<i64>,
    pub size_bytes: u64,
}

/// One file of a title.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileRow {
    pub instance_id: String,
    /// Relative to the folder's root.
    pub path: String,
    /// video, audio or subtitle.
    pub file_kind: String,
    pub size_bytes: u64,
    pub season: Option<i64>,
    /// Episodes in the file (several for a multi-episode file); music: the track number.
    pub episodes: Vec<i64>,
    pub episode_title: Option<String>,
    pub screen_size: Option<String>,
    pub source: Option<String>,
    pub video_codec: Option<String>,
    pub audio_codec: Vec<String>,
    pub audio_channels: Option<String>,
    pub edition: Vec<String>,
    pub release_group: Option<String>,
    pub languages: Vec<String>,
    pub subtitle_languages: Vec<String>,
    /// Music: the track's title.
    pub track_title: Option<String>,
}

impl Tool for FindLocalMedia {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Found>);
    const META: Meta = Meta {
        name: "find_local_media",
        title: "Find media on disk",
        description: "Lists what is on disk in the folder instances, from the index scan_library keeps: grouped by title (a catalogue identity, else the recognised title and year), a show by season and episode (with the gaps below the last episode held), music by album; each with its files, sizes, quality (screen size, source, codecs) and languages, including subtitle files. Filter by query (title words), media_source + media_id, instance_id or media_type (movie, tv, music). A content-limited account sees only titles within its limits; the rest are counted as hidden.",
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
        let view = stored::view(ctx, &input);
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || async {
                let keep = if limits::Gate::for_caller_would_filter(ctx) {
                    Keep::Before(chrono::Utc::now().timestamp_millis() + RATED_FOR_MS)
                } else {
                    Keep::WhileUnchanged
                };
                Ok((answer(ctx, input).await?, keep))
            })
            .await
    }
}

/// The page, read from the index (and, for a content-limited caller, rated by the catalogue).
async fn answer(ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
    let limit = governance::contract::page_limit(input.limit)? as usize;
    let offset = input.offset.unwrap_or(0).min(MAX_OFFSET) as usize;
    let identity = identity::optional(input.media_source, input.media_id)?;
    let instances = folders(ctx, input.instance_id.as_deref())?;
    let key = input
        .query
        .as_deref()
        .map(title_key)
        .filter(|k| !k.is_empty());
    let rows = ctx
        .store()
        .find_local_media(&LocalMediaQuery {
            instance_ids: instances.clone(),
            media_type: input.media_type.map(|t| t.as_str().to_owned()),
            identity: identity
                .as_ref()
                .map(|i| (i.media_source.as_str().to_owned(), i.media_id.clone())),
            title_key_contains: key,
        })
        .await?;
    let unrecognised_files = rows.iter().filter(|r| r.media_type.is_none()).count();
    let mut titles = group(rows);
    let hidden = if limits::Gate::for_caller_would_filter(ctx) {
        within_limits(ctx, &mut titles).await?
    } else {
        0
    };
    let total_titles = titles.len();
    let page: Vec<TitleRow> = titles.into_iter().skip(offset).take(limit).collect();
    let next_offset = (offset + page.len() < total_titles).then_some(offset + page.len());
    let summary = summary(&page, total_titles, hidden);
    let found = Found {
        titles: page,
        total_titles,
        offset,
        next_offset,
        hidden,
        unrecognised_files,
        instances,
    };
    let mut out = Output::typed(summary, &found)?;
    let index = ctx.family::<std::sync::Arc<LocalIndex>>()?;
    if found.titles.iter().any(|t| t.media_type == "tv") {
        out = out.warn(if index.knows_shows() {
            "no catalogue lists a season's episodes: only the gaps below the last episode held are shown"
        } else {
            "no catalogue lists a season's episodes (and none that knows shows is configured): only the gaps below the last episode held are shown"
        });
    }
    if hidden > 0 {
        out = out.warn(format!(
            "{hidden} titles are hidden by this account's content limits"
        ));
    }
    if total_titles == 0 && unrecognised_files == 0 {
        out = out.next("scan_library");
    }
    Ok(out)
}

/// The folder instances to read: the one named (unknown ids are refused with the valid
/// ones), else every one the caller's grant covers.
fn folders(ctx: &Ctx, id: Option<&str>) -> Result<Vec<String>, ToolError> {
    if let Some(id) = id {
        let (spec, _) = ctx.instance(KindFamily::Files, Some(id))?;
        return Ok(vec![spec.id.clone()]);
    }
    Ok(ctx
        .instances()
        .all()
        .iter()
        .filter(|s| s.kind == InstanceKind::Folder && ctx.covers(&s.id))
        .filter(|s| ctx.authorize(&s.id).is_ok())
        .map(|s| s.id.clone())
        .collect())
}

fn summary(page: &[TitleRow], total: usize, hidden: u32) -> String {
    let mut s = match total {
        0 => "Nothing on disk matches.".to_string(),
        n => format!(
            "{n} title{} on disk{}",
            if n == 1 { "" } else { "s" },
            if page.is_empty() {
                ".".to_string()
            } else {
                format!(
                    ": {}.",
                    page.iter()
                        .take(5)
                        .map(|t| match t.year {
                            Some(y) => format!("{} ({y})", t.title),
                            None => t.title.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
    };
    if hidden > 0 {
        s.push_str(&format!(" {hidden} hidden by content limits."));
    }
    s
}

/// A string list from a JSON value that is one string, a list of them, or null.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// The files grouped by title, in title order.
fn group(rows: Vec<LocalFile>) -> Vec<TitleRow> {
    let mut groups: BTreeMap<(String, String, String), Vec<(LocalFile, Value)>> = BTreeMap::new();
    for row in rows {
        let Some(media_type) = row.media_type.clone() else {
            continue;
        };
        let facts: Value = serde_json::from_str(&row.facts).unwrap_or(Value::Null);
        let title = row.title.clone().unwrap_or_default();
        // Sorted by the title as a person reads it; one group per identity, else per title
        // (and year, for a movie).
        let order = title.to_lowercase();
        let key = match (&row.media_source, &row.media_id) {
            (Some(s), Some(i)) => format!("{media_type}|{s}|{i}"),
            _ => format!(
                "{media_type}|{}|{}",
                row.title_key.clone().unwrap_or_default(),
                if media_type == "movie" {
                    row.year.map(|y| y.to_string()).unwrap_or_default()
                } else {
                    String::new()
                }
            ),
        };
        groups
            .entry((order, media_type, key))
            .or_default()
            .push((row, facts));
    }
    groups.into_values().filter_map(title_row).collect()
}

fn title_row(files: Vec<(LocalFile, Value)>) -> Option<TitleRow> {
    // The title as a video (or track) names it, before a subtitle does.
    let lead = files
        .iter()
        .find(|(f, _)| f.file_kind != "subtitle")
        .or_else(|| files.first())?;
    let (first, first_facts) = (&lead.0, &lead.1);
    let media_type = first.media_type.clone()?;
    let mut row = TitleRow {
        media_type: media_type.clone(),
        title: first.title.clone().unwrap_or_default(),
        year: files.iter().find_map(|(f, _)| f.year),
        artist: (media_type == "music")
            .then(|| text(&first_facts["album_artist"]).or_else(|| text(&first_facts["artist"])))
            .flatten(),
        media_source: first.media_source.clone(),
        media_id: first.media_id.clone(),
        confidence: first.confidence,
        size_bytes: 0,
        screen_sizes: Vec::new(),
        languages: Vec::new(),
        subtitle_languages: Vec::new(),
        seasons: Vec::new(),
        files: Vec::with_capacity(files.len()),
    };
    let mut sizes = BTreeSet::new();
    let mut languages = BTreeSet::new();
    let mut subtitles = BTreeSet::new();
    let mut seasons: BTreeMap<i64, (BTreeSet<i64>, u64)> = BTreeMap::new();
    for (f, facts) in files {
        let size = u64::try_from(f.size).unwrap_or_default();
        row.size_bytes += size;
        let music = media_type == "music";
        let episodes: Vec<i64> = if music {
            f.episode.into_iter().collect()
        } else {
            facts["episode"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_else(|| f.episode.into_iter().collect())
        };
        let file_languages = if music {
            Vec::new()
        } else {
            strings(&facts["language"])
        };
        let mut file_subtitles = strings(&facts["subtitle_language"]);
        if f.file_kind == "subtitle" {
            // A subtitle file's language is its subtitles' language, however the name says it.
            file_subtitles.extend(file_languages.iter().cloned());
            subtitles.extend(file_subtitles.iter().cloned());
        } else {
            languages.extend(file_languages.iter().cloned());
            subtitles.extend(file_subtitles.iter().cloned());
            if let Some(s) = text(&facts["screen_size"]) {
                sizes.insert(s);
            }
            if media_type == "tv"
                && let Some(season) = f.season
            {
                let entry = seasons.entry(season).or_default();
                entry.0.extend(episodes.iter().copied());
                entry.1 += size;
            }
        }
        let subtitle_file = f.file_kind == "subtitle";
        row.files.push(FileRow {
            instance_id: f.instance_id,
            path: f.path,
            file_kind: f.file_kind,
            size_bytes: size,
            season: f.season,
            episodes,
            episode_title: text(&facts["episode_title"]),
            screen_size: text(&facts["screen_size"]),
            source: text(&facts["source"]),
            video_codec: text(&facts["video_codec"]),
            audio_codec: strings(&facts["audio_codec"]),
            audio_channels: text(&facts["audio_channels"]),
            edition: strings(&facts["edition"]),
            release_group: text(&facts["release_group"]),
            languages: if subtitle_file {
                Vec::new()
            } else {
                file_languages
            },
            subtitle_languages: file_subtitles,
            track_title: music.then(|| text(&facts["title"])).flatten(),
        });
    }
    row.files.sort_by(|a, b| {
        (a.season, a.episodes.first(), &a.path).cmp(&(b.season, b.episodes.first(), &b.path))
    });
    let mut sizes: Vec<String> = sizes.into_iter().collect();
    sizes.sort_by_key(|s| {
        std::cmp::Reverse(s.trim_end_matches(['p', 'i']).parse::<u32>().unwrap_or(0))
    });
    row.screen_sizes = sizes;
    row.languages = languages.into_iter().collect();
    row.subtitle_languages = subtitles.into_iter().collect();
    row.seasons = seasons
        .into_iter()
        .map(|(season, (held, size_bytes))| {
            let last = held.iter().next_back().copied().unwrap_or(0);
            SeasonRow {
                season,
                gaps: (1..last).filter(|e| !held.contains(e)).collect(),
                episodes: held.into_iter().collect(),
                size_bytes,
            }
        })
        .collect();
    Some(row)
}

/// A catalogue's gate for the caller, the catalogue and its instance id.
type Judge<'e> = (
    Option<limits::Gate<'e>>,
    std::sync::Arc<dyn adapters_catalogue::Catalogue>,
    String,
);

/// Drops the titles the caller's limits forbid and counts them: a movie or show is read from
/// the catalogue that named it and judged as discovery judges it; one without an identity
/// cannot be rated and is hidden; music passes unless the limits hide unrated titles.
async fn within_limits(ctx: &Ctx, titles: &mut Vec<TitleRow>) -> Result<u32, ToolError> {
    let before = titles.len();
    let mut gates: HashMap<MediaSource, Judge<'_>> = HashMap::new();
    let mut kept = Vec::with_capacity(titles.len());
    let block_unrated = ctx.caller.authority.person.limits.block_unrated;
    let mut asked = 0;
    for t in std::mem::take(titles) {
        if t.media_type == "music" {
            if !block_unrated {
                kept.push(t);
            }
            continue;
        }
        let (Some(source), Some(id)) = (
            t.media_source
                .as_deref()
                .and_then(|s| s.parse::<MediaSource>().ok()),
            t.media_id.clone(),
        ) else {
            continue;
        };
        if asked >= MAX_CHECKED {
            continue;
        }
        asked += 1;
        let kind = match source {
            MediaSource::Builtin => InstanceKind::Builtin,
            MediaSource::Tmdb => InstanceKind::Tmdb,
            _ => continue,
        };
        let judge = match gates.entry(source) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let entry = pick(ctx, None, &[kind], "checking content limits")?;
                let catalogue = entry.catalogue().await?;
                let gate = limits::Gate::for_caller(ctx, entry, catalogue.clone());
                v.insert((gate, catalogue, entry.id.clone()))
            }
        };
        let (Some(gate), catalogue, entry_id) = judge else {
            kept.push(t);
            continue;
        };
        let media_type = if t.media_type == "tv" {
            MediaType::Tv
        } else {
            MediaType::Movie
        };
        let details = match catalogue
            .title_details(&MediaId::new(source, id), media_type, &gate.region)
            .await
        {
            Ok(d) => d,
            Err(CatalogueError::NotFound { .. }) => continue,
            Err(e) => return Err(render::catalogue_error(e, entry_id)),
        };
        if gate.allows(&details).await? {
            kept.push(t);
        }
    }
    *titles = kept;
    Ok(u32::try_from(before - titles.len()).unwrap_or(u32::MAX))
}
