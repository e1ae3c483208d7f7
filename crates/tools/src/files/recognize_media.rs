//! `recognize_media`: a release, file or relative path name to structured facts (guessit's
//! property names and value spellings), with the best catalogue identity for it.

use adapters_catalogue::{TitleKind, TitleSearch, TitleSummary};
use domain::{Capability, InstanceKind, KindFamily};
use policy::Effect;
use recognize::{Kind, Recognition};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::discover::{limits, pick};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RecognizeMedia;

/// The longest name read: a path of a few folders and a long release name fit well within it.
const MAX_NAME: usize = 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A release name, file name or relative path (folder names help:
    /// "Movies/Heat (1995)/heat.1080p.mkv").
    #[schemars(length(max = MAX_NAME))]
    pub name: String,
}

impl Tool for RecognizeMedia {
    type Input = Input;
    const META: Meta = Meta {
        name: "recognize_media",
        title: "Recognize media",
        description: "Reads a release, file or relative path name (folder names help) into structured facts with guessit's property names: type (movie, episode or unknown) and media_type (movie or tv), title, year, season, episode (a list for multi-episode files), episode_title, date, screen_size, source, video_codec, audio_codec, audio_channels, release_group, edition, language and subtitle_language (ISO 639-1 codes, with a region where meant: pt-BR), container, other; and match, the best catalogue identity (media_source + media_id, confidence) when a catalogue knows the title. Reads no file.",
        effect: Effect::Read,
        capability: Capability::FilesRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Files),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let name = input.name.trim();
        if name.is_empty() {
            return Err(ToolError::invalid(
                "name is empty; give a release, file or relative path name, e.g. \"Movies/Heat (1995)/heat.1080p.mkv\"",
            ));
        }
        if name.len() > MAX_NAME || name.contains('\0') {
            return Err(ToolError::invalid(format!(
                "name must be at most {MAX_NAME} bytes of text without NUL characters"
            )));
        }
        let r = recognize::recognize(name);
        let (matched, note) = match r.title.as_deref() {
            Some(title) if r.kind != Kind::Unknown => identify(ctx, &r, title).await?,
            _ => (Value::Null, None),
        };
        let mut out = Output::new(summary(&r, &matched), facts(&r, matched));
        if r.kind == Kind::Unknown {
            out = out.warn(format!(
                "nothing recognisable in \"{name}\": no title, season, episode or year could be read"
            ));
        }
        if let Some(note) = note {
            out = out.warn(note);
        }
        Ok(out)
    }
}

/// One value, or a list when there are several, or null.
fn one_or_many<T: Into<Value> + Clone>(items: &[T]) -> Value {
    match items {
        [] => Value::Null,
        [one] => one.clone().into(),
        many => Value::Array(many.iter().cloned().map(Into::into).collect()),
    }
}

fn media_type(r: &Recognition) -> Value {
    match r.kind {
        Kind::Movie => json!("movie"),
        Kind::Episode => json!("tv"),
        Kind::Unknown => Value::Null,
    }
}

/// The facts, with guessit's property names (the index of files on disk keeps them too).
pub(crate) fn facts(r: &Recognition, matched: Value) -> Value {
    json!({
        "type": r.kind.as_str(),
        "media_type": media_type(r),
        "title": r.title,
        "year": r.year,
        "season": one_or_many(&r.season),
        "episode": one_or_many(&r.episode),
        "episode_title": r.episode_title,
        "date": r.date,
        "screen_size": r.screen_size,
        "source": r.source,
        "video_codec": r.video_codec,
        "audio_codec": one_or_many(&r.audio_codec),
        "audio_channels": r.audio_channels,
        "release_group": r.release_group,
        "edition": one_or_many(&r.edition),
        "language": one_or_many(&r.language),
        "subtitle_language": one_or_many(&r.subtitle_language),
        "container": r.container,
        "other": one_or_many(&r.other),
        "match": matched,
    })
}

