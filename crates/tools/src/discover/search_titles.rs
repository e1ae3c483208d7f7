//! `search_titles`: movies and shows matching words, from a catalogue, within the caller's content limits.

use adapters_catalogue::TitleSearch;
use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    catalogues::{Entry, pick},
    identity::TitleScope,
    limits::{Gate, pass_titles},
    render,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SearchTitles;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Words of the title; the builtin catalogue also matches cast and director names.
    #[schemars(length(max = 200))]
    pub query: String,
    /// movie, tv or any (default any). The builtin catalogue holds movies only.
    #[serde(default)]
    pub media_type: Option<TitleScope>,
    /// Only titles first released in this year.
    #[serde(default)]
    pub year: Option<i32>,
    /// Page, from 1 (default 1); 20 rows per page.
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to search, as list_instances shows it (default: the default catalogue).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for SearchTitles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> = Some(
        governance::contract::data_of::<super::render::ListData<'static, render::TitleRow<'static>>>,
    );
    const META: Meta = Meta {
        name: "search_titles",
        title: "Search titles",
        description: "Searches a catalogue (builtin offline films; TMDB or TVDB movies and shows; AniList anime) for titles matching words, newest and best matches first. Rows carry media_source + media_id for every later call, and playable_on: the household's media servers that have the title now; titles this account's content limits forbid are left out and counted.",
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
        let kinds: &[InstanceKind] = if input.media_type == Some(TitleScope::Tv) {
            &[
                InstanceKind::Tmdb,
                InstanceKind::Tvdb,
                InstanceKind::Anilist,
            ]
        } else {
            &[
                InstanceKind::Builtin,
                InstanceKind::Tmdb,
                InstanceKind::Tvdb,
                InstanceKind::Anilist,
            ]
        };
        let entry = pick(ctx, input.instance_id.as_deref(), kinds, "title search")?;
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || search(ctx, entry, input))
            .await
    }
}

async fn search(ctx: &Ctx, entry: &Entry, input: Input) -> Result<Output, ToolError> {
    let catalogue = entry.catalogue().await?;
    let search = TitleSearch {
        kind: input.media_type.unwrap_or(TitleScope::Any).kind(),
        query: input.query.clone(),
        year: input.year,
        page: render::page(input.page)?,
    };
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let mut page = catalogue
        .search_titles(&search)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let mut rows = std::mem::take(&mut page.items);
    // A year the source could not apply upstream is checked on the rows.
    if let Some(year) = input
        .year
        .filter(|_| page.unapplied_filters.contains(&"year"))
    {
        rows.retain(|r| r.year == Some(year));
    }
    let limited = gate.is_some();
    let passed = pass_titles(&mut gate, rows).await?;
    let context = format!("for \"{}\"", input.query.trim());
    render::titles_output(
        &entry.id,
        &context,
        &page,
        &passed.rows,
        passed.hidden,
        limited,
        &super::in_library::for_caller(ctx).await,
    )
}
