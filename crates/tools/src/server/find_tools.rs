//! `find_tools`: the tools this caller may call that its `tools/list` leaves out. A grant lists
//! a few tool groups (a preset at most 40 tools) so that a model chooses from a short list; the
//! rest stay callable by name, and this finds them by words of their name, title or
//! description, with the schema to call them.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct FindTools;

/// Most tools one answer names.
const MAX_FOUND: usize = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Words of what the tool should do ("scan folder", "quality profile"); every word must
    /// appear in its name, title or description.
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// Only tools of this group (discover, requests, downloads, library, files, admin, or a
    /// federated server's id).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub group: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct Found {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    group: String,
    /// Its arguments, as `tools/list` would give them.
    input_schema: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
struct Data {
    tools: Vec<Found>,
    /// Unlisted tools matching beyond the ones named (ask with more words).
    more: usize,
}

impl Tool for FindTools {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "find_tools",
        title: "Find more tools",
        description: "Finds tools you may call that tools/list does not show (your grant lists a few tool groups): by words of what they do, with each one's input schema. Call a found tool by its name as usual.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[
            Capability::LibraryRead,
            Capability::DownloadsRead,
            Capability::FilesRead,
            Capability::SettingsRead,
            Capability::Federated,
        ],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let words: Vec<String> = input
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return Err(ToolError::invalid(
                "query is empty: give words of what the tool should do",
            ));
        }
        let group = input.group.as_deref().map(str::trim);
        let matching: Vec<Found> = ctx
            .unlisted_tools()
            .into_iter()
            .filter(|(_, _, g)| group.is_none_or(|want| want == g))
            .filter(|(meta, _, _)| {
                let text = format!(
                    "{} {} {}",
                    meta.name.replace('_', " "),
                    meta.title,
                    meta.description
                )
                .to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .map(|(meta, input_schema, group)| Found {
                name: meta.name,
                title: meta.title,
                description: meta.description,
                group,
                input_schema,
            })
            .collect();
        let more = matching.len().saturating_sub(MAX_FOUND);
        let tools: Vec<Found> = matching.into_iter().take(MAX_FOUND).collect();
        let summary = match tools.as_slice() {
            [] => format!(
                "No tool beyond your list matches \"{}\"; every tool you may call that matches is in tools/list already, or try other words.",
                input.query.trim()
            ),
            found => {
                let names: Vec<&str> = found.iter().map(|t| t.name).collect();
                format!(
                    "{} tool{} beyond your list: {}{}. Call one by its name.",
                    found.len(),
                    if found.len() == 1 { "" } else { "s" },
                    names.join(", "),
                    if more > 0 {
                        format!(" (and {more} more)")
                    } else {
                        String::new()
                    }
                )
            }
        };
        Output::typed(summary, &Data { tools, more })
    }
}
