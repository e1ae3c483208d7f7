//! Transmission writes. Hashes the client does not have are never sent (see [`BulkOutcome`]).

use std::collections::BTreeMap;

use base64::Engine;
use domain::InfoHash;
use serde::Deserialize;
use serde_json::json;

use super::rpc::TrClient;
use crate::{
    error::{Error, Result},
    metainfo::{info_hash_of_magnet, info_hash_of_torrent},
    model::{AddOutcome, AddSource, AddStatus, AddTorrent, BulkOutcome},
    qbittorrent::{check_tags, dedup},
};

/// A category is one folder name below the download folder: nothing that could climb out of it.
pub(crate) fn check_category(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && name.trim() == name;
    if ok {
        Ok(name)
    } else {
        Err(Error::invalid(format!(
            "category \"{name}\" must be a plain folder name"
        )))
    }
}

fn ids(hashes: &[InfoHash]) -> serde_json::Value {
    json!(hashes.iter().map(InfoHash::to_hex).collect::<Vec<_>>())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Added {
    #[serde(rename = "torrent-added", alias = "torrent_added")]
    added: Option<AddedTorrent>,
    #[serde(rename = "torrent-duplicate", alias = "torrent_duplicate")]
    duplicate: Option<AddedTorrent>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AddedTorrent {
    #[serde(rename = "hashString", alias = "hash_string")]
    hash_string: String,
}

impl TrClient {
    async fn split(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        let done = self.existing(hashes).await?;
        let not_found = dedup(hashes)
            .into_iter()
            .filter(|h| !done.contains(h))
            .collect();
        Ok(BulkOutcome { done, not_found })
    }

    /// Calls `method` with `ids` = the known hashes plus `extra` arguments.
    async fn bulk(
        &self,
        hashes: &[InfoHash],
        method: &str,
        extra: serde_json::Value,
    ) -> Result<BulkOutcome> {
        let outcome = self.split(hashes).await?;
        if outcome.done.is_empty() {
            return Ok(outcome);
        }
        let mut args = extra;
        args["ids"] = ids(&outcome.done);
        self.call::<serde_json::Value>(method, args).await?;
        Ok(outcome)
    }

    pub async fn pause(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, "torrent-stop", json!({})).await
    }

    pub async fn resume(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, "torrent-start", json!({})).await
    }

    pub async fn recheck(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, "torrent-verify", json!({})).await
    }

    pub async fn reannounce(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, "torrent-reannounce", json!({})).await
    }

    /// Moves the data into `<download-dir>/<category>` (or back to `<download-dir>` for `None`).
    /// Under this crate's convention that is what a Transmission category is, so this moves files.
    pub async fn set_category(
        &self,
        hashes: &[InfoHash],
        category: Option<&str>,
    ) -> Result<BulkOutcome> {
        let base = self.download_dir().await?;
        let location = match category {
            Some(c) => format!("{}/{}", base.trim_end_matches('/'), check_category(c)?),
            None => base.to_string(),
        };
        self.bulk(
            hashes,
            "torrent-set-location",
            json!({ "location": location, "move": true }),
        )
        .await
    }

    /// Replaces the labels.
    pub async fn set_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let tags = check_tags(tags)?;
        self.bulk(hashes, "torrent-set", json!({ "labels": tags }))
            .await
    }

    pub async fn add_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let tags = check_tags(tags)?;
        self.edit_labels(hashes, |labels| labels.extend(tags.iter().cloned()))
            .await
    }

    pub async fn remove_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let tags = check_tags(tags)?;
        self.edit_labels(hashes, |labels| labels.retain(|l| !tags.contains(l)))
            .await
    }

    /// Reads each torrent's labels, edits them, and writes each distinct result once
    /// (`torrent-set` labels replace; there is no add or remove).
    async fn edit_labels(
        &self,
        hashes: &[InfoHash],
        edit: impl Fn(&mut Vec<String>),
    ) -> Result<BulkOutcome> {
        let known = dedup(hashes);
        let got = self
            .torrent_get(ids(&known), &["hashString", "labels"])
            .await?;
        let mut groups: BTreeMap<Vec<String>, Vec<InfoHash>> = BTreeMap::new();
        let mut done = Vec::new();
        for t in got.torrents {
            let Ok(h) = t.info_hash() else { continue };
            let mut labels = t.labels.clone().unwrap_or_default();
            edit(&mut labels);
            labels.sort();
            labels.dedup();
            if Some(&labels) != t.labels.as_ref() {
                groups.entry(labels).or_default().push(h);
            }
            done.push(h);
        }
        for (labels, hs) in groups {
            self.call::<serde_json::Value>(
                "torrent-set",
                json!({ "ids": ids(&hs), "labels": labels }),
            )
            .await?;
        }
        let done: Vec<InfoHash> = known.iter().copied().filter(|h| done.contains(h)).collect();
        let not_found = known.into_iter().filter(|h| !done.contains(h)).collect();
        Ok(BulkOutcome { done, not_found })
    }

    /// Removes torrents, with their downloaded data when `delete_files`.
    pub async fn delete(&self, hashes: &[InfoHash], delete_files: bool) -> Result<BulkOutcome> {
        self.bulk(
            hashes,
            "torrent-remove",
            json!({ "delete-local-data": delete_files }),
        )
        .await
    }

    /// Adds a torrent file (as base64 `metainfo`) or a URL/magnet (as `filename`). The category
    /// becomes the download folder; tags are set with `torrent-set` right after (3.x cannot add labels).
    pub async fn add(&self, req: &AddTorrent) -> Result<AddOutcome> {
        let tags = check_tags(&req.tags)?;
        let mut args = json!({ "paused": req.paused });
        let known = match &req.source {
            AddSource::File(bytes) => {
                let h = info_hash_of_torrent(bytes)?;
                args["metainfo"] = json!(base64::engine::general_purpose::STANDARD.encode(bytes));
                Some(h)
            }
            AddSource::Url(u) if u.starts_with("magnet:") => {
                args["filename"] = json!(u);
                Some(
                    info_hash_of_magnet(u)
                        .ok_or_else(|| Error::invalid("the magnet link names no btih info hash"))?,
                )
            }
            AddSource::Url(u) if u.starts_with("http://") || u.starts_with("https://") => {
                args["filename"] = json!(u);
                None
            }
            AddSource::Url(_) => {
                return Err(Error::invalid(
                    "a torrent URL must be http(s):// or magnet:",
                ));
            }
        };
        if let Some(c) = &req.category {
            let base = self.download_dir().await?;
            args["download-dir"] = json!(format!(
                "{}/{}",
                base.trim_end_matches('/'),
                check_category(c)?
            ));
        }
        if let Some(p) = &req.save_path {
            args["download-dir"] = json!(p);
        }
        let answer: Added = self.call("torrent-add", args).await?;
        let (status, got) = match (answer.added, answer.duplicate) {
            (Some(a), _) => (AddStatus::Added, a),
            (None, Some(d)) => (AddStatus::AlreadyPresent, d),
            (None, None) => {
                return Err(Error::decode(
                    "torrent-add",
                    "neither torrent-added nor torrent-duplicate",
                ));
            }
        };
        let hash = got.hash_string.parse::<InfoHash>().ok().or(known);
        if let Some(h) = hash
            && status == AddStatus::Added
            && !tags.is_empty()
        {
            self.set_tags(&[h], &tags).await?;
        }
        Ok(AddOutcome {
            info_hash: hash,
            status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_are_plain_folder_names() {
        assert!(check_category("movies").is_ok());
        assert!(check_category("tv-hd").is_ok());
        for bad in ["", ".", "..", "a/b", "../x", " x", "a\\b"] {
            assert!(check_category(bad).is_err(), "{bad}");
        }
    }
}
