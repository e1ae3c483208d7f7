//! `get_library`: what one library instance holds (movies, series, artists or authors),
//! filtered and paged; `parent_id` drills from an artist to its albums or an author to its books.

use adapters_library::LibraryItem;
use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{count, source::one};
use governance::{Ctx, Meta, Output, Tool, ToolError, contract::page_limit};

pub struct GetLibrary;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance, as list_instances shows it (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// movie (radarr), tv (sonarr), music (lidarr) or book (readarr): picks the default instance of that kind.
    #[serde(default)]
    pub media_type: Option<MediaType>,
    /// Only titles whose name contains this text (case-insensitive).
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub query: Option<String>,
    /// Only titles with files missing (true) or complete (false).
    #[serde(default)]
    pub missing: Option<bool>,
    /// Only monitored (true) or unmonitored (false) titles.
    #[serde(default)]
    pub monitored: Option<bool>,
    /// Lidarr: an artist's id, to list its albums. Readarr: an author's id, to list their books.
    #[serde(default)]
    pub parent_id: Option<i64>,
    /// Rows per page, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
    /// Rows to skip (next_offset of the previous page).
    #[serde(default)]
    pub offset: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Data<'a> {
    instance_id: &'a str,
    /// radarr, sonarr, lidarr or readarr.
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    total: usize,
    /// The titles of the page, as the service holds them.
    #[schemars(with = "Vec<serde_json::Value>")]
    items: &'a [LibraryItem],
    next_offset: Option<usize>,
}

impl Tool for GetLibrary {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data<'static>>);
    const META: Meta = Meta {
        name: "get_library",
        title: "Library contents",
        description: "What a library instance holds: movies (radarr), series with seasons (sonarr), artists (lidarr) or authors (readarr), each with files held of files wanted, size, monitoring, quality profile and external ids. Filter by query, missing or monitored; page with limit/offset. parent_id lists an artist's albums or an author's books.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let limit = page_limit(input.limit)? as usize;
        let offset = input.offset.unwrap_or(0) as usize;
        let query = input
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        if query.is_some_and(|q| q.chars().count() > 200) {
            return Err(ToolError::invalid(
                "invalid argument \"query\": at most 200 characters",
            ));
        }
        let source = one(ctx, input.instance_id.as_deref(), input.media_type)?;
        let client = source.client()?;
        let all = match input.parent_id {
            Some(p) => client.children(p).await,
            None => client.library().await,
        }
        .map_err(|e| source.error(e))?;
        let needle = query.map(str::to_lowercase);
        let kept: Vec<LibraryItem> = all
            .into_iter()
            .filter(|i| {
                needle
                    .as_ref()
                    .is_none_or(|n| i.title.to_lowercase().contains(n))
            })
            .filter(|i| input.missing.is_none_or(|m| m != i.available()))
            .filter(|i| input.monitored.is_none_or(|m| m == i.monitored))
            .collect();
        let total = kept.len();
        let page: Vec<LibraryItem> = kept.into_iter().skip(offset).take(limit).collect();
        let next_offset = (offset + page.len() < total).then_some(offset + page.len());
        let summary = format!(
            "{} in {} match{}; showing {}.",
            count(total, "title", "titles"),
            source.id,
            if total == 1 { "es" } else { "" },
            page.len()
        );
        let data = Data {
            instance_id: &source.id,
            kind: source.kind,
            total,
            items: &page,
            next_offset,
        };
        let mut out = Output::typed(summary, &data)?;
        if let Some(next) = next_offset {
            out = out.next(format!(
                "get_library {{\"instance_id\":\"{}\",\"offset\":{next}}}",
                source.id
            ));
        }
        Ok(out)
    }
}
