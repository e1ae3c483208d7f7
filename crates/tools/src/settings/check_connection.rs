//! `check_connection`: the instance's own probe, which reads and never generates anything (a
//! status or version request), run now against a configured instance the caller's grant
//! reaches: whether Marquee reaches it and its credentials are accepted, or why not.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::connection::configured;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct CheckConnection;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A configured instance (list_instances names them).
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
}

#[derive(Serialize, JsonSchema)]
struct Checked {
    instance_id: String,
    ok: bool,
    /// What the probe found, or why it failed and what to do.
    message: String,
}

impl Tool for CheckConnection {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Checked>);
    const META: Meta = Meta {
        name: "check_connection",
        title: "Check an instance's connection",
        description: "Runs a configured instance's own probe now (a status or version read; nothing is created, sent or spent): ok with what it found, or why it failed and what to do. Never shows a credential.",
        effect: Effect::Read,
        capability: Capability::SettingsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let spec = configured(ctx, &input.instance_id)?.clone();
        let (ok, message) = match ctx.check_instance(&spec).await {
            Some(Ok(found)) => (true, found),
            Some(Err(why)) => (false, why),
            None => (
                false,
                format!("{} has no probe of its own; diagnose reports it", spec.id),
            ),
        };
        let summary = if ok {
            format!("{}: {message}", spec.id)
        } else {
            format!("{} failed its check: {message}", spec.id)
        };
        Output::typed(
            summary,
            &Checked {
                instance_id: spec.id,
                ok,
                message,
            },
        )
    }
}
