//! `get_health`: the health checks each library service reports, over every library instance
//! (asked concurrently) or one.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{
    count,
    source::{chosen, merged},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetHealth;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance, as list_instances shows it (default: every library instance).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for GetHealth {
    type Input = Input;
    const META: Meta = Meta {
        name: "get_health",
        title: "Library health",
        description: "The health checks Radarr, Sonarr, Lidarr and Readarr report (indexers failing, download clients unreachable, folders missing, updates), per instance, with level and message. Instances that could not be read are named.",
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
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let m = merged(ctx, sources, |c| c.health()).await;
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let mut parts = Vec::new();
        let instances: Vec<_> = m
            .read
            .iter()
            .map(|(s, checks)| {
                parts.push(if checks.is_empty() {
                    format!("{} reports no problems", s.id)
                } else {
                    format!(
                        "{} reports {}",
                        s.id,
                        count(checks.len(), "problem", "problems")
                    )
                });
                json!({ "instance_id": s.id, "kind": s.kind, "checks": checks })
            })
            .collect();
        let mut out = Output::new(
            format!("{}.", parts.join("; ")),
            json!({ "instances": instances, "unreadable": m.failed_data() }),
        );
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}
