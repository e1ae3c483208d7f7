//! `start_connection`: opens a hand-over of a configured instance's secret (its API key) in the
//! owner's browser: a page link, open for 15 minutes, where the owner types it. The page checks
//! it against the instance before keeping it; `get_connection_status` tells how it went. The
//! secret never passes through a tool, an answer or a log.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::connection::{ConnectionView, configured, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct StartConnection;

/// How long the owner has to enter the secret.
const OPEN_FOR_MS: i64 = 15 * 60 * 1000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The configured instance whose API key the owner enters (list_instances names them).
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
}

#[derive(Serialize, JsonSchema)]
struct Started {
    #[serde(flatten)]
    connection: ConnectionView,
    /// The owner opens this page, signed in, and types the secret there.
    page_url: String,
}

impl Tool for StartConnection {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Started>);
    const META: Meta = Meta {
        name: "start_connection",
        title: "Hand a secret over in the owner's browser",
        description: "Opens, for 15 minutes, a page where the owner (signed in) types the API key of a configured media server (Jellyfin, Emby, Plex) or *arr service (Radarr, Sonarr, Lidarr, Readarr); never pass a secret to a tool. The page checks the key against the instance before keeping it (used from Marquee's next start); get_connection_status {connection_id} tells how it went. Refused when the config file or environment sets the instance's key (change it there).",
        effect: Effect::Write,
        // It changes no setting: only the owner, signed in on the page, enters and keeps a key.
        capability: Capability::SettingsRead,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let spec = configured(ctx, &input.instance_id)?;
        if !matches!(
            spec.kind.family(),
            domain::KindFamily::MediaServers | domain::KindFamily::Library
        ) {
            return Err(ToolError::invalid(format!(
                "{} is a {} instance; the browser hand-over takes the keys of media servers and *arr services for now: set its api_key_file in the config file",
                spec.id, spec.kind
            )));
        }
        let entered = ctx.store().instances_with_secrets().await?;
        if spec.api_key.is_some() && !entered.contains(&spec.id) {
            return Err(ToolError::invalid(format!(
                "{}'s API key is set in the config file or the environment; change it there",
                spec.id
            )));
        }
        let connection = ctx
            .store()
            .create_connection(&spec.id, ctx.caller.authority.person.id, OPEN_FOR_MS)
            .await?;
        let page_url = format!(
            "{}/connections/{}",
            ctx.settings().public_url(),
            connection.id
        );
        let shown = view(&connection);
        Output::typed(
            format!(
                "The owner opens {page_url} (signed in) and types {}'s API key there within 15 minutes; nothing is entered through this conversation.",
                spec.id
            ),
            &Started {
                connection: shown,
                page_url,
            },
        )
        .map(|o| {
            o.next(format!(
                "get_connection_status {{\"connection_id\": \"{}\"}}",
                connection.id
            ))
        })
    }
}
