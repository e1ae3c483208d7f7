//! A destructive (or unannotated) external tool called by anyone but the owner: the call is
//! stored as a plan for the owner's approval, with the exact arguments; applied, it is made
//! once, as the plan says, while the tool is still what it was when planned.

use std::sync::Arc;

use governance::{
    Ctx, ErrorCode, Output, ToolError,
    contract::BoxFuture,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Proposal, Run},
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use store::Change;

use super::{Federation, external::External};

/// The plan hooks every destructive external tool shares.
#[derive(Debug)]
pub(crate) struct ExternalPlanned;

/// A call as planned: the server, its tool and the exact arguments.
#[derive(Debug, Serialize, Deserialize)]
struct CallPlan {
    server: String,
    tool: String,
    arguments: Map<String, Value>,
}

/// The plan of calling `tool` with `arguments`.
pub(crate) fn proposal(tool: &External, arguments: Map<String, Value>) -> Proposal {
    let plan = CallPlan {
        server: tool.server.id().to_string(),
        tool: tool.remote.clone(),
        arguments,
    };
    Proposal {
        summary: format!("call {} on the MCP server {}", plan.tool, plan.server),
        dependencies: fingerprint(tool),
        plan: serde_json::to_value(&plan).unwrap_or_default(),
    }
}

/// What a plan relies on: the tool as its server describes it (schema and annotations).
fn fingerprint(tool: &External) -> Dependencies {
    let m = tool.meta;
    let text = format!(
        "{}\u{0}{:?}\u{0}{:?}\u{0}{}",
        Value::Object(tool.schema.clone()),
        m.effect,
        m.hints,
        m.description
    );
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    [(format!("{}/tools/{}", tool.server.id(), tool.remote), hash)].into()
}

/// The external tool a change names, as its server serves it now.
fn tool_now(
    ctx: &Ctx,
    change: &Change,
) -> Result<(Arc<dyn governance::DynTool>, CallPlan), ToolError> {
    let plan: CallPlan = plan::parse_plan(change)?;
    let federation = ctx.family::<Arc<Federation>>()?;
    let server = federation.server(&plan.server).ok_or_else(|| {
        ToolError::new(
            ErrorCode::UnknownInstance,
            format!(
                "the MCP server {} is no longer configured; nothing was done",
                plan.server
            ),
        )
    })?;
    let tool = governance::LiveTools::get(federation.as_ref(), &change.tool)
        .filter(|t| t.external().is_some() && t.meta().plan.is_some())
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "the MCP server {} no longer offers {}; nothing was done",
                    server.id(),
                    plan.tool
                ),
            )
        })?;
    Ok((tool, plan))
}

impl Planned for ExternalPlanned {
    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let (_, plan) = tool_now(ctx, change)?;
            let federation = ctx.family::<Arc<Federation>>()?;
            let found = federation
                .server(&plan.server)
                .and_then(|s| s.tools().map(|list| (s.clone(), list)))
                .and_then(|(server, list)| {
                    let remote = list.iter().find(|t| t.name == plan.tool)?;
                    External::new(server, remote)
                });
            Ok(found.map(|t| fingerprint(&t)).unwrap_or_default())
        })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let (tool, plan) = tool_now(ctx, change)?;
            let federation = ctx.family::<Arc<Federation>>()?;
            let Some(server) = federation.server(&plan.server) else {
                return Err(plan::not_plannable(&change.tool));
            };
            ctx.authorize(server.id())?;
            run.checkpoint(json!({"call": plan.tool, "server": plan.server}))
                .await?;
            super::external::call(server, tool.meta(), &plan.tool, plan.arguments, ctx).await
        })
    }

    fn describe(&self, change: &Change) -> PlanView {
        let Ok(plan) = serde_json::from_str::<CallPlan>(&change.plan) else {
            return PlanView::unknown(&change.tool);
        };
        let rows = plan
            .arguments
            .iter()
            .map(|(name, value)| vec![name.clone(), value.to_string()])
            .collect();
        PlanView {
            effect: format!(
                "Calls {} on the MCP server {} once, with exactly the arguments below.",
                plan.tool, plan.server
            ),
            tables: vec![PlanTable {
                id: "arguments",
                title: "Arguments",
                columns: vec![
                    PlanColumn {
                        header: "Argument",
                        look: Look::Code,
                        wide: false,
                    },
                    PlanColumn {
                        header: "Value",
                        look: Look::New,
                        wide: false,
                    },
                ],
                rows,
            }],
        }
    }
}
