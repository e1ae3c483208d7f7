//! What a running tool call may say back to its client while it works: progress, log
//! messages, and questions (elicitation, sampling) the client answers on a later message.
//!
//! No session: over HTTP the messages travel on the SSE stream of the call's own POST, over
//! stdio on stdout. A client's answer to a question arrives as a JSON-RPC response (another
//! POST, or a line on stdin) and is matched by an unguessable id that belongs to one caller.

use std::{
    collections::HashMap,
    hash::{BuildHasher, Hasher},
    sync::Arc,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::{Era, asker::Asker, tasks::ProgressSink};

/// Serialized JSON-RPC messages (notifications, server requests) for the caller's transport.
pub type Outbox = mpsc::UnboundedSender<Vec<u8>>;

/// How long a question waits for its answer before the call goes on without one.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);
/// At most this many callers are remembered (their log level and capabilities).
const REMEMBERED: usize = 10_000;

/// Per-process memory shared by every transport: open questions, and what each caller said
/// in its last `initialize` and `logging/setLevel` (the legacy era carries them once, not
/// per request). Keyed by an owner number the transport derives from the credential.
pub struct Peers {
    salt: u64,
    next: AtomicU64,
    waiting: Mutex<HashMap<String, Waiting>>,
    remembered: Mutex<HashMap<u64, Remembered>>,
    /// The protocol tasks whose calls run in this process, to stop on `tasks/cancel`.
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

/// An open question: the owner who may answer it, and where the answer goes.
type Waiting = (u64, oneshot::Sender<Map<String, Value>>);

#[derive(Clone, Default)]
struct Remembered {
    level: Option<LogLevel>,
    capabilities: Option<Value>,
}

impl Default for Peers {
    fn default() -> Peers {
        let random = || {
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        };
        Peers {
            salt: random() ^ random().rotate_left(32),
            next: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            remembered: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
        }
    }
}

impl Peers {
    /// The owner number of a credential: a keyed hash, so the credential itself is not kept.
    pub fn owner_of(&self, credential: Option<&str>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write_u64(self.salt);
        h.write(credential.unwrap_or("").as_bytes());
        h.finish()
    }

    fn remember(&self, owner: u64, change: impl FnOnce(&mut Remembered)) {
        let mut map = self.remembered.lock();
        if map.len() >= REMEMBERED && !map.contains_key(&owner) {
            map.clear();
        }
        change(map.entry(owner).or_default());
    }

    pub(crate) fn set_level(&self, owner: u64, level: LogLevel) {
        self.remember(owner, |r| r.level = Some(level));
    }

    pub(crate) fn set_capabilities(&self, owner: u64, capabilities: Value) {
        self.remember(owner, |r| r.capabilities = Some(capabilities));
    }

    fn recalled(&self, owner: u64) -> Remembered {
        self.remembered
            .lock()
            .get(&owner)
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn start_running(&self, task: &str, handle: tokio::task::AbortHandle) {
        self.running.lock().insert(task.to_owned(), handle);
    }

    pub(crate) fn stop_running(&self, task: &str) {
        self.running.lock().remove(task);
    }

    /// Stops a task's call when it runs in this process.
    pub(crate) fn abort_running(&self, task: &str) {
        if let Some(handle) = self.running.lock().remove(task) {
            handle.abort();
        }
    }

    /// Hands a client's response to the question waiting for it. `false` when no question
    /// of this owner has that id (unknown, answered, timed out, or someone else's).
    pub(crate) fn answer(&self, owner: u64, id: &Value, response: Map<String, Value>) -> bool {
        let Some(id) = id.as_str() else { return false };
        let mut waiting = self.waiting.lock();
        match waiting.get(id) {
            Some((o, _)) if *o == owner => {}
            _ => return false,
        }
        let Some((_, tx)) = waiting.remove(id) else {
            return false;
        };
        tx.send(response).is_ok()
    }
}

/// Why a question got no answer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AskError {
    #[error(
        "the client cannot answer questions here (it did not declare {0}, or the call was not streamed)"
    )]
    Unsupported(&'static str),
    #[error("the client did not answer in time")]
    TimedOut,
    #[error("the client answered with an error: {0}")]
    Refused(String),
    /// 2026-07-28: the question goes back to the client as an `input_required` result.
    #[error("the question goes back to the client, which calls again with the answer")]
    Pending,
}

/// The syslog severities of MCP logging, least severe first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const NAMES: &'static str =
        "debug, info, notice, warning, error, critical, alert, emergency";
}

