//! The stateless JSON-RPC dispatcher: one message in, one answer out, for both protocol eras.
//!
//! Legacy (2024-11-05 … 2025-11-25): `initialize` negotiates, every other request is answered
//! without a session. Modern (2026-07-28): every request carries `_meta` with its protocol
//! version and client capabilities, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers must agree with the body, results carry `resultType`, lists `ttlMs`/`cacheScope`.

use rmcp::model::{ErrorCode, Implementation};
use serde_json::{Map, Value, json};

use crate::{RenderedResult, ToolHost, version};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// How long a modern client may reuse a list answer. Calls are re-checked regardless.
const LIST_TTL_MS: u64 = 60_000;

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
        let mut error = json!({ "code": code.0, "message": message });
        if let Some(data) = data {
            error["data"] = data;
        }
        let body = json!({ "jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": error });
        Reply {
            status,
            body: Some(serde_json::to_vec(&body).unwrap_or_default()),
            method: "-".into(),
        }
    }

    fn accepted(method: &str) -> Reply {
        Reply {
            status: 202,
            body: None,
            method: method.into(),
        }
    }
}

/// Answers one parsed JSON-RPC message for an authenticated caller.
pub async fn dispatch<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    message: Value,
    headers: Headers<'_>,
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
        if id.is_some() && (msg.contains_key("result") || msg.contains_key("error")) {
            return Reply::accepted("response"); // a client's answer to nothing we asked: ignored
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
    let outcome = route(host, caller, era, &method, params).await;
    let id_text = serde_json::to_string(&id).unwrap_or_else(|_| "null".into());
    let (status, body) = match outcome {
        Ok(Answer::Object(mut result)) => {
            if era == Era::Modern {
                result
                    .entry("resultType")
                    .or_insert_with(|| "complete".into());
            }
            let result = serde_json::to_string(&result).unwrap_or_default();
            (200, envelope(&id_text, &result))
        }
        Ok(Answer::Raw(result)) => (200, envelope(&id_text, &result)),
        Ok(Answer::Result(result, era)) => {
            let text = result.json();
            let body = if era == Era::Modern {
                // A result is a non-empty object: its last byte is the closing brace.
                let open = &text[..text.len().saturating_sub(1)];
                envelope_with_tail(&id_text, open, ",\"resultType\":\"complete\"}")
            } else {
                envelope(&id_text, text)
            };
            (200, body)
        }
        Err(e) => {
            let status = if era == Era::Modern && e.code == ErrorCode::METHOD_NOT_FOUND {
                404
            } else {
                200
            };
            let reply = Reply::error(status, Some(id), e.code, &e.message, e.data);
            (status, reply.body.unwrap_or_default())
        }
    };
    Reply {
        status,
        body: Some(body),
        method,
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` from already-serialized parts.
fn envelope(id: &str, result: &str) -> Vec<u8> {
    envelope_with_tail(id, result, "")
}

/// [`envelope`] with `tail` appended to the result's text.
fn envelope_with_tail(id: &str, result: &str, tail: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + tail.len() + id.len() + 40);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result.as_bytes());
    out.extend_from_slice(tail.as_bytes());
    out.push(b'}');
    out
}

/// A request refused before routing (headers, `_meta`, version).
struct Rejection {
    status: u16,
    code: ErrorCode,
    message: String,
    data: Option<Value>,
}

impl Rejection {
    fn new(status: u16, code: ErrorCode, message: &str, data: Option<Value>) -> Rejection {
        Rejection {
            status,
            code,
            message: message.to_owned(),
            data,
        }
    }
}

/// Decides the era and checks the headers and `_meta` that era requires.
fn classify(method: &str, params: &Map<String, Value>, h: &Headers<'_>) -> Result<Era, Rejection> {
    if let Some(why) = h.malformed {
        return Err(Rejection::new(400, ErrorCode::HEADER_MISMATCH, why, None));
    }
    let meta = params.get("_meta").and_then(Value::as_object);
    let meta_version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let modern_header = h
        .protocol_version
        .is_some_and(|v| version::MODERN_VERSIONS.contains(&v));
    let Some(meta_version) = meta_version else {
        if method == "initialize" {
            // The handshake exists only before 2026-07-28: it always selects the legacy era.
            let body_version = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            if let Some(header) = h.protocol_version
                && header != body_version
            {
                let msg = format!(
                    "invalid request: MCP-Protocol-Version header ({header}) does not match params.protocolVersion ({body_version})"
                );
                return Err(Rejection::new(400, ErrorCode::INVALID_REQUEST, &msg, None));
            }
            return Ok(Era::Legacy);
        }
        if method == "server/discover" || modern_header {
            let msg = format!(
                "invalid params: request _meta is missing or has malformed required fields: {META_VERSION}, {META_CAPABILITIES}"
            );
            return Err(Rejection::new(400, ErrorCode::INVALID_PARAMS, &msg, None));
        }
        if let Some(header) = h.protocol_version
            && !version::is_known(header)
        {
            let msg = format!("unsupported MCP-Protocol-Version: {header}");
            let data = json!({ "supported": version::all_versions(), "requested": header });
            return Err(Rejection::new(
                400,
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                &msg,
                Some(data),
            ));
        }
        return Ok(Era::Legacy);
    };
    match h.protocol_version {
        None => {
            let msg = "request _meta protocolVersion requires the MCP-Protocol-Version header";
            return Err(Rejection::new(400, ErrorCode::HEADER_MISMATCH, msg, None));
        }
        Some(header) if header != meta_version => {
            let msg = format!(
                "MCP-Protocol-Version header ({header}) does not match request _meta protocolVersion ({meta_version})"
            );
            return Err(Rejection::new(400, ErrorCode::HEADER_MISMATCH, &msg, None));
        }
        Some(_) => {}
    }
    if !version::MODERN_VERSIONS.contains(&meta_version) {
        let data = json!({ "supported": version::MODERN_VERSIONS, "requested": meta_version });
        let msg = format!(
            "unsupported protocol version {meta_version}; per-request _meta speaks {}",
            version::MODERN_VERSIONS.join(", ")
        );
        return Err(Rejection::new(
            400,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            &msg,
            Some(data),
        ));
    }
    if !meta.is_some_and(|m| m.get(META_CAPABILITIES).is_some_and(Value::is_object)) {
        let msg = format!(
            "invalid params: request _meta is missing or has malformed required fields: {META_CAPABILITIES}"
        );
        return Err(Rejection::new(400, ErrorCode::INVALID_PARAMS, &msg, None));
    }
    check_standard_headers(method, params, h)?;
    Ok(Era::Modern)
}

/// SEP-2243: `Mcp-Method` always, `Mcp-Name` for calls that name a tool, prompt or resource.
fn check_standard_headers(
    method: &str,
    params: &Map<String, Value>,
    h: &Headers<'_>,
) -> Result<(), Rejection> {
    let mismatch = |msg: String| Err(Rejection::new(400, ErrorCode::HEADER_MISMATCH, &msg, None));
    match h.mcp_method {
        None => return mismatch("missing required Mcp-Method header".into()),
        Some(v) if v != method => {
            return mismatch(format!(
                "Mcp-Method header ({v}) does not match body method ({method})"
            ));
        }
        Some(_) => {}
    }
    let name_key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return Ok(()),
    };
    let Some(expected) = params.get(name_key).and_then(Value::as_str) else {
        return Ok(()); // the body is malformed; routing answers -32602
    };
    match h.mcp_name.map(decode_header_value) {
        None => mismatch(format!("missing required Mcp-Name header for {method}")),
        Some(None) => mismatch("Mcp-Name header is not valid base64".into()),
        Some(Some(v)) if v != expected => mismatch(format!(
            "Mcp-Name header ({v}) does not match body value ({expected})"
        )),
        Some(Some(_)) => Ok(()),
    }
}

/// Header values that cannot travel bare come as `=?base64?…?=`.
fn decode_header_value(raw: &str) -> Option<String> {
    use base64::Engine;
    match raw
        .strip_prefix("=?base64?")
        .and_then(|s| s.strip_suffix("?="))
    {
        Some(inner) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(raw.to_owned()),
    }
}

struct RpcError {
    code: ErrorCode,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: ErrorCode, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    fn internal() -> RpcError {
        RpcError::new(
            ErrorCode::INTERNAL_ERROR,
            "internal error; the server log has the details",
        )
    }
}

/// A result: an object to serialize, JSON text already serialized, or a tool's result.
enum Answer {
    Object(Map<String, Value>),
    Raw(String),
    Result(RenderedResult, Era),
}

type Outcome = Result<Answer, RpcError>;

async fn route<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    era: Era,
    method: &str,
    params: Map<String, Value>,
) -> Outcome {
    match (method, era) {
        ("initialize", Era::Legacy) => Ok(Answer::Object(initialize(host, &params))),
        ("ping", Era::Legacy) => Ok(Answer::Object(Map::new())),
        ("server/discover", Era::Modern) => Ok(Answer::Object(discover(host))),
        ("tools/list", _) => {
            let tools = host.list_tools(caller).await.map_err(|e| {
                tracing::error!(error = %e, "tools/list failed");
                RpcError::internal()
            })?;
            // Each definition was serialized once; a list is a concatenation.
            let mut text =
                String::with_capacity(tools.iter().map(|t| t.json().len() + 1).sum::<usize>() + 80);
            text.push_str("{\"tools\":[");
            for (i, t) in tools.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(t.json());
            }
            text.push(']');
            if era == Era::Modern {
                text.push_str(&format!(",\"ttlMs\":{LIST_TTL_MS},\"cacheScope\":\"private\",\"resultType\":\"complete\""));
            }
            text.push('}');
            Ok(Answer::Raw(text))
        }
        ("tools/call", _) => call_tool(host, caller, era, params).await,
        ("resources/list", _) => {
            let mut out = Map::new();
            out.insert(
                "resources".into(),
                serde_json::to_value(host.list_resources(caller)).unwrap_or_default(),
            );
            Ok(Answer::Object(with_ttl(out, era)))
        }
        ("resources/templates/list", _) => {
            let mut out = Map::new();
            let templates = host.list_resource_templates(caller);
            out.insert(
                "resourceTemplates".into(),
                serde_json::to_value(templates).unwrap_or_default(),
            );
            Ok(Answer::Object(with_ttl(out, era)))
        }
        ("resources/read", _) => read_resource(host, caller, era, &params).await,
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

fn capabilities() -> Value {
    json!({ "tools": { "listChanged": false }, "resources": { "listChanged": false, "subscribe": false } })
}

fn implementation<H: ToolHost>(host: &H) -> Value {
    let id = host.identity();
    let mut imp = Implementation::new(id.name.clone(), id.version.clone());
    imp.title = Some(id.title.clone());
    serde_json::to_value(imp).unwrap_or_default()
}

fn initialize<H: ToolHost>(host: &H, params: &Map<String, Value>) -> Map<String, Value> {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut out = Map::new();
    out.insert(
        "protocolVersion".into(),
        version::negotiate_legacy(requested).into(),
    );
    out.insert("capabilities".into(), capabilities());
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
    out.insert("capabilities".into(), capabilities());
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
    host: &H,
    caller: &H::Caller,
    era: Era,
    mut params: Map<String, Value>,
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
    match host.call_tool(caller, &name, arguments).await {
        Ok(result) => Ok(Answer::Result(result, era)),
        Err(e) => Err(RpcError {
            code: e.code,
            message: e.message.into_owned(),
            data: e.data,
        }),
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
    match host.read_resource(caller, uri).await {
        Ok(Some(result)) => match serde_json::to_value(result) {
            Ok(Value::Object(map)) => Ok(Answer::Object(map)),
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
            tracing::error!(error = %e, uri, "resources/read failed");
            Err(RpcError::internal())
        }
    }
}
