//! Pending and past changes: the list, one change with its exact diff and effects, and the
//! owner's decision (approve or reject), bound to the content hash shown on the page.

use askama::Template;
use axum::{
    body::Bytes,
    extract::Path,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
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
        summary: c.summary.clone(),
        creator: c.creator.clone(),
        status: c.status.to_string(),
        created: when(c.created_at),
    }
}

pub(crate) async fn list(super::State(web): PageState, headers: HeaderMap) -> Response {
    if let Err(r) = owner(&web, &headers).await {
        return r;
    }
    let result = async {
        let store = host(&web)?.app.store();
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
    effect: String,
    torrents: Vec<Torrent>,
    /// A settings change's fields, from → to.
    settings: Vec<FieldRow>,
    plan: String,
    operation: Option<String>,
    pending: bool,
}

/// One field of a settings change, as the owner reviews it.
struct FieldRow {
    field: String,
    from: String,
    to: String,
}

/// One torrent of a deletion plan, as the owner reviews it.
struct Torrent {
    instance: String,
    name: String,
    size: String,
    category: String,
    save_path: String,
    info_hash: String,
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
        let store = host(&web)?.app.store();
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
            effect: effect(&change.tool, &plan),
            torrents: torrents(&plan),
            settings: settings_rows(&change.tool, &plan),
            plan: serde_json::to_string_pretty(&plan).unwrap_or_default(),
            id: change.id.clone(),
            tool: change.tool.clone(),
            summary: change.summary.clone(),
            creator: change.creator.clone(),
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

/// What carrying the plan out does, in one sentence.
fn effect(tool: &str, plan: &Value) -> String {
    match tool {
        "delete_torrents" => {
            let count = plan["instances"].as_array().map_or(0, |g| {
                g.iter()
                    .map(|g| g["torrents"].as_array().map_or(0, Vec::len))
                    .sum()
            });
            let size = plan["total_size"].as_u64().unwrap_or_default();
            let data = if plan["delete_data"] == true {
                "and deletes their downloaded files, which cannot be undone"
            } else {
                "and keeps their downloaded files"
            };
            format!(
                "Removes {count} torrent{} ({}) from the download client {data}.",
                if count == 1 { "" } else { "s" },
                size_text(size)
            )
        }
        "plan_profile_change" | "upsert_custom_format" | "revert_change" => {
            let what = match plan["target"]["kind"].as_str() {
                Some("quality_profile") => "quality profile",
                _ => "custom format",
            };
            let verb = if plan["reverts"].is_string() {
                format!(
                    "Reverts change {} by writing",
                    plan["reverts"].as_str().unwrap_or("")
                )
            } else if plan["target"]["kind"] == "new_custom_format" {
                "Creates".to_string()
            } else {
                "Writes".to_string()
            };
            let count = plan["changes"].as_array().map_or(0, Vec::len);
            format!(
                "{verb} {what} \"{}\" on {} ({count} field{} below); it is written only while the service still holds what was read.",
                plan["name"].as_str().unwrap_or_default(),
                plan["instance_id"].as_str().unwrap_or_default(),
                if count == 1 { "" } else { "s" },
            )
        }
        other => format!("Runs {other} as planned below."),
    }
}

/// The field rows of a settings plan; empty for other tools.
fn settings_rows(tool: &str, plan: &Value) -> Vec<FieldRow> {
    if !matches!(
        tool,
        "plan_profile_change" | "upsert_custom_format" | "revert_change"
    ) {
        return Vec::new();
    }
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    plan["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| FieldRow {
            field: text(&c["field"]),
            from: text(&c["from"]),
            to: text(&c["to"]),
        })
        .collect()
}

fn torrents(plan: &Value) -> Vec<Torrent> {
    let Some(groups) = plan["instances"].as_array() else {
        return Vec::new();
    };
    groups
        .iter()
        .flat_map(|g| {
            let instance = g["instance_id"].as_str().unwrap_or_default().to_string();
            g["torrents"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |t| Torrent {
                    instance: instance.clone(),
                    name: t["name"].as_str().unwrap_or_default().to_string(),
                    size: size_text(t["size"].as_u64().unwrap_or_default()),
                    category: t["category"].as_str().unwrap_or("none").to_string(),
                    save_path: t["save_path"].as_str().unwrap_or_default().to_string(),
                    info_hash: t["info_hash"].as_str().unwrap_or_default().to_string(),
                })
        })
        .collect()
}

fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
