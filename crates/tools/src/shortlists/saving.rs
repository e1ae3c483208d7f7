//! The plan hooks every shortlist plan shares: always a plan (the owner's too); its
//! dependencies re-read from the stored plan; applied as one checkpointed save; shown to the
//! owner from the stored plan. Each plan names only what differs ([`Saves`]).

use std::{fmt::Debug, marker::PhantomData};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::json;
use store::Change;

use governance::{
    Ctx, Meta, Output, ToolError,
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

/// The [`Planned`] hooks of a [`Saves`].
#[derive(Debug)]
pub(crate) struct Saving<S>(PhantomData<S>);

impl<S> Saving<S> {
    pub(crate) const fn new() -> Saving<S> {
        Saving(PhantomData)
    }
}

impl<S: Saves> Planned for Saving<S> {
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
        Box::pin(async move {
            let plan: S::Plan = plan::parse_plan(change)?;
            run.checkpoint(json!({"save": S::WHAT})).await?;
            S::save(ctx, change, plan).await
        })
    }

    fn describe(&self, change: &Change) -> PlanView {
        match serde_json::from_str::<S::Plan>(&change.plan) {
            Ok(plan) => S::describe(&plan),
            Err(_) => PlanView::unknown(&change.tool),
        }
    }
}
