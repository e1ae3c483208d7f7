//! `search_collections`: film series (TMDB collections) matching words. Collections carry no
//! ratings, so a person with content limits is refused rather than shown an unchecked list.

use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{catalogues::Entry, limits::Gate, pick, render};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SearchCollections;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Words of the collection's name ("Toy Story").
    #[schemars(length(max = 200))]
    pub query: String,
    /// Page, from 1 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to search, as list_instances shows it (default: a TMDB instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for SearchCollections {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<render::ListData<'static, serde_json::Value>>);
    const META: Meta = Meta {
        name: "search_collections",
        title: "Search collections",
        description: "Searches TMDB's collections (film series such as \"The Matrix Collection\") by name. Not available to accounts with content limits: collections carry no ratings; use search_titles instead.",
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let entry = pick(
            ctx,
            input.instance_id.as_deref(),
            &[InstanceKind::Tmdb],
            "collection search",
        )?;
        if Gate::for_caller_would_filter(ctx) {
            // A refusal by the household's rules, never a backend failure.
            return Err(ToolError::new(
                governance::ErrorCode::Denied,
                "collections carry no ratings, so they cannot be checked against this account's content limits; use search_titles, which checks every title",
            ));
        }
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || search(entry, input))
            .await
    }
}

async fn search(entry: &Entry, input: Input) -> Result<Output, ToolError> {
    let catalogue = entry.catalogue().await?;
    let page = catalogue
        .search_collections(&input.query, render::page(input.page)?)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let rows: Vec<_> = page
        .items
        .iter()
        .map(|c| {
            json!({
                "media_source": c.id.media_source,
                "media_id": c.id.media_id,
                "kind": "collection",
                "name": c.name,
                "overview": c.overview,
                "poster_url": c.poster_url,
            })
        })
        .collect();
    let summary = render::list_summary(
        "collection",
        &format!("for \"{}\"", input.query.trim()),
        &entry.id,
        &page,
        rows.len(),
        0,
    );
    let data = render::list_data(&entry.id, &page, rows, 0, false);
    Output::typed(summary, &data)
}
