//! `get_trending`: what is trending today or this week (TMDB), within the caller's content limits.

use adapters_catalogue::TimeWindow;
use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    catalogues::Entry,
    identity::TitleScope,
    limits::{Gate, pass_titles},
    pick, render,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetTrending;

/// The trending window.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    Day,
    Week,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// movie, tv or any (default any).
    #[serde(default)]
    pub media_type: Option<TitleScope>,
    /// day or week (default week).
    #[serde(default)]
    pub window: Option<Window>,
    /// Page, from 1 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to read, as list_instances shows it (default: a TMDB instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for GetTrending {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> = Some(
        governance::contract::data_of::<super::render::ListData<'static, render::TitleRow<'static>>>,
    );
    const META: Meta = Meta {
        name: "get_trending",
        title: "Trending titles",
        description: "Lists the movies and shows trending today or this week, from TMDB (the offline catalogue cannot know). Titles this account's content limits forbid are left out and counted.",
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
            "trending titles",
        )?;
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || {
                trending(ctx, entry, input)
            })
            .await
    }
}

async fn trending(ctx: &Ctx, entry: &Entry, input: Input) -> Result<Output, ToolError> {
    let catalogue = entry.catalogue().await?;
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let (window, label) = match input.window.unwrap_or(Window::Week) {
        Window::Day => (TimeWindow::Day, "trending today"),
        Window::Week => (TimeWindow::Week, "trending this week"),
    };
    let scope = input.media_type.unwrap_or(TitleScope::Any);
    let mut page = catalogue
        .trending(scope.kind(), window, render::page(input.page)?)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let passed = pass_titles(&mut gate, std::mem::take(&mut page.items)).await?;
    render::titles_output(
        &entry.id,
        label,
        &page,
        &passed.rows,
        passed.hidden,
        gate.is_some(),
        &super::in_library::for_caller(ctx).await,
    )
}