/// A call's progress and log messages, owned: what a host hands to work it does on its own.
#[derive(Clone, Debug)]
pub struct Notifier {
    out: Option<Outbox>,
    progress_token: Option<Value>,
    level: Option<LogLevel>,
    sink: Option<ProgressSink>,
}

impl Notifier {
    /// `notifications/progress`, when the request carried a progress token.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.sink {
            sink.record(progress, total, message);
        }
        if let Some(out) = &self.out {
            progress_to(out, self.progress_token.as_ref(), progress, total, message);
        }
    }

    /// `notifications/message`, when the client asked for this level or a lower one.
    pub fn log(&self, level: LogLevel, logger: &str, data: Value) {
        if let Some(out) = &self.out {
            log_to(out, self.level, level, logger, data);
        }
    }
}

fn send_to(out: &Outbox, message: &Value) {
    let _ = out.send(serde_json::to_vec(message).unwrap_or_default());
}

fn progress_to(
    out: &Outbox,
    token: Option<&Value>,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) {
    let Some(token) = token else { return };
    let mut params = json!({ "progressToken": token, "progress": progress });
    if let Some(total) = total {
        params["total"] = total.into();
    }
    if let Some(message) = message {
        params["message"] = message.into();
    }
    send_to(
        out,
        &json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": params }),
    );
}

fn log_to(out: &Outbox, wanted: Option<LogLevel>, level: LogLevel, logger: &str, data: Value) {
    if wanted.is_none_or(|wanted| level < wanted) {
        return;
    }
    send_to(
        out,
        &json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": { "level": level, "logger": logger, "data": data },
        }),
    );
}

/// One request's link back to its client.
pub struct Context<'a> {
    pub(crate) era: Era,
    pub(crate) owner: u64,
    pub(crate) peers: Option<&'a Arc<Peers>>,
    pub(crate) out: Option<Outbox>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) level: Option<LogLevel>,
    pub(crate) capabilities: Value,
    /// 2026-07-28: the answers a retry carries (`inputResponses`, `requestState`), read only
    /// when the request has either.
    pub(crate) answers: Option<Map<String, Value>>,
    /// A protocol task's call: where its progress becomes the task's status message.
    pub(crate) sink: Option<ProgressSink>,
}

