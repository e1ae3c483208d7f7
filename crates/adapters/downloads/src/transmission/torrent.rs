//! Transmission reads of one torrent: detail, files, trackers.

use domain::InfoHash;
use serde::Deserialize;
use serde_json::json;

use super::{
    fields::{LIST_FIELDS, TrTorrent},
    rpc::TrClient,
};
use crate::{
    error::{Error, Result},
    intern::Interner,
    metainfo::{host_of, redact_url},
    model::{FilePriority, TorrentDetail, TorrentFile, TrackerEntry, TrackerStatus},
    tracker_class,
};

impl TrClient {
    async fn one(&self, hash: InfoHash, extra: &[&str]) -> Result<(TrTorrent, serde_json::Value)> {
        let fields: Vec<&str> = LIST_FIELDS.iter().chain(extra).copied().collect();
        let got = self
            .torrent_get_as::<serde_json::Value>(json!([hash.to_hex()]), &fields)
            .await?;
        let raw = got
            .torrents
            .into_iter()
            .next()
            .ok_or_else(|| not_found(hash))?;
        let t: TrTorrent =
            serde_json::from_value(raw.clone()).map_err(|e| Error::decode("torrent-get", e))?;
        Ok((t, raw))
    }

    pub async fn torrent_detail(&self, hash: InfoHash) -> Result<TorrentDetail> {
        let base = self.download_dir().await?;
        let extra = [
            "comment",
            "creator",
            "dateCreated",
            "pieceSize",
            "pieceCount",
            "isPrivate",
            "secondsSeeding",
            "files",
        ];
        let (t, raw) = self.one(hash, &extra).await?;
        let torrent = t.to_torrent(&base, &mut Interner::default())?;
        let s = |k: &str| {
            raw.get(k)
                .and_then(|v| v.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let n = |k: &str| raw.get(k).and_then(|v| v.as_i64());
        Ok(TorrentDetail {
            torrent,
            comment: s("comment"),
            created_by: s("creator"),
            created_at: n("dateCreated").filter(|&d| d > 0),
            piece_size: n("pieceSize").filter(|&v| v > 0).map(|v| v as u64),
            pieces: n("pieceCount").filter(|&v| v > 0).map(|v| v as u64),
            private: raw.get("isPrivate").and_then(|v| v.as_bool()),
            seeding_time: n("secondsSeeding").filter(|&v| v >= 0).map(|v| v as u64),
            file_count: raw
                .get("files")
                .and_then(|v| v.as_array())
                .map(|a| a.len() as u64),
        })
    }

    pub async fn torrent_files(&self, hash: InfoHash) -> Result<Vec<TorrentFile>> {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Files {
            files: Vec<File>,
            #[serde(rename = "fileStats", alias = "file_stats")]
            file_stats: Vec<Stat>,
        }
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct File {
            name: String,
            length: i64,
            #[serde(rename = "bytesCompleted", alias = "bytes_completed")]
            bytes_completed: i64,
        }
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Stat {
            wanted: Option<bool>,
            priority: i64,
        }
        let (_, raw) = self.one(hash, &["files", "fileStats"]).await?;
        let f: Files = serde_json::from_value(raw).map_err(|e| Error::decode("torrent-get", e))?;
        Ok(f.files
            .into_iter()
            .enumerate()
            .map(|(n, file)| {
                let stat = f.file_stats.get(n);
                let wanted = stat.and_then(|s| s.wanted).unwrap_or(true);
                let size = file.length.max(0) as u64;
                TorrentFile {
                    index: n as u32,
                    name: file.name,
                    size,
                    progress: if size == 0 {
                        1.0
                    } else {
                        (file.bytes_completed.max(0) as f64 / size as f64).min(1.0)
                    },
                    wanted,
                    priority: match (wanted, stat.map_or(0, |s| s.priority)) {
                        (false, _) => FilePriority::Skip,
                        (true, p) if p < 0 => FilePriority::Low,
                        (true, p) if p > 0 => FilePriority::High,
                        _ => FilePriority::Normal,
                    },
                }
            })
            .collect())
    }

    pub async fn torrent_trackers(&self, hash: InfoHash) -> Result<Vec<TrackerEntry>> {
        let (_, raw) = self.one(hash, &["trackerStats"]).await?;
        let stats = raw
            .get("trackerStats")
            .or_else(|| raw.get("tracker_stats"))
            .and_then(|v| v.as_array());
        let get = |t: &serde_json::Value, camel: &str, snake: &str| {
            t.get(camel).or_else(|| t.get(snake)).cloned()
        };
        Ok(stats
            .into_iter()
            .flatten()
            .map(|t| {
                let announce = t
                    .get("announce")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                let announced = get(t, "hasAnnounced", "has_announced")
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false);
                let ok = get(t, "lastAnnounceSucceeded", "last_announce_succeeded")
                    .and_then(|v| v.as_bool());
                let busy =
                    get(t, "announceState", "announce_state").and_then(|v| v.as_i64()) == Some(3);
                let result = get(t, "lastAnnounceResult", "last_announce_result")
                    .and_then(|v| v.as_str().map(|s| httpx::redact(s.trim())))
                    .filter(|s| !s.is_empty() && s != "Success");
                let status = match (announced, busy, ok) {
                    (false, false, _) => TrackerStatus::NotContacted,
                    (_, true, _) => TrackerStatus::Updating,
                    (true, false, Some(true)) => TrackerStatus::Working,
                    _ => TrackerStatus::NotWorking,
                };
                let message = if status == TrackerStatus::NotWorking {
                    result
                } else {
                    None
                };
                let count = |camel, snake| {
                    get(t, camel, snake)
                        .and_then(|v| v.as_i64())
                        .filter(|&v| v >= 0)
                };
                TrackerEntry {
                    url: redact_url(announce),
                    host: host_of(announce),
                    tier: t.get("tier").and_then(|v| v.as_i64()).unwrap_or(0),
                    status,
                    error_class: message.as_deref().and_then(tracker_class::classify),
                    message,
                    seeds: count("seederCount", "seeder_count"),
                    leechers: count("leecherCount", "leecher_count"),
                    downloaded: count("downloadCount", "download_count"),
                }
            })
            .collect())
    }
}

pub(crate) fn not_found(hash: InfoHash) -> Error {
    Error::NotFound {
        what: format!("torrent {hash}"),
    }
}
