//! Long calls as protocol tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663) of
//! the 2026-07-28 revision, the design the pinned rmcp and the specification share.
//!
//! A `tools/call` of a tool that supports tasks, from a request that declared the extension in
//! its `_meta` client capabilities, starts the call at once. A call that answers within the
//! tool's shortcut is answered as usual; a longer one becomes a task the host keeps (durably,
//! bound to the caller, so any replica answers for it), and the client gets the task handle at
//! once and polls `tasks/get`, which inlines the result when it is done. `tasks/cancel` stops a
//! call the host says may be stopped. Progress the call reports becomes the task's status
//! message; over stdio, whose channel stays open, it also still reaches the client as
//! `notifications/progress`. A task's call cannot ask the person questions: it runs without
//! the client's elicitation and sampling.

use std::{sync::Arc, time::Duration};

use parking_lot::Mutex;
use rmcp::model::{ErrorCode, TaskStatus};
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use crate::{
    RenderedResult, ToolHost,
    classify::META_CAPABILITIES,
    context::{Context, Peers},
    dispatch::{Era, Link, MISSING_CLIENT_CAPABILITY, RpcError},
    wire::COMPLETE,
};

/// The extension's identifier, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// How long a task is kept after it was created.
pub const TASK_TTL_MS: u64 = 3_600_000;
/// How often a client is asked to poll a working task.
pub const POLL_INTERVAL_MS: u64 = 1_000;
/// How often a running task tells the host it is still running (and its latest progress).
pub const HEARTBEAT: Duration = Duration::from_secs(2);
/// A working task without a heartbeat for this long was running on a server that stopped:
/// the host reports it failed.
pub const STALE: Duration = Duration::from_secs(30);
/// How long a host's task-supporting call may take to be answered as a plain result.
pub const SHORTCUT: Duration = Duration::from_secs(1);
/// The longest task id a request may name.
const MAX_TASK_ID: usize = 100;

/// How a tool relates to tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answered as a plain result.
    Never,
    /// A task when the request declared the extension and the call did not answer within
    /// `shortcut`; a plain result otherwise. `stoppable`: `tasks/cancel` stops the call (a
    /// read); otherwise the call runs to its end once begun (a write).
    Optional { shortcut: Duration, stoppable: bool },
    /// Always a task; a request that did not declare the extension is refused (-32021).
    Required { stoppable: bool },
}

impl TaskSupport {
    fn stoppable(self) -> bool {
        match self {
            TaskSupport::Never => false,
            TaskSupport::Optional { stoppable, .. } | TaskSupport::Required { stoppable } => {
                stoppable
            }
        }
    }
}

/// One task as its host keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    pub id: String,
    pub status: TaskStatus,
    pub message: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// ISO 8601.
    pub updated_at: String,
    pub ttl_ms: u64,
    /// `completed`: the tool's result; `failed`: the JSON-RPC error object.
    pub outcome: Option<Map<String, Value>>,
}

/// What a task's runner tells its host.
#[derive(Debug)]
pub enum Settle {
    /// Still running, with its latest progress message.
    Beat { message: Option<String> },
    /// The call answered (a tool that ran and failed is `completed` with `isError`).
    Completed(Map<String, Value>),
    /// The call failed at the protocol level: the JSON-RPC error object.
    Failed(Map<String, Value>),
}

/// Whether the request declared the tasks extension in its `_meta` client capabilities.
pub(crate) fn declared(params: &Map<String, Value>) -> bool {
    params
        .get("_meta")
        .and_then(|m| m.get(META_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
}

pub(crate) fn missing_capability() -> RpcError {
    RpcError {
        code: MISSING_CLIENT_CAPABILITY,
        message: format!("this request needs the client capability {TASKS_EXTENSION}"),
        data: Some(json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } })),
    }
}

/// One call's progress, as the task's status message.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgressSink(Arc<Mutex<Option<String>>>);

impl ProgressSink {
    pub(crate) fn record(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let done = match total {
            Some(total) if total > 0.0 => format!("{progress}/{total}"),
            _ => format!("{progress}"),
        };
        let line = match message {
            Some(m) => format!("{done}: {}", m.chars().take(200).collect::<String>()),
            None => done,
        };
        *self.0.lock() = Some(line);
    }

