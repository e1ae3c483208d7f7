//! `rescan_media`: asks a library service to rescan a title's folder on disk (after files were
//! moved or fixed by hand). A direct, audited write.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::shapes;
use super::{
    source::granted,
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RescanMedia;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// As a discovery row gave it.
    pub media_source: MediaSource,
    /// The title's id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie, tv or music (rescans the album's artist).
    pub media_type: MediaType,
}

impl Tool for RescanMedia {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<shapes::Commanded>);
    const META: Meta = Meta {
        name: "rescan_media",
        title: "Rescan a title's folder",
        description: "Asks the library service to rescan a title's folder on disk: a movie (radarr), a series (sonarr) or an album's artist (lidarr). Use after files were moved, renamed or repaired by hand. Answers the command id and its status.",
        effect: Effect::Write,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let media = media_ref(input.media_source, &input.media_id, input.media_type)?;
        let (source, allowed) = granted(ctx, input.instance_id.as_deref(), Some(input.media_type))?;
        let item = held(source, &media).await?;
        // Lidarr rescans artists: an album's folder is its artist's.
        let target = item.parent_id.unwrap_or(item.id);
        let command = source
            .writer(governance::authority::write_proof(&allowed)?)?
            .rescan(target)
            .await
            .map_err(|e| source.error(e))?;
        crate::typed::output(
            format!(
                "{} is rescanning the folder of {} (command {}, {}).",
                source.id, item.title, command.id, command.status
            ),
            &shapes::Commanded {
                instance_id: source.id.clone(),
                item_id: item.id,
                command: shapes::Command::of(&command),
            },
        )
    }
}