impl<'a> Context<'a> {
    /// A context that can say nothing back (REST mirror, tests).
    pub fn silent() -> Context<'static> {
        Context {
            era: Era::Legacy,
            owner: 0,
            peers: None,
            out: None,
            progress_token: None,
            level: None,
            capabilities: Value::Null,
            answers: None,
            sink: None,
        }
    }

    pub(crate) fn new(
        era: Era,
        owner: u64,
        peers: &'a Arc<Peers>,
        out: Option<Outbox>,
        params: &Map<String, Value>,
    ) -> Context<'a> {
        let meta = params.get("_meta").and_then(Value::as_object);
        let progress_token = meta
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_number())
            .cloned();
        let (level, capabilities) = match era {
            Era::Modern => (
                meta.and_then(|m| m.get("io.modelcontextprotocol/logLevel"))
                    .and_then(|l| serde_json::from_value(l.clone()).ok()),
                meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
            Era::Legacy => {
                let r = peers.recalled(owner);
                (r.level, r.capabilities.unwrap_or(Value::Null))
            }
        };
        let answers = (era == Era::Modern
            && (params.contains_key("inputResponses") || params.contains_key("requestState")))
        .then(|| crate::asker::answers(params));
        Context {
            era,
            owner,
            peers: Some(peers),
            out,
            progress_token,
            level,
            capabilities,
            answers,
            sink: None,
        }
    }

    pub fn era(&self) -> Era {
        self.era
    }

    /// `notifications/progress`, when the request carried a progress token.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.sink {
            sink.record(progress, total, message);
        }
        if let Some(out) = &self.out {
            progress_to(out, self.progress_token.as_ref(), progress, total, message);
        }
    }

    /// `notifications/message`, when the client asked for this level or a lower one. The
    /// caller must not put secrets in `data`.
    pub fn log(&self, level: LogLevel, logger: &str, data: Value) {
        if let Some(out) = &self.out {
            log_to(out, self.level, level, logger, data);
        }
    }

    /// An owned handle for progress and log messages that outlives this borrow, or `None`
    /// when nothing would reach the client (a plain JSON answer, or neither a progress token
    /// nor a log level was given): then nothing is allocated for it.
    pub fn notifier(&self) -> Option<Notifier> {
        let reaches_client =
            self.out.is_some() && (self.progress_token.is_some() || self.level.is_some());
        if !reaches_client && self.sink.is_none() {
            return None;
        }
        Some(Notifier {
            out: self.out.clone().filter(|_| reaches_client),
            progress_token: self.progress_token.clone(),
            level: self.level,
            sink: self.sink.clone(),
        })
    }

    /// Whether the client declared a capability (`elicitation`, `sampling`, ...).
    pub fn client_can(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }

    /// Asks the client a legacy-era question (`elicitation/create`, `sampling/createMessage`)
    /// on the call's own stream and waits for the answer.
    pub async fn ask(
        &self,
        method: &str,
        capability: &'static str,
        params: Value,
    ) -> Result<Map<String, Value>, AskError> {
        let (Some(peers), Some(out)) = (self.peers, &self.out) else {
            return Err(AskError::Unsupported(capability));
        };
        if self.era != Era::Legacy || !self.client_can(capability) {
            return Err(AskError::Unsupported(capability));
        }
        ask_on(peers, self.owner, out, method, params).await
    }

    /// An owned handle for questions to the person, for a call that may ask (see
    /// [`Asker`]); made only when the host asks for one, so other calls pay nothing for it.
    pub fn asker(&self) -> Asker {
        Asker::new(
            self.era,
            self.owner,
            self.peers.cloned(),
            self.out.clone(),
            self.client_can("elicitation"),
            self.answers.clone().unwrap_or_default(),
        )
    }
}

/// Sends a legacy-era question on `out` and waits for the answer of `owner`'s client.
pub(crate) async fn ask_on(
    peers: &Peers,
    owner: u64,
    out: &Outbox,
    method: &str,
    params: Value,
) -> Result<Map<String, Value>, AskError> {
    let n = peers.next.fetch_add(1, Ordering::Relaxed);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write_u64(peers.salt);
    h.write_u64(n);
    let id = format!("mq-{n}-{:016x}", h.finish());
    let (tx, rx) = oneshot::channel();
    peers.waiting.lock().insert(id.clone(), (owner, tx));
    let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let _ = out.send(serde_json::to_vec(&request).unwrap_or_default());
    let answer = tokio::time::timeout(ANSWER_TIMEOUT, rx).await;
    peers.waiting.lock().remove(&id);
    let mut response = match answer {
        Ok(Ok(r)) => r,
        _ => return Err(AskError::TimedOut),
    };
    if let Some(Value::Object(result)) = response.remove("result") {
        return Ok(result);
    }
    let why = response
        .get("error")
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("no result");
    Err(AskError::Refused(why.chars().take(200).collect()))
}
