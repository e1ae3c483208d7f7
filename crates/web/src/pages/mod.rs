//! The owner pages, server-rendered at the server's root: sign-in, pending changes with their
//! exact diff, approve or reject (CSRF-protected, bound to the content hash), the activity log,
//! the household's setup, the shortlist rows (a schedule paused there) and a secret's
//! hand-over (`start_connection`). Templates live in `crates/web/templates/` (askama).
//!
//! Every page checks the Host and Origin like the MCP edge does, needs the owner's session
//! cookie, and every form carries the session's CSRF token.

mod activity;
mod changes;
mod connections;
mod household;
mod household_forms;
mod shortlists;
mod sign_in;

use std::sync::Arc;

use askama::Template;
use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode, header},
    response::{Html, IntoResponse, Redirect, Response},
    routing::{get, post},
};
use domain::Role;
use store::Session;
use subtle::ConstantTimeEq;

use crate::{Host, Web};

/// The session cookie's name.
const COOKIE: &str = "marquee_session";

pub(crate) fn router() -> Router<Web> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/changes") }))
        .route("/sign-in", get(sign_in::page).post(sign_in::submit))
        .route("/sign-out", post(sign_in::sign_out))
        .route("/changes", get(changes::list))
        .route("/changes/{id}", get(changes::detail))
        .route("/changes/{id}/decide", post(changes::decide))
        .route("/activity", get(activity::page))
        .route("/household", get(household::page))
        .route("/shortlists", get(shortlists::list))
        .route("/shortlists/rows/{id}", get(shortlists::row))
        .route("/shortlists/rows/{id}/schedule", post(shortlists::pause))
        .route(
            "/connections/{id}",
            get(connections::page).post(connections::submit),
        )
        .route("/household/keys", post(household_forms::create_key))
        .route("/household/switches", post(household_forms::set_switch))
        .route("/household/links", post(household_forms::set_link))
}

/// A page that could not be served: status and one sentence for the owner.
pub(crate) struct PageError {
    pub(crate) status: StatusCode,
    message: String,
}

impl PageError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> PageError {
        PageError {
            status,
            message: message.into(),
        }
    }

    fn internal(e: impl std::fmt::Display) -> PageError {
        tracing::error!(error = %e, "an owner page failed");
        PageError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "something went wrong; the server log has the details",
        )
    }
}

impl From<store::Error> for PageError {
    fn from(e: store::Error) -> PageError {
        match e {
            store::Error::NotFound(m) => PageError::new(StatusCode::NOT_FOUND, m),
            store::Error::Conflict(m) => PageError::new(StatusCode::CONFLICT, m),
            store::Error::Invalid(m) => PageError::new(StatusCode::BAD_REQUEST, m),
            other => PageError::internal(other),
        }
    }
}

#[derive(Template)]
#[template(path = "message.html")]
struct MessagePage<'a> {
    title: &'a str,
    message: &'a str,
    signed_in: bool,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let page = MessagePage {
            title: self.status.canonical_reason().unwrap_or("Error"),
            message: &self.message,
            signed_in: false,
        };
        // An error page is framed no more than any other page.
        let mut response = match render(&page) {
            Ok(r) => r,
            Err(_) => (
                [
                    (header::X_FRAME_OPTIONS, "DENY"),
                    (
                        header::CONTENT_SECURITY_POLICY,
                        "default-src 'none'; frame-ancestors 'none'",
                    ),
                ],
                self.message.clone(),
            )
                .into_response(),
        };
        *response.status_mut() = self.status;
        response
    }
}

/// `text` as a page shows it: a character that reorders what follows it (a right-to-left
/// override, an isolate, a directional mark) is written as its code point, so a torrent or
/// client named to look like something else reads as what it is.
pub(crate) fn shown(text: &str) -> String {
    let reorders = |c: char| matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !text.contains(reorders) {
        return text.to_owned();
    }
    text.chars()
        .fold(String::with_capacity(text.len() + 8), |mut out, c| {
            if reorders(c) {
                out.push_str(&format!("[U+{:04X}]", c as u32));
            } else {
                out.push(c);
            }
            out
        })
}

/// Renders a template as a page.
pub(crate) fn render(t: &impl Template) -> Result<Response, PageError> {
    render_sending_forms_to(t, "")
}

/// Renders a page whose form may also end at `origin` (`http://127.0.0.1:5000`): the OAuth
/// consent, whose answer redirects to the client, which the form-action directive governs too.
pub(crate) fn render_sending_forms_to(
    t: &impl Template,
    origin: &str,
) -> Result<Response, PageError> {
    let html = t.render().map_err(PageError::internal)?;
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' {origin}; frame-ancestors 'none'"
    );
    Ok((
        [
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::X_FRAME_OPTIONS, "DENY".to_owned()),
            (
                header::CONTENT_SECURITY_POLICY,
                csp.trim_end().replace(" ;", ";"),
            ),
        ],
        Html(html),
    )
        .into_response())
}

/// The host, once the store is open (the readiness gate runs first).
pub(crate) fn host(web: &Web) -> Result<&Arc<Host>, PageError> {
    web.ready.get().ok_or_else(|| {
        PageError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "marquee is starting; try again in a moment",
        )
    })
}

/// The cookie value a request carries, if any.
fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
}

/// What an owner page needs before it renders (the router's guard checked Host and Origin):
/// the owner's session; anyone else is sent to sign in.
pub(crate) async fn owner(web: &Web, headers: &HeaderMap) -> Result<Session, Response> {
    let host = host(web).map_err(IntoResponse::into_response)?;
    let Some(token) = cookie(headers) else {
        return Err(Redirect::to("/sign-in").into_response());
    };
    match host.app.store().session(token).await {
        Ok(Some(s)) if s.person.role == Role::Owner => Ok(s),
        Ok(_) => Err(Redirect::to("/sign-in").into_response()),
        Err(e) => Err(PageError::from(e).into_response()),
    }
}

/// Parses an `application/x-www-form-urlencoded` body; a repeated field keeps its first value.
pub(crate) fn form(body: &Bytes) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    for (k, v) in url::form_urlencoded::parse(body) {
        out.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    out
}

/// Refuses a form whose `csrf` field is missing or not this session's token.
pub(crate) fn check_csrf(
    session: &Session,
    fields: &std::collections::HashMap<String, String>,
) -> Result<(), PageError> {
    let sent = fields.get("csrf").map(String::as_bytes).unwrap_or_default();
    if bool::from(sent.ct_eq(session.csrf.as_bytes())) && !sent.is_empty() {
        Ok(())
    } else {
        Err(PageError::new(
            StatusCode::FORBIDDEN,
            "this form is missing its CSRF token or carries a wrong one; nothing was changed; open the page again",
        ))
    }
}

/// The `Set-Cookie` value of a session; `Secure` when the pages are served over TLS.
fn session_cookie(value: &str, max_age: i64, secure: bool) -> String {
    let mut c = format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}");
    if secure {
        c.push_str("; Secure");
    }
    c
}

/// Unix milliseconds as a UTC time for people.
pub(crate) fn when(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// The state axum hands every page.
pub(crate) type PageState = State<Web>;
