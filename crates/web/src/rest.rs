//! The REST mirror under `/api/v1`: the same tools, credentials and filtering as MCP, every
//! answer in one envelope `{success, message, data}`, described at `/api/v1/openapi.json`.

use std::sync::Arc;

use axum::{
    Json, Router,
    extract::{Path, Request, State},
    http::{HeaderMap, StatusCode, request::Parts},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use governance::{Called, Caller, ErrorCode, ErrorKind};
use mcp::forwarded::Source;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::{Host, Web, guard, host::definition_json};

pub(crate) fn router(web: &Web) -> Router<Web> {
    let tools = Router::new()
        .route("/tools", get(list))
        .route("/tools/call", post(call))
        .route("/tools/{name}", get(one))
        .route("/tools/{name}/schema", get(schema));
    // The description is public: no Host or Origin check.
    guard::host_and_origin_checked(tools, web).route("/openapi.json", get(openapi))
}

/// The one error type of the REST mirror, with one match from error to status.
enum ApiError {
    Unauthorized(Response),
    Throttled(Response),
    NotFound(String),
    BadRequest(String),
    /// The body is over `[edge] max_body_bytes` (the limit, in bytes).
    TooLarge(usize),
    Internal,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ApiError::Unauthorized(mut r) => {
                let why = "the credential is missing or not valid (unknown, revoked, expired, or a token issued for another resource)";
                *r.body_mut() =
                    axum::body::Body::from(envelope(false, why, Value::Null).to_string());
                return r;
            }
            ApiError::Throttled(mut r) => {
                let wait = r
                    .headers()
                    .get(axum::http::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("some")
                    .to_string();
                let why = format!(
                    "too many invalid credentials from this address; try again in {wait} seconds"
                );
                *r.body_mut() =
                    axum::body::Body::from(envelope(false, &why, Value::Null).to_string());
                return r;
            }
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            ApiError::TooLarge(limit) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is over the size limit of {limit} bytes"),
            ),
            ApiError::Internal => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error; the server log has the details".to_string(),
            ),
        };
        (status, Json(envelope(false, &message, Value::Null))).into_response()
    }
}

/// Where the request comes from (the forwarded client behind a trusted proxy).
fn source(web: &Web, parts: &Parts) -> Option<Source> {
    mcp::forwarded::source_of(&web.edge.trusted_proxies, parts)
}

fn envelope(success: bool, message: &str, data: Value) -> Value {
    json!({ "success": success, "message": message, "data": data })
}

/// For `/metrics`: a credential, by the same rules as the REST mirror's, of someone who sees
/// the household's set-up (the owner or an admin); anyone else is answered as the mirror
/// answers them (401, 429) or 403.
pub(crate) async fn authorize_household(web: &Web, parts: &Parts) -> Result<(), Response> {
    match authorize(web, &parts.headers, parts.uri.query(), source(web, parts)).await {
        Ok((_, caller)) if caller.scope.household => Ok(()),
        Ok(_) => Err((
            StatusCode::FORBIDDEN,
            Json(envelope(
                false,
                "the metrics are for the owner and admins",
                Value::Null,
            )),
        )
            .into_response()),
        Err(e) => Err(e.into_response()),
    }
}

/// The credential, by the same rules as `POST /mcp` (the router's guard checked Host and
/// Origin before the handler ran).
async fn authorize(
    web: &Web,
    headers: &HeaderMap,
    query: Option<&str>,
    source: Option<Source>,
) -> Result<(Arc<Host>, Caller), ApiError> {
    let host = web.ready.get().cloned().ok_or(ApiError::Internal)?;
    let presented = mcp::edge::credential(headers, query);
    match mcp::edge::authenticate(
        host.as_ref(),
        &web.throttle,
        headers,
        presented.as_ref(),
        source,
        "/api/v1",
    )
    .await
    {
        Ok(caller) => Ok((host, caller)),
        Err(response) if response.status() == StatusCode::UNAUTHORIZED => {
            Err(ApiError::Unauthorized(response))
        }
        Err(response) if response.status() == StatusCode::TOO_MANY_REQUESTS => {
            Err(ApiError::Throttled(response))
        }
        Err(_) => Err(ApiError::Internal),
    }
}

/// The HTTP status of a tool error: its kind's, but for two named exceptions.
fn tool_status(code: ErrorCode) -> StatusCode {
    match code {
        // The person was asked and said no: the call conflicts with their answer, it was not
        // refused by policy.
        ErrorCode::Declined => StatusCode::CONFLICT,
        // Marquee's own database, not a backend: the service is unavailable for now.
        ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => match code.kind() {
            ErrorKind::BadInput => StatusCode::BAD_REQUEST,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::Denied => StatusCode::FORBIDDEN,
            ErrorKind::Quota => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Backend => StatusCode::BAD_GATEWAY,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        },
    }
}

