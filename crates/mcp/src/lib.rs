//! The MCP protocol edge: a stateless JSON-RPC dispatcher for both protocol eras over HTTP,
//! stdio and the stdio-to-HTTP bridge. Generic over [`ToolHost`]; knows nothing about media.

mod asker;
pub mod bridge;
mod classify;
mod context;
mod dispatch;
pub mod edge;
#[cfg(feature = "conformance-fixtures")]
mod fixtures;
pub mod forwarded;
mod methods;
#[cfg(not(feature = "conformance-fixtures"))]
mod no_fixtures;
pub mod stdio;
mod tasks;
pub mod throttle;
mod version;
mod wire;

use std::{future::Future, sync::Arc, time::Duration};

pub use asker::Asker;
pub use context::{AskError, Context, LogLevel, Notifier, Outbox, Peers};
pub use dispatch::{Era, Link, Reply, dispatch};
pub use rmcp::model;
use rmcp::model::{
    ErrorData, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};
pub use tasks::{
    HEARTBEAT, POLL_INTERVAL_MS, SHORTCUT, STALE, Settle, TASK_TTL_MS, TASKS_EXTENSION, TaskRecord,
    TaskSupport,
};
pub use version::{LEGACY_VERSIONS, MODERN_VERSIONS, NEWEST_LEGACY};
pub use wire::{ListedTool, RenderedResult};

#[cfg(not(feature = "conformance-fixtures"))]
use no_fixtures as fixtures;

/// Whether this build can serve the conformance suite's fixtures (the `conformance-fixtures`
/// feature, for test servers). A product build cannot: a host that asks for them should refuse
/// to start, and the dispatcher serves none whatever [`ToolHost::conformance_fixtures`] says.
pub const CONFORMANCE_FIXTURES: bool = cfg!(feature = "conformance-fixtures");

/// Who the server is, as `initialize` and `server/discover` tell it.
#[derive(Clone, Debug)]
pub struct ServerIdentity {
    pub name: String,
    pub title: String,
    pub version: String,
    /// Short guidance for the model: where to start.
    pub instructions: String,
}

/// What `completion/complete` asks about.
#[derive(Debug)]
pub struct Completing<'a> {
    pub target: CompletionTarget<'a>,
    /// The argument (or template variable) being completed.
    pub argument: &'a str,
    /// What the person typed so far.
    pub value: &'a str,
    /// Arguments already chosen (`context.arguments`).
    pub context: &'a JsonObject,
}

