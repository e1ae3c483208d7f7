//! What the four services have in common, read the same way: queue, history, health, disk
//! space, quality profiles, custom formats, root folders, tags and commands.

use serde::Deserialize;

use crate::redact::redacted;
use serde_json::Value;

use crate::{
    Error,
    core::Core,
    model::{
        Command, CustomFormat, Disk, Health, HistoryEvent, Profile, QueueItem, RootFolder, Tag,
    },
};

/// Fields the services compute themselves and declare read-only: a lookup answer sent back to add
/// a title loses them (the services ignore them; their documents refuse them).
const COMPUTED: [&str; 8] = [
    "statistics",
    "mediumCount",
    "ended",
    "extension",
    "percentOfTracks",
    "percentOfBooks",
    "percentOfEpisodes",
    "languageProfileId",
];

/// A lookup answer made ready to be posted back: computed fields removed at every depth.
pub(crate) fn without_computed(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| !COMPUTED.contains(&k.as_str()));
            map.values_mut().for_each(without_computed);
        }
        Value::Array(items) => items.iter_mut().for_each(without_computed),
        _ => {}
    }
}

/// A calendar bound as the services' documents declare it (`date-time`): a bare date is its
/// midnight UTC.
pub(crate) fn calendar_bound(date: &str) -> String {
    if date.len() == 10 {
        format!("{date}T00:00:00Z")
    } else {
        date.to_string()
    }
}

redacted! {
#[derive(Deserialize, Default)]
pub(crate) struct Named {
    #[serde(default)]
    pub name: Option<String>,
}
}

redacted! {
#[derive(Deserialize, Default)]
pub(crate) struct QualityWrap {
    #[serde(default)]
    pub quality: Option<Named>,
}
}

pub(crate) fn quality_name(q: Option<QualityWrap>) -> Option<String> {
    q.and_then(|q| q.quality).and_then(|n| n.name)
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VQueue {
    id: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    tracked_download_state: Option<String>,
    #[serde(default)]
    tracked_download_status: Option<String>,
    #[serde(default)]
    movie_id: Option<i64>,
    #[serde(default)]
    series_id: Option<i64>,
    #[serde(default)]
    album_id: Option<i64>,
    #[serde(default)]
    book_id: Option<i64>,
    #[serde(default)]
    episode_id: Option<i64>,
    #[serde(default)]
    season_number: Option<i64>,
    /// Sonarr v5: a queue item covers several episodes and seasons.
    #[serde(default)]
    episode_ids: Option<Vec<i64>>,
    #[serde(default)]
    season_numbers: Option<Vec<i64>>,
    #[serde(default)]
    size: f64,
    /// `sizeleft` up to Sonarr v4 (and in the others), `sizeLeft` in Sonarr v5.
    #[serde(default, alias = "sizeLeft")]
    sizeleft: f64,
    #[serde(default, alias = "timeLeft")]
    timeleft: Option<String>,
    #[serde(default)]
    estimated_completion_time: Option<String>,
    #[serde(default)]
    download_client: Option<String>,
    #[serde(default)]
    indexer: Option<String>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    quality: Option<QualityWrap>,
    #[serde(default)]
    download_id: Option<String>,
    #[serde(default)]
    output_path: Option<String>,
    #[serde(default)]
    status_messages: Option<Vec<StatusMessage>>,
    #[serde(default)]
    error_message: Option<String>,
}
}

redacted! {
#[derive(Deserialize)]
struct StatusMessage {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    messages: Option<Vec<String>>,
}
}

/// The whole queue, read completely or not at all.
pub async fn queue(core: &Core) -> Result<Vec<QueueItem>, Error> {
    let rows: Vec<VQueue> = core.paged("the queue", "queue", &[]).await?;
    Ok(rows.into_iter().map(queue_item).collect())
}