async fn list(State(web): State<Web>, parts: Parts) -> Result<Response, ApiError> {
    let (host, caller) = authorize(
        &web,
        &parts.headers,
        parts.uri.query(),
        source(&web, &parts),
    )
    .await?;
    let names = host.app.visible(&caller);
    let tools: Vec<Value> = names
        .iter()
        .filter_map(|n| host.definition_now(n))
        .map(|d| definition_json(d.tool()))
        .collect();
    let message = format!("{} tools available to you", tools.len());
    Ok(Json(envelope(true, &message, json!({ "tools": tools }))).into_response())
}

async fn find(
    web: &Web,
    headers: &HeaderMap,
    query: Option<&str>,
    source: Option<Source>,
    name: &str,
) -> Result<Value, ApiError> {
    let (host, caller) = authorize(web, headers, query, source).await?;
    let names = host.app.visible(&caller);
    names
        .iter()
        .find(|n| **n == name)
        .and_then(|n| host.definition_now(n))
        .map(|d| definition_json(d.tool()))
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no tool named \"{}\" is available to you; GET /api/v1/tools lists them",
                name.chars().take(64).collect::<String>()
            ))
        })
}

async fn one(
    State(web): State<Web>,
    Path(name): Path<String>,
    parts: Parts,
) -> Result<Response, ApiError> {
    let tool = find(
        &web,
        &parts.headers,
        parts.uri.query(),
        source(&web, &parts),
        &name,
    )
    .await?;
    Ok(Json(envelope(true, &format!("tool {name}"), tool)).into_response())
}

async fn schema(
    State(web): State<Web>,
    Path(name): Path<String>,
    parts: Parts,
) -> Result<Response, ApiError> {
    let tool = find(
        &web,
        &parts.headers,
        parts.uri.query(),
        source(&web, &parts),
        &name,
    )
    .await?;
    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
    Ok(Json(envelope(true, &format!("input schema of {name}"), schema)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallBody {
    tool_name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
}

async fn call(State(web): State<Web>, request: Request) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let (host, caller) = authorize(
        &web,
        &parts.headers,
        parts.uri.query(),
        source(&web, &parts),
    )
    .await?;
    let bytes = axum::body::to_bytes(body, web.edge.body_limit)
        .await
        .map_err(|_| ApiError::TooLarge(web.edge.body_limit))?;
    let body: CallBody = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::BadRequest(format!(
            "the body must be {{\"tool_name\": string, \"arguments\": object}}: {e}"
        ))
    })?;
    match host
        .app
        .call(&caller, &body.tool_name, body.arguments)
        .await
    {
        Called::UnknownTool => Err(ApiError::NotFound(format!(
            "unknown tool \"{}\"",
            body.tool_name.chars().take(64).collect::<String>()
        ))),
        Called::Done(Ok(out)) => {
            host.metrics().tool_call(&body.tool_name, "ok");
            Ok(Json(envelope(true, &out.summary, out.envelope())).into_response())
        }
        Called::Done(Err(e)) => {
            host.metrics().tool_call(&body.tool_name, "error");
            let status = tool_status(e.code);
            let mut r = (status, Json(envelope(false, &e.message, e.envelope()))).into_response();
            // A rate refusal says when to call again, as an HTTP client reads it too.
            if let Some(wait) = e.data.get("retry_after_seconds").and_then(Value::as_u64) {
                r.headers_mut()
                    .insert(axum::http::header::RETRY_AFTER, wait.into());
            }
            Ok(r)
        }
    }
}

async fn openapi() -> Response {
    Json(crate::rest_openapi::document()).into_response()
}

#[cfg(test)]
mod status_tests {
    use super::*;

    #[test]
    fn every_core_code_has_its_status() {
        let table: Vec<(&str, u16)> = ErrorCode::CORE
            .iter()
            .map(|c| (c.as_str(), tool_status(*c).as_u16()))
            .collect();
        let expected = [
            ("invalid_argument", 400),
            ("unknown_instance", 400),
            ("no_instance", 400),
            ("unsupported", 400),
            ("not_found", 404),
            ("not_available", 403),
            ("denied", 403),
            ("needs_plan", 403),
            ("allowance_exhausted", 429),
            ("conflict", 409),
            ("stale_plan", 409),
            ("backend_unavailable", 502),
            ("backend_misconfigured", 502),
            ("backend_unreachable", 502),
            ("backend_unauthorized", 502),
            ("backend_rate_limited", 502),
            ("backend_error", 502),
            ("backend_incomplete", 502),
            ("store_unavailable", 503),
            ("choice_needed", 400),
            ("declined", 409),
            ("input_required", 400),
            ("rate_limited", 429),
            ("internal", 500),
        ];
        assert_eq!(table, expected);
    }

    #[test]
    fn a_family_code_takes_its_kind_status() {
        let code = ErrorCode::new("stale_scan", ErrorKind::Conflict);
        assert_eq!(tool_status(code), StatusCode::CONFLICT);
        let families: Vec<(&str, u16)> = tools::families()
            .iter()
            .flat_map(|f| f.error_codes())
            .map(|c| (c.as_str(), tool_status(*c).as_u16()))
            .collect();
        assert_eq!(
            families,
            [("limits_unreadable", 502), ("request_quota_exceeded", 429)]
        );
    }
}