fn summary(r: &Recognition, matched: &Value) -> String {
    let Some(title) = r.title.as_deref() else {
        return "nothing recognisable in this name".into();
    };
    let mut s = format!("{} \"{title}\"", r.kind.as_str());
    if let Some(y) = r.year {
        s.push_str(&format!(" ({y})"));
    }
    if let (Some(season), Some(episode)) = (r.season.first(), r.episode.first()) {
        s.push_str(&format!(" S{season:02}E{episode:02}"));
        if r.episode.len() > 1 {
            s.push_str(&format!(" and {} more episodes", r.episode.len() - 1));
        }
    }
    if let Some(q) = &r.screen_size {
        s.push_str(&format!(", {q}"));
    }
    match matched.get("media_id").and_then(Value::as_str) {
        Some(id) => format!(
            "{s}; best catalogue match {} {id}",
            matched["media_source"].as_str().unwrap_or_default()
        ),
        None => s,
    }
}

/// The best catalogue identity for the recognised title: the builtin catalogue (films) or
/// TMDB (films and shows), within the caller's grant and content limits. No catalogue that can
/// answer, or no match: null, with a note when a catalogue is missing.
async fn identify(
    ctx: &Ctx,
    r: &Recognition,
    title: &str,
) -> Result<(Value, Option<String>), ToolError> {
    let tv = r.kind == Kind::Episode;
    let kinds: &[InstanceKind] = if tv {
        &[InstanceKind::Tmdb]
    } else {
        &[InstanceKind::Builtin, InstanceKind::Tmdb]
    };
    let Ok(entry) = pick(ctx, None, kinds, "matching a show") else {
        let note = tv.then(|| {
            "no catalogue that knows shows (a tmdb instance) is configured; match is null".into()
        });
        return Ok((Value::Null, note));
    };
    let catalogue = entry.catalogue().await?;
    let page = match catalogue.search_titles(&search_for(r, title)).await {
        Ok(p) => p,
        Err(e) => {
            return Ok((
                Value::Null,
                Some(format!(
                    "the catalogue \"{}\" could not be asked for a match: {e}",
                    entry.id
                )),
            ));
        }
    };
    let mut gate = limits::Gate::for_caller(ctx, entry, catalogue.clone());
    let passed = limits::pass_titles(&mut gate, page.items).await?;
    Ok((best(r, title, &passed.rows), None))
}

/// The catalogue question a recognised title is matched with.
pub(crate) fn search_for(r: &Recognition, title: &str) -> TitleSearch {
    TitleSearch {
        kind: if r.kind == Kind::Episode {
            TitleKind::Tv
        } else {
            TitleKind::Movie
        },
        query: title.to_owned(),
        year: None,
        page: 1,
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

/// The best row and how sure it is: the same title and year, the same title, or the
/// catalogue's first answer. The index of files on disk matches with it too, ungated.
pub(crate) fn best(r: &Recognition, title: &str, rows: &[TitleSummary]) -> Value {
    let want = words(title);
    let year = r.year.map(|y| y as i32);
    let scored = rows.iter().enumerate().map(|(i, row)| {
        let same = words(&row.title) == want;
        let year_right = year.is_some() && row.year == year;
        let near_year = matches!((year, row.year), (Some(a), Some(b)) if (a - b).abs() <= 1);
        let confidence: f64 = match (same, year_right, near_year, year.is_some()) {
            (true, true, _, _) => 0.95,
            (true, false, true, _) => 0.85,
            (true, false, false, false) => 0.8,
            (true, false, false, true) => 0.5,
            (false, true, _, _) => 0.6,
            _ if i == 0 => 0.3,
            _ => 0.0,
        };
        (confidence, row)
    });
    // The first of the best: the catalogue's own order breaks ties.
    let Some((confidence, row)) = scored.fold(
        None,
        |best: Option<(f64, &TitleSummary)>, (c, row)| match best {
            Some((b, _)) if b >= c => best,
            _ if c > 0.0 => Some((c, row)),
            _ => best,
        },
    ) else {
        return Value::Null;
    };
    json!({
        "media_source": row.id.media_source,
        "media_id": row.id.media_id,
        "title": row.title,
        "year": row.year,
        "confidence": confidence,
    })
}
