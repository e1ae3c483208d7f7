//! Change control: planned tools store a change instead of acting (`propose`), the owner
//! decides it in the browser, and `apply_change` runs it once as an operation, checkpointed
//! before each external call.
//!
//! A planned tool keeps its whole plan in its own file: how it resolves a call into a plan,
//! which state the plan depends on, and how an approved plan is carried out. The two matches
//! below are the one list of planned tools.

mod apply_change;
mod cancel_operation;
mod get_change;
mod get_operation;
mod revert_change;

use std::{
    collections::BTreeMap,
    sync::atomic::{AtomicUsize, Ordering},
};

use domain::Capability;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::{Change, NewChange, Operation};

use crate::{
    Tool,
    context::Ctx,
    contract::{DynTool, Meta, Output, ToolError},
    downloads::delete_torrents::{self, DeleteTorrents},
    error::ErrorCode,
    library::settings::{
        self, plan_profile_change::PlanProfileChange, upsert_custom_format::UpsertCustomFormat,
    },
};

/// This family's tools, for the one registry.
pub fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(apply_change::ApplyChange),
        Box::new(get_change::GetChange),
        Box::new(get_operation::GetOperation),
        Box::new(cancel_operation::CancelOperation),
        Box::new(revert_change::RevertChange),
    ]
}

/// The declaration of a planned tool, by name; `None` for a tool that cannot be planned.
pub(crate) fn planned(tool: &str) -> Option<Meta> {
    match tool {
        n if n == DeleteTorrents::META.name => Some(DeleteTorrents::META),
        n if n == PlanProfileChange::META.name => Some(PlanProfileChange::META),
        n if n == UpsertCustomFormat::META.name => Some(UpsertCustomFormat::META),
        n if n == revert_change::RevertChange::META.name => Some(revert_change::RevertChange::META),
        _ => None,
    }
}

/// Tools that only ever store a plan (for everyone, the owner included): their call changes
/// nothing outside, so it is not audited; applying it is.
pub(crate) fn plans_only(tool: &str) -> bool {
    planned(tool).is_some_and(|m| m.capability == Capability::SettingsWrite)
}

/// Capabilities that serve as well as a tool's own: the change tools (declared with
/// downloads.write) serve whoever may plan a change, settings changes included.
pub(crate) fn served_by(tool: &str) -> &'static [Capability] {
    const SETTINGS: &[Capability] = &[Capability::SettingsWrite];
    match tool {
        "apply_change" | "get_change" | "get_operation" | "cancel_operation" => SETTINGS,
        _ => &[],
    }
}

/// A call resolved against live state, ready to be stored for the owner.
pub(crate) struct Proposal {
    /// One line for the owner's list, e.g. "delete 2 torrents (1.2 GB) on qb, with data".
    pub summary: String,
    /// What will be done, exactly: the diff the owner reviews.
    pub plan: Value,
    /// Every piece of state the plan read, by name, with a hash of what was read.
    pub dependencies: BTreeMap<String, String>,
}

/// Stores `proposal` as a pending change and answers what the caller lacks (`None`: nothing,
/// the caller may apply it at once) and where the owner reviews it. Nothing outside Marquee
/// is touched.
pub(crate) async fn propose(
    ctx: &Ctx,
    meta: Meta,
    missing: Option<Capability>,
    proposal: Proposal,
) -> Result<Output, ToolError> {
    let plan = proposal.plan.to_string();
    let dependencies = serde_json::to_string(&proposal.dependencies).map_err(|e| {
        ToolError::new(
            ErrorCode::Internal,
            format!("the plan could not be written: {e}"),
        )
    })?;
    let grant = &ctx.caller.authority.grant;
    let change = ctx
        .store()
        .create_change(&NewChange {
            created_by: ctx.caller.authority.person.id,
            grant_id: grant.id,
            grant_revision: grant.revision,
            tool: meta.name.to_string(),
            summary: proposal.summary.clone(),
            content_hash: content_hash(meta.name, &plan, &dependencies),
            plan,
            dependency_hashes: dependencies,
        })
        .await?;
    let url = review_url(ctx, &change.id);
    Ok(planned_answer(meta, missing, &change, &proposal, &url))
}

/// The answer to a call that stored `change`.
pub(crate) fn planned_answer(
    meta: Meta,
    missing: Option<Capability>,
    change: &Change,
    proposal: &Proposal,
    url: &str,
) -> Output {
    let summary = match missing {
        Some(missing) => format!(
            "Nothing was done yet: {} needs the owner's approval because your grant lacks {missing}. \
             Change {} ({}) waits for the owner at {url}; once approved, call apply_change with this \
             change_id and a new idempotency_key.",
            meta.name, change.id, proposal.summary
        ),
        None => format!(
            "Nothing was done yet: change {} ({}) is planned; review it at {url}, and apply it \
             with apply_change, this change_id and a new idempotency_key.",
            change.id, proposal.summary
        ),
    };
    Output::new(
        summary,
        json!({
            "change_id": change.id,
            "status": change.status,
            "missing_authority": missing.map(|m| m.to_string()),
            "review_url": url,
            "content_hash": change.content_hash,
            "grant_revision": change.grant_revision,
            "plan": proposal.plan,
        }),
    )
    .next(format!(
        "apply_change {{\"change_id\": \"{}\", \"idempotency_key\": \"<new random text>\"}}{}",
        change.id,
        if missing.is_some() {
            " after the owner approves"
        } else {
            ""
        }
    ))
}

