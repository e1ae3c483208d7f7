//! `get_connection_status`: how a secret's hand-over (start_connection) went: still waiting
//! for the owner's page, saved (checked against the instance and kept), failed (with the
//! check's reason) or expired. Only its starter or the owner reads it.

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::connection::{ConnectionView, view};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetConnectionStatus;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// As start_connection answered it.
    #[schemars(length(min = 1, max = 64))]
    pub connection_id: String,
}

impl Tool for GetConnectionStatus {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ConnectionView>);
    const META: Meta = Meta {
        name: "get_connection_status",
        title: "How a secret's hand-over went",
        description: "Tells how a start_connection hand-over went: waiting (the owner has not entered the key yet), saved (checked against the instance and kept; in use from Marquee's next start), failed (the check refused it, with why; nothing was kept) or expired. Never shows the secret.",
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
        let me = &ctx.caller.authority.person;
        let connection = ctx
            .store()
            .connection(&input.connection_id)
            .await?
            .filter(|c| c.created_by == Some(me.id) || me.role == Role::Owner)
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no connection \"{}\" of yours; start_connection makes one",
                        input.connection_id
                    ),
                )
            })?;
        let shown = view(&connection);
        let summary = match shown.status.as_str() {
            "waiting" => format!(
                "Waiting for the owner to enter {}'s key (until {}).",
                shown.instance_id, shown.expires_at
            ),
            "saved" => format!(
                "{}'s key was checked and kept; it is used from Marquee's next start.",
                shown.instance_id
            ),
            "failed" => format!(
                "{}'s key was refused: {}; nothing was kept.",
                shown.instance_id,
                shown.message.clone().unwrap_or_default()
            ),
            _ => "The hand-over expired; start_connection opens a new one.".to_owned(),
        };
        Output::typed(summary, &shown)
    }
}
