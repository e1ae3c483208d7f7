//! `cancel_operation`: stops an operation. One that has made no external call yet is cancelled
//! at once; one under way stops before its next step (the step under way ends) and then reports
//! what was done and what was not. A finished one is refused with its status.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{operation_json, operation_sentence, visible_operation};
use governance::{Ctx, Meta, Output, Tool, ToolError, error::ErrorCode};

pub struct CancelOperation;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The operation (op_…), as apply_change answered it.
    #[schemars(regex(pattern = crate::ids::OPERATION_ID))]
    pub operation_id: String,
}

impl Tool for CancelOperation {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::OperationData<'static>>);
    const META: Meta = Meta {
        name: "cancel_operation",
        title: "Cancel an operation",
        description: "Cancels an operation: one that has not made its first external call yet is cancelled at once, with its change; one under way stops before its next step (the step under way ends) and then reports what was done and what was not. A finished operation is refused with its status.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[Capability::SettingsWrite],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let op = visible_operation(ctx, &input.operation_id).await?;
        let who = &ctx.caller.authority.person.name;
        let op = ctx
            .store()
            .cancel_operation(&op.id, &format!("cancelled by {who}"))
            .await
            .map_err(|e| match e {
                store::Error::Conflict(_) => ToolError::new(
                    ErrorCode::Conflict,
                    format!(
                        "operation {} is {} and can no longer be cancelled; get_operation shows it",
                        op.id, op.status
                    ),
                ),
                other => other.into(),
            })?;
        Ok(Output::new(operation_sentence(&op), operation_json(&op)))
    }
}
