//! Change control as the core holds it: a planned tool declares its plan hooks in its `Meta`
//! (`plan: Some(&…)`, a [`Planned`]); a call that needs the owner's approval stores a change
//! ([`propose`]) instead of acting; the owner reviews the change as the tool describes it
//! ([`PlanView`]); `apply_change` re-reads what the plan depends on and carries it out once as
//! an operation ([`Run`]), checkpointed before each step. The core asks these hooks, never a
//! tool by name.

use std::{
    collections::BTreeMap,
    fmt::Debug,
    sync::atomic::{AtomicUsize, Ordering},
};

use domain::Capability;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::{Change, NewChange};

use crate::{Ctx, ErrorCode, Meta, Output, ToolError, contract::BoxFuture};

/// The state a plan read, by name, each with a hash of what was read.
pub type Dependencies = BTreeMap<String, String>;

/// A planned tool's hooks: what its stored plan depends on, how an approved plan is carried
/// out, how the owner sees it, and (when it offers one) how an applied plan is undone.
pub trait Planned: Send + Sync + Debug {
    /// True for a tool that only ever stores a plan, for everyone, the owner included: its
    /// call changes nothing outside, so it is not audited; applying it is.
    fn always(&self) -> bool {
        false
    }

    /// The state `change`'s plan depends on, read again now.
    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>>;

    /// Carries out an approved plan, checkpointing each step with `run` (a cancelled
    /// operation stops at its next step).
    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>>;

    /// What the owner reviews: the plan in sentences and tables.
    fn describe(&self, change: &Change) -> PlanView;

    /// Whether an applied plan of this tool offers a revert ([`Planned::revert`]).
    fn revertible(&self) -> bool {
        false
    }

    /// Whether a change whose operation stopped part way (failed, cancelled, or of unknown
    /// outcome after a crash) still offers a revert of what it did. [`Planned::revert`] is then
    /// handed the operation's result (an object; empty when a crash left none) with the last
    /// step it announced beside it as `checkpoint`.
    fn reverts_partial(&self) -> bool {
        false
    }

    /// What an operation a crash cut off did, item by item, read from the last step it
    /// announced (`checkpoint`): shown as its result, which the crash left empty (the step in
    /// flight is `outcome_unknown`). `None`: the checkpoint says all there is.
    fn unfinished(&self, _change: &Change, _checkpoint: &Value) -> Option<Value> {
        None
    }

    /// The tool a revert of this tool's change is stored as: `None` for `revert_change`
    /// itself; `Some(name)` for a tool whose own hooks read, describe and apply its reverts
    /// (its plan names the change it undoes in a top-level `reverts`).
    fn revert_tool(&self) -> Option<&'static str> {
        None
    }

    /// The plan that undoes `change`, applied with the operation `result`; only for a
    /// [`revertible`](Planned::revertible) tool.
    fn revert<'a>(
        &'a self,
        _ctx: &'a Ctx,
        change: &'a Change,
        _result: &'a Value,
    ) -> BoxFuture<'a, Result<Proposal, ToolError>> {
        let refused = ToolError::invalid(format!(
            "change {} is a {} change, which offers no revert",
            change.id, change.tool
        ));
        Box::pin(async move { Err(refused) })
    }
}

/// A plan as the owner's review page shows it: one sentence of what carrying it out does, and
/// the tables of what it touches.
#[derive(Debug, Clone, Default)]
pub struct PlanView {
    pub effect: String,
    pub tables: Vec<PlanTable>,
}

/// One table of a plan's review.
#[derive(Debug, Clone)]
pub struct PlanTable {
    /// The table's HTML id.
    pub id: &'static str,
    pub title: &'static str,
    pub columns: Vec<PlanColumn>,
    /// Each row's cells, in the columns' order.
    pub rows: Vec<Vec<String>>,
}

/// One column of a [`PlanTable`].
#[derive(Debug, Clone, Copy)]
pub struct PlanColumn {
    pub header: &'static str,
    pub look: Look,
    /// Hidden on narrow screens.
    pub wide: bool,
}

/// How a column's cells are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Text,
    /// Machine text: paths, hashes.
    Code,
    /// What is there now and goes.
    Old,
    /// What comes.
    New,
}

impl PlanView {
    /// The review of a change whose tool this build cannot describe.
    pub fn unknown(tool: &str) -> PlanView {
        PlanView {
            effect: format!("Runs {tool} as planned below."),
            tables: Vec::new(),
        }
    }
}

/// A call resolved against live state, ready to be stored for the owner.
#[derive(Debug)]
pub struct Proposal {
    /// One line for the owner's list, e.g. "delete 2 torrents (1.2 GB) on qb, with data".
    pub summary: String,
    /// What will be done, exactly: the diff the owner reviews.
    pub plan: Value,
    /// Every piece of state the plan read, by name, with a hash of what was read.
    pub dependencies: Dependencies,
}

/// Stores `proposal` as a pending change and answers what the caller lacks (`None`: nothing,
/// the caller may apply it at once) and where the owner reviews it. Nothing outside Marquee
/// is touched.
pub async fn propose(
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
pub fn planned_answer(
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
pub fn review_url(ctx: &Ctx, change_id: &str) -> String {
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

/// A stored plan read back as its tool's plan type.
pub fn parse_plan<T: serde::de::DeserializeOwned>(change: &Change) -> Result<T, ToolError> {
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

/// The refusal of a change whose tool this build cannot plan.
pub fn not_plannable(tool: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Internal,
        format!("{tool} cannot be planned in this version; nothing was done"),
    )
}

/// One running operation, as a planned tool's `apply` sees it.
pub struct Run<'a> {
    ctx: &'a Ctx,
    operation_id: &'a str,
    /// External calls checkpointed so far: the operation's progress.
    calls: AtomicUsize,
}

impl<'a> Run<'a> {
    pub fn new(ctx: &'a Ctx, operation_id: &'a str) -> Run<'a> {
        Run {
            ctx,
            operation_id,
            calls: AtomicUsize::new(0),
        }
    }

    /// Records the external call about to be made; refused when the operation was cancelled.
    pub async fn checkpoint(&self, call: Value) -> Result<(), ToolError> {
        if self.step(call).await? {
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

    /// Records the step about to be taken (an external call), or answers `false` when the
    /// operation was cancelled meanwhile: the step must not be taken, nor any after it. A
    /// multi-step `apply` asks before each step and, once told to stop, answers what it did
    /// and what it left undone.
    pub async fn step(&self, call: Value) -> Result<bool, ToolError> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        self.ctx.progress(
            n,
            None,
            &format!("operation {}: external call {n}", self.operation_id),
        );
        let text = call.to_string();
        Ok(self
            .ctx
            .store()
            .checkpoint(self.operation_id, &text)
            .await?)
    }

    /// The operation's id.
    pub fn operation_id(&self) -> &str {
        self.operation_id
    }
}
