//! `list_themes`: the household's shortlist themes, each with its picks and rules.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::theme::{ThemeView, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListThemes;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// The answer's data.
#[derive(Serialize, JsonSchema)]
struct Themes {
    themes: Vec<ThemeView>,
}

impl Tool for ListThemes {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Themes>);
    const META: Meta = Meta {
        name: "list_themes",
        title: "List shortlist themes",
        description: "Lists the household's shortlist themes by name: each theme's id, description, picked titles (media_source, media_id, media_type, title, year, as discovery resolved them) and rules (genres, year_from, year_to, in_library_only, missing_only, similar_to). plan_theme makes or changes one.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let themes = ctx.store().themes().await?;
        let themes = themes.iter().map(view).collect::<Result<Vec<_>, _>>()?;
        let summary = match themes.len() {
            0 => "No shortlist themes yet; plan_theme makes one.".to_owned(),
            1 => "1 shortlist theme.".to_owned(),
            n => format!("{n} shortlist themes."),
        };
        Output::typed(summary, &Themes { themes })
    }
}
