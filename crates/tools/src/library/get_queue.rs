//! `get_queue`: what the library services are downloading, merged over every library instance
//! (asked concurrently) or one. A queue that cannot be read completely is an error, never empty.

use std::collections::BTreeMap;

use adapters_library::QueueItem;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    count,
    source::{chosen, merged},
};
use governance::{Ctx, Meta, Output, Tool, ToolError, contract::page_limit};

pub struct GetQueue;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance, as list_instances shows it (default: every library instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Only items in trouble (a warning or error from the service, or failed).
    #[serde(default)]
    pub problems_only: Option<bool>,
    /// Rows per page, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
    /// Rows to skip (next_offset of the previous page).
    #[serde(default)]
    pub offset: Option<u32>,
}

#[derive(Serialize)]
struct Row<'a> {
    instance_id: &'a str,
    #[serde(flatten)]
    item: &'a QueueItem,
}

#[derive(Serialize, JsonSchema)]
struct Data<'a> {
    instances: Vec<InstanceCount<'a>>,
    unreadable: Vec<super::shapes::Unreadable>,
    total: usize,
    by_status: BTreeMap<&'a str, usize>,
    /// The queue items of the page, each with its instance_id.
    #[schemars(with = "Vec<serde_json::Value>")]
    items: Vec<Row<'a>>,
    next_offset: Option<usize>,
}

#[derive(Serialize, JsonSchema)]
struct InstanceCount<'a> {
    instance_id: &'a str,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    items: usize,
}

fn in_trouble(q: &QueueItem) -> bool {
    q.tracked_status.as_deref().is_some_and(|s| s != "ok")
        || matches!(q.status.as_str(), "failed" | "warning")
        || q.error.is_some()
}

impl Tool for GetQueue {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data<'static>>);
    const META: Meta = Meta {
        name: "get_queue",
        title: "Library queue",
        description: "What Radarr, Sonarr, Lidarr and Readarr are downloading: per item the title, status, import state, progress, time left, download client, quality and the service's own messages. Without instance_id every library instance is read at once; instances that could not be read are named and the rest shown. A queue that cannot be read completely is an error, never an empty list.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };
    const LONG: bool = true;

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let limit = page_limit(input.limit)? as usize;
        let offset = input.offset.unwrap_or(0) as usize;
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let m = merged(ctx, sources, |c| c.queue()).await;
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let problems = input.problems_only.unwrap_or(false);
        let mut rows: Vec<Row> = Vec::new();
        let mut by_status: BTreeMap<&str, usize> = BTreeMap::new();
        for (s, items) in &m.read {
            for q in items.iter().filter(|q| !problems || in_trouble(q)) {
                *by_status.entry(q.status.as_str()).or_default() += 1;
                rows.push(Row {
                    instance_id: &s.id,
                    item: q,
                });
            }
        }
        let total = rows.len();
        let page: Vec<Row> = rows.into_iter().skip(offset).take(limit).collect();
        let next_offset = (offset + page.len() < total).then_some(offset + page.len());
        let read_names: Vec<&str> = m.read.iter().map(|(s, _)| s.id.as_str()).collect();
        let statuses: Vec<String> = by_status.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let mut summary = format!(
            "{} in the queue of {}{}.",
            count(total, "item", "items"),
            read_names.join(", "),
            if statuses.is_empty() {
                String::new()
            } else {
                format!(" ({})", statuses.join(", "))
            }
        );
        if !m.failed.is_empty() {
            let names: Vec<&str> = m.failed.iter().map(|(s, _)| s.id.as_str()).collect();
            summary.push_str(&format!(
                " Could not be read: {} (see warnings).",
                names.join(", ")
            ));
        }
        let data = Data {
            instances: m
                .read
                .iter()
                .map(|(s, items)| InstanceCount {
                    instance_id: &s.id,
                    kind: s.kind,
                    items: items.len(),
                })
                .collect(),
            unreadable: m.failed_data(),
            total,
            by_status,
            items: page,
            next_offset,
        };
        let mut out = Output::typed(summary, &data)?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        if let Some(next) = next_offset {
            out = out.next(match &input.instance_id {
                Some(id) => format!("get_queue {{\"instance_id\":{id:?},\"offset\":{next}}}"),
                None => format!("get_queue {{\"offset\":{next}}}"),
            });
        }
        Ok(out)
    }
}
