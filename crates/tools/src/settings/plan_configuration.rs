//! `plan_configuration`: plans changing settings in the store-backed layer: each key must be one
//! a plan changes, not fixed by the config file or the environment, in a group the caller may
//! read, and take the value given (null: back to the default). Nothing changes on this call:
//! the owner approves the plan and `apply_change` stores every value and applies it at once.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use store::Change as StoredChange;

use super::{
    catalogue::{self, Change, find},
    get_configuration::{current, may_read},
};
use crate::saving::{self, Saves, Saving};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

pub struct PlanConfiguration;

/// One setting to change.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingInput {
    /// The key, as describe_settings names it (mcp.allow_destructive).
    #[schemars(length(min = 1, max = 64))]
    pub key: String,
    /// The new value, of the setting's type; null: back to its default.
    pub value: Value,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// 1 to 10 settings, changed together or not at all.
    #[schemars(length(min = 1, max = 10))]
    pub settings: Vec<SettingInput>,
}

/// What an approved plan stores.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigurationPlan {
    changes: Vec<Planned>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Planned {
    key: String,
    /// The value and source it had when planned.
    was: Value,
    was_source: String,
    /// `None`: back to the default.
    value: Option<Value>,
}

/// What an applied plan answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Configured {
    /// The keys changed, now in force.
    pub changed: Vec<String>,
}

pub(crate) const CONFIGURATION: Saving<ConfigurationSaves> = Saving::new();

#[derive(Debug)]
pub(crate) struct ConfigurationSaves;

impl Saves for ConfigurationSaves {
    type Plan = ConfigurationPlan;
    const WHAT: &'static str = "settings";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a ConfigurationPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let now = current(ctx).await?;
            let mut deps = Dependencies::new();
            for c in &plan.changes {
                let seen = now.iter().find(|n| n.key == c.key).map_or_else(
                    || "gone".to_owned(),
                    |n| format!("{}:{}", n.source, n.value.clone().unwrap_or(Value::Null)),
                );
                deps.insert(format!("setting:{}", c.key), seen);
            }
            Ok(deps)
        })
    }

    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a StoredChange,
        plan: ConfigurationPlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let values: Vec<(String, Option<String>)> = plan
                .changes
                .iter()
                .map(|c| (c.key.clone(), c.value.as_ref().map(Value::to_string)))
                .collect();
            ctx.store().set_settings(&values, change.created_by).await?;
            let config = ctx.settings().config_values();
            for c in &plan.changes {
                let value = match &c.value {
                    Some(v) => v.clone(),
                    None => config.get(&c.key).map_or_else(
                        || find(&c.key).map_or(Value::Null, |s| s.default_value()),
                        |v| v.value.clone(),
                    ),
                };
                catalogue::apply(ctx.settings(), &c.key, &value);
            }
            let changed: Vec<String> = plan.changes.iter().map(|c| c.key.clone()).collect();
            Output::typed(
                format!("{} now in force.", changed.join(", ")),
                &Configured { changed },
            )
        })
    }

    fn describe(plan: &ConfigurationPlan) -> PlanView {
        let column = |header, look, wide| PlanColumn { header, look, wide };
        PlanView {
            effect: format!(
                "Changes {} setting(s) of the running server at once, kept in its store (the config file stays as it is and still wins wherever it sets a key).",
                plan.changes.len()
            ),
            tables: vec![PlanTable {
                id: "settings",
                title: "Settings",
                columns: vec![
                    column("Setting", Look::Code, false),
                    column("Now", Look::Old, false),
                    column("After", Look::New, false),
                ],
                rows: plan
                    .changes
                    .iter()
                    .map(|c| {
                        vec![
                            c.key.clone(),
                            format!("{} ({})", c.was, c.was_source),
                            c.value
                                .as_ref()
                                .map_or_else(|| "the default".to_owned(), Value::to_string),
                        ]
                    })
                    .collect(),
            }],
        }
    }
}

impl Tool for PlanConfiguration {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Configured>);
    const META: Meta = Meta {
        name: "plan_configuration",
        title: "Plan a settings change",
        description: "Plans changing 1 to 10 settings together: each a key describe_settings marks as changed by plan_configuration, not fixed by the config file or the environment (get_configuration shows the source), with a value of its type (null: back to its default). A secret is never taken here (start_connection). Nothing changes on this call: the answer is a change_id for the owner to review, then apply_change stores the values and they take effect at once.",
        effect: Effect::Write,
        capability: Capability::SettingsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: Some(&CONFIGURATION),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let now = current(ctx).await?;
        let mut changes: Vec<Planned> = Vec::with_capacity(input.settings.len());
        for (i, c) in input.settings.iter().enumerate() {
            let n = i + 1;
            let Some(setting) = find(&c.key) else {
                return Err(ToolError::invalid(format!(
                    "setting {n}: Marquee has no setting \"{}\"; describe_settings lists them",
                    c.key
                )));
            };
            if changes.iter().any(|x| x.key == c.key) {
                return Err(ToolError::invalid(format!(
                    "setting {n}: {} is named twice",
                    c.key
                )));
            }
            if setting.secret() {
                return Err(ToolError::invalid(format!(
                    "setting {n}: {} is a secret; it is entered in the owner's browser (start_connection), never through a tool",
                    c.key
                )));
            }
            if !may_read(ctx, setting.group) {
                return Err(ToolError::denied(format!(
                    "setting {n}: the {} group is the owner's",
                    setting.group
                )));
            }
            if setting.change != Change::Plan {
                return Err(ToolError::invalid(format!(
                    "setting {n}: {} changes in the {}",
                    c.key,
                    setting.change.as_str()
                )));
            }
            let shown = now.iter().find(|x| x.key == c.key);
            if let Some(fixed) = shown.filter(|x| !x.plannable) {
                return Err(ToolError::invalid(format!(
                    "setting {n}: {} is fixed by the {} ({}); change it there",
                    c.key,
                    if fixed.source == "environment" {
                        "environment"
                    } else {
                        "config file"
                    },
                    fixed.value.clone().unwrap_or(Value::Null)
                )));
            }
            let value = if c.value.is_null() {
                None
            } else {
                setting
                    .check(&c.value)
                    .map_err(|why| ToolError::invalid(format!("setting {n}: {why}")))?;
                Some(c.value.clone())
            };
            changes.push(Planned {
                key: c.key.clone(),
                was: shown.and_then(|x| x.value.clone()).unwrap_or(Value::Null),
                was_source: shown.map_or("default", |x| x.source).to_owned(),
                value,
            });
        }
        let summary = format!(
            "change {}",
            changes
                .iter()
                .map(|c| c.key.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        saving::propose::<ConfigurationSaves>(
            ctx,
            Self::META,
            summary,
            &ConfigurationPlan { changes },
        )
        .await
    }
}
