//! `revert_change`: plans the one revert an applied settings change offers, while the live
//! settings still hash to what it applied, or that another revertible change offers (an
//! organise, stored as a change of its own tool). The revert is a change like any other
//! (approved and applied with `apply_change`, audited there) and is not itself revertible.

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use store::{ChangeStatus, NewChange};

use governance::plan::{Proposal, content_hash, planned_answer, review_url};

use governance::{Ctx, Meta, Output, Tool, ToolError, error::ErrorCode};

pub struct RevertChange;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The applied settings change to undo (chg_…).
    #[schemars(regex(pattern = crate::ids::CHANGE_ID))]
    pub change_id: String,
}

impl Tool for RevertChange {
    type Input = Input;
    /// It only stores plans: its answer is always the planned answer.
    const DATA: Option<governance::contract::DataSchema> = Some(governance::contract::planned_only);
    const META: Meta = Meta {
        name: "revert_change",
        title: "Plan a revert of a settings change",
        description: "Plans the one revert of an applied settings change (plan_profile_change, or an update by upsert_custom_format), available only while the live settings still equal what that change applied, or of an applied organise (plan_organize: the links and copies it made removed, moved files moved back). Nothing is written: the answer is a change that apply_change writes once approved, like any plan. A revert cannot itself be reverted, and a change is reverted once.",
        effect: Effect::Write,
        capability: Capability::SettingsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: Some(&super::REVERT_PLAN),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let me = &ctx.caller.authority.person;
        let change = ctx
            .store()
            .change(&input.change_id)
            .await?
            .filter(|c| c.created_by == me.id || me.role == Role::Owner)
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!("no change with id \"{}\" that you planned", input.change_id),
                )
            })?;
        if change.tool == Self::META.name {
            return Err(ToolError::invalid(format!(
                "change {} is itself a revert; a revert cannot be reverted",
                change.id
            )));
        }
        let planned = ctx
            .tool_meta(&change.tool)
            .and_then(|m| m.plan)
            .filter(|p| p.revertible());
        let Some(planned) = planned else {
            let revertible: Vec<&str> = ctx
                .tool_metas()
                .into_iter()
                .filter(|m| m.plan.is_some_and(|p| p.revertible()))
                .map(|m| m.name)
                .collect();
            return Err(ToolError::invalid(format!(
                "change {} is a {} change; only changes of {} offer a revert",
                change.id,
                change.tool,
                revertible.join(", ")
            )));
        };
        if change.status != ChangeStatus::Applied {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "change {} is {}; only an applied change can be reverted",
                    change.id, change.status
                ),
            ));
        }
        // The tool the revert is stored as: revert_change, or a tool that reverts its own.
        let tool = planned.revert_tool().unwrap_or(Self::META.name);
        ctx.store()
            .check_no_revert(tool, &change.id)
            .await
            .map_err(conflict)?;
        let op = ctx.store().operation_for_change(&change.id).await?;
        let result: serde_json::Value = op
            .and_then(|o| o.result)
            .and_then(|r| serde_json::from_str(&r).ok())
            .unwrap_or_default();
        let proposal = planned.revert(ctx, &change, &result).await?;
        store_revert(ctx, tool, &change.id, proposal).await
    }
}

/// Stores the revert of the change `reverts` as a change of `tool` (one per change, also when
/// two race) and answers it as a plan.
async fn store_revert(
    ctx: &Ctx,
    tool: &'static str,
    reverts: &str,
    proposal: Proposal,
) -> Result<Output, ToolError> {
    let meta = RevertChange::META;
    let text = proposal.plan.to_string();
    let dependencies = serde_json::to_string(&proposal.dependencies).unwrap_or_default();
    let grant = &ctx.caller.authority.grant;
    let change = ctx
        .store()
        .create_revert(
            &NewChange {
                created_by: ctx.caller.authority.person.id,
                grant_id: grant.id,
                grant_revision: grant.revision,
                tool: tool.to_string(),
                summary: proposal.summary.clone(),
                content_hash: content_hash(tool, &text, &dependencies),
                plan: text,
                dependency_hashes: dependencies,
            },
            reverts,
        )
        .await
        .map_err(conflict)?;
    let url = review_url(ctx, &change.id);
    Ok(planned_answer(
        meta,
        ctx.needs_plan(),
        &change,
        &proposal,
        &url,
    ))
}

fn conflict(e: store::Error) -> ToolError {
    match e {
        store::Error::Conflict(m) => ToolError::new(ErrorCode::Conflict, m),
        other => other.into(),
    }
}
