//! How discovery answers read: rows that carry `media_source` + `media_id`, list summaries that
//! say what was read where and how many titles the limits hid, and catalogue errors as
//! `ToolError`s with stable codes.

use adapters_catalogue::{Certification, Error as CatalogueError, MusicItem, Page, TitleSummary};
use domain::{MediaId, MediaSource, MediaType};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::in_library::InLibrary;
use crate::media::playable::PlayableOn;
use governance::ErrorCode;
use governance::contract::{Output, ToolError};

/// Longest overview shown in a list row, in characters.
const OVERVIEW_CHARS: usize = 280;

pub(crate) fn media_type_str(t: MediaType) -> &'static str {
    match t {
        MediaType::Movie => "movie",
        MediaType::Tv => "tv",
        MediaType::Music => "music",
        MediaType::Book => "book",
    }
}

/// Drops null fields and empty lists, so rows stay short in the model's context.
fn compact(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

fn short(text: &Option<String>) -> Option<String> {
    text.as_ref().map(|t| {
        if t.chars().count() > OVERVIEW_CHARS {
            let cut: String = t.chars().take(OVERVIEW_CHARS).collect();
            format!("{}…", cut.trim_end())
        } else {
            t.clone()
        }
    })
}

/// The rating as shown: `{rating, rating_region}`, "unrated", or nothing when not read.
pub(crate) fn rating_fields(c: &Certification) -> (Value, Value) {
    match c {
        Certification::Rated { region, rating } => (json!(rating), json!(region)),
        Certification::Unrated { region } => (json!("unrated"), json!(region)),
        Certification::NotFetched => (Value::Null, Value::Null),
    }
}

/// A title in a list answer, written straight to JSON: empty fields are left out, so rows
/// stay short in the model's context.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TitleRow<'a> {
    media_source: MediaSource,
    media_id: &'a str,
    media_type: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating_region: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    genres: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    overview: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_language: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vote_average: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vote_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    poster_url: Option<&'a str>,
    /// The builtin catalogue's imdb id repeats its own id: only other ids are worth the space.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Value>")]
    external_ids: Vec<&'a MediaId>,
    /// A library instance the caller may read holds it; `null` when the instances that hold
    /// its media type could not be read (or none is configured); left out when the caller
    /// reads none.
    #[serde(skip_serializing_if = "Option::is_none")]
    in_library: Option<Option<bool>>,
    /// The household's media servers that have the title now (a show: with the seasons and
    /// episodes each has); left out when the caller reads no media server or none could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    playable_on: Option<Vec<PlayableOn>>,
}

/// A row's `rating` and `rating_region`.
pub(crate) fn rating_of(c: &Certification) -> (Option<&str>, Option<&str>) {
    match c {
        Certification::Rated { region, rating } => (Some(rating.as_str()), Some(region.as_str())),
        Certification::Unrated { region } => (Some("unrated"), region.as_deref()),
        Certification::NotFetched => (None, None),
    }
}

impl<'a> TitleRow<'a> {
    pub(crate) fn new(t: &'a TitleSummary) -> TitleRow<'a> {
        let (rating, rating_region) = rating_of(&t.certification);
        TitleRow {
            media_source: t.id.media_source,
            media_id: &t.id.media_id,
            media_type: media_type_str(t.media_type),
            title: &t.title,
            year: t.year,
            rating,
            rating_region,
            genres: &t.genres,
            overview: short(&t.overview),
            original_language: t.original_language.as_deref(),
            vote_average: t.vote_average,
            vote_count: t.vote_count,
            poster_url: t.poster_url.as_deref(),
            external_ids: t
                .external_ids
                .iter()
                .filter(|e| e.media_id != t.id.media_id)
                .collect(),
            in_library: None,
            playable_on: None,
        }
    }

    /// The row with `in_library` from the caller's view of the libraries.
    pub(crate) fn held(t: &'a TitleSummary, held: &InLibrary) -> TitleRow<'a> {
        let ids = || std::iter::once(&t.id).chain(&t.external_ids);
        TitleRow {
            in_library: held.of(t.media_type, ids()),
            playable_on: held.playable(t.media_type, ids()),
            ..TitleRow::new(t)
        }
    }
}

pub(crate) fn music_row(m: &MusicItem, held: &InLibrary) -> Value {
    let in_library = held.of(MediaType::Music, std::iter::once(&m.id));
    let mut row = compact(json!({
        "media_source": m.id.media_source,
        "media_id": m.id.media_id,
        "media_type": media_type_str(m.media_type),
        "kind": m.kind,
        "title": m.title,
        "artist": m.artist,
        "album": m.album,
        "year": m.year,
        "type": m.type_name,
        "genres": m.genres,
        "disambiguation": m.disambiguation,
        "country": m.country,
        "length_ms": m.length_ms,
        "score": m.score,
    }));
    // Unknown is said (`null`), not left out: only a caller who reads no library has no flag.
    if let (Some(flag), Value::Object(map)) = (in_library, &mut row) {
        map.insert("in_library".into(), json!(flag));
    }
    row
}

/// " 3 titles were hidden by this account's content limits." (empty for none).
pub(crate) fn hidden_sentence(hidden: u32) -> String {
    match hidden {
        0 => String::new(),
        1 => " 1 title was hidden by this account's content limits.".into(),
        n => format!(" {n} titles were hidden by this account's content limits."),
    }
}

/// The data of a list answer.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ListData<'a, R> {
    instance_id: &'a str,
    page: u32,
    total_pages: u32,
    total_results_upstream: u64,
    results: Vec<R>,
    hidden_by_limits: u32,
    content_limits_applied: bool,
}

pub(crate) fn list_data<'a, T, R: Serialize>(
    instance: &'a str,
    page: &Page<T>,
    rows: Vec<R>,
    hidden: u32,
    limited: bool,
) -> ListData<'a, R> {
    ListData {
        instance_id: instance,
        page: page.page,
        total_pages: page.total_pages,
        total_results_upstream: page.total_results,
        results: rows,
        hidden_by_limits: hidden,
        content_limits_applied: limited,
    }
}

