//! `whoami`: the person, grant, capabilities, instances, allowances, request quotas left and
//! content limits behind this key.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::{Ctx, Meta, Output, Tool, ToolError};

pub struct Whoami;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

impl Tool for Whoami {
    type Input = Input;
    const META: Meta = Meta {
        name: "whoami",
        title: "Who am I",
        description: "Shows whose authority this connection acts with: the person and role, the grant with its capabilities, instances, tools, allowances left (and when they refill) and expiry, the request quotas left, and any content limits. Call this first.",
        effect: Effect::Read,
        capability: Capability::Discover,
        needs_plan: false,
        allowance: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let a = &ctx.caller.authority;
        let caps: Vec<&str> = a.grant.capabilities.iter().map(|c| c.as_str()).collect();
        let limits = &a.person.limits;
        let quotas = crate::requests::quotas_left(ctx).await?;
        let allowances = ctx
            .store()
            .allowances_left(a.person.id, &a.grant.allowances)
            .await?;
        let mut data = json!({
            "person": { "name": a.person.name, "role": a.person.role },
            "key_id": a.key_id,
            "grant": {
                "name": a.grant.name,
                "capabilities": caps,
                "instances": a.grant.instances.clone().map_or(json!("all"), |i| json!(i)),
                "allowances": allowances.iter().map(crate::allowance::data).collect::<Vec<_>>(),
                "tools": a.grant.tools,
                "expires_at": a.grant.expires_at,
                "revision": a.grant.revision,
            },
            "content_limits": if limits.is_unlimited() { json!(null) } else { json!(limits) },
        });
        let limited = if limits.is_unlimited() {
            "no content limits"
        } else {
            "content limits apply"
        };
        let mut summary = format!(
            "You act as {} ({}) with the grant \"{}\" ({} capabilities); {limited}",
            a.person.name,
            a.person.role,
            a.grant.name,
            caps.len()
        );
        if !allowances.is_empty() {
            let left: Vec<String> = allowances.iter().map(crate::allowance::sentence).collect();
            summary.push_str("; allowances: ");
            summary.push_str(&left.join(", "));
        }
        if let Some((left, sentence)) = quotas {
            data["request_quotas"] = left;
            summary.push_str("; ");
            summary.push_str(&sentence);
        }
        summary.push('.');
        Ok(Output::new(summary, data).next("get_guide {\"topic\":\"setup\"}"))
    }
}
