//! The stateless JSON-RPC dispatcher: one message in, one answer out, for both protocol eras.
//!
//! Legacy (2024-11-05 … 2025-11-25): `initialize` negotiates, every other request is answered
//! without a session. Modern (2026-07-28): every request carries `_meta` with its protocol
//! version and client capabilities, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers must agree with the body, results carry `resultType`, lists `ttlMs`/`cacheScope`.

use std::sync::Arc;

use rmcp::model::{ErrorCode, Implementation, JsonObject};
use serde_json::{Map, Value, json};

use crate::{
    RenderedResult, ToolHost,
    classify::classify,
    context::{Context, Outbox, Peers},
    fixtures, methods,
    tasks::{self, ProgressSink, TaskSupport},
    version,
    wire::{self, COMPLETE, Definitions, ListedTool, ToolList},
};

const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// How long a modern client may reuse a list answer. Calls are re-checked regardless.
const LIST_TTL_MS: u64 = 60_000;

/// 2026-07-28: the request needs a client capability its `_meta` did not declare.
pub(crate) const MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);

/// Which protocol era a request speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Modern,
}

/// The transport facts the dispatcher checks against the body (HTTP headers; none on stdio).
#[derive(Clone, Copy, Debug, Default)]
pub struct Headers<'a> {
    pub protocol_version: Option<&'a str>,
    pub mcp_method: Option<&'a str>,
    pub mcp_name: Option<&'a str>,
    /// A singleton header was sent twice or is not valid text.
    pub malformed: Option<&'static str>,
    /// Whether the transport has headers at all (HTTP does, stdio does not).
    pub http: bool,
}

/// One answer: an HTTP status and a JSON-RPC body (none for notifications).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Option<Vec<u8>>,
    /// The JSON-RPC method, for metrics (`-` when there was none).
    pub method: String,
}

impl Reply {
    pub(crate) fn error(
        status: u16,
        id: Option<Value>,
        code: ErrorCode,
        message: &str,
        data: Option<Value>,
    ) -> Reply {
        let id = id.unwrap_or(Value::Null);
        Reply {
            status,
            body: Some(wire::failure(&id, code.0, message, data.as_ref())),
            method: "-".into(),
        }
    }

    pub(crate) fn accepted(method: &str) -> Reply {
        Reply {
            status: 202,
            body: None,
            method: method.into(),
        }
    }
}

/// Where a request came from and how to reach its client while it runs.
pub struct Link<'a> {
    pub peers: &'a Arc<Peers>,
    /// Whose request this is ([`Peers::owner_of`] the credential).
    pub owner: u64,
    /// Where notifications and questions go; `None` when the answer is plain JSON.
    pub out: Option<Outbox>,
    /// The transport tells the client when its tool list changes (stdio: one client, one
    /// credential, a channel that stays open).
    pub tells_list_changes: bool,
}

/// Whether a message is a call that should be answered as a stream when the client accepts
/// one: it carries a progress token, or the host (or a fixture) says the call is long.
pub fn wants_stream<H: ToolHost>(host: &H, message: &Value) -> bool {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return false;
    }
    let params = message.get("params");
    let token = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .is_some();
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    token || host.streams(name) || (fixtures::served(host) && fixtures::streams(name))
}

/// Whether a request passes the era checks (headers, `_meta`), so that a refusal is answered
/// with its HTTP status instead of inside a stream.
pub fn passes_checks(message: &Value, headers: Headers<'_>) -> bool {
    let empty = Map::new();
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let params = message
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    classify(method, params, &headers).is_ok()
}

