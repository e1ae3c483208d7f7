//! The MCP protocol edge: a stateless JSON-RPC dispatcher for both protocol eras over HTTP,
//! stdio and the stdio-to-HTTP bridge. Generic over [`ToolHost`]; knows nothing about media.

pub mod bridge;
mod dispatch;
pub mod edge;
pub mod stdio;
pub mod throttle;
mod version;

use std::{future::Future, sync::Arc, time::Duration};

pub use dispatch::{Era, Reply, dispatch};
pub use rmcp::model;
use rmcp::model::{
    CallToolResult, ErrorData, JsonObject, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
pub use version::{LEGACY_VERSIONS, MODERN_VERSIONS, NEWEST_LEGACY};

/// Who the server is, as `initialize` and `server/discover` tell it.
#[derive(Clone, Debug)]
pub struct ServerIdentity {
    pub name: String,
    pub title: String,
    pub version: String,
    /// Short guidance for the model: where to start.
    pub instructions: String,
}

/// A tool definition and its JSON, serialized once: `tools/list` concatenates these.
#[derive(Debug)]
pub struct ListedTool {
    tool: Tool,
    json: String,
}

impl ListedTool {
    pub fn new(tool: Tool) -> ListedTool {
        let json = serde_json::to_string(&tool).unwrap_or_else(|_| "{}".into());
        ListedTool { tool, json }
    }

    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    pub fn json(&self) -> &str {
        &self.json
    }
}

/// A `tools/call` result already written as the JSON text of a `CallToolResult` object, so a
/// large answer is serialized once, straight into the response.
/// Shared, so an answer a host hands out repeatedly is not copied per call.
#[derive(Clone, Debug)]
pub struct RenderedResult(Arc<str>);

impl RenderedResult {
    /// `json` must be the JSON text of one `CallToolResult` object.
    pub fn from_json(json: impl Into<Arc<str>>) -> RenderedResult {
        RenderedResult(json.into())
    }

    pub fn json(&self) -> &str {
        &self.0
    }

    /// The typed result, for transports that need one (stdio).
    pub fn to_model(&self) -> Result<CallToolResult, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

/// A failure of the host itself (its store is down, say): answered as a JSON-RPC internal
/// error with a generic message; the detail goes to the log only.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

/// The application behind the protocol edge. The edge authenticates, parses, routes and
/// shapes answers for the caller's protocol era; the host decides what a caller may see and do.
pub trait ToolHost: Send + Sync + 'static {
    /// An authenticated caller, re-established on every request.
    type Caller: Clone + Send + Sync + 'static;

    fn identity(&self) -> &ServerIdentity;

    /// Checks a presented credential. `Ok(None)` means missing or wrong.
    fn authenticate(
        &self,
        credential: &str,
    ) -> impl Future<Output = Result<Option<Self::Caller>, HostError>> + Send;

    /// A caller for a request from this machine that presented no credential, when the
    /// owner allowed local access; `Ok(None)` (the default) means a credential is required.
    fn authenticate_local(
        &self,
    ) -> impl Future<Output = Result<Option<Self::Caller>, HostError>> + Send {
        std::future::ready(Ok(None))
    }

    /// The tools this caller may see, in a stable order.
    fn list_tools(
        &self,
        caller: &Self::Caller,
    ) -> impl Future<Output = Result<Arc<[Arc<ListedTool>]>, HostError>> + Send;

    /// Runs one tool. `Err` only for what cannot be routed (unknown tool: -32602);
    /// a tool that ran and failed is an `isError` result.
    fn call_tool(
        &self,
        caller: &Self::Caller,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> impl Future<Output = Result<RenderedResult, ErrorData>> + Send;

    fn list_resources(&self, caller: &Self::Caller) -> Vec<Resource>;

    fn list_resource_templates(&self, caller: &Self::Caller) -> Vec<ResourceTemplate>;

    /// `Ok(None)` when no resource has that URI.
    fn read_resource(
        &self,
        caller: &Self::Caller,
        uri: &str,
    ) -> impl Future<Output = Result<Option<ReadResourceResult>, HostError>> + Send;

    /// Called once per HTTP request after the answer is known, for metrics.
    fn observe(&self, _method: &str, _status: u16, _elapsed: Duration) {}
}
