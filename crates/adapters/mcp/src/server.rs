//! One external server: its connection (a child process restarted with back-off, or a
//! Streamable HTTP session), its current tool list, and calls made on it.

use std::{
    collections::{HashMap, VecDeque},
    process::Stdio,
    sync::{
        Arc, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;
use rmcp::{
    ClientHandler, RoleClient, ServiceExt,
    model::{
        ClientCapabilities, ClientConfig, GetPromptRequestParams, Implementation,
        ProgressNotificationParam, ReadResourceRequestParams, Tool,
    },
    service::{NotificationContext, Peer, RunningServiceCancellationToken, ServiceError},
    transport::{
        StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Map, Value};
use tokio::{io::AsyncBufReadExt, time::Instant};

mod call;
mod sse;

pub use call::Progress;

use crate::{Error, Launch, RemoteHints, RemoteTool, ServerConfig, redact};
use domain::Secret;

/// How many of a child's last stderr lines are kept, to say why it is down.
const STDERR_KEPT: usize = 5;
/// The longest wait between two attempts to start a server.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A connection that stayed up this long starts the back-off again from its shortest wait.
const STABLE: Duration = Duration::from_secs(30);

/// One external server, supervised.
pub struct Server {
    config: ServerConfig,
    state: Mutex<State>,
    /// Bumped whenever its tool list changes (connected, list changed, gone down).
    version: AtomicU64,
    /// One connection attempt at a time.
    attempt: tokio::sync::Mutex<()>,
    /// Calls waiting for the server's progress, by the progress token each was sent with.
    pub(crate) progress: Mutex<HashMap<String, Progress>>,
}

struct State {
    up: Option<Up>,
    /// Connections made so far, so a watcher of an old one never marks a newer one down.
    generation: u64,
    /// Failures in a row: the back-off doubles with each.
    failures: u32,
    next_attempt: Option<Instant>,
    last_error: Option<String>,
    stderr: VecDeque<String>,
}

struct Up {
    peer: Peer<RoleClient>,
    tools: Arc<Vec<RemoteTool>>,
    since: Instant,
    /// Ends the connection (and so the child) when the server is dropped.
    _stop: Stop,
}

struct Stop(Option<RunningServiceCancellationToken>);

impl Drop for Stop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// What `diagnose` shows of a server.
#[derive(Debug, Clone)]
pub struct Status {
    pub up: bool,
    pub tools: usize,
    pub last_error: Option<String>,
    /// Its last stderr lines, secrets scrubbed.
    pub stderr: Vec<String>,
}

/// Hears the server's notifications: a changed tool list is read again.
struct Listener {
    server: Weak<Server>,
    generation: u64,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(server) = self.server.upgrade() else {
            return;
        };
        let generation = self.generation;
        tokio::spawn(async move { server.reread(generation, &context.peer).await });
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(server) = self.server.upgrade() {
            server.hear_progress(&params);
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("marquee", env!("CARGO_PKG_VERSION")),
        )
    }
}

impl Server {
    pub fn new(config: ServerConfig) -> Arc<Server> {
        Arc::new(Server {
            config,
            state: Mutex::new(State {
                up: None,
                generation: 0,
                failures: 0,
                next_attempt: None,
                last_error: None,
                stderr: VecDeque::new(),
            }),
            version: AtomicU64::new(0),
            attempt: tokio::sync::Mutex::new(()),
            progress: Mutex::new(HashMap::new()),
        })
    }

    pub fn id(&self) -> &str {
        &self.config.id
    }

    /// Its tools while it is up; `None` while it is down.
    pub fn tools(&self) -> Option<Arc<Vec<RemoteTool>>> {
        self.state.lock().up.as_ref().map(|u| u.tools.clone())
    }

    /// Changes whenever its tool list does.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn status(&self) -> Status {
        let s = self.state.lock();
        Status {
            up: s.up.is_some(),
            tools: s.up.as_ref().map_or(0, |u| u.tools.len()),
            last_error: s.last_error.clone(),
            stderr: s.stderr.iter().cloned().collect(),
        }
    }

    /// One supervision pass: connects when the server is down and its back-off has passed.
    pub async fn tick(self: &Arc<Self>) {
        {
            let s = self.state.lock();
            if s.up.is_some() || s.next_attempt.is_some_and(|t| Instant::now() < t) {
                return;
            }
        }
        let Ok(_one) = self.attempt.try_lock() else {
            return;
        };
        let secs = self.config.timeout.as_secs();
        let outcome = match tokio::time::timeout(self.config.timeout, self.connect()).await {
            Ok(outcome) => outcome,
            Err(_) => Err(format!("it did not finish starting within {secs} s")),
        };
        if let Err(why) = outcome {
            let why = redact::line(&why, &self.config.secrets);
            tracing::warn!(target: "marquee::federated", instance = %self.config.id, error = %why, "the MCP server could not be reached");
            self.failed(why);
        }
    }

    async fn connect(self: &Arc<Self>) -> Result<(), String> {
        let generation = self.state.lock().generation + 1;
        let listener = Listener {
            server: Arc::downgrade(self),
            generation,
        };
        let running = match &self.config.launch {
            Launch::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).kill_on_drop(true);
                for (name, value) in env {
                    cmd.env(name, value.expose());
                }
                let (transport, stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("{command} could not be started: {e}"))?;
                if let Some(stderr) = stderr {
                    self.follow(stderr);
                }
                listener
                    .serve(transport)
                    .await
                    .map_err(|e| format!("it did not complete the MCP handshake: {e}"))?
            }
            Launch::Http { url, headers } => {
                let mut map = http::HeaderMap::new();
                for (name, value) in headers {
                    let name = http::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| format!("the header name {name} is not valid"))?;
                    let value = http::HeaderValue::from_str(value.expose())
                        .map_err(|_| format!("the value of the header {name} is not valid"))?;
                    map.insert(name, value);
                }
                // The one outbound client builder; no total time limit, since a server's
                // notification stream stays open (each call has its own limit).
                let timeouts = httpx::Timeouts {
                    connect: Duration::from_secs(3),
                    request: Duration::from_secs(24 * 3600),
                };
                let client = httpx::builder(timeouts)
                    .build()
                    .map_err(|e| format!("no HTTP client: {e}"))?;
                let config = StreamableHttpClientTransportConfig::with_uri(url.clone())
                    .custom_headers(
                        map.clone()
                            .into_iter()
                            .filter_map(|(k, v)| Some((k?, v)))
                            .collect(),
                    );
                let streamable = StreamableHttpClientTransport::with_client(client.clone(), config);
                match listener.serve(streamable).await {
                    Ok(running) => running,
                    Err(streamable) => {
                        // A server older than Streamable HTTP: its URL opens an event stream.
                        let max = self.config.max_answer_bytes.saturating_mul(2);
                        let legacy = sse::connect(client, url, map, max).await.map_err(|e| {
                            format!(
                                "it spoke neither Streamable HTTP ({streamable}) nor HTTP+SSE ({e})"
                            )
                        })?;
                        let listener = Listener {
                            server: Arc::downgrade(self),
                            generation,
                        };
                        listener
                            .serve(legacy)
                            .await
                            .map_err(|e| format!("it did not complete the MCP handshake: {e}"))?
                    }
                }
            }
        };
        let peer = running.peer().clone();
        let tools = list(&peer, &self.config.secrets).await?;
        let count = tools.len();
        {
            let mut s = self.state.lock();
            s.generation = generation;
            s.up = Some(Up {
                peer,
                tools: Arc::new(tools),
                since: Instant::now(),
                _stop: Stop(Some(running.cancellation_token())),
            });
            s.last_error = None;
            s.next_attempt = None;
        }
        self.version.fetch_add(1, Ordering::AcqRel);
        tracing::info!(target: "marquee::federated", instance = %self.config.id, tools = count, "the MCP server is up");
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            if let Some(server) = weak.upgrade() {
                server.went_down(generation, "its connection closed".into());
            }
        });
        Ok(())
    }

    /// Keeps the child's stderr lines in the log under the instance id, secrets scrubbed.
    fn follow(self: &Arc<Self>, stderr: tokio::process::ChildStderr) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Some(server) = weak.upgrade() else {
                    return;
                };
                let line = redact::line(&line, &server.config.secrets);
                tracing::info!(target: "marquee::federated", instance = %server.config.id, "stderr: {line}");
                let mut s = server.state.lock();
                if s.stderr.len() == STDERR_KEPT {
                    s.stderr.pop_front();
                }
                s.stderr.push_back(line);
            }
        });
    }

    async fn reread(&self, generation: u64, peer: &Peer<RoleClient>) {
        match list(peer, &self.config.secrets).await {
            Ok(tools) => {
                let mut s = self.state.lock();
                if s.generation != generation {
                    return;
                }
                if let Some(up) = s.up.as_mut() {
                    up.tools = Arc::new(tools);
                }
                drop(s);
                self.version.fetch_add(1, Ordering::AcqRel);
                tracing::info!(target: "marquee::federated", instance = %self.config.id, "the MCP server's tool list changed");
            }
            Err(e) => {
                let error = redact::line(&e.to_string(), &self.config.secrets);
                tracing::warn!(target: "marquee::federated", instance = %self.config.id, %error, "the changed tool list could not be read")
            }
        }
    }

    fn went_down(&self, generation: u64, why: String) {
        let mut s = self.state.lock();
        if s.generation != generation || s.up.is_none() {
            return;
        }
        if s.up.as_ref().is_some_and(|u| u.since.elapsed() >= STABLE) {
            s.failures = 0;
        }
        s.up = None;
        drop(s);
        tracing::warn!(target: "marquee::federated", instance = %self.config.id, "the MCP server went down: {why}");
        self.failed(why);
    }

    fn failed(&self, why: String) {
        let mut s = self.state.lock();
        s.failures = s.failures.saturating_add(1);
        let wait = Duration::from_secs(1 << s.failures.saturating_sub(1).min(5)).min(MAX_BACKOFF);
        s.next_attempt = Some(Instant::now() + wait);
        s.last_error = Some(why);
        drop(s);
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The error a call answers while the server is down: why, and its last stderr line.
    pub fn down(&self) -> Error {
        let s = self.state.lock();
        let mut why = String::new();
        if let Some(e) = &s.last_error {
            why = format!(" ({e})");
        }
        if let Some(last) = s.stderr.back() {
            why.push_str(&format!("; its last stderr line: {last}"));
        }
        Error::Down {
            id: self.config.id.clone(),
            why,
        }
    }

    /// The connection's peer and generation, or the error a call answers while it is down.
    fn peer(&self) -> Result<(Peer<RoleClient>, u64), Error> {
        let s = self.state.lock();
        match &s.up {
            Some(up) => Ok((up.peer.clone(), s.generation)),
            None => {
                drop(s);
                Err(self.down())
            }
        }
    }

    /// Awaits `work` within the call timeout and its answer within the size limit: the answer
    /// as JSON bytes with the secrets Marquee handed the server scrubbed, and its size before.
    /// A closed transport marks the server down.
    async fn bounded<T: serde::Serialize>(
        &self,
        generation: u64,
        work: impl std::future::Future<Output = Result<T, ServiceError>>,
    ) -> Result<(Vec<u8>, usize), Error> {
        let id = self.config.id.clone();
        let answer = match tokio::time::timeout(self.config.timeout, work).await {
            Err(_) => {
                let secs = self.config.timeout.as_secs();
                return Err(Error::Timeout { id, secs });
            }
            Ok(Err(ServiceError::McpError(e))) => {
                let message = redact::line(&e.message, &self.config.secrets);
                return Err(Error::Refused { id, message });
            }
            Ok(Err(e)) => {
                let message = redact::line(&e.to_string(), &self.config.secrets);
                if matches!(e, ServiceError::TransportClosed) {
                    self.went_down(generation, message.clone());
                }
                return Err(Error::Failed { id, message });
            }
            Ok(Ok(answer)) => answer,
        };
        let bytes = serde_json::to_vec(&answer).map_err(|e| Error::Failed {
            id: id.clone(),
            message: e.to_string(),
        })?;
        let limit = self.config.max_answer_bytes;
        if bytes.len() > limit {
            let bytes = bytes.len();
            return Err(Error::TooLarge { id, bytes, limit });
        }
        let size = bytes.len();
        Ok((redact::json(bytes, &self.config.secrets), size))
    }
}

