//! A theme's picks and rules as the family reads and writes them (JSON in the store), and the
//! view the theme tools answer.

use domain::MediaSource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::Theme;

use crate::discover::identity::TitleType;
use governance::{ErrorCode, ToolError};

/// A picked title, as discovery resolved it when the theme was planned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Pick {
    pub media_source: MediaSource,
    pub media_id: String,
    pub media_type: TitleType,
    pub title: String,
    pub year: Option<i32>,
}

/// What else a theme asks of the titles a row shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Rules {
    /// Genres a title must have one of (as the catalogue names them); none: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 20))]
    pub genres: Vec<String>,
    /// The earliest release year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1870, max = 2100))]
    pub year_from: Option<i32>,
    /// The latest release year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1870, max = 2100))]
    pub year_to: Option<i32>,
    /// Only titles a media server already has.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_library_only: bool,
    /// Only titles no media server has yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing_only: bool,
    /// "Because you watched": titles like this one (resolved like the picks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<Pick>,
}

/// A theme as the theme tools answer it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ThemeView {
    pub theme_id: i64,
    pub name: String,
    pub description: String,
    pub picks: Vec<Pick>,
    pub rules: Rules,
    /// ISO 8601.
    pub updated_at: String,
}

pub(crate) fn view(theme: &Theme) -> Result<ThemeView, ToolError> {
    let unreadable = |e: serde_json::Error| {
        ToolError::new(
            ErrorCode::Internal,
            format!("theme {} cannot be read by this version: {e}", theme.id),
        )
    };
    Ok(ThemeView {
        theme_id: theme.id,
        name: theme.name.clone(),
        description: theme.description.clone(),
        picks: serde_json::from_str(&theme.picks).map_err(unreadable)?,
        rules: serde_json::from_str(&theme.rules).map_err(unreadable)?,
        updated_at: crate::tasks::rfc3339(theme.updated_at),
    })
}