fn queue_item(q: VQueue) -> QueueItem {
    let progress = if q.size > 0.0 {
        ((q.size - q.sizeleft) / q.size * 100.0).clamp(0.0, 100.0)
    } else {
        0.0
    };
    let mut messages = Vec::new();
    for m in q.status_messages.unwrap_or_default() {
        let inner = m.messages.unwrap_or_default();
        if inner.is_empty() {
            messages.extend(m.title);
        } else {
            messages.extend(inner);
        }
    }
    QueueItem {
        id: q.id,
        title: q.title.unwrap_or_default(),
        status: q.status.unwrap_or_else(|| "unknown".into()),
        tracked_state: q.tracked_download_state,
        tracked_status: q.tracked_download_status,
        item_id: q.movie_id.or(q.series_id).or(q.album_id).or(q.book_id),
        episode_id: q
            .episode_id
            .or_else(|| q.episode_ids.as_ref().and_then(|e| e.first().copied())),
        season: q
            .season_number
            .or_else(|| q.season_numbers.as_ref().and_then(|s| s.first().copied())),
        progress: (progress * 10.0).round() / 10.0,
        size: q.size,
        size_left: q.sizeleft,
        time_left: q.timeleft,
        estimated_completion: q.estimated_completion_time,
        download_client: q.download_client,
        indexer: q.indexer,
        protocol: q.protocol,
        quality: quality_name(q.quality),
        download_id: q.download_id,
        output_path: q.output_path.filter(|p| !p.is_empty()),
        messages,
        error: q.error_message.filter(|e| !e.is_empty()),
    }
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VHistory {
    id: i64,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    event_type: Option<Value>,
    #[serde(default)]
    source_title: Option<String>,
    #[serde(default)]
    movie_id: Option<i64>,
    #[serde(default)]
    series_id: Option<i64>,
    #[serde(default)]
    album_id: Option<i64>,
    #[serde(default)]
    book_id: Option<i64>,
    #[serde(default)]
    episode_id: Option<i64>,
    #[serde(default)]
    quality: Option<QualityWrap>,
    #[serde(default)]
    download_id: Option<String>,
}
}

fn history_event(h: VHistory) -> HistoryEvent {
    let event = match h.event_type {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => "unknown".into(),
    };
    HistoryEvent {
        id: h.id,
        date: h.date,
        event,
        source_title: h.source_title,
        item_id: h.movie_id.or(h.series_id).or(h.album_id).or(h.book_id),
        episode_id: h.episode_id,
        quality: quality_name(h.quality),
        download_id: h.download_id,
    }
}

/// The latest `size` history events, newest first (one page of the service's history).
pub async fn history(core: &Core, size: u32) -> Result<Vec<HistoryEvent>, Error> {
    redacted! {
    #[derive(Deserialize)]
    struct Page {
        #[serde(default)]
        records: Vec<VHistory>,
    }
    }
    let q = [
        ("page", "1".to_string()),
        ("pageSize", size.to_string()),
        ("sortKey", "date".to_string()),
        ("sortDirection", "descending".to_string()),
    ];
    let page: Page = core.get("history", &q).await?;
    Ok(page.records.into_iter().map(history_event).collect())
}

/// One item's own history, from the service's per-item endpoint (`history/movie`, ...).
pub async fn item_history(
    core: &Core,
    path: &str,
    query: &[(&str, String)],
) -> Result<Vec<HistoryEvent>, Error> {
    let rows: Vec<VHistory> = core.get(path, query).await?;
    Ok(rows.into_iter().map(history_event).collect())
}

/// Every event of the paged `history` the query keeps (newest first), read completely.
pub async fn paged_history(
    core: &Core,
    what: &'static str,
    query: &[(&str, String)],
) -> Result<Vec<HistoryEvent>, Error> {
    let mut q = query.to_vec();
    q.push(("sortKey", "date".to_string()));
    q.push(("sortDirection", "descending".to_string()));
    let rows: Vec<VHistory> = core.paged(what, "history", &q).await?;
    Ok(rows.into_iter().map(history_event).collect())
}

pub async fn health(core: &Core) -> Result<Vec<Health>, Error> {
    redacted! {
    #[derive(Deserialize)]
    struct V {
        #[serde(default)]
        source: Option<String>,
        #[serde(default, rename = "type")]
        kind: Option<String>,
        #[serde(default)]
        message: Option<String>,
    }
    }
    let rows: Vec<V> = core.get("health", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| Health {
            source: v.source,
            level: v.kind.unwrap_or_else(|| "warning".into()),
            message: v.message.unwrap_or_default(),
        })
        .collect())
}

pub async fn disk_space(core: &Core) -> Result<Vec<Disk>, Error> {
    redacted! {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct V {
        #[serde(default)]
        path: Option<String>,
        #[serde(default)]
        label: Option<String>,
        #[serde(default)]
        free_space: i64,
        #[serde(default)]
        total_space: i64,
    }
    }
    let rows: Vec<V> = core.get("diskspace", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| Disk {
            path: v.path.unwrap_or_default(),
            label: v.label,
            free_bytes: v.free_space,
            total_bytes: v.total_space,
        })
        .collect())
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VProfileItem {
    #[serde(default)]
    quality: Option<VQuality>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    allowed: bool,
    #[serde(default)]
    items: Vec<VProfileItem>,
}
}

