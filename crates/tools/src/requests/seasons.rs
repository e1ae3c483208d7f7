//! Which seasons a TV request covers: explicit season numbers, or a scope (all, first, latest)
//! resolved against the show's season count. Movies, albums and books take neither.

use domain::MediaType;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use governance::{
    ask::{Choice, Question},
    contract::ToolError,
};

/// Season numbers offered one by one at most; a longer show is asked by scope, or named.
const MAX_SEASON_CHOICES: u32 = 30;

/// The question for a show requested with neither seasons nor season_scope: all, first,
/// latest, or one season that exists.
pub(crate) fn question(label: &str, count: u32) -> Question {
    let scope = |value: &str, label: String| Choice {
        value: value.into(),
        label,
        data: json!({ "season_scope": value }),
    };
    let mut choices = vec![
        scope(
            "all",
            match count {
                1 => "the only season".into(),
                n => format!("all {n} seasons"),
            },
        ),
        scope("first", "season 1".into()),
        scope("latest", format!("season {count}")),
    ];
    choices.extend((1..=count.min(MAX_SEASON_CHOICES)).map(|n| Choice {
        value: n.to_string(),
        label: format!("only season {n}"),
        data: json!({ "seasons": [n] }),
    }));
    Question {
        key: "seasons",
        argument: "seasons or season_scope",
        message: format!("Which seasons of {label} should be requested?"),
        choices,
    }
}

/// The selection a checked choice of [`question`] stands for.
pub(crate) fn answered(value: &str) -> (Option<Vec<u32>>, Option<SeasonScope>) {
    match value {
        "all" => (None, Some(SeasonScope::All)),
        "first" => (None, Some(SeasonScope::First)),
        "latest" => (None, Some(SeasonScope::Latest)),
        n => (n.parse().ok().map(|n| vec![n]), None),
    }
}

/// A season scope for TV requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SeasonScope {
    All,
    First,
    Latest,
}

/// The seasons asked for, ascending and de-duplicated; empty for anything but tv.
/// `default_all`: with neither seasons nor scope, a show means all its seasons (previews).
pub(crate) fn select(
    media_type: MediaType,
    seasons: Option<&[u32]>,
    scope: Option<SeasonScope>,
    count: Option<u32>,
    default_all: bool,
) -> Result<Vec<u32>, ToolError> {
    if media_type != MediaType::Tv {
        if seasons.is_some() || scope.is_some() {
            let what = match media_type {
                MediaType::Music => "an album",
                MediaType::Book => "a book",
                _ => "a movie",
            };
            return Err(ToolError::invalid(format!(
                "seasons and season_scope are for tv; {what} is requested whole, so leave them out"
            )));
        }
        return Ok(Vec::new());
    }
    let scope = match (seasons, scope) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid("give seasons or season_scope, not both"));
        }
        (None, None) if default_all => Some(SeasonScope::All),
        (None, None) => {
            return Err(ToolError::invalid(
                "say which seasons: seasons (e.g. [1, 2]) or season_scope (all, first or latest)",
            ));
        }
        (_, scope) => scope,
    };
    if count == Some(0) {
        return Err(ToolError::invalid(
            "this show has no seasons yet, so there is nothing to request",
        ));
    }
    let unknown = || {
        ToolError::invalid(
            "the catalogue does not say how many seasons this show has; name them with seasons",
        )
    };
    match (scope, seasons) {
        (Some(SeasonScope::All), _) => Ok((1..=count.ok_or_else(unknown)?).collect()),
        (Some(SeasonScope::First), _) => Ok(vec![1]),
        (Some(SeasonScope::Latest), _) => Ok(vec![count.ok_or_else(unknown)?]),
        (None, Some(list)) => {
            if list.is_empty() {
                return Err(ToolError::invalid(
                    "seasons is empty; name at least one season",
                ));
            }
            let mut list = list.to_vec();
            list.sort_unstable();
            list.dedup();
            if let Some(bad) = list
                .iter()
                .find(|&&s| s == 0 || count.is_some_and(|c| s > c))
            {
                let valid = count.map_or_else(
                    || "seasons start at 1".to_string(),
                    |c| format!("this show has seasons 1 to {c}"),
                );
                return Err(ToolError::invalid(format!(
                    "season {bad} cannot be requested; {valid}"
                )));
            }
            Ok(list)
        }
        (None, None) => Err(unknown()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_season_question_offers_scopes_and_the_seasons_that_exist() {
        let q = question("Bluey (2018)", 3);
        let values: Vec<&str> = q.choices.iter().map(|c| c.value.as_str()).collect();
        assert_eq!(values, ["all", "first", "latest", "1", "2", "3"]);
        assert_eq!(q.choices[2].label, "season 3");
        for (value, seasons) in [("all", vec![1, 2, 3]), ("latest", vec![3]), ("2", vec![2])] {
            let (list, scope) = answered(value);
            assert_eq!(
                select(MediaType::Tv, list.as_deref(), scope, Some(3), false).unwrap(),
                seasons
            );
        }
    }

    #[test]
    fn scopes_and_lists() {
        let tv = MediaType::Tv;
        assert_eq!(
            select(tv, None, Some(SeasonScope::All), Some(3), false).unwrap(),
            [1, 2, 3]
        );
        assert_eq!(
            select(tv, None, Some(SeasonScope::Latest), Some(3), false).unwrap(),
            [3]
        );
        assert_eq!(
            select(tv, Some(&[2, 1, 2]), None, Some(3), false).unwrap(),
            [1, 2]
        );
        assert_eq!(select(tv, None, None, Some(2), true).unwrap(), [1, 2]);
        let e = select(tv, Some(&[4]), None, Some(3), false).unwrap_err();
        assert_eq!(
            e.message,
            "season 4 cannot be requested; this show has seasons 1 to 3"
        );
        assert!(select(tv, None, None, Some(2), false).is_err());
        assert!(select(tv, Some(&[1]), Some(SeasonScope::All), Some(2), false).is_err());
        assert!(select(MediaType::Movie, Some(&[1]), None, None, false).is_err());
        assert!(
            select(MediaType::Movie, None, None, None, false)
                .unwrap()
                .is_empty()
        );
        let e = select(MediaType::Book, None, Some(SeasonScope::All), None, false).unwrap_err();
        assert_eq!(
            e.message,
            "seasons and season_scope are for tv; a book is requested whole, so leave them out"
        );
    }
}
