//! `list_instances`: the configured backends, their kinds, defaults and whether this build supports them.
//!
//! The instances are fixed while the server runs, so the answer is a function of the caller's
//! authority (role and grant scope): it is kept through [`governance::stored`] like other reads.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority];
pub struct ListInstances;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

impl Tool for ListInstances {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Listed<'static>>);
    const META: Meta = Meta {
        name: "list_instances",
        title: "List backend instances",
        description: "Lists the configured backend instances (id, kind, family, address (URL or folder, shown to admins only), whether it is the default of its kind, whether this version has an adapter for it). Use an id from here as instance_id.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let view = stored::view(ctx, ());
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || async {
                Ok((answer(ctx), Keep::WhileUnchanged))
            })
            .await
    }
}

/// The instances this caller's grant covers, with their addresses for an admin only.
fn answer(ctx: &Ctx) -> Output {
    let mut views = ctx.instances().views(|kind| ctx.supports(kind));
    views.retain(|v| ctx.covers(&v.id));
    // Where a backend lives (its URL or folder) is for those who administer it.
    if !ctx.caller.scope.household {
        for v in &mut views {
            v.url = None;
            v.path = None;
        }
    }
    let summary = match views.len() {
        0 => "No instances are configured (or your grant covers none).".to_string(),
        n => format!(
            "{n} instance{}: {}.",
            if n == 1 { "" } else { "s" },
            views
                .iter()
                .map(|v| format!("{} ({})", v.id, v.kind))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let data = serde_json::to_value(Listed { instances: &views }).unwrap_or_default();
    Output::new(summary, data).next("diagnose")
}

/// The answer's data: the instances the caller's grant covers.
#[derive(Serialize, JsonSchema)]
struct Listed<'a> {
    instances: &'a [governance::InstanceView],
}
