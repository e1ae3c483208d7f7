//! `get_health`: the health checks each library service reports, over every library instance
//! (asked concurrently) or one.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
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
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for GetHealth {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Healths>);
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
                InstanceHealth {
                    instance_id: s.id.clone(),
                    kind: s.kind,
                    checks: shapes::all(checks, shapes::Health::of),
                }
            })
            .collect();
        let mut out = crate::typed::output(
            format!("{}.", parts.join("; ")),
            &Healths {
                instances,
                unreadable: m.failed_data(),
            },
        )?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// The answer's data: each instance's health checks, and the instances that could not be read.
#[derive(Serialize, JsonSchema)]
struct Healths {
    instances: Vec<InstanceHealth>,
    unreadable: Vec<shapes::Unreadable>,
}

/// The health checks one instance reports (empty: no problems).
#[derive(Serialize, JsonSchema)]
struct InstanceHealth {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    checks: Vec<shapes::Health>,
}
