//! `POST /register`: dynamic client registration (RFC 7591) of public clients.

use axum::{
    extract::{Request, State},
    http::StatusCode,
    response::Response,
};
use serde_json::{Value, json};

use super::{OAuthError, disabled, lifetimes, no_store, oauth_error, rules, source};
use crate::Web;

/// Longest registration body accepted.
const MAX_BODY: usize = 16 * 1024;

pub(crate) async fn register(State(web): State<Web>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if lifetimes(&web).is_none() {
        return disabled();
    }
    // Registration is open to anyone, so it is counted per address: one address cannot fill
    // the server's client list (clients never consented to are forgotten within minutes).
    let source = source(&web, &parts);
    if let Some(wait) = source.and_then(|ip| web.registrations.blocked(ip)) {
        let mut r = oauth_error(
            StatusCode::TOO_MANY_REQUESTS,
            OAuthError::SlowDown,
            &format!("too many registrations from this address; try again in {wait} seconds"),
        );
        r.headers_mut()
            .insert(axum::http::header::RETRY_AFTER, wait.into());
        return r;
    }
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        return oauth_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            OAuthError::InvalidClientMetadata,
            "the registration is larger than 16 KiB",
        );
    };
    let Ok(metadata) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            OAuthError::InvalidClientMetadata,
            "the registration is not valid JSON",
        );
    };
    let new = match rules::client_metadata(&metadata) {
        Ok(new) => new,
        Err(r) => return oauth_error(StatusCode::BAD_REQUEST, r.error, &r.description),
    };
    let Some(host) = web.ready.get() else {
        return mcp::edge::not_ready();
    };
    match host.app.store().register_client(&new).await {
        Ok(client) => {
            if let Some(ip) = source {
                web.registrations.count(ip);
            }
            tracing::info!(client_id = %client.client_id, name = %client.name, "an OAuth client registered");
            no_store(
                StatusCode::CREATED,
                json!({
                    "client_id": client.client_id,
                    "client_id_issued_at": client.created_at / 1000,
                    "client_name": client.name,
                    "redirect_uris": client.redirect_uris,
                    "grant_types": client.grant_types,
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                }),
            )
        }
        Err(store::Error::Conflict(m)) => oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            OAuthError::TemporarilyUnavailable,
            &m,
        ),
        Err(e) => {
            tracing::error!(error = %e, "a client registration failed");
            oauth_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                OAuthError::ServerError,
                "the registration could not be stored; the server log has the details",
            )
        }
    }
}
