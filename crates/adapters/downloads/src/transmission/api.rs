//! Transmission reads: session, torrent lists, existence, categories, free space.

use std::{collections::BTreeSet, sync::Arc};

use domain::InfoHash;
use serde::Deserialize;
use serde_json::json;

use super::{
    fields::{LIST_FIELDS, TrTorrent, category_of},
    rpc::TrClient,
};
use crate::{
    error::{Error, Result},
    intern::Interner,
    model::{Categories, Category, CategoryModel, ClientVersion, Torrent},
};

/// A `torrent-get` answer. Rows decode straight into `T` (every field optional), so a
/// 100,000-row answer is not first built as a JSON tree; a field of the wrong type is a
/// decode error for the whole answer.
#[derive(Debug, Default, Deserialize)]
#[serde(
    default,
    bound(deserialize = "T: serde::de::DeserializeOwned + Default")
)]
pub(crate) struct TorrentGet<T = TrTorrent> {
    pub(crate) torrents: Vec<T>,
    /// Only with `ids: "recently-active"`: ids (numbers; hash strings accepted too) removed lately.
    pub(crate) removed: Vec<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Session {
    version: String,
    #[serde(rename = "rpc-version", alias = "rpc_version")]
    rpc_version: i64,
    #[serde(rename = "download-dir", alias = "download_dir")]
    download_dir: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct SessionStats {
    #[serde(rename = "downloadSpeed", alias = "download_speed")]
    pub(crate) download_speed: i64,
    #[serde(rename = "uploadSpeed", alias = "upload_speed")]
    pub(crate) upload_speed: i64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct FreeSpace {
    #[serde(rename = "size-bytes", alias = "size_bytes")]
    size_bytes: i64,
}

fn hex_ids(hashes: &[InfoHash]) -> Vec<String> {
    hashes.iter().map(InfoHash::to_hex).collect()
}

impl TrClient {
    pub async fn version(&self) -> Result<ClientVersion> {
        let s: Session = self
            .call("session-get", json!({"fields": ["version", "rpc-version"]}))
            .await?;
        Ok(ClientVersion {
            app: s.version,
            api: s.rpc_version.to_string(),
        })
    }

    /// The session's default download folder (cached after the first read).
    pub async fn download_dir(&self) -> Result<Arc<str>> {
        if let Some(d) = self.download_dir.lock().clone() {
            return Ok(d);
        }
        let s: Session = self
            .call("session-get", json!({"fields": ["download-dir"]}))
            .await?;
        if s.download_dir.is_empty() {
            return Err(Error::decode("session-get", "no download-dir"));
        }
        let d: Arc<str> = Arc::from(s.download_dir.as_str());
        *self.download_dir.lock() = Some(d.clone());
        Ok(d)
    }

    /// `torrent-get`: `ids` is `Null` (all), a list, or `"recently-active"`.
    pub(crate) async fn torrent_get(
        &self,
        ids: serde_json::Value,
        fields: &[&str],
    ) -> Result<TorrentGet> {
        self.torrent_get_as(ids, fields).await
    }

    /// `torrent-get` with rows left as JSON, for the fields [`TrTorrent`] does not hold.
    pub(crate) async fn torrent_get_as<T: serde::de::DeserializeOwned + Default>(
        &self,
        ids: serde_json::Value,
        fields: &[&str],
    ) -> Result<TorrentGet<T>> {
        let mut args = json!({ "fields": fields });
        if !ids.is_null() {
            args["ids"] = ids;
        }
        self.call("torrent-get", args).await
    }

    pub(crate) async fn session_stats(&self) -> Result<SessionStats> {
        self.call("session-stats", json!({})).await
    }

    /// Every torrent, normalized.
    pub async fn list_torrents(&self) -> Result<Vec<Torrent>> {
        self.rows(serde_json::Value::Null).await
    }

    /// The rows of these torrents (the ones the client has).
    pub async fn torrents(&self, hashes: &[InfoHash]) -> Result<Vec<Torrent>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        self.rows(json!(hex_ids(hashes))).await
    }

    async fn rows(&self, ids: serde_json::Value) -> Result<Vec<Torrent>> {
        let base = self.download_dir().await?;
        let got = self.torrent_get(ids, LIST_FIELDS).await?;
        let mut interner = Interner::default();
        got.torrents
            .iter()
            .map(|t| t.to_torrent(&base, &mut interner))
            .collect()
    }

    /// Which of `hashes` the client has, in the order given.
    pub async fn existing(&self, hashes: &[InfoHash]) -> Result<Vec<InfoHash>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        let got = self
            .torrent_get(json!(hex_ids(hashes)), &["hashString"])
            .await?;
        let have: BTreeSet<InfoHash> = got
            .torrents
            .iter()
            .filter_map(|t| t.info_hash().ok())
            .collect();
        Ok(crate::qbittorrent::dedup(hashes)
            .into_iter()
            .filter(|h| have.contains(h))
            .collect())
    }

    /// Transmission has no categories: they are the sub-folders of the download folder that
    /// torrents use now (see the module doc). Any plain name is accepted by `set_category`.
    pub async fn categories(&self) -> Result<Categories> {
        let base = self.download_dir().await?;
        let got = self
            .torrent_get(serde_json::Value::Null, &["downloadDir"])
            .await?;
        let names: BTreeSet<String> = got
            .torrents
            .iter()
            .filter_map(|t| category_of(t.download_dir.as_deref()?, &base).map(str::to_string))
            .collect();
        let base_s = base.trim_end_matches('/').to_string();
        let items = names
            .into_iter()
            .map(|name| Category {
                save_path: Some(format!("{base_s}/{name}")),
                name,
            })
            .collect();
        Ok(Categories {
            model: CategoryModel::DownloadDirSubfolder {
                base: base.to_string(),
            },
            items,
        })
    }

    /// Free bytes in the download folder (`free-space`; 4.0 dropped `download-dir-free-space`).
    pub async fn free_space(&self) -> Result<Option<u64>> {
        let base = self.download_dir().await?;
        let f: FreeSpace = self.call("free-space", json!({ "path": &*base })).await?;
        Ok((f.size_bytes >= 0).then_some(f.size_bytes as u64))
    }
}