    fn latest(&self) -> Option<String> {
        self.0.lock().clone()
    }
}

/// The call a `tools/call` runs, whoever serves the tool (the host or a conformance fixture).
pub(crate) type Work = JoinHandle<Result<RenderedResult, RpcError>>;

/// Starts `work` (already spawned) as a task: a plain answer when it finishes within its
/// shortcut, else a task the host keeps and this process settles.
pub(crate) async fn start<H: ToolHost>(
    host: &Arc<H>,
    caller: &H::Caller,
    tool: &str,
    mut work: Work,
    sink: ProgressSink,
    support: TaskSupport,
    peers: &Arc<Peers>,
) -> Result<Result<RenderedResult, RpcError>, Map<String, Value>> {
    let shortcut = match support {
        TaskSupport::Optional { shortcut, .. } => shortcut,
        _ => Duration::ZERO,
    };
    if !shortcut.is_zero()
        && let Ok(joined) = tokio::time::timeout(shortcut, &mut work).await
    {
        return Ok(joined_outcome(joined));
    }
    let record = match host.create_task(caller, tool, support.stoppable()).await {
        Ok(record) => record,
        Err(e) => {
            // Nothing is lost: the call goes on and is answered as a plain result.
            tracing::error!(error = %e, tool, "a task could not be kept; answering in place");
            return Ok(joined_outcome(work.await));
        }
    };
    peers.start_running(&record.id, work.abort_handle());
    tokio::spawn(settle(
        Arc::clone(host),
        record.id.clone(),
        work,
        sink,
        Arc::clone(peers),
    ));
    let mut handle = task_fields(&record);
    handle.insert("resultType".into(), "task".into());
    Err(handle)
}

fn joined_outcome(
    joined: Result<Result<RenderedResult, RpcError>, tokio::task::JoinError>,
) -> Result<RenderedResult, RpcError> {
    joined.unwrap_or_else(|e| {
        tracing::error!(error = %e, "a tool call stopped before it answered");
        Err(RpcError::internal())
    })
}

/// Waits for a task's call, beating its heartbeat, and writes its outcome.
async fn settle<H: ToolHost>(
    host: Arc<H>,
    id: String,
    mut work: Work,
    sink: ProgressSink,
    peers: Arc<Peers>,
) {
    let mut beat = tokio::time::interval(HEARTBEAT);
    beat.tick().await;
    let outcome = loop {
        tokio::select! {
            joined = &mut work => break joined,
            _ = beat.tick() => {
                let message = sink.latest();
                match host.settle_task(&id, Settle::Beat { message }).await {
                    // Cancelled (here or on another replica), expired, or gone.
                    Ok(false) => {
                        work.abort();
                        peers.stop_running(&id);
                        return;
                    }
                    Ok(true) => {}
                    Err(e) => tracing::warn!(error = %e, task = %id, "task heartbeat not kept"),
                }
            }
        }
    };
    peers.stop_running(&id);
    let settled = match outcome {
        Err(e) if e.is_cancelled() => return, // tasks/cancel stopped it and said so
        Err(e) => {
            tracing::error!(error = %e, task = %id, "a task's call stopped before it answered");
            Settle::Failed(error_object(&RpcError::internal()))
        }
        Ok(Err(e)) => Settle::Failed(error_object(&e)),
        Ok(Ok(result)) => match result_object(&result) {
            Some(result) => Settle::Completed(result),
            None => Settle::Failed(error_object(&RpcError::internal())),
        },
    };
    if let Err(e) = host.settle_task(&id, settled).await {
        tracing::error!(error = %e, task = %id, "a task's outcome could not be kept");
    }
}

