//! `marquee stdio`: the same tools in-process for a local client, through rmcp's stdio
//! transport, for the person behind one credential, re-checked on every request.
//! stdout belongs to the protocol; logs go to stderr.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, Implementation, InitializeResult,
        ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};

use crate::ToolHost;

/// An rmcp server handler that answers from a [`ToolHost`] for one credential, which is
/// authenticated again on every request (a revoked key stops working at once).
pub struct InProcess<H: ToolHost> {
    host: Arc<H>,
    credential: String,
}

impl<H: ToolHost> InProcess<H> {
    pub fn new(host: Arc<H>, credential: String) -> InProcess<H> {
        InProcess { host, credential }
    }

    async fn caller(&self) -> Result<H::Caller, ErrorData> {
        match self
            .host
            .authenticate(&self.credential)
            .await
            .map_err(internal)?
        {
            Some(caller) => Ok(caller),
            None => Err(ErrorData::invalid_request(
                "the credential in MARQUEE_KEY is no longer valid (revoked or expired)",
                None,
            )),
        }
    }
}

/// The server description shared by stdio and the bridge.
pub(crate) fn server_config(
    name: &str,
    title: &str,
    version: &str,
    instructions: &str,
) -> ServerConfig {
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

fn internal(e: impl std::fmt::Display) -> ErrorData {
    tracing::error!(error = %e, "host failure");
    ErrorData::internal_error("internal error; the server log has the details", None)
}

impl<H: ToolHost> ServerHandler for InProcess<H> {
    fn get_info(&self) -> ServerConfig {
        let id = self.host.identity();
        server_config(&id.name, &id.title, &id.version, &id.instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .host
            .list_tools(&self.caller().await?)
            .await
            .map_err(internal)?;
        Ok(ListToolsResult::with_all_items(
            tools.iter().map(|t| t.tool().clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.host
            .call_tool(&self.caller().await?, &request.name, request.arguments)
            .await?
            .to_model()
            .map(Into::into)
            .map_err(|e| {
                tracing::error!(error = %e, "a rendered tool result is not a CallToolResult");
                ErrorData::internal_error("internal error", None)
            })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            self.host.list_resources(&self.caller().await?),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.host.list_resource_templates(&self.caller().await?),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match self
            .host
            .read_resource(&self.caller().await?, &request.uri)
            .await
            .map_err(internal)?
        {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::resource_not_found(
                format!("resource not found: {}", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            )),
        }
    }
}

/// Serves stdin/stdout until the client closes them.
pub async fn serve<H: ToolHost>(host: Arc<H>, credential: String) -> Result<(), std::io::Error> {
    let running = InProcess::new(host, credential)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}
