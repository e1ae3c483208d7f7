//! Signing in with the owner's password, and signing out.

use askama::Template;
use axum::{
    body::Bytes,
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

pub(crate) async fn submit(
    super::State(web): PageState,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(r) = check_request(&web, &headers) {
        return r;
    }
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