/// A request of a server's resources or prompts, passed through as the server answers it.
#[derive(Debug, Clone)]
pub enum Ask {
    /// `resources/list`, every page: `{"resources": [...]}`.
    ListResources,
    /// `resources/read` of a URI as the server names it.
    ReadResource(String),
    /// `prompts/list`, every page: `{"prompts": [...]}`.
    ListPrompts,
    /// `prompts/get` of a prompt as the server names it, with its arguments.
    GetPrompt(String, Option<Map<String, Value>>),
}

impl Server {
    /// Asks the server `what` (see [`Ask`]): its answer as JSON, within the call timeout and
    /// the answer size limit, with the secrets Marquee handed the server scrubbed.
    pub async fn ask(&self, what: Ask) -> Result<Value, Error> {
        let (peer, generation) = self.peer()?;
        let id = self.config.id.clone();
        let work = async {
            Ok::<Value, ServiceError>(match what {
                Ask::ListResources => {
                    serde_json::json!({"resources": serde_json::to_value(peer.list_all_resources().await?).unwrap_or_default()})
                }
                Ask::ReadResource(uri) => serde_json::to_value(
                    peer.read_resource(ReadResourceRequestParams::new(uri))
                        .await?,
                )
                .unwrap_or_default(),
                Ask::ListPrompts => {
                    serde_json::json!({"prompts": serde_json::to_value(peer.list_all_prompts().await?).unwrap_or_default()})
                }
                Ask::GetPrompt(name, arguments) => {
                    let mut params = GetPromptRequestParams::new(name);
                    if let Some(arguments) = arguments {
                        params = params.with_arguments(arguments);
                    }
                    serde_json::to_value(peer.get_prompt(params).await?).unwrap_or_default()
                }
            })
        };
        let (scrubbed, _) = self.bounded(generation, work).await?;
        serde_json::from_slice(&scrubbed).map_err(|e| Error::Failed {
            id,
            message: e.to_string(),
        })
    }
}

