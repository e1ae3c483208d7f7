//! How a call's work ends: its panics contained, and a write's audit entry finished with its
//! outcome (a refused call gives its allowance unit back; an uncertain one keeps it).

use std::{future::Future, panic::AssertUnwindSafe};

use futures::FutureExt;
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
/// nothing, so it gives back its allowance unit; an uncertain outcome keeps it.
pub(crate) async fn finish(
    store: &Store,
    meta: Meta,
    id: AuditId,
    reserved: bool,
    outcome: &Result<Output, ToolError>,
) {
    let done = match outcome {
        Ok(out) => {
            store
                .audit_finish(id, AuditStatus::Applied, Some(&out.summary))
                .await
        }
        Err(e) if reserved && e.code.nothing_happened() => {
            store.audit_fail_released(id, &e.message).await
        }
        Err(e) => {
            store
                .audit_finish(id, AuditStatus::Failed, Some(&e.message))
                .await
        }
    };
    if let Err(e) = done {
        tracing::error!(error = %e, tool = meta.name, "could not finish the audit entry");
    }
}
