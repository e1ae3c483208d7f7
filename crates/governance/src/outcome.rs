//! How a call's work ends: its panics contained, and a write's audit entry finished with its
//! outcome (a refused call gives its allowance unit back; an uncertain one keeps it).

use std::{future::Future, panic::AssertUnwindSafe};

use futures::FutureExt;
use serde_json::Value;
use store::{AuditId, AuditStatus, Store};

use crate::{
    ErrorCode, ToolError,
    contract::{Meta, Output},
};

/// Runs a tool's work with panics contained.
pub(crate) async fn contained(
    meta: Meta,
    work: impl Future<Output = Result<Output, ToolError>>,
) -> Result<Output, ToolError> {
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(_) => {
            tracing::error!(tool = meta.name, "tool panicked");
            Err(failed_unexpectedly(meta))
        }
    }
}

pub(crate) fn failed_unexpectedly(meta: Meta) -> ToolError {
    ToolError::new(
        ErrorCode::Internal,
        format!(
            "{} failed unexpectedly; the server log has the details",
            meta.name
        ),
    )
}

/// Finishes the audit entry with the outcome. A refused call (bad input, denied...) did
/// nothing, so it gives back its allowance unit; an uncertain outcome keeps it. `external`:
/// the call went to an external MCP server (see [`audit_message`]).
pub(crate) async fn finish(
    store: &Store,
    meta: Meta,
    id: AuditId,
    reserved: bool,
    external: bool,
    outcome: &Result<Output, ToolError>,
) {
    let message = audit_message(outcome, external);
    let done = match outcome {
        Ok(_) => {
            store
                .audit_finish(id, AuditStatus::Applied, Some(&message))
                .await
        }
        Err(e) if reserved && e.code.nothing_happened() => {
            store.audit_fail_released(id, &message).await
        }
        Err(_) => {
            store
                .audit_finish(id, AuditStatus::Failed, Some(&message))
                .await
        }
    };
    if let Err(e) = done {
        tracing::error!(error = %e, tool = meta.name, "could not finish the audit entry");
    }
}

/// What an audit entry keeps of an outcome: its summary or its error's message; for a call to
/// an external MCP server (`external`), followed by the size of the arguments sent and whether
/// the server's answer had `isError` (read from the answer's `arguments_bytes` and `is_error`;
/// "no answer" when the call got none).
pub fn audit_message(outcome: &Result<Output, ToolError>, external: bool) -> String {
    let (text, data) = match outcome {
        Ok(out) if external => (out.summary.as_str(), out.data()),
        Err(e) if external => (e.message.as_str(), e.data.clone()),
        Ok(out) => return out.summary.clone(),
        Err(e) => return e.message.clone(),
    };
    let Some(bytes) = data.get("arguments_bytes").and_then(Value::as_u64) else {
        return text.to_string();
    };
    let is_error = data
        .get("is_error")
        .and_then(Value::as_bool)
        .map_or_else(|| "no answer".to_string(), |b| b.to_string());
    format!("{text} [arguments: {bytes} bytes; isError: {is_error}]")
}
