//! An answer written from its typed data as a JSON tree: the same keys (sorted) and values a
//! tree built by hand had, and the schema the tool declares (`Tool::DATA`) is generated from
//! the same type, so the two cannot drift.

use serde::Serialize;

use governance::{ErrorCode, Output, ToolError};

/// The answer `summary` over `data`, as a tree.
pub(crate) fn output(
    summary: impl Into<String>,
    data: &impl Serialize,
) -> Result<Output, ToolError> {
    let tree = serde_json::to_value(data).map_err(|e| {
        tracing::error!(error = %e, "a tool answer could not be serialized");
        ToolError::new(
            ErrorCode::Internal,
            "the answer could not be written; the server log has the details",
        )
    })?;
    Ok(Output::new(summary, tree))
}

/// `data` as a tree, for an answer that is built further before it is handed out.
pub(crate) fn tree(data: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(data).unwrap_or_default()
}
