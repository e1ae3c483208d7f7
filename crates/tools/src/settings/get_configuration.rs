//! `get_configuration`: each setting's current value and where it comes from (the config file
//! or the environment, which fix it; the store, set by an approved plan; or the default), for
//! the groups the caller may read. Secrets are never shown.

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalogue::{OWNER_GROUPS, SETTINGS};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetConfiguration;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this group.
    #[serde(default)]
    #[schemars(length(min = 1, max = 32))]
    pub group: Option<String>,
}

/// One setting's current value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Current {
    pub key: &'static str,
    pub group: &'static str,
    /// Absent for a secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// file or environment (fixed there), store (an approved plan set it) or default.
    pub source: &'static str,
    /// Whether plan_configuration may change it now.
    pub plannable: bool,
}

#[derive(Serialize, JsonSchema)]
struct Configuration {
    settings: Vec<Current>,
    /// Groups left out: only the owner reads them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    owner_only: Vec<&'static str>,
}

/// Every setting's current value and source, from the config and the store.
pub(crate) async fn current(ctx: &Ctx) -> Result<Vec<Current>, ToolError> {
    let config = ctx.settings().config_values();
    let stored = ctx.store().stored_settings().await?;
    Ok(SETTINGS
        .iter()
        .map(|s| {
            let from_config = config.get(s.key);
            let fixed = from_config.filter(|c| c.source != governance::ConfigSource::Default);
            let kept = stored
                .get(s.key)
                .and_then(|k| serde_json::from_str::<Value>(&k.value).ok())
                .filter(|_| s.change == super::catalogue::Change::Plan);
            let (value, source) = match (fixed, kept) {
                (Some(c), _) => (c.value.clone(), c.source.as_str()),
                (None, Some(v)) => (v, "store"),
                (None, None) => (
                    from_config.map_or_else(|| s.default_value(), |c| c.value.clone()),
                    "default",
                ),
            };
            Current {
                key: s.key,
                group: s.group,
                value: (!s.secret()).then_some(value),
                source,
                plannable: s.change == super::catalogue::Change::Plan && fixed.is_none(),
            }
        })
        .collect())
}

/// Whether the caller may read (and plan) `group`.
pub(crate) fn may_read(ctx: &Ctx, group: &str) -> bool {
    !OWNER_GROUPS.contains(&group) || ctx.caller.authority.person.role == Role::Owner
}

impl Tool for GetConfiguration {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Configuration>);
    const META: Meta = Meta {
        name: "get_configuration",
        title: "Show Marquee's configuration",
        description: "Shows each setting's current value (optionally one group) and where it comes from: file or environment (fixed there: plan_configuration leaves it alone), store (an approved plan set it) or default, and whether plan_configuration may change it now. Secrets are never shown. The auth, oauth and instances groups are the owner's to read.",
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if let Some(g) = &input.group {
            if !SETTINGS.iter().any(|s| s.group == g) {
                return Err(ToolError::invalid(format!(
                    "no settings group \"{g}\"; describe_settings lists them"
                )));
            }
            if !may_read(ctx, g) {
                return Err(ToolError::denied(format!(
                    "the {g} group is the owner's to read"
                )));
            }
        }
        let mut owner_only: Vec<&'static str> = Vec::new();
        let settings: Vec<Current> = current(ctx)
            .await?
            .into_iter()
            .filter(|c| input.group.as_deref().is_none_or(|g| c.group == g))
            .filter(|c| {
                let ok = may_read(ctx, c.group);
                if !ok && !owner_only.contains(&c.group) {
                    owner_only.push(c.group);
                }
                ok
            })
            .collect();
        let changed = settings.iter().filter(|c| c.source == "store").count();
        Output::typed(
            format!(
                "{} settings; {changed} set by an approved plan.",
                settings.len()
            ),
            &Configuration {
                settings,
                owner_only,
            },
        )
    }
}
