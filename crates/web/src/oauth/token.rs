//! `POST /token` (authorization code with PKCE, refresh with rotation) and `POST /revoke`
//! (RFC 7009). Public clients name themselves with `client_id`; no client secret exists.

use axum::{
    extract::{Request, State},
    http::{StatusCode, header},
    response::Response,
};
use serde_json::json;
use store::{CodeExchange, Revocation, TokenOutcome};

use super::{
    OAuthError, Params, base, disabled, form_pairs, lifetimes, no_store, oauth_error, rules, source,
};
use crate::Web;

/// Longest token or revocation request accepted.
const MAX_BODY: usize = 16 * 1024;

/// What every request to these endpoints needs (the router's guard checked Host and Origin):
/// the server on, a form body and no client secret. A source that failed too often is
/// refused only when its next code or token fails too ([`token`]): they are long and random,
/// so a valid one goes through whatever others failed from the same address.
async fn read(
    web: &Web,
    request: Request,
) -> Result<(Vec<(String, String)>, Option<std::net::IpAddr>), Response> {
    let (parts, body) = request.into_parts();
    if lifetimes(web).is_none() {
        return Err(disabled());
    }
    let source = source(web, &parts);
    if parts.headers.contains_key(header::AUTHORIZATION) {
        return Err(oauth_error(
            StatusCode::UNAUTHORIZED,
            OAuthError::InvalidClient,
            "this server registers public clients only: send client_id in the form and no client secret",
        ));
    }
    let body = axum::body::to_bytes(body, MAX_BODY).await.map_err(|_| {
        oauth_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            OAuthError::InvalidRequest,
            "the request is larger than 16 KiB",
        )
    })?;
    Ok((form_pairs(&body), source))
}

fn too_many(wait: u64) -> Response {
    let mut r = oauth_error(
        StatusCode::TOO_MANY_REQUESTS,
        OAuthError::SlowDown,
        &format!("too many failed requests from this address; try again in {wait} seconds"),
    );
    r.headers_mut().insert(header::RETRY_AFTER, wait.into());
    r
}

fn bad(error: OAuthError, description: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, error, description)
}

fn store_failed(e: store::Error) -> Response {
    tracing::error!(error = %e, "an OAuth token request failed");
    oauth_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        OAuthError::ServerError,
        "the request could not be completed; the server log has the details",
    )
}

pub(crate) async fn token(State(web): State<Web>, request: Request) -> Response {
    let headers = request.headers().clone();
    let (pairs, source) = match read(&web, request).await {
        Ok(read) => read,
        Err(r) => return r,
    };
    let p: Params = match rules::params(&pairs) {
        Ok(p) => p,
        Err(r) => return bad(r.error, &r.description),
    };
    let (Some(life), Some(host)) = (lifetimes(&web), web.ready.get()) else {
        return disabled();
    };
    let store = host.app.store();
    let Some(client_id) = p.get("client_id").copied() else {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            OAuthError::InvalidClient,
            "client_id is required",
        );
    };
    match store.oauth_client(client_id).await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                OAuthError::InvalidClient,
                &format!("client_id \"{client_id}\" is not registered here; register again"),
            );
        }
        Err(e) => return store_failed(e),
    }
    let resources = super::resources(&base(&web, &headers));
    let resource = p.get("resource").copied();
    if let Some(r) = resource.filter(|r| !resources.iter().any(|x| x == r)) {
        return bad(
            OAuthError::InvalidTarget,
            &format!(
                "resource \"{r}\" is not served here; valid resources: {}",
                resources.join(", ")
            ),
        );
    }
    if let Some(scope) = p.get("scope")
        && let Err(r) = rules::check_scope(scope)
    {
        return bad(r.error, &r.description);
    }
    let outcome = match p.get("grant_type").copied() {
        Some("authorization_code") => {
            let (Some(code), Some(verifier)) = (p.get("code"), p.get("code_verifier")) else {
                return bad(
                    OAuthError::InvalidRequest,
                    "code and code_verifier are required",
                );
            };
            let Some(redirect_uri) = p.get("redirect_uri") else {
                return bad(OAuthError::InvalidRequest, "redirect_uri is required");
            };
            let challenge = match rules::s256_of_verifier(verifier) {
                Ok(c) => c,
                Err(r) => return bad(r.error, &r.description),
            };
            let exchange = CodeExchange {
                code,
                client_id,
                redirect_uri,
                challenge_of_verifier: &challenge,
                resource,
            };
            store.exchange_code(&exchange, life).await
        }
        Some("refresh_token") => {
            let Some(refresh) = p.get("refresh_token") else {
                return bad(OAuthError::InvalidRequest, "refresh_token is required");
            };
            store
                .refresh_tokens(refresh, client_id, resource, life)
                .await
        }
        Some(other) => {
            return bad(
                OAuthError::UnsupportedGrantType,
                &format!(
                    "grant_type \"{other}\" is not supported; valid grant types: authorization_code, refresh_token"
                ),
            );
        }
        None => return bad(OAuthError::InvalidRequest, "grant_type is required"),
    };
    match outcome {
        Ok(TokenOutcome::Issued(t)) => {
            let mut body = json!({
                "access_token": t.access.expose(),
                "token_type": "Bearer",
                "expires_in": t.expires_in,
                "scope": rules::GRANTED_SCOPE,
            });
            if let Some(refresh) = &t.refresh {
                body["refresh_token"] = refresh.expose().into();
            }
            no_store(StatusCode::OK, body)
        }
        Ok(TokenOutcome::Refused(reason)) => {
            let error = OAuthError::of_token_refusal(&reason);
            tracing::warn!(error = error.as_str(), "an OAuth token request was refused");
            let blocked = match source {
                Some(ip) => web.throttle.failed_shared(ip).await,
                None => None,
            };
            if let Some(wait) = blocked {
                return too_many(wait);
            }
            bad(error, &reason.to_string())
        }
        Err(e) => store_failed(e),
    }
}

pub(crate) async fn revoke(State(web): State<Web>, request: Request) -> Response {
    let (pairs, _) = match read(&web, request).await {
        Ok(read) => read,
        Err(r) => return r,
    };
    let p: Params = match rules::params(&pairs) {
        Ok(p) => p,
        Err(r) => return bad(r.error, &r.description),
    };
    let Some(host) = web.ready.get() else {
        return disabled();
    };
    let (Some(token), Some(client_id)) = (p.get("token"), p.get("client_id")) else {
        return bad(
            OAuthError::InvalidRequest,
            "token and client_id are required",
        );
    };
    match host.app.store().revoke_token(token, client_id).await {
        Ok(Revocation::Revoked | Revocation::Unknown) => no_store(StatusCode::OK, json!({})),
        Ok(Revocation::OtherClient) => bad(
            OAuthError::InvalidRequest,
            "the token was issued to another client; nothing was revoked",
        ),
        Err(e) => store_failed(e),
    }
}