/// A list answer's summary: what was found where, or that nothing matched, and what was hidden.
pub(crate) fn list_summary<T>(
    noun: &str,
    context: &str,
    instance: &str,
    page: &Page<T>,
    shown: usize,
    hidden: u32,
) -> String {
    let hidden_text = hidden_sentence(hidden);
    if shown == 0 {
        return if hidden > 0 {
            format!("No {noun}s to show {context} from {instance}:{hidden_text}")
        } else if page.page > 1 && page.total_results > 0 {
            format!(
                "No more {noun}s {context} in {instance}: page {} is past the last page ({}).",
                page.page, page.total_pages
            )
        } else {
            format!(
                "No {noun}s match {context} in {instance}; the catalogue was read and has none."
            )
        };
    }
    let more = if page.page < page.total_pages {
        format!("; more with page {}", page.page + 1)
    } else {
        String::new()
    };
    format!(
        "{shown} {noun}{} {context} from {instance} (page {} of {}{more}).{hidden_text}",
        if shown == 1 { "" } else { "s" },
        page.page,
        page.total_pages.max(1),
    )
}

/// A catalogue failure as a tool error with a stable code and one sentence to act on.
pub(crate) fn catalogue_error(e: CatalogueError, instance: &str) -> ToolError {
    match e {
        CatalogueError::Unsupported {
            ref supported_by, ..
        } => {
            let sources: Vec<&str> = supported_by.iter().map(|s| s.as_str()).collect();
            ToolError::new(ErrorCode::Unsupported, e.to_string())
                .with_data(json!({ "instance_id": instance, "supported_sources": sources }))
        }
        CatalogueError::UnknownName { ref options, .. } => {
            let options = options.clone();
            ToolError::invalid(e.to_string()).with_data(json!({ "options": options }))
        }
        CatalogueError::NotFound { .. } => ToolError::new(ErrorCode::NotFound, e.to_string()),
        CatalogueError::InvalidArgument { .. } => ToolError::invalid(e.to_string()),
        CatalogueError::Backend { ref error, .. } => {
            let code = match error {
                httpx::Error::Unreachable { .. } | httpx::Error::Timeout => {
                    ErrorCode::BackendUnreachable
                }
                httpx::Error::Unauthorized { .. } => ErrorCode::BackendUnauthorized,
                httpx::Error::RateLimited { .. } => ErrorCode::BackendRateLimited,
                _ => ErrorCode::BackendError,
            };
            tracing::warn!(instance, error = %e, "catalogue call failed");
            ToolError::new(
                code,
                format!(
                    "the catalogue \"{instance}\" could not be read: {e}; run diagnose to check it"
                ),
            )
            .with_data(json!({ "instance_id": instance }))
        }
    }
}

/// `page` as given (default 1), refusing 0.
pub(crate) fn page(page: Option<u32>) -> Result<u32, ToolError> {
    match page {
        None => Ok(1),
        Some(0) => Err(ToolError::invalid(
            "invalid argument \"page\": pages start at 1",
        )),
        Some(p) if p > MAX_PAGE => Err(ToolError::invalid(format!(
            "invalid argument \"page\": {p} is above the last page a catalogue serves, {MAX_PAGE}"
        ))),
        Some(p) => Ok(p),
    }
}

/// The last page a catalogue serves (TMDB's limit; MusicBrainz offsets stay below it too).
/// Inputs declare it with `#[schemars(range(min = 1, max = render::MAX_PAGE))]`.
pub(crate) const MAX_PAGE: u32 = 500;

/// A title list answer: rows, counts, the instance read, and what the limits hid.
pub(crate) fn titles_output(
    instance: &str,
    context: &str,
    page: &Page<TitleSummary>,
    rows: &[TitleSummary],
    hidden: u32,
    limited: bool,
    held: &InLibrary,
) -> Result<Output, ToolError> {
    let summary = list_summary("title", context, instance, page, rows.len(), hidden);
    let data = list_data(
        instance,
        page,
        rows.iter().map(|t| TitleRow::held(t, held)).collect(),
        hidden,
        limited,
    );
    let mut out = Output::typed(summary, &data)?;
    for w in held.warnings(rows.iter().map(|t| t.media_type)) {
        out = out.warn(w);
    }
    Ok(match rows.first() {
        Some(first) => out.next(format!(
            "get_title_details {{\"media_source\":\"{}\",\"media_id\":\"{}\",\"media_type\":\"{}\"}}",
            first.id.media_source,
            first.id.media_id,
            media_type_str(first.media_type)
        )),
        None => out,
    })
}
