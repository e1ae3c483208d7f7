//! Protocol tasks as the store keeps them, turned into what the MCP edge answers.

use chrono::{TimeZone, Utc};
use mcp::{Settle, TaskRecord, model::TaskStatus};
use serde_json::{Map, Value};
use store::{ProtocolTask, Store};

/// The error of a task whose server stopped while it ran (JSON-RPC internal error).
pub(crate) const STOPPED: &str = r#"{"code":-32603,"message":"the server running this task stopped before it finished; if the call changed something, the audit log shows it; call the tool again"}"#;

fn iso(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub(crate) fn record(task: ProtocolTask) -> TaskRecord {
    let status = match task.status.as_str() {
        "completed" => TaskStatus::Completed,
        "failed" => TaskStatus::Failed,
        "cancelled" => TaskStatus::Cancelled,
        _ => TaskStatus::Working,
    };
    let outcome = task
        .outcome
        .as_deref()
        .and_then(|o| serde_json::from_str::<Map<String, Value>>(o).ok());
    TaskRecord {
        id: task.id,
        status,
        message: task.message,
        created_at: iso(task.created_at),
        updated_at: iso(task.updated_at),
        ttl_ms: u64::try_from(task.ttl_ms).unwrap_or_default(),
        outcome,
    }
}

pub(crate) async fn settle(store: &Store, id: &str, settle: Settle) -> Result<bool, store::Error> {
    let (completed, outcome) = match settle {
        Settle::Beat { message } => return store.beat_protocol_task(id, message.as_deref()).await,
        Settle::Completed(result) => (true, result),
        Settle::Failed(error) => (false, error),
    };
    let text = Value::Object(outcome).to_string();
    store.finish_protocol_task(id, completed, &text).await
}
