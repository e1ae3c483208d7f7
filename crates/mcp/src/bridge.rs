//! `marquee bridge --url URL`: a stdio MCP server that forwards every request to a remote
//! Marquee over Streamable HTTP, for clients that only speak stdio. rmcp on both sides.

use rmcp::{
    ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
        GetPromptRequestParams, GetPromptResponse, Implementation, InitializeResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ServerCapabilities, ServerConfig,
    },
    service::{RequestContext, RunningService, ServiceError},
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};

/// Forwards to the remote server's peer; answers `initialize` with the remote's own info.
struct Forward {
    remote: RunningService<RoleClient, ()>,
    info: ServerConfig,
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

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.remote
            .call_tool(request)
            .await
            .map(Into::into)
            .map_err(upstream)
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

    /// The remote keeps the level for this key and sends log messages on the calls it streams.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remote.set_level(request).await.map_err(upstream)
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
    let running = Forward { remote, info }
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
