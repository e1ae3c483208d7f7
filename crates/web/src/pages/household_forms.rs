//! The household page's forms: a new key (its secret shown once, on the answer page only), a
//! tool switch, and a person's link to a media-server user (so "my continue watching" reads
//! that user). Each needs the owner's session and its CSRF token.

use askama::Template;
use axum::{
    body::Bytes,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};

use super::{PageError, PageState, check_csrf, form, host, owner, render};

#[derive(Template)]
#[template(path = "key_created.html")]
struct KeyCreated {
    signed_in: bool,
    person: String,
    grant: String,
    key_id: String,
    secret: String,
}

pub(crate) async fn create_key(
    super::State(web): PageState,
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
        let field = |name: &str| fields.get(name).map(|v| v.trim()).unwrap_or_default();
        let store = host(&web)?.app.store();
        let person = store.person_by_name(field("person")).await?.ok_or_else(|| {
            PageError::new(
                StatusCode::BAD_REQUEST,
                format!("no person named \"{}\"; the household page lists them", field("person")),
            )
        })?;
        let label = Some(field("label")).filter(|l| !l.is_empty());
        let issued = store.create_key(person.id, field("grant"), label, None).await?;
        tracing::info!(key = %issued.info.key_id, person = %person.name, "the owner created a key on the owner pages");
        render(&KeyCreated {
            signed_in: true,
            person: issued.info.person.clone(),
            grant: issued.info.grant.clone(),
            key_id: issued.info.key_id.clone(),
            secret: issued.secret.expose().to_string(),
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn set_switch(
    super::State(web): PageState,
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
        let host = host(&web)?;
        let tool = fields.get("tool").map(String::as_str).unwrap_or_default();
        if !host.app.all_tools().iter().any(|t| t.meta.name == tool) {
            return Err(PageError::new(
                StatusCode::BAD_REQUEST,
                format!("unknown tool \"{tool}\"; the household page lists the tools"),
            ));
        }
        let enabled = match fields.get("enabled").map(String::as_str) {
            Some("on") => true,
            Some("off") => false,
            _ => {
                return Err(PageError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown switch position; valid positions: on, off",
                ));
            }
        };
        host.app.store().set_tool_switch(tool, enabled).await?;
        tracing::info!(
            tool,
            enabled,
            "the owner switched a tool on the owner pages"
        );
        Ok(Redirect::to("/household").into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

/// Links a person to a user of a configured media server, or removes the link (`action`).
pub(crate) async fn set_link(
    super::State(web): PageState,
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
        let field = |name: &str| fields.get(name).map(|v| v.trim()).unwrap_or_default();
        let host = host(&web)?;
        let store = host.app.store();
        let person = store.person_by_name(field("person")).await?.ok_or_else(|| {
            PageError::new(
                StatusCode::BAD_REQUEST,
                format!("no person named \"{}\"; the household page lists them", field("person")),
            )
        })?;
        let instance = field("instance");
        let servers = host.app.instances().ids_of(domain::KindFamily::MediaServers);
        if !servers.contains(&instance) {
            return Err(PageError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "\"{instance}\" is no media server here; media servers: {}",
                    if servers.is_empty() { "none configured".to_string() } else { servers.join(", ") }
                ),
            ));
        }
        match field("action") {
            "link" => {
                store.link_media_user(person.id, instance, field("user")).await?;
                tracing::info!(person = %person.name, instance, "the owner linked a media-server user on the owner pages");
            }
            "unlink" => {
                store.unlink_media_user(person.id, instance).await?;
                tracing::info!(person = %person.name, instance, "the owner removed a media-server link on the owner pages");
            }
            _ => {
                return Err(PageError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown action; valid actions: link, unlink",
                ));
            }
        }
        Ok(Redirect::to("/household").into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
