//! `display_media`: a poster carousel of verified titles (named ones, or a search's matches),
//! each read from its catalogue through the caller's content limits, with where it stands (in
//! the library, requested). Clients that render MCP Apps show it in the `ui://marquee/carousel`
//! view; others get the same rows as structured data.

use std::collections::HashSet;

use adapters_catalogue::{TitleSearch, TitleSummary};
use domain::{Capability, InstanceKind, MediaId, MediaSource};
use futures::{StreamExt, stream};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    catalogues::pick,
    identity::{self, TitleScope, TitleType},
    limits::{Gate, pass_titles},
    lookup, render, standing,
};
use crate::views;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

/// Most titles one carousel shows.
const MAX_TITLES: usize = 20;
/// Longest heading, in characters.
const MAX_HEADING: usize = 80;
/// Catalogue reads at once for named titles.
const CONCURRENCY: usize = 4;

pub struct DisplayMedia;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The titles to show, as discovery rows named them (1 to 20); or give query instead.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_TITLES))]
    pub titles: Option<Vec<TitleRef>>,
    /// Words to search the catalogue for; the first 20 matches are shown. Instead of titles.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub query: Option<String>,
    /// With query only: movie, tv or any (default any).
    #[serde(default)]
    pub media_type: Option<TitleScope>,
    /// The catalogue to read, as list_instances shows it (default: one that answers each title's media_source).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// A heading shown above the carousel (at most 80 characters).
    #[serde(default)]
    #[schemars(length(max = MAX_HEADING))]
    pub heading: Option<String>,
}

/// One title to show.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TitleRef {
    /// Where the id comes from (builtin, tmdb, imdb), as a discovery row gave it.
    pub media_source: MediaSource,
    /// The id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie or tv.
    pub media_type: TitleType,
}

impl Tool for DisplayMedia {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Carousel<'static>>);
    const META: Meta = Meta {
        name: "display_media",
        title: "Show titles as a carousel",
        description: "Shows titles as a poster carousel (clients that render MCP Apps display it; others get the rows): give titles (media_source + media_id + media_type from discovery rows, 1 to 20) or a query. Each title is verified in its catalogue within this account's content limits and carries poster_url, title, year, rating, in_library and requested.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Catalogue),
        plan: None,
    };
    const VIEW: Option<&'static views::View> = Some(&views::CAROUSEL);

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let heading = heading(input.heading.as_deref())?;
        let shown = match (input.titles, input.query) {
            (Some(titles), None) => {
                if input.media_type.is_some() {
                    return Err(ToolError::invalid(
                        "media_type goes with query; each of titles names its own media_type",
                    ));
                }
                named(ctx, checked(titles)?, input.instance_id.as_deref()).await?
            }
            (None, Some(query)) => {
                searched(ctx, &query, input.media_type, input.instance_id.as_deref()).await?
            }
            _ => {
                return Err(ToolError::invalid(
                    "give either titles (media_source + media_id + media_type each) or query, not both",
                ));
            }
        };
        answer(ctx, heading, shown).await
    }
}

fn heading(given: Option<&str>) -> Result<String, ToolError> {
    let Some(h) = given.map(str::trim).filter(|h| !h.is_empty()) else {
        return Ok("Titles".into());
    };
    if h.chars().count() > MAX_HEADING || h.chars().any(char::is_control) {
        return Err(ToolError::invalid(format!(
            "invalid argument \"heading\": at most {MAX_HEADING} characters, on one line"
        )));
    }
    Ok(h.to_string())
}

