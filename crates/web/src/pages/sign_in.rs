//! Signing in with the owner's password, and signing out.

use askama::Template;

use axum::{
    body::Bytes,
    extract::{RawQuery, Request},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Redirect, Response},
};
use domain::{Role, Secret};

use super::{PageError, PageState, cookie, form, host, render, session_cookie};

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignIn<'a> {
    error: Option<&'a str>,
    /// Where to go once signed in (an OAuth consent waiting, say).
    next: &'a str,
    signed_in: bool,
}

fn sign_in_page(error: Option<&str>, next: &str) -> Result<Response, PageError> {
    render(&SignIn {
        error,
        next,
        signed_in: false,
    })
}

/// Where to go after signing in: `next` when it is a path on this server, the changes page
/// when none is given. Anything else is refused: another site (`https://…`, `//host`, `/\host`)
/// and anything a browser might read as one or that cannot be a header (a control character
/// such as the tab in `/\t/evil.example`, which browsers drop, a space or a non-ASCII byte).
fn local_next(next: Option<&str>) -> Result<&str, PageError> {
    let Some(n) = next.filter(|n| !n.is_empty()) else {
        return Ok("/changes");
    };
    let visible = n.bytes().all(|b| b.is_ascii_graphic());
    if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') && visible {
        Ok(n)
    } else {
        Err(PageError::new(
            StatusCode::BAD_REQUEST,
            "next must be a path on this server, such as /changes",
        ))
    }
}

pub(crate) async fn page(RawQuery(query): RawQuery) -> Response {
    let next = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "next")
        .map(|(_, v)| v.into_owned());
    local_next(next.as_deref())
        .and_then(|next| sign_in_page(None, next))
        .unwrap_or_else(IntoResponse::into_response)
}

/// Longest sign-in form accepted.
const MAX_FORM_BYTES: usize = 16 * 1024;

pub(crate) async fn submit(super::State(web): PageState, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    // Failed sign-ins count against the name and the client's address: passwords can be
    // guessed, so a name blocked from an address is refused before its password is checked.
    let source = mcp::forwarded::source_of(&web.edge.trusted_proxies, &parts).map(|s| s.client);
    let Ok(body) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return PageError::new(StatusCode::PAYLOAD_TOO_LARGE, "the form is too large")
            .into_response();
    };
    let fields = form(&body);
    let name = fields.get("name").map(String::as_str).unwrap_or_default();
    let password = Secret::new(fields.get("password").cloned().unwrap_or_default());
    let next = match local_next(fields.get("next").map(String::as_str)) {
        Ok(next) => next,
        Err(e) => return e.into_response(),
    };
    if let Some(wait) = source.and_then(|ip| web.throttle.blocked_for(ip, name.trim())) {
        return too_many(wait);
    }
    let result = async {
        let host = host(&web)?;
        let store = host.app.store();
        let person = store
            .check_password(name.trim(), &password)
            .await?
            .filter(|p| p.role == Role::Owner);
        let Some(person) = person else {
            tracing::warn!("an owner-page sign-in failed");
            let blocked = match source {
                Some(ip) => web.throttle.failed_for_shared(ip, name.trim()).await,
                None => None,
            };
            if let Some(wait) = blocked {
                return Ok(too_many(wait));
            }
            let mut r = sign_in_page(Some(
                "wrong name or password (these pages are for the owner; set a password with marquee people set-password NAME)",
            ), next)?;
            *r.status_mut() = StatusCode::UNAUTHORIZED;
            return Ok(r);
        };
        let token = store.create_session(person.id).await?;
        let secure = host.app.settings().public_url().starts_with("https://");
        let mut r = Redirect::to(next).into_response();
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

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::local_next;

    #[test]
    fn only_local_paths_are_followed_after_sign_in() {
        assert_eq!(
            local_next(Some("/authorize?client_id=a%20b")).ok(),
            Some("/authorize?client_id=a%20b")
        );
        for none in [None, Some("")] {
            assert_eq!(local_next(none).ok(), Some("/changes"), "{none:?}");
        }
        for away in [
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "/\t/evil.example/",
            "/\n/evil.example/",
            "/changes\r\nSet-Cookie: x=1",
            "/ch\0anges",
            "/ /evil.example",
            "/évil",
            "changes",
        ] {
            let refused = local_next(Some(away)).err().map(|e| e.status);
            assert_eq!(refused, Some(StatusCode::BAD_REQUEST), "{away:?}");
        }
    }
}
