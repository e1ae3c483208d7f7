//! Library repair: interactive release search and grab by reference, and queue removal.
//!
//! A release's GUID is what grabbing needs, and it (like the download URL, magnet link and info
//! URL) must never leave Marquee. The search answer is read unredacted only here: each release's
//! GUID goes into a [`Release`] field that does not serialize and whose `Debug` hides it, then
//! the rest is redacted like every other answer, and the URL fields are dropped. What leaves is
//! a reference: a keyed SHA-256 (HMAC, keyed by the instance's API key) of the instance, the
//! scope, the indexer and the GUID.

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::{Error, Service, core::Core, redact};

/// What one interactive search covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReleaseScope {
    Movie(i64),
    Episode(i64),
    Season { series_id: i64, season: u32 },
    Album(i64),
    Book(i64),
}

impl ReleaseScope {
    /// The scope as text, for references: the same scope always gives the same text.
    pub fn key(&self) -> String {
        match self {
            ReleaseScope::Movie(id) => format!("movie:{id}"),
            ReleaseScope::Episode(id) => format!("episode:{id}"),
            ReleaseScope::Season { series_id, season } => format!("season:{series_id}:{season}"),
            ReleaseScope::Album(id) => format!("album:{id}"),
            ReleaseScope::Book(id) => format!("book:{id}"),
        }
    }

    fn query(&self, service: Service) -> Result<Vec<(&'static str, String)>, Error> {
        let q = match (self, service) {
            (ReleaseScope::Movie(id), Service::Radarr) => vec![("movieId", id.to_string())],
            (ReleaseScope::Episode(id), Service::Sonarr) => vec![("episodeId", id.to_string())],
            (ReleaseScope::Season { series_id, season }, Service::Sonarr) => {
                vec![
                    ("seriesId", series_id.to_string()),
                    ("seasonNumber", season.to_string()),
                ]
            }
            (ReleaseScope::Album(id), Service::Lidarr) => vec![("albumId", id.to_string())],
            (ReleaseScope::Book(id), Service::Readarr) => vec![("bookId", id.to_string())],
            (scope, service) => {
                return Err(Error::Unsupported(format!(
                    "{} cannot search releases for {}",
                    service.as_str(),
                    scope.key()
                )));
            }
        };
        Ok(q)
    }
}

/// One release an indexer offered, without its GUID or any URL.
#[derive(Clone, Serialize)]
pub struct Release {
    pub title: String,
    pub indexer: String,
    pub indexer_id: i64,
    pub size: i64,
    pub age_days: i64,
    pub seeders: Option<i64>,
    pub leechers: Option<i64>,
    pub protocol: Option<String>,
    pub quality: Option<String>,
    pub custom_format_score: i64,
    pub languages: Vec<String>,
    /// Whether the service would grab it on its own.
    pub approved: bool,
    /// Why not, in the service's words.
    pub rejections: Vec<String>,
    #[serde(skip)]
    guid: String,
}

impl std::fmt::Debug for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Release")
            .field("title", &self.title)
            .field("indexer_id", &self.indexer_id)
            .field("guid", &"<hidden>")
            .finish_non_exhaustive()
    }
}

impl Release {
    /// The one-way reference of this release found by `instance` in `scope`, keyed by `key`.
    pub fn reference(&self, key: &[u8], instance: &str, scope: &ReleaseScope) -> String {
        let message = format!(
            "{instance}\n{}\n{}\n{}",
            scope.key(),
            self.indexer_id,
            self.guid
        );
        let digest = hmac_sha256(key, message.as_bytes());
        digest[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// `GET release?…` for one scope.
pub(crate) async fn search(
    core: &Core,
    service: Service,
    scope: &ReleaseScope,
) -> Result<Vec<Release>, Error> {
    let query = scope.query(service)?;
    let raw = core.get_slow_unredacted("release", &query).await?;
    let Value::Array(rows) = raw else {
        return Err(Error::Unsupported(format!(
            "{} answered its release search with something other than a list",
            service.as_str()
        )));
    };
    Ok(rows.into_iter().map(release).collect())
}

fn release(mut row: Value) -> Release {
    let guid = row["guid"].as_str().unwrap_or_default().to_string();
    if let Some(fields) = row.as_object_mut() {
        for field in [
            "guid",
            "downloadUrl",
            "magnetUrl",
            "infoUrl",
            "commentUrl",
            "infoHash",
        ] {
            fields.remove(field);
        }
    }
    redact::value(&mut row);
    let text = |k: &str| row[k].as_str().unwrap_or_default().to_string();
    Release {
        title: text("title"),
        indexer: text("indexer"),
        indexer_id: row["indexerId"].as_i64().unwrap_or_default(),
        size: row["size"].as_i64().unwrap_or_default(),
        age_days: row["age"].as_i64().unwrap_or_default(),
        seeders: row["seeders"].as_i64(),
        leechers: row["leechers"].as_i64(),
        protocol: row["protocol"].as_str().map(String::from),
        quality: row["quality"]["quality"]["name"].as_str().map(String::from),
        custom_format_score: row["customFormatScore"].as_i64().unwrap_or_default(),
        languages: row["languages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["name"].as_str().map(String::from))
            .collect(),
        approved: row["approved"].as_bool().unwrap_or(false),
        rejections: row["rejections"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(String::from))
            .collect(),
        guid,
    }
}

/// `POST release {guid, indexerId}`.
pub(crate) async fn grab(core: &Core, release: &Release) -> Result<(), Error> {
    let _: Value = core
        .post(
            "release",
            &json!({ "guid": release.guid, "indexerId": release.indexer_id }),
        )
        .await?;
    Ok(())
}

/// How a queue item leaves the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Removal {
    pub remove_from_client: bool,
    pub blocklist: bool,
    pub skip_redownload: bool,
    pub change_category: bool,
}

/// `DELETE queue/{id}?removeFromClient=…&blocklist=…&skipRedownload=…&changeCategory=…`.
pub(crate) async fn remove(core: &Core, id: i64, how: Removal) -> Result<(), Error> {
    let query = [
        ("removeFromClient", how.remove_from_client.to_string()),
        ("blocklist", how.blocklist.to_string()),
        ("skipRedownload", how.skip_redownload.to_string()),
        ("changeCategory", how.change_category.to_string()),
    ];
    core.delete(&format!("queue/{id}"), &query).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_two() {
        let digest = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_release_debug_hides_its_guid() {
        let r = release(json!({ "guid": "https://x/secret-guid", "title": "T", "indexerId": 1 }));
        assert!(!format!("{r:?}").contains("secret-guid"));
        assert!(!serde_json::to_string(&r).unwrap().contains("secret-guid"));
    }
}
