//! `revert_change`: plans the one revert an applied settings change offers, while the live
//! settings still hash to what it applied, or that another revertible change offers (an
//! organise, stored as a change of its own tool). The revert is a change like any other
//! (approved and applied with `apply_change`, audited there) and is not itself revertible.
//!
//! Who may plan a revert: the person who planned the change (or the owner), holding the
//! capability the change's own tool needs (settings.write for a settings change, files.write
//! for an organise). `settings.write` or `files.write` lists the tool; the change decides which
//! of them is asked.

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
        description: "Plans the one revert of an applied settings change (plan_profile_change, or an update by upsert_custom_format), available only while the live settings still equal what that change applied, or of an applied organise (plan_organize: the links and copies it made removed, moved files moved back; after a partial failure or a cancellation only the files it placed). Only the person who planned the change (or the owner) may, holding what the change's own tool needs: settings.write for a settings change, files.write for an organise. Nothing is written: the answer is a change that apply_change writes once approved, like any plan. A revert cannot itself be reverted, and a change is reverted once.",
        effect: Effect::Write,
        capability: Capability::SettingsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[Capability::FilesWrite],
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
        let meta = ctx.tool_meta(&change.tool);
        let planned = meta.and_then(|m| m.plan).filter(|p| p.revertible());
        let (Some(meta), Some(planned)) = (meta, planned) else {
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
        // Undoing a change is as much a write as making it: the caller holds what its tool needs.
        let held = &ctx.caller.authority.grant.capabilities;
        let needed = std::iter::once(meta.capability).chain(meta.or_capabilities.iter().copied());
        if !needed.clone().any(|c| held.contains(&c)) {
            let names: Vec<String> = needed.map(|c| c.to_string()).collect();
            return Err(ToolError::denied(format!(
                "reverting a {} change needs {}, which your grant lacks",
                change.tool,
                names.join(" or ")
            )));
        }
        // And decided by the core as a call of that tool (the owner's tool switches, the grant's
        // tool list). Allowed or to be planned for the owner: a revert is a plan either way.
        let _allowed_or_planned = governance::authority::decide_or_plan(
            &ctx.caller,
            &meta,
            ctx.settings().allow_destructive(),
            None,
        )?;
        let partial = matches!(
            change.status,
            ChangeStatus::Failed | ChangeStatus::Cancelled | ChangeStatus::OutcomeUnknown
        ) && planned.reverts_partial();
        if change.status != ChangeStatus::Applied && !partial {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "change {} is {}; only an applied change can be reverted{}",
                    change.id,
                    change.status,
                    if planned.reverts_partial() {
                        " (or one whose operation stopped part way)"
                    } else {
                        ""
                    }
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
        let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
        let mut result = op
            .as_ref()
            .and_then(|o| o.result.as_deref())
            .and_then(parse)
            .unwrap_or_default();
        // Stopped part way: the last step it announced goes beside whatever it answered (a
        // crash left no answer at all).
        if partial && let Some(o) = &op {
            let checkpoint = parse(&o.checkpoint).unwrap_or_default();
            match &mut result {
                serde_json::Value::Object(m) => {
                    m.entry("checkpoint").or_insert(checkpoint);
                }
                other => *other = serde_json::json!({"checkpoint": checkpoint}),
            }
        }
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
