//! The era of a request and the checks that era requires: `MCP-Protocol-Version`, `Mcp-Method`
//! and `Mcp-Name` against the body (HTTP only; stdio has no headers), and the per-request
//! `_meta` of 2026-07-28.

use rmcp::model::ErrorCode;
use serde_json::{Map, Value, json};

use crate::{
    dispatch::{Era, Headers},
    version,
};

pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// A request refused before routing (headers, `_meta`, version).
pub(crate) struct Rejection {
    pub(crate) status: u16,
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
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
pub(crate) fn classify(
    method: &str,
    params: &Map<String, Value>,
    h: &Headers<'_>,
) -> Result<Era, Rejection> {
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
        None if !h.http => {}
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
    if h.http {
        check_standard_headers(method, params, h)?;
    }
    Ok(Era::Modern)
}

/// SEP-2243: `Mcp-Method` always, `Mcp-Name` for calls that name a tool, prompt, resource or
/// task.
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
        // SEP-2663: the tasks methods name their task.
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
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
