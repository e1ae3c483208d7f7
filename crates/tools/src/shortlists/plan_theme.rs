//! `plan_theme`: plans saving a shortlist theme (new, or replacing one). Every picked title is
//! resolved through discovery now, within the caller's content limits: an id that no catalogue
//! knows, or one remembered from elsewhere that does not resolve, is refused naming it. Nothing
//! is saved on this call: the owner approves the plan, and `apply_change` saves it.

use domain::{Capability, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    theme::{Pick, Rules},
    theme_plan::{THEME, ThemePlan, ThemeSaves},
};
use crate::discover::{identity::TitleType, lookup};
use crate::saving;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct PlanTheme;

/// The most titles a theme picks.
const MAX_PICKS: usize = 50;

/// A title as a discovery tool named it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PickInput {
    /// Where the id comes from (tmdb, builtin, imdb, tvdb, ...), as a discovery row gave it.
    pub media_source: MediaSource,
    /// The id within media_source, as a discovery row gave it.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie or tv.
    pub media_type: TitleType,
}

/// Rules besides the picks.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesInput {
    /// Genres a title must have one of (as the catalogue names them, e.g. "Crime").
    #[serde(default)]
    #[schemars(length(max = 20))]
    pub genres: Vec<String>,
    /// The earliest release year.
    #[schemars(range(min = 1870, max = 2100))]
    pub year_from: Option<i32>,
    /// The latest release year.
    #[schemars(range(min = 1870, max = 2100))]
    pub year_to: Option<i32>,
    /// Only titles a media server already has.
    #[serde(default)]
    pub in_library_only: bool,
    /// Only titles no media server has yet.
    #[serde(default)]
    pub missing_only: bool,
    /// "Because you watched": titles like this one, named as a discovery row named it.
    pub similar_to: Option<PickInput>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The theme to replace (list_themes gives the ids); omit it for a new theme.
    #[schemars(range(min = 1))]
    pub theme_id: Option<i64>,
    /// The theme's name, unique in the household (e.g. "Heist films for Friday").
    #[schemars(length(min = 1, max = 80))]
    pub name: String,
    /// What the theme is about, for the people who see it.
    #[schemars(length(max = 500))]
    pub description: Option<String>,
    /// The picked titles, 1 to 50, each exactly as search_titles (or another discovery tool) answered it.
    #[schemars(length(min = 1, max = 50))]
    pub picks: Vec<PickInput>,
    /// Rules besides the picks.
    pub rules: Option<RulesInput>,
}

impl Tool for PlanTheme {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::theme_plan::ThemeSaved>);
    const META: Meta = Meta {
        name: "plan_theme",
        title: "Plan a shortlist theme",
        description: "Plans saving a shortlist theme: a name, a description, 1 to 50 picked titles and rules (genres, year_from, year_to, in_library_only or missing_only, similar_to for \"because you watched\"). Each pick is media_source + media_id + media_type exactly as search_titles answered it: every one is resolved through the catalogue now, and one that does not resolve (an id remembered from elsewhere, or one beyond your content limits) is refused by its place in the list. With theme_id the plan replaces that theme. Nothing is saved on this call: the answer is a change_id for the owner to review, then apply_change saves it.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: Some(&THEME),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let plan = resolve(ctx, input).await?;
        let summary = format!(
            "{} the shortlist theme \"{}\" ({} pick{})",
            if plan.theme_id.is_some() {
                "replace"
            } else {
                "save"
            },
            plan.name,
            plan.picks.len(),
            if plan.picks.len() == 1 { "" } else { "s" }
        );
        saving::propose::<ThemeSaves>(ctx, Self::META, summary, &plan).await
    }
}

/// Checks the whole input, then resolves every pick (and `similar_to`) through discovery.
pub(crate) async fn resolve(ctx: &Ctx, input: Input) -> Result<ThemePlan, ToolError> {
    let name = input.name.trim().to_owned();
    let rules = input.rules.unwrap_or_default();
    if name.is_empty() {
        return Err(ToolError::invalid("name must not be blank"));
    }
    if input.picks.is_empty() || input.picks.len() > MAX_PICKS {
        return Err(ToolError::invalid(format!(
            "a theme picks 1 to {MAX_PICKS} titles"
        )));
    }
    if rules.in_library_only && rules.missing_only {
        return Err(ToolError::invalid(
            "in_library_only and missing_only exclude each other: choose one",
        ));
    }
    if let (Some(from), Some(to)) = (rules.year_from, rules.year_to)
        && from > to
    {
        return Err(ToolError::invalid(format!(
            "year_from ({from}) is after year_to ({to})"
        )));
    }
    if let Some(bad) = rules
        .genres
        .iter()
        .find(|g| g.trim().is_empty() || g.len() > 40)
    {
        return Err(ToolError::invalid(format!(
            "genre \"{bad}\" is not a genre name (1 to 40 characters)"
        )));
    }
    for (i, p) in input.picks.iter().enumerate() {
        let same = |q: &PickInput| q.media_source == p.media_source && q.media_id == p.media_id;
        if input.picks[..i].iter().any(same) {
            return Err(ToolError::invalid(format!(
                "pick {} ({} {}) is picked twice",
                i + 1,
                p.media_source,
                p.media_id
            )));
        }
    }
    if let Some(id) = input.theme_id
        && ctx.store().theme(id).await?.is_none()
    {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("no theme {id} to replace; list_themes lists them"),
        ));
    }
    let mut picks = Vec::with_capacity(input.picks.len());
    for (i, p) in input.picks.iter().enumerate() {
        picks.push(resolved(ctx, p, &format!("pick {}", i + 1)).await?);
    }
    let similar_to = match &rules.similar_to {
        Some(p) => Some(resolved(ctx, p, "similar_to").await?),
        None => None,
    };
    let mut genres: Vec<String> = rules.genres.iter().map(|g| g.trim().to_owned()).collect();
    genres.dedup();
    Ok(ThemePlan {
        theme_id: input.theme_id,
        name,
        description: input.description.unwrap_or_default().trim().to_owned(),
        picks,
        rules: Rules {
            genres,
            year_from: rules.year_from,
            year_to: rules.year_to,
            in_library_only: rules.in_library_only,
            missing_only: rules.missing_only,
            similar_to,
        },
    })
}

/// One title resolved through the catalogue within the caller's limits, or refused naming
/// `what`.
async fn resolved(ctx: &Ctx, p: &PickInput, what: &str) -> Result<Pick, ToolError> {
    let found = lookup::title(
        ctx,
        Some(p.media_source),
        Some(p.media_id.clone()),
        p.media_type,
        None,
    )
    .await;
    match found {
        Ok(looked) => Ok(Pick {
            media_source: p.media_source,
            media_id: p.media_id.clone(),
            media_type: p.media_type,
            title: looked.details.summary.title.clone(),
            year: looked.details.summary.year,
        }),
        Err(e) => Err(ToolError::new(
            e.code,
            format!(
                "{what} ({} {}) was not resolved through discovery: {}; pick titles as search_titles answers them",
                p.media_source, p.media_id, e.message
            ),
        )),
    }
}
