//! qBittorrent reads of one torrent: properties, files, trackers.

use domain::InfoHash;
use serde::Deserialize;

use super::{
    api::{not_found, parse},
    client::{Effect, QbClient},
};
use crate::{
    error::{Error, Result},
    metainfo::{host_of, redact_url},
    model::{FilePriority, TorrentDetail, TorrentFile, TrackerEntry, TrackerStatus},
    tracker_class,
};

impl QbClient {
    pub async fn torrent_detail(&self, hash: InfoHash) -> Result<TorrentDetail> {
        let torrent = self.one(hash).await?;
        let h = hash.to_hex();
        let body = self
            .send(Effect::Read, |c| {
                c.get(self.url("torrents/properties"))
                    .query(&[("hash", h.as_str())])
            })
            .await
            .map_err(|e| {
                if matches!(e, Error::NotFound { .. }) {
                    not_found(hash)
                } else {
                    e
                }
            })?;
        let p: Properties = parse("torrents/properties", &body)?;
        Ok(TorrentDetail {
            torrent,
            comment: p.comment.filter(|s| !s.is_empty()),
            created_by: p.created_by.filter(|s| !s.is_empty()),
            created_at: p.creation_date.filter(|&d| d > 0),
            piece_size: p.piece_size.filter(|&v| v > 0).map(|v| v as u64),
            pieces: p.pieces_num.filter(|&v| v > 0).map(|v| v as u64),
            private: p.is_private,
            seeding_time: p.seeding_time.filter(|&v| v >= 0).map(|v| v as u64),
            file_count: None,
        })
    }

    pub async fn torrent_files(&self, hash: InfoHash) -> Result<Vec<TorrentFile>> {
        let h = hash.to_hex();
        let body = self
            .send(Effect::Read, |c| {
                c.get(self.url("torrents/files"))
                    .query(&[("hash", h.as_str())])
            })
            .await
            .map_err(|e| {
                if matches!(e, Error::NotFound { .. }) {
                    not_found(hash)
                } else {
                    e
                }
            })?;
        let files: Vec<QbFile> = parse("torrents/files", &body)?;
        Ok(files
            .into_iter()
            .enumerate()
            .map(|(n, f)| TorrentFile {
                index: f.index.unwrap_or(n as u32),
                name: f.name,
                size: f.size.max(0) as u64,
                progress: f.progress.clamp(0.0, 1.0),
                wanted: f.priority != 0,
                priority: match f.priority {
                    0 => FilePriority::Skip,
                    6 | 7 => FilePriority::High,
                    _ => FilePriority::Normal,
                },
            })
            .collect())
    }

    pub async fn torrent_trackers(&self, hash: InfoHash) -> Result<Vec<TrackerEntry>> {
        let h = hash.to_hex();
        let body = self
            .send(Effect::Read, |c| {
                c.get(self.url("torrents/trackers"))
                    .query(&[("hash", h.as_str())])
            })
            .await
            .map_err(|e| {
                if matches!(e, Error::NotFound { .. }) {
                    not_found(hash)
                } else {
                    e
                }
            })?;
        let rows: Vec<QbTracker> = parse("torrents/trackers", &body)?;
        Ok(rows
            .into_iter()
            // DHT, PeX and LSD appear as pseudo-trackers named "** [DHT] **".
            .filter(|t| !t.url.starts_with("**"))
            .map(|t| {
                let message = Some(httpx::redact(t.msg.trim())).filter(|m| !m.is_empty());
                let status = match t.status {
                    0 => TrackerStatus::Disabled,
                    1 => TrackerStatus::NotContacted,
                    2 => TrackerStatus::Working,
                    3 => TrackerStatus::Updating,
                    _ => TrackerStatus::NotWorking,
                };
                TrackerEntry {
                    url: redact_url(&t.url),
                    host: host_of(&t.url),
                    tier: t.tier.as_i64().unwrap_or(-1),
                    status,
                    error_class: message.as_deref().and_then(tracker_class::classify),
                    message,
                    seeds: t.num_seeds.filter(|&v| v >= 0),
                    leechers: t.num_leeches.filter(|&v| v >= 0),
                    downloaded: t.num_downloaded.filter(|&v| v >= 0),
                }
            })
            .collect())
    }
}

#[derive(Deserialize)]
struct Properties {
    comment: Option<String>,
    created_by: Option<String>,
    creation_date: Option<i64>,
    piece_size: Option<i64>,
    pieces_num: Option<i64>,
    is_private: Option<bool>,
    seeding_time: Option<i64>,
}

#[derive(Deserialize)]
struct QbFile {
    index: Option<u32>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    size: i64,
    #[serde(default)]
    progress: f64,
    #[serde(default = "one")]
    priority: i64,
}

fn one() -> i64 {
    1
}

#[derive(Deserialize)]
struct QbTracker {
    #[serde(default)]
    url: String,
    #[serde(default)]
    status: i64,
    /// A number, or "" for pseudo-trackers on some versions.
    #[serde(default)]
    tier: serde_json::Value,
    num_seeds: Option<i64>,
    num_leeches: Option<i64>,
    num_downloaded: Option<i64>,
    #[serde(default)]
    msg: String,
}