fn result_object(result: &RenderedResult) -> Option<Map<String, Value>> {
    if result.is_asking() {
        tracing::error!("a task's call asked a question it cannot ask");
        return None;
    }
    match serde_json::to_value(result.shape(Some(COMPLETE))) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

fn error_object(e: &RpcError) -> Map<String, Value> {
    let mut error = Map::new();
    error.insert("code".into(), e.code.0.into());
    error.insert("message".into(), e.message.clone().into());
    if let Some(data) = &e.data {
        error.insert("data".into(), data.clone());
    }
    error
}

/// The `Task` fields of a record (and, when terminal, its `result` or `error`).
fn task_fields(record: &TaskRecord) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("taskId".into(), record.id.clone().into());
    out.insert(
        "status".into(),
        serde_json::to_value(record.status).unwrap_or_default(),
    );
    if let Some(message) = &record.message {
        out.insert("statusMessage".into(), message.clone().into());
    }
    out.insert("createdAt".into(), record.created_at.clone().into());
    out.insert("lastUpdatedAt".into(), record.updated_at.clone().into());
    out.insert("ttlMs".into(), record.ttl_ms.into());
    if !record.status.is_terminal() {
        out.insert("pollIntervalMs".into(), POLL_INTERVAL_MS.into());
    }
    match (record.status, &record.outcome) {
        (TaskStatus::Completed, Some(result)) => {
            out.insert("result".into(), Value::Object(result.clone()));
        }
        (TaskStatus::Failed, Some(error)) => {
            out.insert("error".into(), Value::Object(error.clone()));
        }
        _ => {}
    }
    out
}

/// `tasks/get`, `tasks/update` and `tasks/cancel`.
pub(crate) async fn method<H: ToolHost>(
    host: &Arc<H>,
    caller: &H::Caller,
    era: Era,
    method: &str,
    params: &Map<String, Value>,
    peers: &Arc<Peers>,
) -> Result<Map<String, Value>, RpcError> {
    if era != Era::Modern || !host.keeps_tasks() {
        return Err(RpcError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        ));
    }
    if !declared(params) {
        return Err(missing_capability());
    }
    let id = match params.get("taskId").and_then(Value::as_str) {
        Some(id) if !id.is_empty() && id.len() <= MAX_TASK_ID => id,
        _ => {
            return Err(RpcError::new(
                ErrorCode::INVALID_PARAMS,
                format!("invalid params: {method} needs a string \"taskId\""),
            ));
        }
    };
    let unknown = || {
        RpcError::new(
            ErrorCode::INVALID_PARAMS,
            "invalid params: no task of yours has that taskId (unknown, expired, or another person's)",
        )
    };
    let failed = |e: crate::HostError| {
        tracing::error!(error = %e, method, "a task could not be read");
        RpcError::internal()
    };
    match method {
        "tasks/get" => match host.get_task(caller, id).await.map_err(failed)? {
            Some(record) => Ok(task_fields(&record)),
            None => Err(unknown()),
        },
        "tasks/update" => {
            if !params.get("inputResponses").is_some_and(Value::is_object) {
                return Err(RpcError::new(
                    ErrorCode::INVALID_PARAMS,
                    "invalid params: tasks/update needs an object \"inputResponses\"",
                ));
            }
            // A task here never waits for input: every answer is for a key it did not ask.
            match host.get_task(caller, id).await.map_err(failed)? {
                Some(_) => Ok(Map::new()),
                None => Err(unknown()),
            }
        }
        _ => match host.cancel_task(caller, id).await.map_err(failed)? {
            Some(stop) => {
                if stop {
                    peers.abort_running(id);
                }
                Ok(Map::new())
            }
            None => Err(unknown()),
        },
    }
}

/// The context a task's call runs with: no questions, progress into `sink` (and to `out`
/// where the channel stays open).
pub(crate) fn context<'a>(
    owner: u64,
    peers: &'a Arc<Peers>,
    link_out: Option<crate::Outbox>,
    params: &Map<String, Value>,
    sink: ProgressSink,
) -> Context<'a> {
    let mut cx = Context::new(Era::Modern, owner, peers, link_out, params);
    cx.capabilities = Value::Null;
    cx.answers = None;
    cx.sink = Some(sink);
    cx
}

/// Splits `Link` into what a spawned call keeps: the outbox only when it stays open.
pub(crate) fn lasting_out(link: &Link<'_>) -> Option<crate::Outbox> {
    if link.tells_list_changes {
        link.out.clone()
    } else {
        None
    }
}
