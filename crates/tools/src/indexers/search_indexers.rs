//! `search_indexers`: a live search of the indexers (each Prowlarr indexer alone, each Torznab
//! feed), by media identity or free text, asked in parallel with a per-indexer timeout. An
//! indexer that fails is named in a warning and the others' rows still come back. Rows are
//! recognised, checked against the identity, merged by info hash, filtered (AND), sorted and
//! paged; each grabbable row carries a one-way `release_ref` bound to the person who searched.

use std::time::Instant;

use domain::{Capability, MediaSource, Role};
use futures::future::join_all;
use policy::{Outward, cost_of};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    filters::{self, Size, Sort},
    identity::{self, Wanted},
    indexers,
    refs::Held,
    rows::{self, Filter, Found, Row},
    source::{self, Unit},
};
use crate::discover::identity::TitleType;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct SearchIndexers;

/// Rows asked of one indexer.
const PER_INDEXER: u32 = 100;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Free text to search for (with media_source + media_id: used only by indexers that
    /// cannot search by id).
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub query: Option<String>,
    /// The title's source, as a discovery row gives it: builtin, imdb or tmdb (movies), tmdb or
    /// tvdb (shows).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    #[serde(default)]
    #[schemars(length(max = 64))]
    pub media_id: Option<String>,
    /// movie or tv (required with a tmdb id).
    #[serde(default)]
    pub media_type: Option<TitleType>,
    /// TV: the season.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub season: Option<u32>,
    /// TV: one episode of the season.
    #[serde(default)]
    #[schemars(range(min = 0, max = 10000))]
    pub episode: Option<u32>,
    /// Only rows of this resolution: 480p, 576p, 720p, 1080p, 2160p (4k), 4320p (8k).
    #[serde(default)]
    #[schemars(length(max = 16))]
    pub resolution: Option<String>,
    /// At least this size: bytes, or "700MB", "4.5GB".
    #[serde(default)]
    pub min_size: Option<Size>,
    /// At most this size: bytes, or "700MB", "4.5GB".
    #[serde(default)]
    pub max_size: Option<Size>,
    #[serde(default)]
    #[schemars(range(max = 1_000_000))]
    pub min_seeders: Option<u32>,
    /// A regular expression the title must match (case-insensitive).
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub title_pattern: Option<String>,
    /// A regular expression the title, description or tags must match (case-insensitive).
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub content_pattern: Option<String>,
    /// Only these indexers: ids as list_indexers shows them ("prowlarr/3", a feed's instance
    /// id), instance ids, or indexer names.
    #[serde(default)]
    #[schemars(length(max = 50))]
    pub indexers: Option<Vec<String>>,
    /// seeders (default), size or age (newest first).
    #[serde(default)]
    pub sort: Option<Sort>,
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub page: Option<u32>,
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub page_size: Option<u32>,
}

/// One indexer's part in the search.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Asked {
    pub indexer: String,
    pub name: String,
    /// Rows it answered (before filters).
    pub rows: usize,
    /// Why it answered nothing usable.
    pub error: Option<String>,
    pub millis: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Data {
    /// What was searched for: the title and identity, or the free text.
    pub searched_for: String,
    pub releases: Vec<Row>,
    /// Rows that pass every filter, after merging.
    pub total: usize,
    pub page: u32,
    pub page_size: u32,
    /// Rows of one torrent answered by several indexers, merged into one.
    pub merged: usize,
    /// Rows the filters left out.
    pub filtered_out: usize,
    pub indexers: Vec<Asked>,
}