/// The prompt or resource template an argument belongs to.
#[derive(Debug, PartialEq, Eq)]
pub enum CompletionTarget<'a> {
    Prompt(&'a str),
    Resource(&'a str),
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

    /// Checks a credential presented as `Authorization: Bearer` to the host's resource at
    /// `resource` (a path: `/mcp`). Only this way may an OAuth access token authenticate, and
    /// only for the resource it was issued for. Defaults to [`ToolHost::authenticate`].
    fn authenticate_bearer(
        &self,
        credential: &str,
        _resource: &str,
    ) -> impl Future<Output = Result<Option<Self::Caller>, HostError>> + Send {
        self.authenticate(credential)
    }

    /// The URL of the RFC 9728 metadata of the resource at `resource` (a path), for the
    /// `WWW-Authenticate` header of a 401; `None` derives it from the request's `Host`.
    fn resource_metadata_url(&self, _resource: &str) -> Option<String> {
        None
    }

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
    /// a tool that ran and failed is an `isError` result. `cx` reaches the client while the
    /// call runs (progress, log messages, questions) when the call is streamed.
    fn call_tool(
        &self,
        caller: &Self::Caller,
        name: &str,
        arguments: Option<JsonObject>,
        cx: &Context<'_>,
    ) -> impl Future<Output = Result<RenderedResult, ErrorData>> + Send;

    /// Whether a call of this tool is long enough to answer as a stream (progress and log
    /// messages, then the result) when the client accepts one.
    fn streams(&self, _tool: &str) -> bool {
        false
    }

    /// Whether a call of this tool may become a protocol task (see [`TaskSupport`]). Only a
    /// host that [`ToolHost::keeps_tasks`] makes any.
    fn task_support(&self, _tool: &str) -> TaskSupport {
        TaskSupport::Never
    }

    /// Whether this host keeps protocol tasks; then the tasks extension is advertised.
    fn keeps_tasks(&self) -> bool {
        false
    }

    /// Keeps a new `working` task for a call of `tool` by `caller`, bound to the caller, and
    /// answers it only once a `tasks/get` for it would find it. `stoppable`: whether
    /// `tasks/cancel` may stop it (see [`TaskSupport`]).
    fn create_task(
        &self,
        _caller: &Self::Caller,
        _tool: &str,
        _stoppable: bool,
    ) -> impl Future<Output = Result<TaskRecord, HostError>> + Send {
        std::future::ready(Err(HostError("this host keeps no tasks".into())))
    }

    /// One of the caller's own tasks; `None` for an unknown, expired or another's. A working
    /// task whose heartbeat is older than [`STALE`] is answered (and kept) as failed.
    fn get_task(
        &self,
        _caller: &Self::Caller,
        _id: &str,
    ) -> impl Future<Output = Result<Option<TaskRecord>, HostError>> + Send {
        std::future::ready(Ok(None))
    }

    /// Writes what a task's runner says, only while the task is `working`. `Ok(false)` when it
    /// no longer is (cancelled, failed as stale, expired): the runner stops.
    fn settle_task(
        &self,
        _id: &str,
        _settle: Settle,
    ) -> impl Future<Output = Result<bool, HostError>> + Send {
        std::future::ready(Ok(false))
    }

    /// `tasks/cancel` of one of the caller's tasks: `None` for an unknown one; `Some(true)`
    /// when it was working and is now `cancelled` (its call is stopped); `Some(false)` when
    /// nothing is stopped (already finished, or a call the host lets run to its end).
    fn cancel_task(
        &self,
        _caller: &Self::Caller,
        _id: &str,
    ) -> impl Future<Output = Result<Option<bool>, HostError>> + Send {
        std::future::ready(Ok(None))
    }

    /// The prompts this caller may use, in a stable order.
    fn list_prompts(
        &self,
        _caller: &Self::Caller,
    ) -> impl Future<Output = Result<Vec<Prompt>, HostError>> + Send {
        std::future::ready(Ok(Vec::new()))
    }

    /// `Ok(None)` when this caller has no prompt of that name; `Err` for bad arguments.
    fn get_prompt(
        &self,
        _caller: &Self::Caller,
        _name: &str,
        _arguments: &JsonObject,
    ) -> impl Future<Output = Result<Option<GetPromptResult>, ErrorData>> + Send {
        std::future::ready(Ok(None))
    }

    /// Values this caller may pick for one argument of a prompt or resource template,
    /// best first, starting with `completing.value`.
    fn complete(
        &self,
        _caller: &Self::Caller,
        _completing: &Completing<'_>,
    ) -> impl Future<Output = Result<Vec<String>, HostError>> + Send {
        std::future::ready(Ok(Vec::new()))
    }

    /// Whether the conformance suite's fixture tools, prompts and resources are served
    /// alongside the host's own (`[mcp] conformance_fixtures`; never in a product config).
    /// Only a build with the `conformance-fixtures` feature has them ([`CONFORMANCE_FIXTURES`]).
    fn conformance_fixtures(&self) -> bool {
        false
    }

    fn list_resources(&self, caller: &Self::Caller) -> impl Future<Output = Vec<Resource>> + Send;

    fn list_resource_templates(&self, caller: &Self::Caller) -> Vec<ResourceTemplate>;

    /// `Ok(None)` when no resource has that URI; an error the caller is told as it is (a
    /// call rate reached, a server that failed).
    fn read_resource(
        &self,
        caller: &Self::Caller,
        uri: &str,
    ) -> impl Future<Output = Result<Option<ReadResourceResult>, ErrorData>> + Send;

    /// Called once per HTTP request after the answer is known, for metrics.
    fn observe(&self, _method: &str, _status: u16, _elapsed: Duration) {}
}
