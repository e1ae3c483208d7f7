//! `search_books`: books found by a Readarr instance's own lookup (title, author or ISBN), named
//! by `media_source` goodreads + `media_id` (so `request_media` takes them as they are), with
//! whether each is already in the library.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{count, source::one};
use crate::discover::limits::{Filtered, Gate, unrated_rows};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SearchBooks;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Title, author or ISBN.
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// The readarr instance (default: the default readarr instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Rows, 1 to 50 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// The answer's data: the books found, and how many the caller's content limits hid.
#[derive(Serialize, JsonSchema)]
struct Books<'a> {
    instance_id: &'a str,
    results: Vec<BookRow<'a>>,
    hidden_by_limits: u32,
    content_limits_applied: bool,
}

/// A book found, named as request_media takes it.
#[derive(Serialize, JsonSchema)]
struct BookRow<'a> {
    media_source: MediaSource,
    /// The book source's id (`null` when the source gave none).
    media_id: Option<&'a str>,
    /// Always `book`.
    media_type: &'static str,
    title: &'a str,
    author: Option<&'a str>,
    year: Option<i64>,
    in_library: bool,
}

impl Tool for SearchBooks {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Books<'static>>);
    const META: Meta = Meta {
        name: "search_books",
        title: "Search books",
        description: "Finds books through a Readarr instance's own lookup by title, author or ISBN: title, author, year, media_source goodreads + media_id (request_media takes them with media_type book), and in_library when the instance already holds it.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let query = input.query.trim();
        if query.is_empty() || query.chars().count() > 200 || query.chars().any(char::is_control) {
            return Err(ToolError::invalid(
                "invalid argument \"query\": give 1 to 200 characters on one line",
            ));
        }
        let limit = input.limit.unwrap_or(20);
        if !(1..=50).contains(&limit) {
            return Err(ToolError::invalid(format!(
                "invalid argument \"limit\": {limit} is outside 1 to 50"
            )));
        }
        let source = one(ctx, input.instance_id.as_deref(), Some(MediaType::Book))?;
        super::source::serves(source, MediaType::Book)?;
        let mut hits = source
            .client()?
            .lookup_books(query)
            .await
            .map_err(|e| source.error(e))?;
        hits.truncate(limit as usize);
        // A limited person sees only what their content limits let through, the rest counted.
        let Filtered { rows: hits, hidden } = unrated_rows(ctx, hits, |b| &b.genres);
        let rows: Vec<_> = hits
            .iter()
            .map(|b| BookRow {
                media_source: MediaSource::Goodreads,
                media_id: b.book_source_id.as_deref(),
                media_type: "book",
                title: &b.title,
                author: b.author.as_deref(),
                year: b.year,
                in_library: b.library_id.is_some(),
            })
            .collect();
        let mut summary = format!(
            "{} for \"{query}\" in {}.",
            count(rows.len(), "book", "books"),
            source.id
        );
        if hidden > 0 {
            summary.push_str(&format!(
                " {hidden} result{} hidden by this account's content limits.",
                if hidden == 1 { " was" } else { "s were" }
            ));
        }
        crate::typed::output(
            summary,
            &Books {
                instance_id: &source.id,
                results: rows,
                hidden_by_limits: hidden,
                content_limits_applied: Gate::for_caller_would_filter(ctx),
            },
        )
    }
}
