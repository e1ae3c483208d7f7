//! The activity log: every audited write, newest first.

use askama::Template;
use axum::{
    http::HeaderMap,
    response::{IntoResponse, Response},
};
use store::AuditQuery;

use super::{PageState, host, owner, render, when};

#[derive(Template)]
#[template(path = "activity.html")]
struct ActivityPage {
    signed_in: bool,
    entries: Vec<Entry>,
}

struct Entry {
    at: String,
    person: String,
    tool: String,
    instance: String,
    status: String,
    message: String,
}

pub(crate) async fn page(super::State(web): PageState, headers: HeaderMap) -> Response {
    if let Err(r) = owner(&web, &headers).await {
        return r;
    }
    let result = async {
        let query = AuditQuery {
            limit: 200,
            ..AuditQuery::default()
        };
        let page = host(&web)?.app.store().audit_page(&query).await?;
        render(&ActivityPage {
            signed_in: true,
            entries: page
                .into_iter()
                .map(|e| Entry {
                    at: when(e.at),
                    person: e.person,
                    tool: e.tool,
                    instance: e.instance.unwrap_or_default(),
                    status: e.status.to_string(),
                    message: e.message.unwrap_or_default(),
                })
                .collect(),
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
