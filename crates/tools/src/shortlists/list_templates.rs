//! `list_templates`: the ready kinds of shortlist row, each with the theme rules it sets, what
//! the assistant still supplies (picks through discovery, a title to be like, genres, years),
//! the library kind it suits and a plan_setup to start from. Templates are part of Marquee;
//! saving one is always `plan_setup`.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use governance::{Meta, Output, Tool, ToolError};

pub struct ListTemplates;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// One ready kind of row.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Template {
    pub template_id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// The theme rules it sets (plan_theme's rules).
    pub rules: Value,
    /// What the assistant supplies before planning: picks, similar_to, genres, year_from/year_to.
    pub needs: Vec<&'static str>,
    /// The library kind it suits: movies, shows or any.
    pub library_kind: &'static str,
    /// An example row name.
    pub example_name: &'static str,
}

#[derive(Serialize, JsonSchema)]
struct Templates {
    templates: Vec<Template>,
}

/// The templates, in the order they are shown.
pub(crate) fn templates() -> Vec<Template> {
    vec![
        Template {
            template_id: "hand_picked",
            name: "Hand-picked",
            description: "Exactly the titles picked (each found with search_titles): the ones a server has are shown, the missing ones can be requested by a run.",
            rules: json!({}),
            needs: vec!["picks"],
            library_kind: "any",
            example_name: "Heist films for Friday",
        },
        Template {
            template_id: "because_you_watched",
            name: "Because you watched",
            description: "Titles like one the household enjoyed (the catalogue's recommendations for it), plus any picks.",
            rules: json!({"similar_to": null}),
            needs: vec!["similar_to"],
            library_kind: "any",
            example_name: "Because you watched Heat",
        },
        Template {
            template_id: "genre_night",
            name: "Genre night",
            description: "Picks narrowed to one or more genres (as the catalogue names them).",
            rules: json!({"genres": []}),
            needs: vec!["picks", "genres"],
            library_kind: "movies",
            example_name: "Horror night",
        },
        Template {
            template_id: "decade",
            name: "A decade",
            description: "Picks released between two years.",
            rules: json!({"year_from": null, "year_to": null}),
            needs: vec!["picks", "year_from", "year_to"],
            library_kind: "any",
            example_name: "Eighties classics",
        },
        Template {
            template_id: "on_the_shelf",
            name: "On the shelf",
            description: "Only picks a media server already has: a run never requests anything.",
            rules: json!({"in_library_only": true}),
            needs: vec!["picks"],
            library_kind: "any",
            example_name: "Already here: Studio Ghibli",
        },
        Template {
            template_id: "wishlist",
            name: "Wishlist",
            description: "Only picks no media server has yet: what a run may request, within its max_requests.",
            rules: json!({"missing_only": true}),
            needs: vec!["picks"],
            library_kind: "any",
            example_name: "Still to get",
        },
        Template {
            template_id: "for_the_kids",
            name: "For the kids",
            description: "Picks for children: the row's audience names them, and each one's content limits bound what it shows, whatever the picks.",
            rules: json!({}),
            needs: vec!["picks", "audience"],
            library_kind: "movies",
            example_name: "Studio Ghibli for the kids",
        },
    ]
}

impl Tool for ListTemplates {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Templates>);
    const META: Meta = Meta {
        name: "list_templates",
        title: "List shortlist row templates",
        description: "Lists the ready kinds of shortlist row (hand_picked, because_you_watched, genre_night, decade, on_the_shelf, wishlist, for_the_kids): each one's theme rules, what you supply (picks found with search_titles, a similar_to title, genres, years, an audience), the library kind it suits and an example name. Start one with plan_setup, filling its rules.",
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

    async fn run(&self, _ctx: &governance::Ctx, _input: Input) -> Result<Output, ToolError> {
        let templates = templates();
        let summary = format!(
            "{} row templates: {}.",
            templates.len(),
            templates
                .iter()
                .map(|t| t.template_id)
                .collect::<Vec<_>>()
                .join(", ")
        );
        Output::typed(summary, &Templates { templates })
            .map(|o| o.next("plan_setup with the template's rules filled in"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::theme::Rules;

    /// Every template's rules, with what it needs filled in, are rules plan_theme accepts.
    #[test]
    fn each_template_sets_rules_a_theme_accepts() {
        for t in super::templates() {
            let mut rules = t.rules.clone();
            let map = rules.as_object_mut().unwrap();
            for (key, value) in map.iter_mut() {
                if value.is_null() || value == &serde_json::json!([]) {
                    *value = match key.as_str() {
                        "genres" => serde_json::json!(["Horror"]),
                        "similar_to" => serde_json::json!({"media_source": "builtin",
                            "media_id": "tt0113277", "media_type": "movie", "title": "Heat", "year": 1995}),
                        _ => serde_json::json!(1980),
                    };
                }
            }
            let parsed: Result<Rules, _> = serde_json::from_value(rules);
            assert!(parsed.is_ok(), "{}: {parsed:?}", t.template_id);
            for need in &t.needs {
                assert!(
                    [
                        "picks",
                        "similar_to",
                        "genres",
                        "year_from",
                        "year_to",
                        "audience"
                    ]
                    .contains(need),
                    "{}: {need}",
                    t.template_id
                );
            }
        }
    }
}
