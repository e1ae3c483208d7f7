//! `upsert_custom_format`: creates a custom format by exact name, or updates the one that has
//! it, with specifications checked against the instance's own schema; always stored as a
//! change with its diff, written by `apply_change`.

use std::collections::BTreeMap;

use adapters_library::{FormatSpec, SpecInput};
use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{SettingsPlan, propose};
use crate::library::source::one;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct UpsertCustomFormat;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance, as list_instances shows it (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// movie, tv, music or book: picks the default instance of that kind.
    #[serde(default)]
    pub media_type: Option<MediaType>,
    /// The format's exact name: an existing format of that name is updated, else one is created.
    pub name: String,
    /// Whether the format's name may appear in renamed files.
    #[serde(default)]
    pub include_when_renaming: bool,
    /// The conditions, 1 to 20.
    #[schemars(length(min = 1, max = MAX_SPECIFICATIONS))]
    pub specifications: Vec<Specification>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Specification {
    /// A name for this condition, distinct within the format.
    pub name: String,
    /// The implementation, e.g. ReleaseTitleSpecification, SizeSpecification (the instance's schema lists them).
    pub implementation: String,
    #[serde(default)]
    pub negate: bool,
    #[serde(default)]
    pub required: bool,
    /// Field values by the schema's field name, e.g. {"value": "\\bx265\\b"}; fields not given keep the schema's default.
    #[serde(default)]
    pub fields: BTreeMap<String, Value>,
}

const MAX_SPECIFICATIONS: usize = 20;

impl Tool for UpsertCustomFormat {
    type Input = Input;
    /// It only stores plans: its answer is always the planned answer.
    const DATA: Option<governance::contract::DataSchema> = Some(governance::contract::planned_only);
    const META: Meta = Meta {
        name: "upsert_custom_format",
        title: "Plan a custom format",
        description: "Plans creating a custom format by exact name, or updating the one with that name: its specifications are checked against the instance's own schema (known implementation, known fields, values of the right type). Nothing is written: the answer is a change with the diff that apply_change writes once approved (the owner may apply at once). A new format enters every quality profile at score 0; an update keeps the profiles' scores.",
        effect: Effect::Write,
        capability: Capability::SettingsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: Some(&crate::library::settings::SETTINGS_PLAN),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if !(1..=MAX_SPECIFICATIONS).contains(&input.specifications.len()) {
            return Err(ToolError::invalid(format!(
                "invalid argument \"specifications\": give 1 to {MAX_SPECIFICATIONS} conditions"
            )));
        }
        let source = one(ctx, input.instance_id.as_deref(), input.media_type)?;
        let spec = FormatSpec {
            name: input.name,
            include_when_renaming: input.include_when_renaming,
            specifications: input
                .specifications
                .into_iter()
                .map(|s| SpecInput {
                    name: s.name,
                    implementation: s.implementation,
                    negate: s.negate,
                    required: s.required,
                    fields: s.fields,
                })
                .collect(),
        };
        let draft = source
            .client()?
            .draft_custom_format(&spec)
            .await
            .map_err(|e| source.error(e))?;
        propose(ctx, Self::META, SettingsPlan::new(&source.id, draft)).await
    }
}