/// Answers one parsed JSON-RPC message for an authenticated caller.
pub async fn dispatch<H: ToolHost>(
    host: &Arc<H>,
    caller: &H::Caller,
    message: Value,
    headers: Headers<'_>,
    link: Link<'_>,
) -> Reply {
    let Value::Object(mut msg) = message else {
        return Reply::error(
            400,
            None,
            ErrorCode::INVALID_REQUEST,
            "invalid request: expected a JSON-RPC object",
            None,
        );
    };
    let id = msg.remove("id");
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Reply::error(
            400,
            id,
            ErrorCode::INVALID_REQUEST,
            "invalid request: jsonrpc must be \"2.0\"",
            None,
        );
    }
    let Some(method) = msg.get("method").and_then(Value::as_str).map(str::to_owned) else {
        if let Some(id) = &id
            && (msg.contains_key("result") || msg.contains_key("error"))
        {
            // A client's answer to a question; an answer to nothing we asked is ignored.
            link.peers.answer(link.owner, id, msg);
            return Reply::accepted("response");
        }
        return Reply::error(
            400,
            id,
            ErrorCode::INVALID_REQUEST,
            "invalid request: method is missing",
            None,
        );
    };
    let Some(id) = id else {
        return Reply::accepted(&method); // notification
    };
    if !(id.is_string() || id.is_number()) {
        return Reply::error(
            400,
            None,
            ErrorCode::INVALID_REQUEST,
            "invalid request: id must be a string or a number",
            None,
        );
    }
    let params = match msg.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Reply::error(
                400,
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "invalid request: params must be an object",
                None,
            );
        }
    };
    let era = match classify(&method, &params, &headers) {
        Ok(era) => era,
        Err(r) => {
            let mut reply = Reply::error(r.status, Some(id), r.code, &r.message, r.data);
            reply.method = method;
            return reply;
        }
    };
    let outcome = route(host, caller, era, &method, params, link).await;
    let modern = (era == Era::Modern).then_some(COMPLETE);
    let (status, body) = match outcome {
        Ok(Answer::Object(mut result)) => {
            if let Some(complete) = modern {
                result
                    .entry("resultType")
                    .or_insert_with(|| complete.into());
            } else {
                result.remove("resultType");
            }
            (200, wire::success(&id, &result, 256))
        }
        Ok(Answer::Tools(tools, fixtures)) => {
            let tools = Definitions {
                host: &tools,
                fixtures,
            };
            let size = tools.size();
            let list = ToolList {
                tools,
                ttl_ms: modern.map(|_| LIST_TTL_MS),
                cache_scope: modern.map(|_| "private"),
                result_type: modern,
            };
            (200, wire::success(&id, list, size))
        }
        Ok(Answer::Result(result)) => {
            let size = result.size();
            (200, wire::success(&id, result.shape(modern), size))
        }
        Err(e) => {
            let status = match e.code {
                ErrorCode::METHOD_NOT_FOUND if era == Era::Modern => 404,
                MISSING_CLIENT_CAPABILITY => 400,
                _ => 200,
            };
            (
                status,
                wire::failure(&id, e.code.0, &e.message, e.data.as_ref()),
            )
        }
    };
    Reply {
        status,
        body: Some(body),
        method,
    }
}

pub(crate) struct RpcError {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub(crate) fn internal() -> RpcError {
        RpcError::new(
            ErrorCode::INTERNAL_ERROR,
            "internal error; the server log has the details",
        )
    }
}

/// A result: an object to serialize, the tools a caller may see (and the fixtures, when
/// served), or a tool's result.
enum Answer {
    Object(Map<String, Value>),
    Tools(Arc<[Arc<ListedTool>]>, &'static [Arc<ListedTool>]),
    Result(RenderedResult),
}

type Outcome = Result<Answer, RpcError>;

async fn route<H: ToolHost>(
    shared: &Arc<H>,
    caller: &H::Caller,
    era: Era,
    method: &str,
    params: Map<String, Value>,
    link: Link<'_>,
) -> Outcome {
    let host = shared.as_ref();
    let fixtures = fixtures::served(host);
    match (method, era) {
        ("initialize", Era::Legacy) => {
            if let Some(caps) = params.get("capabilities").filter(|c| c.is_object()) {
                link.peers.set_capabilities(link.owner, caps.clone());
            }
            Ok(Answer::Object(initialize(
                host,
                &params,
                link.tells_list_changes,
            )))
        }
        ("logging/setLevel", Era::Legacy) => {
            methods::set_level(&params, link.peers, link.owner).map(Answer::Object)
        }
        ("resources/subscribe" | "resources/unsubscribe", Era::Legacy) if fixtures => {
            methods::subscription(&params).map(Answer::Object)
        }
        ("prompts/list", _) => methods::list_prompts(host, caller, era)
            .await
            .map(|o| Answer::Object(with_ttl(o, era))),
        ("prompts/get", _) => methods::get_prompt(host, caller, &params)
            .await
            .map(Answer::Object),
        ("completion/complete", _) => methods::complete(host, caller, &params)
            .await
            .map(Answer::Object),
        ("ping", Era::Legacy) => Ok(Answer::Object(Map::new())),
        ("server/discover", Era::Modern) => Ok(Answer::Object(discover(host))),
        ("tools/list", _) => {
            let tools = host.list_tools(caller).await.map_err(|e| {
                tracing::error!(error = %e, "tools/list failed");
                RpcError::internal()
            })?;
            // Each definition was serialized once; the list writes them as they are.
            let extra = if fixtures { fixtures::tools() } else { &[] };
            Ok(Answer::Tools(tools, extra))
        }
        ("tools/call", _) => call_tool(shared, caller, era, params, link).await,
        ("resources/list", _) => {
            let mut out = Map::new();
            let mut resources = host.list_resources(caller).await;
            if fixtures {
                resources.extend(fixtures::resources());
            }
            out.insert(
                "resources".into(),
                serde_json::to_value(resources).unwrap_or_default(),
            );
            Ok(Answer::Object(with_ttl(out, era)))
        }
        ("resources/templates/list", _) => {
            let mut out = Map::new();
            let mut templates = host.list_resource_templates(caller);
            if fixtures {
                templates.extend(fixtures::resource_templates());
            }
            out.insert(
                "resourceTemplates".into(),
                serde_json::to_value(templates).unwrap_or_default(),
            );
            Ok(Answer::Object(with_ttl(out, era)))
        }
        ("resources/read", _) => read_resource(host, caller, era, &params).await,
        ("tasks/get" | "tasks/update" | "tasks/cancel", _) => {
            tasks::method(shared, caller, era, method, &params, link.peers)
                .await
                .map(Answer::Object)
        }
        _ => Err(RpcError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )),
    }
}

