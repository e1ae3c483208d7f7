//! `find_torrents`: filter, sort and page the cached torrents of one or every download
//! instance, rows merged and each naming its instance. Never calls a backend.

use adapters_downloads::{
    CategoryFilter, SortKey, TorrentCatalogue, TorrentQuery, TorrentState, TrackerErrorClass,
    TrackerErrorFilter, query_merged_map,
};
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Source, chosen, freshness, labels, refresher, rows};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError, contract::Rows};

/// `find_torrents`, with its answers kept until a catalogue they read changes.
#[derive(Default)]
pub struct FindTorrents {
    memo: super::memo::Memo<adapters_downloads::TorrentQuery>,
}

/// The default page size.
const DEFAULT_LIMIT: u32 = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this download instance (default: every download instance your grant covers, merged).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Any of these states (default: any state).
    #[serde(default)]
    pub states: Vec<State>,
    /// Only torrents in exactly this category.
    #[serde(default)]
    pub category: Option<String>,
    /// Only torrents without a category (not together with `category`).
    #[serde(default)]
    pub without_category: bool,
    /// Only torrents carrying this tag (Transmission: label).
    #[serde(default)]
    pub tag: Option<String>,
    /// Only torrents whose name contains this, ignoring case.
    #[serde(default)]
    pub name_contains: Option<String>,
    /// Only torrents whose tracker complains: `any`, or one class of complaint.
    #[serde(default)]
    pub tracker_error: Option<TrackerError>,
    /// Only torrents with at least this upload ratio.
    #[serde(default)]
    pub min_ratio: Option<f64>,
    /// Only torrents with at most this upload ratio.
    #[serde(default)]
    pub max_ratio: Option<f64>,
    /// Only torrents of at least this many bytes.
    #[serde(default)]
    pub min_size: Option<u64>,
    /// Only torrents of at most this many bytes.
    #[serde(default)]
    pub max_size: Option<u64>,
    /// Only torrents added at or after this time: RFC 3339 (`2025-01-31T18:00:00Z`) or a date (`2025-01-31`, midnight UTC).
    #[serde(default)]
    pub added_after: Option<String>,
    /// Only torrents added before this time: RFC 3339 or a date, as `added_after`.
    #[serde(default)]
    pub added_before: Option<String>,
    /// The order of the rows (default: name).
    #[serde(default)]
    pub sort: Sort,
    /// Largest, newest or Z first.
    #[serde(default)]
    pub descending: bool,
    /// Rows per page, 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = adapters_downloads::MAX_LIMIT))]
    pub limit: Option<u32>,
    /// Where the page starts: 0, or the `next_offset` of the previous page.
    #[serde(default)]
    pub offset: u32,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Downloading,
    Seeding,
    Paused,
    Queued,
    Checking,
    Stalled,
    Error,
    Metadata,
    Moving,
    Unknown,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrackerError {
    Any,
    Unregistered,
    Auth,
    Unreachable,
    RateLimited,
    Other,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    #[default]
    Name,
    Size,
    Progress,
    Ratio,
    AddedAt,
    DlSpeed,
    UlSpeed,
}

