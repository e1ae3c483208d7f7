//! `get_custom_formats`: one library instance's custom formats and what each matches on.

use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{count, source::one};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetCustomFormats;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance, as list_instances shows it (default: the instance of media_type's kind).
    #[serde(default)]
    pub instance_id: Option<String>,
    /// movie, tv, music or book: picks the default instance of that kind.
    #[serde(default)]
    pub media_type: Option<MediaType>,
}

impl Tool for GetCustomFormats {
    type Input = Input;
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
        Ok(Output::new(
            format!(
                "{} has {}.",
                source.id,
                count(formats.len(), "custom format", "custom formats")
            ),
            json!({ "instance_id": source.id, "kind": source.kind, "custom_formats": formats }),
        ))
    }
}