fn with_ttl(mut out: Map<String, Value>, era: Era) -> Map<String, Value> {
    if era == Era::Modern {
        out.insert("ttlMs".into(), LIST_TTL_MS.into());
        out.insert("cacheScope".into(), "private".into());
    }
    out
}

fn capabilities<H: ToolHost>(host: &H, era: Era, list_changes: bool) -> Value {
    let subscribe = fixtures::served(host) && era == Era::Legacy;
    let mut caps = json!({
        "tools": { "listChanged": list_changes },
        "resources": { "listChanged": false, "subscribe": subscribe },
        "prompts": { "listChanged": false },
        "completions": {},
    });
    if era == Era::Legacy {
        caps["logging"] = json!({});
    }
    if era == Era::Modern && host.keeps_tasks() {
        caps["extensions"] = json!({ tasks::TASKS_EXTENSION: {} });
    }
    caps
}

fn implementation<H: ToolHost>(host: &H) -> Value {
    let id = host.identity();
    let mut imp = Implementation::new(id.name.clone(), id.version.clone());
    imp.title = Some(id.title.clone());
    serde_json::to_value(imp).unwrap_or_default()
}

fn initialize<H: ToolHost>(
    host: &H,
    params: &Map<String, Value>,
    list_changes: bool,
) -> Map<String, Value> {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut out = Map::new();
    out.insert(
        "protocolVersion".into(),
        version::negotiate_legacy(requested).into(),
    );
    out.insert(
        "capabilities".into(),
        capabilities(host, Era::Legacy, list_changes),
    );
    out.insert("serverInfo".into(), implementation(host));
    out.insert(
        "instructions".into(),
        host.identity().instructions.clone().into(),
    );
    out
}

fn discover<H: ToolHost>(host: &H) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("supportedVersions".into(), json!(version::all_versions()));
    out.insert(
        "capabilities".into(),
        capabilities(host, Era::Modern, false),
    );
    out.insert(
        "instructions".into(),
        host.identity().instructions.clone().into(),
    );
    out.insert("ttlMs".into(), LIST_TTL_MS.into());
    out.insert("cacheScope".into(), "public".into());
    out.insert(
        "_meta".into(),
        json!({ META_SERVER_INFO: implementation(host) }),
    );
    out
}

