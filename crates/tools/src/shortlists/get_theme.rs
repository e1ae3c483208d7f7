//! `get_theme`: one shortlist theme, with its picks and rules.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::theme::{ThemeView, view};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetTheme;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The theme (list_themes gives the ids).
    #[schemars(range(min = 1))]
    pub theme_id: i64,
}

impl Tool for GetTheme {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ThemeView>);
    const META: Meta = Meta {
        name: "get_theme",
        title: "Show a shortlist theme",
        description: "Shows one shortlist theme: its name, description, picked titles (media_source, media_id, media_type, title, year) and rules (genres, year_from, year_to, in_library_only, missing_only, similar_to).",
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let Some(theme) = ctx.store().theme(input.theme_id).await? else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("no theme {}; list_themes lists them", input.theme_id),
            ));
        };
        let theme = view(&theme)?;
        let summary = format!(
            "Theme \"{}\": {} picked title{}.",
            theme.name,
            theme.picks.len(),
            if theme.picks.len() == 1 { "" } else { "s" }
        );
        Output::typed(summary, &theme)
    }
}