impl Tool for FindTorrents {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "find_torrents",
        title: "Find torrents",
        description: "Searches the torrents of every download instance (or one, with instance_id) by state, category, tag, name, tracker error class, ratio, size and date added; sorted, in pages of at most 200 with next_offset. Rows name their instance_id and info_hash, which every torrent write takes. Answers from a cache refreshed every few seconds; observed_at says how old it is.",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let query = query_of(&input)?;
        refresher::ensure_loaded(&sources).await;
        if let Some(c) = &input.category {
            labels::require_known_somewhere(&sources, "category", c, labels::category_names)?;
        }
        if let Some(t) = &input.tag {
            labels::require_known_somewhere(&sources, "tag", t, labels::tag_names)?;
        }
        let memo = &self.memo;
        let (read, kept) = memo.get(&sources, &query);
        if let Some(out) = kept {
            return Ok(out);
        }
        let catalogues: Vec<&TorrentCatalogue> = sources
            .iter()
            .filter_map(|s| Some(&*s.working()?.catalogue))
            .collect();
        // Rows are written to JSON while the catalogues are locked, without copying them out.
        let mut rows = Rows::with_capacity(query.effective_limit());
        let mut shown: Vec<(String, String)> = Vec::new();
        let page = query_merged_map(&catalogues, &query, |instance, t| {
            shown.push((instance.to_string(), t.info_hash.to_hex()));
            rows.push(&rows::Row::new(instance.as_str(), t))
        });
        page.rows
            .into_iter()
            .collect::<Result<(), _>>()
            .map_err(internal)?;
        let summary = summary(
            &sources,
            rows.len(),
            page.total,
            page.offset,
            page.next_offset,
        );
        let data = Data {
            total: page.total,
            offset: page.offset,
            next_offset: page.next_offset,
            instances: sources.iter().map(|s| freshness::status(s)).collect(),
            rows,
            grabbed_for: grabbed_for(ctx, &shown).await,
        };
        let mut out = Output::typed(summary, &data)?;
        if let Some(next) = page.next_offset {
            out = out.next(format!(
                "find_torrents with the same filters and offset {next}"
            ));
        }
        Ok(memo.put(&sources, read, query, freshness::stamp(out, &sources)))
    }
}

/// `data`: the page and each instance's freshness, then the rows as they were written.
#[derive(Serialize, JsonSchema)]
struct Data {
    total: usize,
    offset: usize,
    next_offset: Option<usize>,
    instances: Vec<freshness::Freshness>,
    /// The torrents of the page, as the catalogue holds them.
    #[schemars(with = "Vec<serde_json::Value>")]
    rows: Rows,
    /// The title each torrent of the page was grabbed for through grab_release, from the
    /// download history (torrents added otherwise have none).
    grabbed_for: Vec<TitleLink>,
}

/// A torrent of the page and the title it was grabbed for.
#[derive(Serialize, JsonSchema)]
struct TitleLink {
    instance_id: String,
    info_hash: String,
    /// "The Matrix (1999)".
    title: Option<String>,
    /// The identity searched for: "builtin tt0133093".
    media: Option<String>,
    /// The request the grab served.
    request_id: Option<i64>,
}

/// The title links of the torrents shown; none when the history cannot be read (logged).
async fn grabbed_for(ctx: &Ctx, shown: &[(String, String)]) -> Vec<TitleLink> {
    match ctx.store().grabs_for(shown).await {
        Ok(grabs) => grabs
            .into_iter()
            .map(|g| TitleLink {
                instance_id: g.instance_id,
                info_hash: g.info_hash.unwrap_or_default(),
                title: g.title,
                media: g.media,
                request_id: g.request_id,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "the download history could not be read for find_torrents");
            Vec::new()
        }
    }
}

fn internal(e: impl std::fmt::Display) -> ToolError {
    tracing::error!(error = %e, "find_torrents could not write its answer");
    ToolError::new(
        ErrorCode::Internal,
        "find_torrents could not write its answer; the server log has the details",
    )
}

fn summary(
    sources: &[&Source],
    shown: usize,
    total: usize,
    offset: usize,
    next: Option<usize>,
) -> String {
    let tail = freshness::summary_tail(sources);
    match (total, shown) {
        (0, _) if tail.is_empty() => "No torrent matched.".to_string(),
        (0, _) => format!("No torrent matched among the instances that could be read{tail}."),
        (_, 0) => format!("{total} torrents matched but none is at offset {offset}{tail}."),
        _ => format!(
            "Rows {}-{} of {total} matching torrent{}{}{tail}.",
            offset + 1,
            offset + shown,
            if total == 1 { "" } else { "s" },
            next.map(|n| format!("; offset {n} gives the next page"))
                .unwrap_or_default()
        ),
    }
}

