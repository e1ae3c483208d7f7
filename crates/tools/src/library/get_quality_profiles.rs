//! `get_quality_profiles`: one library instance's quality profiles (and, for Lidarr and
//! Readarr, metadata profiles), as request options and search decisions use them.

use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{count, source::one};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetQualityProfiles;

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

impl Tool for GetQualityProfiles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Profiles>);
    const META: Meta = Meta {
        name: "get_quality_profiles",
        title: "Quality profiles",
        description: "A library instance's quality profiles: id, name, the qualities each allows, the cutoff, whether upgrades are allowed and the minimum custom-format score; Lidarr and Readarr also list metadata profiles.",
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
        let client = source.client()?;
        let (profiles, metadata) =
            tokio::try_join!(client.quality_profiles(), client.metadata_profiles())
                .map_err(|e| source.error(e))?;
        let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        crate::typed::output(
            format!(
                "{} has {}: {}.",
                source.id,
                count(profiles.len(), "quality profile", "quality profiles"),
                names.join(", ")
            ),
            &Profiles {
                instance_id: source.id.clone(),
                kind: source.kind,
                quality_profiles: shapes::all(&profiles, shapes::Profile::of),
                metadata_profiles: shapes::all(&metadata, shapes::Profile::of),
            },
        )
    }
}

/// The answer's data: the instance's quality profiles and (Lidarr, Readarr) metadata profiles.
#[derive(Serialize, JsonSchema)]
struct Profiles {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    quality_profiles: Vec<shapes::Profile>,
    metadata_profiles: Vec<shapes::Profile>,
}
