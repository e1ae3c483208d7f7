//! The plan hooks the plans of shortlists and settings share: always a plan (the owner's too); its
//! dependencies re-read from the stored plan; applied as one checkpointed save ([`Saves`]) or
//! step by step, each external call checkpointed ([`Steps`]); shown to the owner from the
//! stored plan. Each plan names only what differs. And a call made on someone's behalf
//! (request_media, decide_request), told as an outcome.

use std::{fmt::Debug, marker::PhantomData};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Map, Value, json};
use store::Change;

use governance::{
    Called, Ctx, Delegate, Meta, Output, ToolError,
    contract::BoxFuture,
    plan::{self, Dependencies, PlanView, Planned, Proposal, Run},
};

/// Stores `plan` as a pending change (with what it read) for the owner's review.
pub(crate) async fn propose<S: Saves>(
    ctx: &Ctx,
    meta: Meta,
    summary: String,
    plan: &S::Plan,
) -> Result<Output, ToolError> {
    propose_steps::<Saved<S>>(ctx, meta, summary, plan).await
}

/// [`propose`] for a plan carried out step by step.
pub(crate) async fn propose_steps<S: Steps>(
    ctx: &Ctx,
    meta: Meta,
    summary: String,
    plan: &S::Plan,
) -> Result<Output, ToolError> {
    let proposal = Proposal {
        summary,
        plan: json!(plan),
        dependencies: S::dependencies(ctx, plan).await?,
    };
    plan::propose(ctx, meta, ctx.needs_plan(), proposal).await
}

/// What one kind of shortlist plan saves.
pub(crate) trait Saves: Debug + Send + Sync + 'static {
    /// The stored plan.
    type Plan: Serialize + DeserializeOwned + Send + Sync;
    /// What it saves, for the checkpoint ("theme", "row").
    const WHAT: &'static str;

    /// The state the plan read, read again.
    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a Self::Plan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>>;

    /// Saves an approved plan.
    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: Self::Plan,
    ) -> BoxFuture<'a, Result<Output, ToolError>>;

    /// What the owner reviews.
    fn describe(plan: &Self::Plan) -> PlanView;
}

/// The [`Planned`] hooks of a [`Saves`]: one checkpoint, then the save.
pub(crate) type Saving<S> = Stepping<Saved<S>>;

/// A [`Saves`] as [`Steps`].
#[derive(Debug)]
pub(crate) struct Saved<S>(PhantomData<S>);

impl<S: Saves> Steps for Saved<S> {
    type Plan = S::Plan;

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a S::Plan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        S::dependencies(ctx, plan)
    }

    fn apply<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: S::Plan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            run.checkpoint(json!({"save": S::WHAT})).await?;
            S::save(ctx, change, plan).await
        })
    }

    fn describe(plan: &S::Plan) -> PlanView {
        S::describe(plan)
    }
}

/// What one kind of shortlist plan does step by step (each external call checkpointed).
pub(crate) trait Steps: Debug + Send + Sync + 'static {
    /// The stored plan.
    type Plan: Serialize + DeserializeOwned + Send + Sync;

    /// The state the plan read, read again.
    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a Self::Plan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>>;

    /// Carries out an approved plan (`change`), asking `run` before each step.
    fn apply<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: Self::Plan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>>;

    /// What the owner reviews.
    fn describe(plan: &Self::Plan) -> PlanView;
}

/// The [`Planned`] hooks of a [`Steps`].
#[derive(Debug)]
pub(crate) struct Stepping<S>(PhantomData<S>);

impl<S> Stepping<S> {
    pub(crate) const fn new() -> Stepping<S> {
        Stepping(PhantomData)
    }
}

impl<S: Steps> Planned for Stepping<S> {
    fn always(&self) -> bool {
        true
    }

    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let plan: S::Plan = plan::parse_plan(change)?;
            S::dependencies(ctx, &plan).await
        })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move { S::apply(ctx, change, plan::parse_plan(change)?, run).await })
    }

    fn describe(&self, change: &Change) -> PlanView {
        match serde_json::from_str::<S::Plan>(&change.plan) {
            Ok(plan) => S::describe(&plan),
            Err(_) => PlanView::unknown(&change.tool),
        }
    }
}

/// Calls `tool` for the person of `key_id` with the authority that key has now: its answer's
/// data, or why it was refused.
pub(crate) async fn answer_of(
    ctx: &Ctx,
    key_id: &str,
    person: domain::PersonId,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<Result<Value, String>, ToolError> {
    let delegate = ctx.family::<Delegate>()?;
    Ok(
        match delegate.call_as(key_id, person, tool, arguments).await {
            Ok(Called::Done(Ok(out))) => Ok(out.data()),
            Ok(Called::Done(Err(e))) => Err(e.message.clone()),
            Ok(Called::UnknownTool) => Err(format!("{tool} is not served")),
            Err(why) => Err(why),
        },
    )
}

/// Calls `tool` for the person of `key_id` with the authority that key has now: whether it
/// did what was asked, and its answer's sentence (or why it was refused).
pub(crate) async fn on_behalf(
    ctx: &Ctx,
    key_id: &str,
    person: domain::PersonId,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<(bool, String), ToolError> {
    let delegate = ctx.family::<Delegate>()?;
    Ok(
        match delegate.call_as(key_id, person, tool, arguments).await {
            Ok(Called::Done(Ok(out))) => (true, out.summary.clone()),
            Ok(Called::Done(Err(e))) => (false, e.message.clone()),
            Ok(Called::UnknownTool) => (false, format!("{tool} is not served")),
            Err(why) => (false, why),
        },
    )
}
