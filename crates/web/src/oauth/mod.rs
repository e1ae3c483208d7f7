//! The OAuth 2.1 authorization server for remote connectors, and the protected-resource
//! metadata that names it: RFC 8414 metadata, RFC 9728 metadata for `/mcp` and the REST
//! mirror, dynamic client registration (RFC 7591), the authorization code flow with S256 PKCE
//! and consent on the owner pages, the token endpoint (RFC 8707 audiences, rotating refresh
//! tokens) and revocation (RFC 7009).
//!
//! The issuer is the configured public URL. Handlers parse, call `rules` (pure checks) and one
//! store method, and render; codes and tokens are kept only as verifiers (`store::oauth`).

mod authorize;
mod register;
mod rules;
mod token;

use std::collections::HashMap;

use axum::{
    Router,
    extract::State,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::{Value, json};
use store::{TokenLifetimes, TokenRefusal};

use crate::Web;

/// The paths of the resources tokens can be bound to; the first is the default.
const RESOURCES: [&str; 2] = ["/mcp", "/api/v1"];

pub(crate) fn router() -> Router<Web> {
    Router::new()
        .route("/.well-known/oauth-protected-resource", get(resource_mcp))
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_mcp),
        )
        .route(
            "/.well-known/oauth-protected-resource/api/v1",
            get(resource_rest),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register::register))
        .route("/authorize", get(authorize::page).post(authorize::decide))
        .route("/token", post(token::token))
        .route("/revoke", post(token::revoke))
}

/// Where this server is reached (`https://marquee.example`), without a trailing slash: the
/// configured public URL, or for an in-process server without one, the request's Host.
fn base(web: &Web, headers: &HeaderMap) -> String {
    let configured = web
        .ready
        .get()
        .map(|h| h.app.settings().public_url())
        .unwrap_or_default();
    if !configured.is_empty() {
        return configured;
    }
    let authority = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{authority}")
}

/// The token lifetimes while the authorization server is on.
fn lifetimes(web: &Web) -> Option<TokenLifetimes> {
    web.ready.get().and_then(|h| h.app.settings().oauth())
}

/// The resources tokens can be bound to, as URLs; the first is the default.
fn resources(base: &str) -> Vec<String> {
    RESOURCES.iter().map(|p| format!("{base}{p}")).collect()
}

/// The error codes this server answers with, as they go on the wire: RFC 6749 §4.1.2.1 and
/// §5.2, RFC 7591 §3.2.2 (registration), RFC 8707 (`invalid_target`), RFC 8628 (`slow_down`),
/// and `not_found` while the server is off.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::IntoStaticStr, strum::VariantArray,
)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum OAuthError {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnsupportedGrantType,
    InvalidScope,
    InvalidTarget,
    UnsupportedResponseType,
    AccessDenied,
    InvalidClientMetadata,
    InvalidRedirectUri,
    SlowDown,
    ServerError,
    TemporarilyUnavailable,
    NotFound,
}

impl OAuthError {
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }

    /// The code of each reason the store refuses a token request for.
    fn of_token_refusal(reason: &TokenRefusal) -> OAuthError {
        match reason {
            TokenRefusal::ResourceMismatch { .. } => OAuthError::InvalidTarget,
            TokenRefusal::CodeUnknown
            | TokenRefusal::CodeReused
            | TokenRefusal::CodeExpired
            | TokenRefusal::CodeOtherClient
            | TokenRefusal::RedirectUriMismatch
            | TokenRefusal::VerifierMismatch
            | TokenRefusal::CodeGrantGone
            | TokenRefusal::RefreshUnknown
            | TokenRefusal::RefreshOtherClient
            | TokenRefusal::RefreshRevoked
            | TokenRefusal::RefreshReused
            | TokenRefusal::RefreshExpired
            | TokenRefusal::ConnectionGrantGone => OAuthError::InvalidGrant,
        }
    }
}

/// An OAuth error answer (RFC 6749 §5.2): `{error, error_description}`, never cached.
fn oauth_error(status: StatusCode, error: OAuthError, description: &str) -> Response {
    no_store(
        status,
        json!({"error": error.as_str(), "error_description": description}),
    )
}

