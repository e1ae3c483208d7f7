//! `marquee bridge --url URL`: a stdio MCP server that forwards every request to a remote
//! Marquee over Streamable HTTP, for clients that only speak stdio. rmcp on both sides.
//! The remote's progress and log messages on a call's stream are relayed to the stdio client:
//! progress under the token the stdio client gave that call (none given, none relayed), log
//! messages at or above the level the stdio client asked for (none asked, none relayed).

#![allow(deprecated)] // logging is deprecated in rmcp (SEP-2577) but still part of both eras

use std::{collections::HashMap, sync::Arc};

use rmcp::{
    ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequest, CallToolRequestParams, CallToolResponse, ClientRequest,
        CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
        Implementation, InitializeResult, JsonRpcMessage, ListPromptsResult,
        ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel,
        LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
        ProgressToken, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
        ServerConfig, ServerNotification, ServerResult,
    },
    service::{
        Peer, PeerRequestOptions, RequestContext, RunningService, RxJsonRpcMessage, ServiceError,
        TxJsonRpcMessage,
    },
    transport::{
        StreamableHttpClientTransport, Transport,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};

/// Forwards to the remote server's peer; answers `initialize` with the remote's own info.
struct Forward {
    remote: RunningService<RoleClient, ()>,
    info: ServerConfig,
    relay: Relay,
}

/// Where the remote's notifications go: shared by the stdio side, which records routes and the
/// level, and the remote's transport, which relays.
#[derive(Clone, Default)]
struct Relay(Arc<Routes>);

#[derive(Default)]
struct Routes {
    /// Per call under way whose stdio client asked for progress, by the progress token the
    /// bridge gave it upstream: the stdio client's line and its own token. Held while a call
    /// is sent, so a notification never arrives before its route.
    calls: tokio::sync::Mutex<HashMap<ProgressToken, (Peer<RoleServer>, ProgressToken)>>,
    /// The stdio client's line and the level it asked for with `logging/setLevel`.
    logs: parking_lot::Mutex<Option<(Peer<RoleServer>, LoggingLevel)>>,
}

impl Relay {
    async fn progress(&self, mut params: ProgressNotificationParam) {
        let route = self
            .0
            .calls
            .lock()
            .await
            .get(&params.progress_token)
            .cloned();
        let Some((peer, token)) = route else {
            return;
        };
        params.progress_token = token;
        if let Err(e) = peer.notify_progress(params).await {
            tracing::debug!(error = %e, "the stdio client did not take a progress message");
        }
    }

    async fn log(&self, params: LoggingMessageNotificationParam) {
        let to = self.0.logs.lock().clone();
        let Some((peer, _)) = to.filter(|(_, at)| rank(params.level) >= rank(*at)) else {
            return;
        };
        if let Err(e) = peer.notify_logging_message(params).await {
            tracing::debug!(error = %e, "the stdio client did not take a log message");
        }
    }
}

/// The remote's transport, relaying its progress and log messages to the stdio client as they
/// are received: in order, and each written before anything received after it, so a call's
/// progress always reaches the stdio client before its answer. (rmcp would hand each
/// notification to a task of its own, whose order nothing keeps.)
struct Relaying<T> {
    inner: T,
    relay: Relay,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Relaying<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(n) = &message {
            match &n.notification {
                ServerNotification::ProgressNotification(p) => {
                    self.relay.progress(p.params.clone()).await
                }
                ServerNotification::LoggingMessageNotification(l) => {
                    self.relay.log(l.params.clone()).await
                }
                _ => {}
            }
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The order of MCP's (syslog's) levels, least severe first.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

fn upstream(e: ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(e) => e,
        other => {
            ErrorData::internal_error(format!("the remote marquee did not answer: {other}"), None)
        }
    }
}

impl ServerHandler for Forward {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.remote.list_tools(request).await.map_err(upstream)
    }

    /// Sent upstream under a progress token of the bridge's own, routed back to this call.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = ClientRequest::CallToolRequest(CallToolRequest::new(request));
        let mut calls = self.relay.0.calls.lock().await;
        let handle = self
            .remote
            .send_cancellable_request(call, PeerRequestOptions::no_options())
            .await
            .map_err(upstream)?;
        let upstream_token = handle.progress_token.clone();
        if let Some(token) = context.meta.get_progress_token() {
            calls.insert(upstream_token.clone(), (context.peer.clone(), token));
        }
        drop(calls);
        let answer = handle.await_response().await;
        self.relay.0.calls.lock().await.remove(&upstream_token);
        match answer.map_err(upstream)? {
            ServerResult::CallToolResult(r) => Ok(CallToolResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
            _ => Err(ErrorData::internal_error(
                "the remote marquee answered a tool call with something else; check that its version matches the bridge's",
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.remote.list_resources(request).await.map_err(upstream)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.remote
            .list_resource_templates(request)
            .await
            .map_err(upstream)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.remote
            .read_resource(request)
            .await
            .map(Into::into)
            .map_err(upstream)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.remote.list_prompts(request).await.map_err(upstream)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.remote
            .get_prompt(request)
            .await
            .map(Into::into)
            .map_err(upstream)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.remote.complete(request).await.map_err(upstream)
    }

    /// The remote keeps the level for this key and sends log messages on the calls it streams;
    /// the bridge relays those at or above this client's level (another client of the same key
    /// may have asked the remote for more).
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = request.level;
        self.remote.set_level(request).await.map_err(upstream)?;
        *self.relay.0.logs.lock() = Some((context.peer, level));
        Ok(())
    }
}

/// The bridge's own description, until the remote's is known.
fn server_config(name: &str, title: &str, version: &str, instructions: &str) -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_resources()
        .build();
    let mut info = InitializeResult::new(capabilities);
    let mut imp = Implementation::new(name, version);
    imp.title = Some(title.to_string());
    info.server_info = imp;
    info.instructions = Some(instructions.to_string());
    info
}

/// Connects to `url` with `key` and serves stdio until the local client leaves.
pub async fn run(url: &str, key: &str) -> Result<(), std::io::Error> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(key.to_string());
    let transport = StreamableHttpClientTransport::from_config(config);
    let relay = Relay::default();
    let transport = Relaying {
        inner: transport,
        relay: relay.clone(),
    };
    let remote = ().serve(transport).await.map_err(|e| {
        std::io::Error::other(format!(
            "cannot connect to {url}: {}",
            httpx_free_redact(&e.to_string(), key)
        ))
    })?;
    let info = match remote.peer_info() {
        Some(peer) => {
            let mut info = server_config("marquee", "Marquee", env!("CARGO_PKG_VERSION"), "");
            info.server_info = peer.server_info.clone().unwrap_or(info.server_info);
            info.instructions = peer.instructions.clone();
            info.capabilities = peer.capabilities.clone();
            info
        }
        None => server_config("marquee", "Marquee", env!("CARGO_PKG_VERSION"), ""),
    };
    let running = Forward {
        remote,
        info,
        relay,
    }
    .serve(rmcp::transport::stdio())
    .await
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}

/// The key never appears in an error text, whatever the transport printed.
fn httpx_free_redact(text: &str, key: &str) -> String {
    if key.is_empty() {
        text.to_string()
    } else {
        text.replace(key, "***")
    }
}
