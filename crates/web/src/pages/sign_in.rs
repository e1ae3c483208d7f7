//! Signing in with the owner's password, and signing out.

use askama::Template;
use std::net::SocketAddr;

use axum::{
    body::Bytes,
    extract::{ConnectInfo, Request},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Redirect, Response},
};
use domain::{Role, Secret};

use super::{PageError, PageState, check_request, cookie, form, host, render, session_cookie};

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignIn<'a> {
    error: Option<&'a str>,
    signed_in: bool,
}

fn sign_in_page(error: Option<&str>) -> Result<Response, PageError> {
    render(&SignIn {
        error,
        signed_in: false,
    })
}

pub(crate) async fn page(super::State(web): PageState, headers: HeaderMap) -> Response {
    if let Err(r) = check_request(&web, &headers) {
        return r;
    }
    sign_in_page(None).unwrap_or_else(IntoResponse::into_response)
}

/// Longest sign-in form accepted.
const MAX_FORM_BYTES: usize = 16 * 1024;

pub(crate) async fn submit(super::State(web): PageState, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(r) = check_request(&web, &parts.headers) {
        return r;
    }
    // Failed sign-ins count against the source like failed keys do on /mcp.
    let source = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(wait) = source.and_then(|ip| web.throttle.blocked(ip)) {
        return too_many(wait);
    }
    let Ok(body) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return PageError::new(StatusCode::PAYLOAD_TOO_LARGE, "the form is too large")
            .into_response();
    };
    let fields = form(&body);
    let name = fields.get("name").map(String::as_str).unwrap_or_default();
    let password = Secret::new(fields.get("password").cloned().unwrap_or_default());
    let result = async {
        let host = host(&web)?;
        let store = host.app.store();
        let person = store
            .check_password(name.trim(), &password)
            .await?
            .filter(|p| p.role == Role::Owner);
        let Some(person) = person else {
            tracing::warn!("an owner-page sign-in failed");
            if let Some(wait) = source.and_then(|ip| web.throttle.failed(ip)) {
                return Ok(too_many(wait));
            }
            let mut r = sign_in_page(Some(
                "wrong name or password (these pages are for the owner; set a password with marquee people set-password NAME)",
            ))?;
            *r.status_mut() = StatusCode::UNAUTHORIZED;
            return Ok(r);
        };
        let token = store.create_session(person.id).await?;
        let secure = host.app.settings().public_url().starts_with("https://");
        let mut r = Redirect::to("/changes").into_response();
        let value = session_cookie(token.expose(), 12 * 60 * 60, secure);
        r.headers_mut().insert(
            header::SET_COOKIE,
            value.parse().map_err(PageError::internal)?,
        );
        Ok::<Response, PageError>(r)
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn sign_out(
    super::State(web): PageState,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match super::owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        super::check_csrf(&session, &form(&body))?;
        if let Some(token) = cookie(&headers) {
            host(&web)?.app.store().end_session(token).await?;
        }
        let mut r = Redirect::to("/sign-in").into_response();
        r.headers_mut().insert(
            header::SET_COOKIE,
            session_cookie("", 0, false)
                .parse()
                .map_err(PageError::internal)?,
        );
        Ok::<Response, PageError>(r)
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

/// 429 with `Retry-After` for a source with too many failed sign-ins.
fn too_many(wait: u64) -> Response {
    let mut r = PageError::new(
        StatusCode::TOO_MANY_REQUESTS,
        format!("too many failed sign-ins from this address; try again in {wait} seconds"),
    )
    .into_response();
    if let Ok(v) = wait.to_string().parse() {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}