/// A JSON answer with `Cache-Control: no-store` (RFC 6749 §5.1).
fn no_store(status: StatusCode, body: Value) -> Response {
    let mut r = (status, axum::Json(body)).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    r
}

/// 404 for every authorization-server route while `[oauth] enabled` is off.
fn disabled() -> Response {
    oauth_error(
        StatusCode::NOT_FOUND,
        OAuthError::NotFound,
        "the authorization server is off on this marquee ([oauth] enabled = false); use an API key",
    )
}

/// A form body's fields in order, for [`rules::params`].
fn form_pairs(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The client address of a request (the forwarded one behind a trusted proxy), for the
/// per-address throttles.
fn source(web: &Web, request_parts: &axum::http::request::Parts) -> Option<std::net::IpAddr> {
    mcp::forwarded::source_of(&web.edge.trusted_proxies, request_parts).map(|s| s.client)
}

async fn resource_mcp(State(web): State<Web>, headers: HeaderMap) -> Response {
    resource_metadata(&web, &headers, "/mcp")
}

async fn resource_rest(State(web): State<Web>, headers: HeaderMap) -> Response {
    resource_metadata(&web, &headers, "/api/v1")
}

/// RFC 9728 protected-resource metadata of the resource at `path`, naming this server as its
/// authorization server while OAuth is on.
fn resource_metadata(web: &Web, headers: &HeaderMap, path: &str) -> Response {
    let base = base(web, headers);
    let servers: Vec<&str> = match lifetimes(web) {
        Some(_) => vec![base.as_str()],
        None => Vec::new(),
    };
    axum::Json(json!({
        "resource": format!("{base}{path}"),
        "authorization_servers": servers,
        "bearer_methods_supported": ["header"],
        "scopes_supported": [rules::GRANTED_SCOPE],
        "resource_name": "Marquee",
        "resource_documentation": format!("{base}/api/v1/openapi.json"),
    }))
    .into_response()
}

/// RFC 8414 authorization server metadata.
async fn server_metadata(State(web): State<Web>, headers: HeaderMap) -> Response {
    if lifetimes(&web).is_none() {
        return disabled();
    }
    let issuer = base(&web, &headers);
    axum::Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "revocation_endpoint": format!("{issuer}/revoke"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [rules::GRANTED_SCOPE],
        "authorization_response_iss_parameter_supported": true,
        "service_documentation": format!("{issuer}/api/v1/openapi.json"),
    }))
    .into_response()
}

/// Looks up each parameter once; `HashMap` of borrowed pairs.
type Params<'a> = HashMap<&'a str, &'a str>;

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    #[test]
    fn error_codes_have_their_rfc_names() {
        let names: Vec<&str> = OAuthError::VARIANTS.iter().map(|e| e.as_str()).collect();
        assert_eq!(
            names,
            [
                "invalid_request",
                "invalid_client",
                "invalid_grant",
                "unsupported_grant_type",
                "invalid_scope",
                "invalid_target",
                "unsupported_response_type",
                "access_denied",
                "invalid_client_metadata",
                "invalid_redirect_uri",
                "slow_down",
                "server_error",
                "temporarily_unavailable",
                "not_found",
            ]
        );
    }

    #[test]
    fn a_token_refusal_is_invalid_grant_unless_it_is_about_the_resource() {
        let resource = TokenRefusal::ResourceMismatch {
            authorized: "https://m.example/mcp".into(),
        };
        assert_eq!(
            OAuthError::of_token_refusal(&resource),
            OAuthError::InvalidTarget
        );
        assert_eq!(
            resource.to_string(),
            "resource must be the one authorized: https://m.example/mcp"
        );
        for reason in [
            TokenRefusal::CodeReused,
            TokenRefusal::VerifierMismatch,
            TokenRefusal::RefreshReused,
            TokenRefusal::ConnectionGrantGone,
        ] {
            assert_eq!(
                OAuthError::of_token_refusal(&reason),
                OAuthError::InvalidGrant,
                "{reason}"
            );
        }
    }
}