/// Longest title and description kept of an external tool: what a model reads, and what each
/// change of its list keeps for the life of the process.
const MAX_TITLE_CHARS: usize = 200;
const MAX_DESCRIPTION_CHARS: usize = 2000;

async fn list(peer: &Peer<RoleClient>, secrets: &[Secret]) -> Result<Vec<RemoteTool>, String> {
    let tools = peer
        .list_all_tools()
        .await
        .map_err(|e| format!("its tools could not be listed: {e}"))?;
    Ok(tools.into_iter().map(|t| remote(t, secrets)).collect())
}

/// A listed tool as Marquee serves it: the secrets Marquee handed the server scrubbed from its
/// title, description and schema, and the texts bounded.
fn remote(tool: Tool, secrets: &[Secret]) -> RemoteTool {
    let a = tool.annotations.clone().unwrap_or_default();
    let hints = RemoteHints {
        read_only: a.read_only_hint.unwrap_or(false),
        destructive: a.destructive_hint.unwrap_or(true),
        idempotent: a.idempotent_hint.unwrap_or(false),
        open_world: a.open_world_hint.unwrap_or(true),
    };
    let text =
        |t: &str, max: usize| redact::line(&t.chars().take(max).collect::<String>(), secrets);
    let schema = serde_json::to_vec(tool.input_schema.as_ref())
        .ok()
        .map(|bytes| redact::json(bytes, secrets))
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    RemoteTool {
        name: tool.name.to_string(),
        title: tool
            .title
            .clone()
            .or(a.title)
            .map(|t| text(&t, MAX_TITLE_CHARS)),
        description: tool.description.map(|d| text(&d, MAX_DESCRIPTION_CHARS)),
        input_schema: schema,
        hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_tool_keeps_no_secret_and_no_endless_text() {
        let secrets = [Secret::new("hunter22-token")];
        let schema: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {"key": {"type": "string", "default": "hunter22-token"}}
        }))
        .unwrap();
        let long = format!("Uses hunter22-token. {}", "x".repeat(5000));
        let tool = remote(
            Tool::new("echo", long, std::sync::Arc::new(schema)),
            &secrets,
        );
        let description = tool.description.unwrap();
        assert!(!description.contains("hunter22"), "{description}");
        assert!(description.chars().count() <= MAX_DESCRIPTION_CHARS);
        assert!(
            !Value::Object(tool.input_schema)
                .to_string()
                .contains("hunter22")
        );
    }
}
