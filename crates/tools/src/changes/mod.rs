//! The change-control tools: `apply_change` carries out an approved change once as an
//! operation, checkpointed before each external call; `get_change`, `get_operation` and
//! `cancel_operation` follow it (`revert_change`, which plans the undoing of a settings change,
//! is the settings family's). A planned tool keeps its whole plan
//! in its own file, declared in its `Meta` as a [`governance::plan::Planned`]; these tools ask
//! it through that declaration, never by name.

mod apply_change;
mod cancel_operation;
mod get_change;
mod get_operation;

use governance::{Ctx, DynTool, ErrorCode, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use store::{Operation, OperationStatus};

/// Change control's tools.
pub struct ChangesFamily;

impl governance::Family for ChangesFamily {
    fn name(&self) -> &'static str {
        "changes"
    }

    fn group(&self) -> &'static str {
        "admin"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(apply_change::ApplyChange),
            Box::new(get_change::GetChange),
            Box::new(get_operation::GetOperation),
            Box::new(cancel_operation::CancelOperation),
        ]
    }
}

/// An operation as tools answer it (fields in sorted order, as a JSON tree of it has its keys).
#[derive(Serialize, JsonSchema)]
struct OperationData<'a> {
    change_id: Option<&'a str>,
    /// The last external call announced, as the planned tool described it.
    checkpoint: Value,
    /// Unix milliseconds.
    created_at: i64,
    message: Option<&'a str>,
    operation_id: &'a str,
    /// The planned tool's answer, once the operation finished.
    result: Option<Value>,
    /// running, in_flight, succeeded, failed, cancelling, cancelled, outcome_unknown, ... as
    /// the store names them.
    #[schemars(with = "String")]
    status: OperationStatus,
    tool: Option<&'a str>,
    /// Unix milliseconds.
    updated_at: i64,
}

/// An operation as tools answer it.
fn operation_json(op: &Operation) -> Value {
    let parse = |t: &str| serde_json::from_str::<Value>(t).unwrap_or(Value::Null);
    serde_json::to_value(OperationData {
        change_id: op.change_id.as_deref(),
        checkpoint: parse(&op.checkpoint),
        created_at: op.created_at,
        message: op.message.as_deref(),
        operation_id: &op.id,
        result: op.result.as_deref().map(parse),
        status: op.status,
        tool: op.tool.as_deref(),
        updated_at: op.updated_at,
    })
    .unwrap_or_default()
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
        store::OperationStatus::Cancelling => format!(
            "Operation {} is being cancelled: the step under way ends and no further step starts; get_operation then shows what was done and what was not.",
            op.id
        ),
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
        Some(op)
            if ctx.caller.scope.all_changes
                || op.person == Some(ctx.caller.authority.person.id) =>
        {
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