/// The whole list checked before anything is read: 1 to 20 titles, each pair valid for its
/// media type; repeats are dropped.
fn checked(titles: Vec<TitleRef>) -> Result<Vec<(MediaId, TitleType)>, ToolError> {
    if titles.is_empty() || titles.len() > MAX_TITLES {
        return Err(ToolError::invalid(format!(
            "invalid argument \"titles\": give 1 to {MAX_TITLES} titles, not {}",
            titles.len()
        )));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(titles.len());
    for (i, t) in titles.into_iter().enumerate() {
        let id = identity::required(Some(t.media_source), Some(t.media_id))
            .map_err(|e| ToolError::invalid(format!("titles[{i}]: {}", e.message)))?;
        identity::check_type(&id, t.media_type.media_type())
            .map_err(|e| ToolError::new(e.code, format!("titles[{i}]: {}", e.message)))?;
        if seen.insert((id.clone(), t.media_type)) {
            out.push((id, t.media_type));
        }
    }
    Ok(out)
}

/// Titles that passed, where each was read, and what was left out.
struct Shown {
    rows: Vec<(String, TitleSummary)>,
    hidden: u32,
    not_found: Vec<String>,
    limited: bool,
}

async fn named(
    ctx: &Ctx,
    titles: Vec<(MediaId, TitleType)>,
    instance_id: Option<&str>,
) -> Result<Shown, ToolError> {
    let read: Vec<_> = stream::iter(titles)
        .map(|(id, media_type)| async move {
            let label = format!("{}:{}", id.media_source, id.media_id);
            let looked = lookup::title(
                ctx,
                Some(id.media_source),
                Some(id.media_id),
                media_type,
                instance_id,
            )
            .await;
            (
                label,
                looked.map(|l| (l.entry.id.clone(), l.details.summary, l.limited)),
            )
        })
        .buffered(CONCURRENCY)
        .collect()
        .await;
    let mut shown = Shown {
        rows: Vec::new(),
        hidden: 0,
        not_found: Vec::new(),
        limited: false,
    };
    for (label, looked) in read {
        match looked {
            Ok((instance, summary, limited)) => {
                shown.limited |= limited;
                shown.rows.push((instance, summary));
            }
            Err(e) if e.code == ErrorCode::NotAvailable => {
                shown.limited = true;
                shown.hidden += 1;
            }
            Err(e) if e.code == ErrorCode::NotFound => shown.not_found.push(label),
            Err(e) => return Err(e),
        }
    }
    Ok(shown)
}

async fn searched(
    ctx: &Ctx,
    query: &str,
    media_type: Option<TitleScope>,
    instance_id: Option<&str>,
) -> Result<Shown, ToolError> {
    let query = query.trim();
    if query.is_empty() || query.chars().count() > 200 {
        return Err(ToolError::invalid(
            "invalid argument \"query\": give 1 to 200 characters of a title",
        ));
    }
    let kinds: &[InstanceKind] = if media_type == Some(TitleScope::Tv) {
        &[InstanceKind::Tmdb]
    } else {
        &[InstanceKind::Builtin, InstanceKind::Tmdb]
    };
    let entry = pick(ctx, instance_id, kinds, "title search")?;
    let catalogue = entry.catalogue().await?;
    let search = TitleSearch {
        kind: media_type.unwrap_or(TitleScope::Any).kind(),
        query: query.to_string(),
        year: None,
        page: 1,
    };
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let page = catalogue
        .search_titles(&search)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let limited = gate.is_some();
    let mut passed = pass_titles(&mut gate, page.items).await?;
    passed.rows.truncate(MAX_TITLES);
    Ok(Shown {
        rows: passed
            .rows
            .into_iter()
            .map(|t| (entry.id.clone(), t))
            .collect(),
        hidden: passed.hidden,
        not_found: Vec::new(),
        limited,
    })
}

/// One carousel card.
#[derive(Serialize, JsonSchema)]
struct Card<'a> {
    #[serde(flatten)]
    row: render::TitleRow<'a>,
    /// The catalogue instance the title was read from.
    instance_id: &'a str,
    /// `null` when no library instance could be asked.
    in_library: Option<bool>,
    /// The status of the title's open request, `null` when none is open.
    requested: Option<&'static str>,
}

/// The answer's data: the carousel's heading, its view and its cards, and what was hidden or
/// not found.
#[derive(Serialize, JsonSchema)]
struct Carousel<'a> {
    heading: &'a str,
    view: &'static str,
    titles: Vec<Card<'a>>,
    hidden_by_limits: u32,
    content_limits_applied: bool,
    not_found: &'a [String],
}

async fn answer(ctx: &Ctx, heading: String, shown: Shown) -> Result<Output, ToolError> {
    let titles: Vec<TitleSummary> = shown.rows.iter().map(|(_, t)| t.clone()).collect();
    let (standings, warnings) = standing::of(ctx, &titles).await?;
    let cards = shown
        .rows
        .iter()
        .zip(standings)
        .map(|((instance, t), s)| Card {
            row: render::TitleRow::new(t),
            instance_id: instance,
            in_library: s.in_library,
            requested: s.requested,
        })
        .collect::<Vec<_>>();
    let count = cards.len();
    let mut summary = match count {
        0 => "No titles to show.".to_string(),
        1 => "1 title in the carousel.".to_string(),
        n => format!("{n} titles in the carousel."),
    };
    summary.push_str(&render::hidden_sentence(shown.hidden));
    if !shown.not_found.is_empty() {
        summary.push_str(&format!(
            " Not found in the catalogue: {}.",
            shown.not_found.join(", ")
        ));
    }
    let data = Carousel {
        heading: &heading,
        view: views::CAROUSEL.uri,
        titles: cards,
        hidden_by_limits: shown.hidden,
        content_limits_applied: shown.limited,
        not_found: &shown.not_found,
    };
    let mut out = Output::typed(summary, &data)?;
    for w in warnings {
        out = out.warn(w);
    }
    Ok(match shown.rows.first() {
        Some((_, first)) => out.next(format!(
            "get_request_options {{\"media_source\":\"{}\",\"media_id\":\"{}\",\"media_type\":\"{}\"}}",
            first.id.media_source,
            first.id.media_id,
            render::media_type_str(first.media_type)
        )),
        None => out,
    })
}