async fn call_tool<H: ToolHost>(
    host: &Arc<H>,
    caller: &H::Caller,
    era: Era,
    mut params: Map<String, Value>,
    link: Link<'_>,
) -> Outcome {
    let Some(Value::String(name)) = params.remove("name") else {
        return Err(RpcError::new(
            ErrorCode::INVALID_PARAMS,
            "invalid params: tools/call needs a string \"name\"",
        ));
    };
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => Some(a),
        Some(_) => {
            return Err(RpcError::new(
                ErrorCode::INVALID_PARAMS,
                "invalid params: \"arguments\" must be an object",
            ));
        }
    };
    if era == Era::Modern
        && params.contains_key("inputResponses")
        && !params.get("inputResponses").is_some_and(Value::is_object)
    {
        return Err(RpcError::new(
            ErrorCode::INVALID_PARAMS,
            "invalid params: \"inputResponses\" must be an object",
        ));
    }
    if era == Era::Modern && params.get("requestState").is_some_and(|s| !s.is_string()) {
        return Err(RpcError::new(
            ErrorCode::INVALID_PARAMS,
            "invalid params: \"requestState\" must be a string",
        ));
    }
    let fixture = fixtures::served(host.as_ref());
    let support = match fixture.then(|| fixtures::task_support(&name)).flatten() {
        Some(support) => support,
        None => host.task_support(&name),
    };
    if era == Era::Modern && support != TaskSupport::Never && host.keeps_tasks() {
        if tasks::declared(&params) {
            return call_as_task(host, caller, name, arguments, params, link, support).await;
        }
        if matches!(support, TaskSupport::Required { .. }) {
            return Err(tasks::missing_capability());
        }
    }
    let cx = Context::new(era, link.owner, link.peers, link.out, &params);
    run_call(host.as_ref(), caller, &name, arguments, &cx, fixture)
        .await
        .map(Answer::Result)
}

/// One tool call, served by a conformance fixture or by the host.
async fn run_call<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    name: &str,
    arguments: Option<JsonObject>,
    cx: &Context<'_>,
    fixture: bool,
) -> Result<RenderedResult, RpcError> {
    if fixture && let Some(result) = fixtures::call(name, arguments.as_ref(), cx).await {
        return result;
    }
    host.call_tool(caller, name, arguments, cx)
        .await
        .map_err(|e| RpcError {
            code: e.code,
            message: e.message.into_owned(),
            data: e.data,
        })
}

/// A call from a client that declared the tasks extension, of a tool that supports tasks.
async fn call_as_task<H: ToolHost>(
    host: &Arc<H>,
    caller: &H::Caller,
    name: String,
    arguments: Option<JsonObject>,
    params: Map<String, Value>,
    link: Link<'_>,
    support: TaskSupport,
) -> Outcome {
    let sink = ProgressSink::default();
    let work = {
        let (host, caller, peers) = (Arc::clone(host), caller.clone(), Arc::clone(link.peers));
        let (owner, out, sink) = (link.owner, tasks::lasting_out(&link), sink.clone());
        let name = name.clone();
        tokio::spawn(async move {
            let cx = tasks::context(owner, &peers, out, &params, sink);
            let fixture = fixtures::served(host.as_ref());
            run_call(host.as_ref(), &caller, &name, arguments, &cx, fixture).await
        })
    };
    match tasks::start(host, caller, &name, work, sink, support, link.peers).await {
        Ok(answered) => answered.map(Answer::Result),
        Err(handle) => Ok(Answer::Object(handle)),
    }
}

async fn read_resource<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    era: Era,
    params: &Map<String, Value>,
) -> Outcome {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::new(
            ErrorCode::INVALID_PARAMS,
            "invalid params: resources/read needs a string \"uri\"",
        ));
    };
    let found = match fixtures::read(fixtures::served(host), uri) {
        Some(result) => Ok(Some(result)),
        None => host.read_resource(caller, uri).await,
    };
    match found {
        Ok(Some(result)) => match serde_json::to_value(result) {
            Ok(Value::Object(map)) => Ok(Answer::Object(with_ttl(map, era))),
            _ => Err(RpcError::internal()),
        },
        Ok(None) => {
            // SEP-2164: -32602 from 2026-07-28 on; the older revisions used -32002.
            let code = if era == Era::Modern {
                ErrorCode::INVALID_PARAMS
            } else {
                ErrorCode::RESOURCE_NOT_FOUND
            };
            Err(RpcError {
                code,
                message: format!("resource not found: {uri}"),
                data: Some(json!({ "uri": uri })),
            })
        }
        Err(e) => {
            tracing::warn!(error = %e.message, uri, "resources/read failed");
            Err(RpcError {
                code: e.code,
                message: e.message.into_owned(),
                data: e.data,
            })
        }
    }
}
