//! A secret's hand-over in the owner's browser (`start_connection`): the page names the
//! instance and takes its API key; the key is checked with the instance's own probe and kept
//! only when accepted. The secret is never shown back, logged or put in an answer.

use askama::Template;
use axum::{
    body::Bytes,
    extract::Path,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use domain::Secret;

use super::{PageError, PageState, check_csrf, form, host, owner, render, when};

/// The longest secret taken.
const MAX_SECRET: usize = 512;

#[derive(Template)]
#[template(path = "connection.html")]
struct ConnectionPage {
    signed_in: bool,
    csrf: String,
    id: String,
    instance_id: String,
    kind: String,
    url: String,
    waiting: bool,
    status: String,
    message: String,
    expires: String,
}

/// The connection `id` and its instance, or the page's error.
async fn find(
    web: &crate::Web,
    id: &str,
) -> Result<(store::Connection, tools::InstanceSpec), PageError> {
    let host = host(web)?;
    let connection = host.app.store().connection(id).await?.ok_or_else(|| {
        PageError::new(
            StatusCode::NOT_FOUND,
            "no such hand-over; start_connection opens one",
        )
    })?;
    let spec = host
        .app
        .instances()
        .all()
        .iter()
        .find(|s| s.id == connection.instance_id)
        .cloned()
        .ok_or_else(|| {
            PageError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "the instance {} is no longer configured",
                    connection.instance_id
                ),
            )
        })?;
    Ok((connection, spec))
}

fn page_of(csrf: &str, c: &store::Connection, spec: &tools::InstanceSpec) -> ConnectionPage {
    ConnectionPage {
        signed_in: true,
        csrf: csrf.to_owned(),
        id: c.id.clone(),
        instance_id: c.instance_id.clone(),
        kind: spec.kind.to_string(),
        url: spec.display_url().unwrap_or_default(),
        waiting: c.status == "waiting",
        status: c.status.clone(),
        message: c.message.clone().unwrap_or_default(),
        expires: when(c.expires_at),
    }
}

pub(crate) async fn page(
    super::State(web): PageState,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let (c, spec) = find(&web, &id).await?;
        render(&page_of(&session.csrf, &c, &spec))
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn submit(
    super::State(web): PageState,
    Path(id): Path<String>,
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
        let (c, mut spec) = find(&web, &id).await?;
        if c.status != "waiting" {
            return Err(PageError::new(
                StatusCode::CONFLICT,
                format!("this hand-over is {}; start_connection opens a new one", c.status),
            ));
        }
        let typed = fields.get("secret").map(|s| s.trim()).unwrap_or_default();
        if typed.is_empty() || typed.len() > MAX_SECRET || typed.chars().any(char::is_control) {
            return Err(PageError::new(
                StatusCode::BAD_REQUEST,
                format!("type the API key: 1 to {MAX_SECRET} characters on one line; nothing was kept"),
            ));
        }
        let secret = Secret::new(typed);
        spec.api_key = Some(secret.clone());
        let host = host(&web)?;
        let (kept, message) = match host.app.check_instance(&spec).await {
            Some(Ok(found)) => (true, format!("checked: {found}; used from Marquee's next start")),
            Some(Err(why)) => (false, why),
            None => (false, format!("{} has no check of its own; nothing was kept", spec.id)),
        };
        // The probe's sentence is kept and answered to the assistant: it never carries the key,
        // even when a server echoes it back.
        let message = message.replace(typed, "[the key]");
        let saved = kept.then_some(&secret);
        host.app.store().finish_connection(&c.id, saved, &message).await?;
        tracing::info!(instance = %spec.id, kept, "the owner entered an instance's key on the owner pages");
        let (c, spec) = find(&web, &id).await?;
        render(&page_of(&session.csrf, &c, &spec))
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