fn query_of(input: &Input) -> Result<TorrentQuery, ToolError> {
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=adapters_downloads::MAX_LIMIT as u32).contains(&limit) {
        return Err(ToolError::invalid(format!(
            "limit {limit} is out of range; use 1 to {}",
            adapters_downloads::MAX_LIMIT
        )));
    }
    if input.category.is_some() && input.without_category {
        return Err(ToolError::invalid(
            "category and without_category exclude each other; use one",
        ));
    }
    for (lo, hi, what) in [
        (input.min_ratio, input.max_ratio, "ratio"),
        (
            input.min_size.map(|v| v as f64),
            input.max_size.map(|v| v as f64),
            "size",
        ),
    ] {
        if lo.is_some_and(|v| !v.is_finite() || v < 0.0)
            || hi.is_some_and(|v| !v.is_finite() || v < 0.0)
        {
            return Err(ToolError::invalid(format!(
                "min_{what} and max_{what} must be 0 or more"
            )));
        }
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo > hi
        {
            return Err(ToolError::invalid(format!(
                "min_{what} is larger than max_{what}; nothing can match"
            )));
        }
    }
    Ok(TorrentQuery {
        states: input.states.iter().map(|s| state(*s)).collect(),
        category: if input.without_category {
            Some(CategoryFilter::None)
        } else {
            input.category.clone().map(CategoryFilter::Is)
        },
        tag: input.tag.clone(),
        name_contains: input.name_contains.clone(),
        tracker_error: input.tracker_error.map(tracker_error),
        min_ratio: input.min_ratio,
        max_ratio: input.max_ratio,
        min_size: input.min_size,
        max_size: input.max_size,
        added_after: input
            .added_after
            .as_deref()
            .map(|t| time("added_after", t))
            .transpose()?,
        added_before: input
            .added_before
            .as_deref()
            .map(|t| time("added_before", t))
            .transpose()?,
        sort: sort(input.sort),
        descending: input.descending,
        limit: limit as usize,
        offset: input.offset as usize,
    })
}

/// RFC 3339, or a plain date at midnight UTC, as unix seconds.
fn time(field: &str, text: &str) -> Result<i64, ToolError> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.timestamp());
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(t) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(t.and_utc().timestamp());
    }
    Err(ToolError::invalid(format!(
        "{field} \"{text}\" is not a time; use RFC 3339 (2025-01-31T18:00:00Z) or a date (2025-01-31)"
    )))
}

fn state(s: State) -> TorrentState {
    match s {
        State::Downloading => TorrentState::Downloading,
        State::Seeding => TorrentState::Seeding,
        State::Paused => TorrentState::Paused,
        State::Queued => TorrentState::Queued,
        State::Checking => TorrentState::Checking,
        State::Stalled => TorrentState::Stalled,
        State::Error => TorrentState::Error,
        State::Metadata => TorrentState::Metadata,
        State::Moving => TorrentState::Moving,
        State::Unknown => TorrentState::Unknown,
    }
}

pub(crate) fn tracker_error(t: TrackerError) -> TrackerErrorFilter {
    match t {
        TrackerError::Any => TrackerErrorFilter::Any,
        TrackerError::Unregistered => TrackerErrorFilter::Class(TrackerErrorClass::Unregistered),
        TrackerError::Auth => TrackerErrorFilter::Class(TrackerErrorClass::Auth),
        TrackerError::Unreachable => TrackerErrorFilter::Class(TrackerErrorClass::Unreachable),
        TrackerError::RateLimited => TrackerErrorFilter::Class(TrackerErrorClass::RateLimited),
        TrackerError::Other => TrackerErrorFilter::Class(TrackerErrorClass::Other),
    }
}

fn sort(s: Sort) -> SortKey {
    match s {
        Sort::Name => SortKey::Name,
        Sort::Size => SortKey::Size,
        Sort::Progress => SortKey::Progress,
        Sort::Ratio => SortKey::Ratio,
        Sort::AddedAt => SortKey::AddedAt,
        Sort::DlSpeed => SortKey::DlSpeed,
        Sort::UlSpeed => SortKey::UlSpeed,
    }
}
