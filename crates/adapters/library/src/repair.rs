//! Library repair: interactive release search and grab by reference, and queue removal.
//!
//! A release's GUID is what grabbing needs, and it (like the download URL, magnet link and info
//! URL) must never leave Marquee. The search answer is read unredacted only in `releases.rs`: each
//! release's GUID goes into a [`Release`] field that does not serialize and whose `Debug` hides
//! it, then the rest is redacted like every other answer; URL fields are never decoded. What leaves is
//! a reference: a keyed SHA-256 (HMAC, keyed by the instance's API key) of the instance, the
//! scope, the indexer and the GUID.

use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;

use crate::{Error, Service, core::Core};

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

    pub(crate) fn query(&self, service: Service) -> Result<Vec<(&'static str, String)>, Error> {
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
    pub(crate) guid: String,
    /// The search it was found by (Sonarr v5 is told it again when grabbing).
    #[serde(skip)]
    pub(crate) scope: ReleaseScope,
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
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = Hmac::<Sha256>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    mac.update(message);
    mac.finalize().into_bytes().into()
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
}
