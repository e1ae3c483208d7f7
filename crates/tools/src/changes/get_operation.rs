//! `get_operation`: where an operation stands (running, under way, succeeded, failed,
//! cancelled, or outcome unknown after a stop), by its id or by its change.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{operation_json, operation_sentence, visible_operation};
use governance::{Ctx, Meta, Output, Tool, ToolError, error::ErrorCode};

pub struct GetOperation;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The operation (op_…), as apply_change answered it. Give this or change_id.
    #[serde(default)]
    #[schemars(regex(pattern = crate::ids::OPERATION_ID))]
    pub operation_id: Option<String>,
    /// The change whose operation to show (chg_…). Give this or operation_id.
    #[serde(default)]
    #[schemars(regex(pattern = crate::ids::CHANGE_ID))]
    pub change_id: Option<String>,
}

impl Tool for GetOperation {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::OperationData<'static>>);
    const META: Meta = Meta {
        name: "get_operation",
        title: "Show an operation",
        description: "Shows where an operation of an applied change stands: running, in_flight (an external call under way), cancelling (it stops before its next step), succeeded, failed, cancelled, or outcome_unknown (the gateway stopped during the external call; never retried on its own), with its per-item results. Name it by operation_id or by change_id.",
        effect: Effect::Read,
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
        let id = match (input.operation_id, input.change_id) {
            (Some(id), None) => id,
            (None, Some(change)) => ctx
                .store()
                .operation_for_change(&change)
                .await?
                .map(|op| op.id)
                .ok_or_else(|| {
                    ToolError::new(ErrorCode::NotFound,
                        format!("change \"{change}\" has no operation; it runs when apply_change is called after the owner's approval"),
                    )
                })?,
            _ => {
                return Err(ToolError::invalid(
                    "name exactly one of operation_id or change_id",
                ));
            }
        };
        let op = visible_operation(ctx, &id).await?;
        let mut data = operation_json(&op);
        // Cut off by a crash: what its planned tool reads from the last step it announced.
        if op.status == store::OperationStatus::OutcomeUnknown
            && op.result.is_none()
            && let Some(change) = op.change_id.as_deref()
            && let Some(change) = ctx.store().change(change).await?
            && let Some(planned) = ctx.tool_meta(&change.tool).and_then(|m| m.plan)
            && let Some(result) = planned.unfinished(&change, &data["checkpoint"])
        {
            data["result"] = result;
        }
        Ok(Output::new(operation_sentence(&op), data))
    }
}