impl Tool for SearchIndexers {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "search_indexers",
        title: "Search indexers",
        description: "Searches the indexers live (every Prowlarr indexer and Torznab feed, or those named in indexers) for a title by identity (media_source + media_id, with season/episode for a show) or by free query. Filters, all combined: resolution, min_size/max_size, min_seeders, title_pattern (regex on the title), content_pattern (regex on title, description and tags). Rows: title, indexer, size, seeders, age, resolution, source, codecs and group read from the name, whether it is the asked title, info_hash; one torrent on several indexers is one row. Grabbable rows carry a release_ref for grab_release (valid for an hour, for you only). An indexer that fails is named in a warning; the others still answer. Each call spends one unit of the searches allowance.",
        effect: cost_of(Outward::IndexerSearch).0,
        capability: Capability::IndexersSearch,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(cost_of(Outward::IndexerSearch).1),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Indexers),
        plan: None,
    };
    /// Every indexer answers in its own time: a client that declared tasks may get a task.
    const LONG: bool = true;

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if ctx.caller.authority.person.role == Role::Kid {
            return Err(not_for_kids());
        }
        let filter = Filter {
            resolution: input
                .resolution
                .as_deref()
                .map(filters::resolution)
                .transpose()?,
            min_size: input
                .min_size
                .as_ref()
                .map(|s| s.bytes("min_size"))
                .transpose()?,
            max_size: input
                .max_size
                .as_ref()
                .map(|s| s.bytes("max_size"))
                .transpose()?,
            min_seeders: input.min_seeders,
            title: input
                .title_pattern
                .as_deref()
                .map(|p| filters::pattern("title_pattern", p))
                .transpose()?,
            content: input
                .content_pattern
                .as_deref()
                .map(|p| filters::pattern("content_pattern", p))
                .transpose()?,
        };
        let text = input
            .query
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if text.is_some_and(|t| t.chars().any(char::is_control)) {
            return Err(ToolError::invalid(
                "invalid argument \"query\": no control characters",
            ));
        }
        let wanted = identity::resolve(
            ctx,
            input.media_source,
            input.media_id.clone(),
            input.media_type,
            input.season,
            input.episode,
        )
        .await?;
        if wanted.is_none() && text.is_none() {
            return Err(ToolError::invalid(
                "give a query, or media_source and media_id (from a discovery row) to search by identity",
            ));
        }
        let family = indexers(ctx);
        let (all, mut failed) = source::units(ctx, family).await;
        let units = source::select(all, input.indexers.as_deref())?;
        if units.is_empty() && failed.is_empty() {
            return Err(ToolError::new(
                ErrorCode::NoInstance,
                "no indexer to search: no prowlarr or torznab instance your grant covers has an enabled indexer",
            ));
        }
        let query = wanted.as_ref().map_or_else(
            || Wanted::default().query(text, PER_INDEXER),
            |w| w.query(text, PER_INDEXER),
        );
        // Each indexer's rows are recognised as soon as it answers, while the slower ones are
        // still awaited: after the slowest, only its own rows and the merge are left.
        let answers = join_all(units.iter().map(|u| {
            let (query, wanted) = (&query, wanted.as_ref());
            async move {
                let (answer, millis) = ask(u, query).await;
                let recognised = answer.map(|list| {
                    list.into_iter()
                        .map(|r| rows::found(r, &u.key, &u.name, wanted))
                        .collect::<Vec<Found>>()
                });
                (recognised, millis)
            }
        }))
        .await;
        let mut found: Vec<Found> = Vec::new();
        let mut asked = Vec::new();
        for (unit, (answer, millis)) in units.iter().zip(answers) {
            match answer {
                Ok(list) => {
                    asked.push(Asked {
                        indexer: unit.key.clone(),
                        name: unit.name.clone(),
                        rows: list.len(),
                        error: None,
                        millis,
                    });
                    found.extend(list);
                }
                Err(why) => {
                    failed.push(why.clone());
                    asked.push(Asked {
                        indexer: unit.key.clone(),
                        name: unit.name.clone(),
                        rows: 0,
                        error: Some(why),
                        millis,
                    });
                }
            }
        }
        if !failed.is_empty() && asked.iter().all(|a| a.error.is_some()) {
            return Err(ToolError::new(
                ErrorCode::BackendUnavailable,
                format!("no indexer answered: {}", failed.join("; ")),
            ));
        }
        let merged = rows::dedupe(&mut found);
        let before = found.len();
        found.retain(|f| filter.keeps(f));
        let filtered_out = before - found.len();
        rows::sort(&mut found, input.sort.unwrap_or_default());
        let page = input.page.unwrap_or(1).max(1);
        let page_size = input.page_size.unwrap_or(25).clamp(1, 100);
        let total = found.len();
        let start = usize::try_from((page - 1) * page_size).unwrap_or(usize::MAX);
        let person = ctx.caller.authority.person.id;
        let label = wanted.as_ref().and_then(Wanted::label);
        let shown: Vec<Row> = found
            .into_iter()
            .skip(start)
            .take(page_size as usize)
            .map(|f| {
                let mut row = f.row;
                if row.grabbable {
                    let unit = units.iter().find(|u| u.key == row.indexer);
                    row.release_ref = unit.map(|u| {
                        family.refs.issue(Held {
                            person,
                            made: Instant::now(),
                            instance: u.source.id.clone(),
                            indexer_key: u.key.clone(),
                            indexer_name: u.name.clone(),
                            release: f.release,
                            title: label.clone(),
                            media: wanted.as_ref().and_then(|w| w.media.clone()),
                            media_id: wanted.as_ref().and_then(|w| w.id.clone()),
                            grabbed: false,
                        })
                    });
                }
                row
            })
            .collect();
        let searched_for = match (&label, text) {
            (Some(l), _) => l.clone(),
            (None, Some(t)) => format!("\"{t}\""),
            (None, None) => String::new(),
        };
        let summary = format!(
            "{} for {searched_for} from {}{}.",
            crate::library::count(total, "release", "releases"),
            crate::library::count(asked.len(), "indexer", "indexers"),
            if total > shown.len() {
                format!("; showing {} on page {page}", shown.len())
            } else {
                String::new()
            }
        );
        let mut out = Output::typed(
            summary,
            &Data {
                searched_for,
                releases: shown,
                total,
                page,
                page_size,
                merged,
                filtered_out,
                indexers: asked,
            },
        )?;
        for why in failed {
            out = out.warn(why);
        }
        if total > 0 {
            out = out.next("grab_release {\"release_ref\": \"…\", \"download_instance_id\": \"…\"} adds a torrent row to a download client");
        }
        Ok(out)
    }
}

/// Asks one indexer within its timeout: its rows, or the sentence naming it and what failed.
async fn ask(
    unit: &Unit<'_>,
    query: &adapters_indexers::Query,
) -> (Result<Vec<adapters_indexers::Release>, String>, u64) {
    let started = Instant::now();
    let what = if unit.indexer.is_some() {
        format!("indexer {} ({})", unit.key, unit.name)
    } else {
        format!("indexer {}", unit.key)
    };
    let answer = match unit.source.client() {
        Err(e) => Err(e.message),
        Ok(client) => {
            let limit = client.search_timeout();
            let indexer = unit.indexer.map(|id| (id, unit.caps.as_ref()));
            match tokio::time::timeout(limit, client.search(query, indexer, &unit.name)).await {
                Err(_) => Err(format!(
                    "{what} did not answer within {} s",
                    limit.as_secs_f32()
                )),
                Ok(Err(e)) => Err(source::sentence(&what, &e).1),
                Ok(Ok(rows)) => Ok(rows),
            }
        }
    };
    let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    (answer, millis)
}

/// The refusal a kid's account gets: raw release rows are not for it.
pub(crate) fn not_for_kids() -> ToolError {
    ToolError::new(
        ErrorCode::NotAvailable,
        "Release searches are not available for this account.",
    )
}
