//! `list_libraries`: the libraries of the household's media servers, where a shortlist row's
//! collection goes.

use adapters_media::Library;
use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::media::servers;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListLibraries;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One media server (list_instances names them); omit for every one your grant covers.
    pub instance_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct LibraryView {
    instance_id: String,
    library_id: String,
    name: String,
    /// movies, shows, or what else the server calls it.
    kind: String,
}

#[derive(Serialize, JsonSchema)]
struct Libraries {
    libraries: Vec<LibraryView>,
}

impl Tool for ListLibraries {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Libraries>);
    const META: Meta = Meta {
        name: "list_libraries",
        title: "List media-server libraries",
        description: "Lists the libraries of the household's media servers (Jellyfin, Emby, Plex), read live: instance_id, library_id, name and kind (movies, shows, ...). A shortlist row shows its theme as a collection in one of them (plan_row). A server that cannot be read is named in a warning; the others answer.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let ids: Vec<String> = match &input.instance_id {
            Some(id) => vec![
                ctx.instance(KindFamily::MediaServers, Some(id))?
                    .0
                    .id
                    .clone(),
            ],
            None => servers(ctx).readable(ctx).map(|s| s.id.clone()).collect(),
        };
        let mut libraries = Vec::new();
        let mut warnings = Vec::new();
        for id in &ids {
            let Some(server) = servers(ctx).by_id(id) else {
                continue;
            };
            let read: Result<Vec<Library>, String> = match server.client() {
                Ok(c) => c.libraries().await.map_err(|e| server.failure(&e)),
                Err(e) => Err(e),
            };
            match read {
                Ok(list) => libraries.extend(list.into_iter().map(|l| LibraryView {
                    instance_id: id.clone(),
                    library_id: l.id,
                    name: l.name,
                    kind: l.kind,
                })),
                Err(why) => warnings.push(why),
            }
        }
        if libraries.is_empty() && !warnings.is_empty() {
            return Err(ToolError::new(
                governance::ErrorCode::BackendUnavailable,
                warnings.join("; "),
            ));
        }
        let summary = format!(
            "{} librar{} on {} media server{}.",
            libraries.len(),
            if libraries.len() == 1 { "y" } else { "ies" },
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        );
        let mut out = Output::typed(summary, &Libraries { libraries })?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}
