//! `get_custom_formats`: one library instance's custom formats and what each matches on.

use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{count, source::one};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetCustomFormats;

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
}

impl Tool for GetCustomFormats {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Formats>);
    const META: Meta = Meta {
        name: "get_custom_formats",
        title: "Custom formats",
        description: "A library instance's custom formats: id, name and each specification's name and kind (what it matches on).",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let source = one(ctx, input.instance_id.as_deref(), input.media_type)?;
        let formats = source
            .client()?
            .custom_formats()
            .await
            .map_err(|e| source.error(e))?;
        crate::typed::output(
            format!(
                "{} has {}.",
                source.id,
                count(formats.len(), "custom format", "custom formats")
            ),
            &Formats {
                instance_id: source.id.clone(),
                kind: source.kind,
                custom_formats: shapes::all(&formats, shapes::CustomFormat::of),
            },
        )
    }
}

/// The answer's data: the instance's custom formats.
#[derive(Serialize, JsonSchema)]
struct Formats {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    custom_formats: Vec<shapes::CustomFormat>,
}
