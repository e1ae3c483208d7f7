//! `describe_settings`: the catalogue of every setting Marquee has: key, group, type, default,
//! accepted values, effect, whether it is a secret (a secret's value is never shown, nor taken
//! through a tool) and how it changes.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalogue::SETTINGS;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct DescribeSettings;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this group (server, connections, limits, safety, auth, oauth, downloads, outbound, tasks, instances).
    #[serde(default)]
    #[schemars(length(min = 1, max = 32))]
    pub group: Option<String>,
}

/// One setting as the catalogue describes it.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Described {
    pub key: &'static str,
    pub group: &'static str,
    /// boolean, integer, text, list of texts, entries or secret.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Absent for a secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    pub accepted: &'static str,
    pub effect: &'static str,
    pub secret: bool,
    /// plan_configuration, or the config file (applied when it changes, or at restart).
    pub changed_by: &'static str,
}

#[derive(Serialize, JsonSchema)]
struct Catalogue {
    settings: Vec<Described>,
}

impl Tool for DescribeSettings {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Catalogue>);
    const META: Meta = Meta {
        name: "describe_settings",
        title: "Describe Marquee's settings",
        description: "Describes every setting Marquee has (optionally one group): its key as the config file spells it, group, type, default, accepted values, effect, whether it is a secret (a secret's value is never shown and never taken through a tool: start_connection opens the owner's browser for it) and what changes it (plan_configuration, or the config file). get_configuration shows the current values.",
        effect: Effect::Read,
        capability: Capability::SettingsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, _ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if let Some(g) = &input.group
            && !SETTINGS.iter().any(|s| s.group == g)
        {
            let mut groups: Vec<&str> = SETTINGS.iter().map(|s| s.group).collect();
            groups.dedup();
            return Err(ToolError::invalid(format!(
                "no settings group \"{g}\"; groups: {}",
                groups.join(", ")
            )));
        }
        let settings: Vec<Described> = SETTINGS
            .iter()
            .filter(|s| input.group.as_deref().is_none_or(|g| s.group == g))
            .map(|s| Described {
                key: s.key,
                group: s.group,
                kind: s.kind.as_str(),
                default: (!s.secret()).then(|| s.default_value()),
                accepted: s.accepted,
                effect: s.effect,
                secret: s.secret(),
                changed_by: s.change.as_str(),
            })
            .collect();
        let planned = settings
            .iter()
            .filter(|s| s.changed_by == "plan_configuration")
            .count();
        Output::typed(
            format!(
                "{} settings; {planned} change by plan_configuration, the rest in the config file.",
                settings.len()
            ),
            &Catalogue { settings },
        )
    }
}
