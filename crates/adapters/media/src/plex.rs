//! Plex Media Server (the community-written `plex-pms` OpenAPI document; Plex publishes none),
//! asked for JSON with `Accept: application/json`: the library sections and their items read
//! with `X-Plex-Container-Start`/`-Size` paging and `includeGuids=1` (provider ids as
//! `tmdb://…` guids), continue watching and history with a managed user's own token (plex.tv,
//! which hands those out, is not asked: the config gives them), and `/status/sessions`.

use domain::Secret;
use serde::Deserialize;

use crate::{
    Error,
    core::Core,
    model::{ItemKind, ItemPage, MediaItem, Progress, ProviderIds, Session},
};

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Envelope {
    media_container: Container,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Container {
    #[serde(rename = "totalSize")]
    total_size: Option<i64>,
    size: Option<i64>,
    #[serde(rename = "Metadata")]
    metadata: Vec<Metadata>,
    #[serde(rename = "Directory")]
    directory: Vec<Directory>,
    #[serde(rename = "Hub")]
    hub: Vec<Hub>,
    #[serde(rename = "friendlyName")]
    friendly_name: Option<String>,
    version: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Hub {
    #[serde(rename = "Metadata")]
    metadata: Vec<Metadata>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Directory {
    key: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Metadata {
    rating_key: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    title: Option<String>,
    year: Option<i32>,
    grandparent_rating_key: Option<String>,
    grandparent_title: Option<String>,
    parent_index: Option<i64>,
    index: Option<i64>,
    #[serde(rename = "Guid")]
    guids: Vec<Guid>,
    content_rating: Option<String>,
    #[serde(rename = "Genre")]
    genres: Vec<Tag>,
    added_at: Option<i64>,
    duration: Option<i64>,
    view_offset: Option<i64>,
    view_count: Option<i64>,
    last_viewed_at: Option<i64>,
    viewed_at: Option<i64>,
    #[serde(rename = "User")]
    user: Option<Tag>,
    #[serde(rename = "Player")]
    player: Option<Player>,
    #[serde(rename = "TranscodeSession")]
    transcode: Option<Transcode>,
}

/// A provider guid (`tmdb://348`); an id of another shape is passed over, not a failed read.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Guid {
    id: serde_json::Value,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tag {
    tag: Option<String>,
    title: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Player {
    title: Option<String>,
    product: Option<String>,
    state: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Transcode {
    video_decision: Option<String>,
    audio_decision: Option<String>,
}

fn at(secs: Option<i64>) -> Option<String> {
    chrono::DateTime::from_timestamp(secs?, 0).map(|t| t.to_rfc3339())
}

fn number(n: Option<i64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok())
}

fn seconds(ms: Option<i64>) -> Option<u64> {
    ms.and_then(|m| u64::try_from(m).ok()).map(|m| m / 1000)
}

impl Metadata {
    fn item(&self) -> Option<MediaItem> {
        let kind = match self.kind.as_deref()? {
            "movie" => ItemKind::Movie,
            "show" => ItemKind::Series,
            "episode" => ItemKind::Episode,
            _ => return None,
        };
        let guid = |scheme: &str| {
            self.guids.iter().find_map(|g| {
                g.id.as_str()?
                    .strip_prefix(scheme)
                    .and_then(|rest| rest.strip_prefix("://"))
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
            })
        };
        let episode = kind == ItemKind::Episode;
        Some(MediaItem {
            id: self.rating_key.clone()?,
            kind,
            title: self.title.clone().unwrap_or_default(),
            year: self.year,
            series_id: self.grandparent_rating_key.clone().filter(|_| episode),
            series_title: self.grandparent_title.clone().filter(|_| episode),
            season: number(self.parent_index).filter(|_| episode),
            episode: number(self.index).filter(|_| episode),
            ids: ProviderIds {
                tmdb: guid("tmdb"),
                imdb: guid("imdb"),
                tvdb: guid("tvdb"),
            },
            rating: self.content_rating.clone().filter(|r| !r.trim().is_empty()),
            genres: self.genres.iter().filter_map(|g| g.tag.clone()).collect(),
            added_at: at(self.added_at),
            runtime_seconds: seconds(self.duration),
        })
    }

    fn progress(&self) -> Option<Progress> {
        let item = self.item()?;
        let position = seconds(self.view_offset).unwrap_or(0);
        // Only an item under way has an offset; a watched one has none to tell.
        let percent = self
            .view_offset
            .and(item.runtime_seconds)
            .filter(|r| *r > 0)
            .map(|r| (position as f64 * 100.0 / r as f64).min(100.0));
        Some(Progress {
            position_seconds: position,
            percent,
            played: self.view_count.unwrap_or(0) > 0 || self.viewed_at.is_some(),
            last_played: at(self.viewed_at.or(self.last_viewed_at)),
            item,
        })
    }
}

async fn container(core: &Core, path: &str, query: &[(&str, String)]) -> Result<Container, Error> {
    let e: Envelope = core.get(path, query).await?;
    Ok(e.media_container)
}

/// `GET /identity`: the server answers (its version).
pub(crate) async fn status(core: &Core) -> Result<String, Error> {
    let c = container(core, "/identity", &[]).await?;
    Ok(format!(
        "{} {} answers",
        c.friendly_name
            .unwrap_or_else(|| "Plex Media Server".into()),
        c.version.unwrap_or_default()
    )
    .trim_end()
    .replace("  ", " "))
}

/// The library sections to read and the item types of each: movies (1), or shows (2) and
/// their episodes (4).
pub(crate) async fn sections(core: &Core) -> Result<Vec<(String, u8)>, Error> {
    let c = container(core, "/library/sections/all", &[]).await?;
    let mut out = Vec::new();
    for d in c.directory {
        let Some(key) = d.key else { continue };
        match d.kind.as_deref() {
            Some("movie") => out.push((key, 1)),
            Some("show") => {
                out.push((key.clone(), 2));
                out.push((key, 4));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// One page of a section's items of one type.
pub(crate) async fn section_items(
    core: &Core,
    section: &str,
    kind: u8,
    start: u64,
    limit: u64,
) -> Result<ItemPage, Error> {
    let query = [
        ("type", kind.to_string()),
        ("includeGuids", "1".to_string()),
        ("X-Plex-Container-Start", start.to_string()),
        ("X-Plex-Container-Size", limit.to_string()),
    ];
    let c = container(core, &format!("/library/sections/{section}/all"), &query).await?;
    let total = c.total_size.or(c.size).unwrap_or(0);
    Ok(ItemPage {
        read: c.metadata.len() as u64,
        total: u64::try_from(total).unwrap_or(0),
        items: c.metadata.iter().filter_map(Metadata::item).collect(),
    })
}

/// A managed user's continue watching, with that user's own token.
pub(crate) async fn resume(
    core: &Core,
    token: &Secret,
    limit: u32,
) -> Result<Vec<Progress>, Error> {
    let query = [
        ("includeGuids", "1".to_string()),
        ("count", limit.to_string()),
    ];
    let e: Envelope = core.get_as("/hubs/continueWatching", &query, token).await?;
    Ok(e.media_container
        .hub
        .iter()
        .flat_map(|h| &h.metadata)
        .chain(&e.media_container.metadata)
        .filter_map(Metadata::progress)
        .collect())
}

/// A managed user's watch history, most recent first, with that user's own token.
pub(crate) async fn history(
    core: &Core,
    token: &Secret,
    limit: u32,
) -> Result<Vec<Progress>, Error> {
    let query = [
        ("sort", "viewedAt:desc".to_string()),
        ("X-Plex-Container-Start", "0".to_string()),
        ("X-Plex-Container-Size", limit.to_string()),
    ];
    let e: Envelope = core
        .get_as("/status/sessions/history/all", &query, token)
        .await?;
    Ok(e.media_container
        .metadata
        .iter()
        .filter_map(|m| {
            let mut p = m.progress()?;
            p.played = true;
            Some(p)
        })
        .collect())
}

/// Playbacks under way.
pub(crate) async fn sessions(core: &Core) -> Result<Vec<Session>, Error> {
    let c = container(core, "/status/sessions", &[]).await?;
    Ok(c.metadata
        .iter()
        .filter_map(|m| {
            let item = m.item()?;
            let player = m.player.as_ref();
            let transcoding = m.transcode.as_ref().is_some_and(|t| {
                [&t.video_decision, &t.audio_decision]
                    .iter()
                    .any(|d| d.as_deref() == Some("transcode"))
            });
            Some(Session {
                user: m
                    .user
                    .as_ref()
                    .and_then(|u| u.title.clone())
                    .unwrap_or_default(),
                device: player.and_then(|p| p.title.clone()).unwrap_or_default(),
                client: player.and_then(|p| p.product.clone()).unwrap_or_default(),
                position_seconds: seconds(m.view_offset),
                paused: player.and_then(|p| p.state.as_deref()) == Some("paused"),
                transcoding,
                item,
            })
        })
        .collect())
}