redacted! {
#[derive(Deserialize)]
struct VQuality {
    #[serde(default)]
    id: Option<i64>,
    #[serde(default)]
    name: Option<String>,
}
}

fn allowed_names(items: &[VProfileItem], out: &mut Vec<String>) {
    for i in items {
        if !i.allowed {
            continue;
        }
        match (&i.quality, &i.name) {
            (Some(q), _) => out.extend(q.name.clone()),
            (None, Some(group)) => out.push(group.clone()),
            (None, None) => allowed_names(&i.items, out),
        }
    }
}

fn quality_by_id(items: &[VProfileItem], id: i64) -> Option<String> {
    items.iter().find_map(|i| match &i.quality {
        Some(q) if q.id == Some(id) => q.name.clone(),
        _ => quality_by_id(&i.items, id),
    })
}

/// Quality profiles (`qualityprofile`), or metadata profiles (`metadataprofile`).
pub async fn profiles(core: &Core, path: &str) -> Result<Vec<Profile>, Error> {
    redacted! {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct V {
        id: i64,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        upgrade_allowed: Option<bool>,
        #[serde(default)]
        cutoff: Option<i64>,
        #[serde(default)]
        items: Vec<VProfileItem>,
        #[serde(default)]
        min_format_score: Option<i64>,
    }
    }
    let rows: Vec<V> = core.get(path, &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| {
            let mut allowed = Vec::new();
            allowed_names(&v.items, &mut allowed);
            Profile {
                id: v.id,
                name: v.name.unwrap_or_default(),
                upgrade_allowed: v.upgrade_allowed,
                cutoff: v.cutoff.and_then(|c| quality_by_id(&v.items, c)),
                allowed,
                min_format_score: v.min_format_score,
            }
        })
        .collect())
}

pub async fn custom_formats(core: &Core) -> Result<Vec<CustomFormat>, Error> {
    redacted! {
    #[derive(Deserialize)]
    struct Spec {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        implementation: Option<String>,
    }
    }
    redacted! {
    #[derive(Deserialize)]
    struct V {
        id: i64,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        specifications: Vec<Spec>,
    }
    }
    let rows: Vec<V> = core.get("customformat", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| CustomFormat {
            id: v.id,
            name: v.name.unwrap_or_default(),
            specifications: v
                .specifications
                .into_iter()
                .map(|s| {
                    format!(
                        "{} ({})",
                        s.name.unwrap_or_default(),
                        s.implementation.unwrap_or_default()
                    )
                })
                .collect(),
        })
        .collect())
}

pub async fn root_folders(core: &Core) -> Result<Vec<RootFolder>, Error> {
    redacted! {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct V {
        id: i64,
        #[serde(default)]
        path: Option<String>,
        #[serde(default)]
        accessible: Option<bool>,
        #[serde(default)]
        free_space: Option<i64>,
    }
    }
    let rows: Vec<V> = core.get("rootfolder", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| RootFolder {
            id: v.id,
            path: v.path.unwrap_or_default(),
            accessible: v.accessible,
            free_bytes: v.free_space,
        })
        .collect())
}

pub async fn tags(core: &Core) -> Result<Vec<Tag>, Error> {
    redacted! {
    #[derive(Deserialize)]
    struct V {
        id: i64,
        #[serde(default)]
        label: Option<String>,
    }
    }
    let rows: Vec<V> = core.get("tag", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|v| Tag {
            id: v.id,
            label: v.label.unwrap_or_default(),
        })
        .collect())
}

redacted! {
#[derive(Deserialize)]
struct VCommand {
    id: i64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    queued: Option<String>,
    #[serde(default)]
    ended: Option<String>,
}
}

fn command_of(v: VCommand) -> Command {
    Command {
        id: v.id,
        name: v.name.unwrap_or_default(),
        status: v.status.unwrap_or_else(|| "queued".into()),
        message: v.message,
        queued: v.queued,
        ended: v.ended,
    }
}

/// Starts a command (`{"name": ..., fields}`).
pub async fn start_command(core: &Core, body: Value) -> Result<Command, Error> {
    let v: VCommand = core.post("command", &body).await?;
    Ok(command_of(v))
}

pub async fn command(core: &Core, id: i64) -> Result<Command, Error> {
    let v: VCommand = core.get(&format!("command/{id}"), &[]).await?;
    Ok(command_of(v))
}