/// Where the owner reviews a change.
pub(crate) fn review_url(ctx: &Ctx, change_id: &str) -> String {
    format!("{}/changes/{change_id}", ctx.settings().public_url())
}

/// SHA-256 over the tool, the plan and the dependency hashes: what an approval is bound to.
pub fn content_hash(tool: &str, plan: &str, dependencies: &str) -> String {
    let mut h = Sha256::new();
    for part in [tool, plan, dependencies] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    format!("sha256:{}", hex::encode(h.finalize()))
}

/// The state `change` depends on, read again now.
async fn current_dependencies(
    ctx: &Ctx,
    change: &Change,
) -> Result<BTreeMap<String, String>, ToolError> {
    match change.tool.as_str() {
        n if n == DeleteTorrents::META.name => {
            delete_torrents::dependencies(ctx, &parse_plan(change)?).await
        }
        n if settings_tool(n) => settings::dependencies(ctx, &parse_plan(change)?).await,
        other => Err(not_plannable(other)),
    }
}

/// Carries out an approved change; `run` writes the checkpoint before each external call.
async fn execute(ctx: &Ctx, change: &Change, run: &Run<'_>) -> Result<Output, ToolError> {
    match change.tool.as_str() {
        n if n == DeleteTorrents::META.name => {
            delete_torrents::apply(ctx, parse_plan(change)?, run).await
        }
        n if settings_tool(n) => settings::apply(ctx, parse_plan(change)?, run).await,
        other => Err(not_plannable(other)),
    }
}

/// The tools whose changes are settings plans (a revert is one too).
fn settings_tool(tool: &str) -> bool {
    plans_only(tool)
}

fn parse_plan<T: serde::de::DeserializeOwned>(change: &Change) -> Result<T, ToolError> {
    serde_json::from_str(&change.plan).map_err(|e| {
        tracing::error!(change = %change.id, error = %e, "a stored plan cannot be read");
        ToolError::new(
            ErrorCode::Internal,
            format!(
                "change {} cannot be read by this version; plan it again",
                change.id
            ),
        )
    })
}

fn not_plannable(tool: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Internal,
        format!("{tool} cannot be planned in this version; nothing was done"),
    )
}

/// One running operation, as a planned tool's `apply` sees it.
pub(crate) struct Run<'a> {
    ctx: &'a Ctx,
    operation_id: &'a str,
    /// External calls checkpointed so far: the operation's progress.
    calls: AtomicUsize,
}

impl<'a> Run<'a> {
    pub(crate) fn new(ctx: &'a Ctx, operation_id: &'a str) -> Run<'a> {
        Run {
            ctx,
            operation_id,
            calls: AtomicUsize::new(0),
        }
    }

    /// Records the external call about to be made; refused when the operation was cancelled.
    pub async fn checkpoint(&self, call: Value) -> Result<(), ToolError> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        self.ctx.progress(
            n,
            None,
            &format!("operation {}: external call {n}", self.operation_id),
        );
        let text = call.to_string();
        if self
            .ctx
            .store()
            .checkpoint(self.operation_id, &text)
            .await?
        {
            Ok(())
        } else {
            Err(ToolError::new(
                ErrorCode::Conflict,
                format!(
                    "operation {} was cancelled before this call; it was not made",
                    self.operation_id
                ),
            ))
        }
    }
}

/// An operation as tools answer it.
fn operation_json(op: &Operation) -> Value {
    let parse = |t: &str| serde_json::from_str::<Value>(t).unwrap_or(Value::Null);
    json!({
        "operation_id": op.id,
        "change_id": op.change_id,
        "tool": op.tool,
        "status": op.status,
        "checkpoint": parse(&op.checkpoint),
        "result": op.result.as_deref().map(parse),
        "message": op.message,
        "created_at": op.created_at,
        "updated_at": op.updated_at,
    })
}

/// A sentence about where an operation stands.
fn operation_sentence(op: &Operation) -> String {
    let tail = op.message.as_deref().unwrap_or("");
    match op.status {
        store::OperationStatus::Running => format!("Operation {} is running.", op.id),
        store::OperationStatus::InFlight => format!(
            "Operation {} is under way: an external call was announced and has not finished.",
            op.id
        ),
        store::OperationStatus::Succeeded => format!("Operation {} succeeded: {tail}", op.id),
        store::OperationStatus::Failed => format!("Operation {} failed: {tail}", op.id),
        store::OperationStatus::Cancelled => format!("Operation {} was cancelled: {tail}", op.id),
        store::OperationStatus::OutcomeUnknown => format!(
            "Operation {} has an unknown outcome: {tail}. Check the live state before planning it again.",
            op.id
        ),
    }
}

/// The operation `id` when the caller may see it (its starter, or an admin), else not found.
async fn visible_operation(ctx: &Ctx, id: &str) -> Result<Operation, ToolError> {
    let op = ctx.store().operation(id).await?;
    match op {
        Some(op) if ctx.caller.is_admin() || op.person == Some(ctx.caller.authority.person.id) => {
            Ok(op)
        }
        _ => Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no operation with id \"{id}\" that you can see; apply_change answers operation ids"
            ),
        )),
    }
}
