//! Pending and past changes: the list, one change with its exact diff and effects, and the
//! owner's decision (approve or reject), bound to the content hash shown on the page.

use askama::Template;
use axum::{
    body::Bytes,
    extract::Path,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
use governance::plan::{Look, PlanView};
use serde_json::Value;
use store::{Change, ChangeStatus};

use super::{PageError, PageState, check_csrf, form, host, owner, render, when};

#[derive(Template)]
#[template(path = "changes.html")]
struct ListPage {
    signed_in: bool,
    pending: Vec<Row>,
    recent: Vec<Row>,
}

struct Row {
    id: String,
    summary: String,
    creator: String,
    status: String,
    created: String,
}

fn row(c: &Change) -> Row {
    Row {
        id: c.id.clone(),
        summary: super::shown(&c.summary),
        creator: super::shown(&c.creator),
        status: c.status.to_string(),
        created: when(c.created_at),
    }
}

pub(crate) async fn list(super::State(web): PageState, headers: HeaderMap) -> Response {
    if let Err(r) = owner(&web, &headers).await {
        return r;
    }
    let result = async {
        let app = &host(&web)?.app;
        let store = app.store();
        let pending = store.changes_page(Some(ChangeStatus::Pending), 200).await?;
        let all = store.changes_page(None, 50).await?;
        render(&ListPage {
            signed_in: true,
            pending: pending.iter().map(row).collect(),
            recent: all
                .iter()
                .filter(|c| c.status != ChangeStatus::Pending)
                .map(row)
                .collect(),
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

#[derive(Template)]
#[template(path = "change.html")]
struct DetailPage {
    signed_in: bool,
    csrf: String,
    id: String,
    tool: String,
    summary: String,
    creator: String,
    status: String,
    created: String,
    decided: Option<String>,
    content_hash: String,
    grant_revision: i64,
    /// The plan as its tool describes it: what carrying it out does, and what it touches.
    view: PlanView,
    plan: String,
    operation: Option<String>,
    pending: bool,
}

pub(crate) async fn detail(
    super::State(web): PageState,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let app = &host(&web)?.app;
        let store = app.store();
        let change = store.change(&id).await?.ok_or_else(|| {
            PageError::new(StatusCode::NOT_FOUND, format!("no change with id \"{id}\""))
        })?;
        let plan: Value = serde_json::from_str(&change.plan).unwrap_or(Value::Null);
        let operation = store.operation_for_change(&change.id).await?.map(|op| {
            let message = op.message.unwrap_or_default();
            format!("{} ({}) {message}", op.id, op.status)
        });
        render(&DetailPage {
            signed_in: true,
            csrf: session.csrf.clone(),
            view: shown_view(app.describe_plan(&change)),
            plan: super::shown(&serde_json::to_string_pretty(&plan).unwrap_or_default()),
            id: change.id.clone(),
            tool: change.tool.clone(),
            summary: super::shown(&change.summary),
            creator: super::shown(&change.creator),
            status: change.status.to_string(),
            created: when(change.created_at),
            decided: change
                .decided_by
                .as_ref()
                .map(|who| format!("{who}, {}", when(change.decided_at.unwrap_or_default()))),
            content_hash: change.content_hash.clone(),
            grant_revision: change.grant_revision,
            operation,
            pending: change.status == ChangeStatus::Pending,
        })
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

pub(crate) async fn decide(
    super::State(web): PageState,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let session = match owner(&web, &headers).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let result = async {
        let fields = form(&body);
        check_csrf(&session, &fields)?;
        let approve = match fields.get("decision").map(String::as_str) {
            Some("approve") => true,
            Some("reject") => false,
            _ => {
                return Err(PageError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown decision; valid decisions: approve, reject",
                ));
            }
        };
        let seen = fields
            .get("content_hash")
            .map(String::as_str)
            .unwrap_or_default();
        host(&web)?
            .app
            .store()
            .decide_change(&id, session.person.id, approve, seen)
            .await?;
        tracing::info!(change = %id, approve, "the owner decided a change");
        Ok(Redirect::to(&format!("/changes/{id}")).into_response())
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

/// The plan's review with every text as a page shows it (see `shown`).
fn shown_view(mut view: PlanView) -> PlanView {
    view.effect = super::shown(&view.effect);
    for table in &mut view.tables {
        for cell in table.rows.iter_mut().flatten() {
            *cell = super::shown(cell);
        }
    }
    view
}

#[cfg(test)]
mod tests {
    use governance::plan::{Look, PlanColumn, PlanTable};

    use super::*;

    #[test]
    fn a_name_that_reorders_what_follows_is_shown_as_its_code_points() {
        let view = PlanView {
            effect: "Removes 1 torrent".into(),
            tables: vec![PlanTable {
                id: "diff",
                title: "Torrents",
                columns: vec![PlanColumn {
                    header: "Name",
                    look: Look::Text,
                    wide: false,
                }],
                rows: vec![vec!["holiday\u{202E}4pm.exe".into()]],
            }],
        };
        let shown = shown_view(view);
        assert_eq!(shown.tables[0].rows[0][0], "holiday[U+202E]4pm.exe");
        assert_eq!(
            super::super::shown("a\u{2067}b\u{200F}"),
            "a[U+2067]b[U+200F]"
        );
        assert_eq!(super::super::shown("Heat (1995)"), "Heat (1995)");
    }
}
