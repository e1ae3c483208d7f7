//! The shortlists pages: every row (with its schedule and who planned it), theme and recent
//! run; one row with what a run would do now and its runs; and the owner's pause or resume of
//! a row's schedule (CSRF-protected), the one shortlist change taken on a page without a plan.

use askama::Template;
use axum::{
    body::Bytes,
    extract::Path,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};

use super::{PageError, PageState, check_csrf, form, host, owner, render};

#[derive(Template)]
#[template(path = "shortlists.html")]
struct ShortlistsPage {
    signed_in: bool,
    themes: Vec<Vec<String>>,
    rows: Vec<Vec<String>>,
    runs: Vec<Vec<String>>,
}

#[derive(Template)]
#[template(path = "shortlist_row.html")]
struct RowPage {
    signed_in: bool,
    csrf: String,
    id: i64,
    name: String,
    fields: Vec<Vec<String>>,
    preview: Vec<Vec<String>>,
    effect: String,
    cron: Option<String>,
    paused: bool,
    runs: Vec<Vec<String>>,
}

fn failed(why: String) -> PageError {
    PageError::new(StatusCode::SERVICE_UNAVAILABLE, why)
}

pub(crate) async fn list(super::State(web): PageState, headers: HeaderMap) -> Response {
    if let Err(r) = owner(&web, &headers).await {
        return r;
    }
    let result = async {
        let o = tools::shortlists::pages::overview(&host(&web)?.app)
            .await
            .map_err(failed)?;
        render(&ShortlistsPage {
            signed_in: true,
            themes: o.themes,
            rows: o.rows,
            runs: o.runs,
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn row(
    super::State(web): PageState,
    Path(id): Path<i64>,
    headers: HeaderMap,
) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let app = &host(&web)?.app;
        let page = tools::shortlists::pages::row_page(app, id)
            .await
            .map_err(failed)?
            .ok_or_else(|| PageError::new(StatusCode::NOT_FOUND, format!("no row {id}")))?;
        let (cron, paused) = match page.schedule {
            Some((cron, paused)) => (Some(cron), paused),
            None => (None, false),
        };
        render(&RowPage {
            signed_in: true,
            csrf: session.csrf.clone(),
            id,
            name: page.name,
            fields: page.fields,
            preview: page.preview,
            effect: page.effect,
            cron,
            paused,
            runs: page.runs,
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn pause(
    super::State(web): PageState,
    Path(id): Path<i64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let fields = form(&body);
        check_csrf(&session, &fields)?;
        let paused = match fields.get("paused").map(String::as_str) {
            Some("on") => true,
            Some("off") => false,
            _ => {
                return Err(PageError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown position; valid positions: on, off",
                ));
            }
        };
        let done = tools::shortlists::pages::pause(&host(&web)?.app, id, paused)
            .await
            .map_err(failed)?;
        if !done {
            return Err(PageError::new(
                StatusCode::NOT_FOUND,
                format!("row {id} has no schedule"),
            ));
        }
        Ok(Redirect::to(&format!("/shortlists/rows/{id}")).into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
