//! MusicBrainz WS/2: search artists, release groups (album, EP, single) and recordings, and look them up
//! by MBID. MusicBrainz asks every client to name itself in its User-Agent with a contact, and to send at
//! most one request per second: each client paces itself through [`pace::Pacer`].

mod pace;
mod wire;

use std::time::Duration;

use async_trait::async_trait;
use domain::{MediaId, MediaSource};
use url::Url;

use self::pace::Pacer;
use crate::{Catalogue, Error, MusicItem, MusicKind, MusicSearch, Page, Result};

/// MusicBrainz's public web service.
pub const DEFAULT_BASE_URL: &str = "https://musicbrainz.org/ws/2";
/// Rows per search page (MusicBrainz allows 1-100; its default is 25).
pub const PAGE_SIZE: u32 = 25;

/// One MusicBrainz instance's settings.
#[derive(Clone, Debug)]
pub struct MusicBrainzConfig {
    pub base_url: Url,
    /// How MusicBrainz can reach the operator (an email or URL), sent in the User-Agent as MusicBrainz asks.
    pub contact: Option<String>,
    pub timeouts: httpx::Timeouts,
    /// Least time between two requests; MusicBrainz allows one per second. Tests against the fake shorten it.
    pub min_interval: Duration,
}

impl Default for MusicBrainzConfig {
    fn default() -> MusicBrainzConfig {
        MusicBrainzConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL parses"),
            contact: None,
            timeouts: httpx::Timeouts::default(),
            min_interval: Duration::from_secs(1),
        }
    }
}

/// A MusicBrainz client.
pub struct MusicBrainz {
    http: httpx::reqwest::Client,
    base_url: Url,
    user_agent: String,
    pacer: Pacer,
}

impl std::fmt::Debug for MusicBrainz {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MusicBrainz")
            .field("base_url", &self.base_url.as_str())
            .field("user_agent", &self.user_agent)
            .finish()
    }
}

/// "Marquee/<version> ( contact )" as MusicBrainz asks, or httpx's agent when no contact is configured.
pub fn user_agent(contact: Option<&str>) -> String {
    match contact.map(str::trim).filter(|c| !c.is_empty()) {
        Some(contact) => {
            let product = httpx::USER_AGENT
                .split(' ')
                .next()
                .unwrap_or(httpx::USER_AGENT);
            format!("{product} ( {contact} )")
        }
        None => httpx::USER_AGENT.to_string(),
    }
}

fn entity(kind: MusicKind) -> &'static str {
    match kind {
        MusicKind::Artist => "artist",
        MusicKind::ReleaseGroup => "release-group",
        MusicKind::Recording => "recording",
    }
}

/// Escapes Lucene's special characters so a person's words are searched as words.
fn lucene_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "+-&|!(){}[]^\"~*?:\\/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn is_mbid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

impl MusicBrainz {
    pub fn new(config: MusicBrainzConfig) -> Result<MusicBrainz> {
        let user_agent = user_agent(config.contact.as_deref());
        let http = crate::http::client(
            "musicbrainz",
            httpx::builder(config.timeouts).user_agent(user_agent.clone()),
        )?;
        Ok(MusicBrainz {
            http,
            base_url: config.base_url,
            user_agent,
            pacer: Pacer::new(config.min_interval),
        })
    }

    /// One paced GET with `fmt=json`.
    async fn get<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T> {
        let url = httpx::join(&self.base_url, path);
        let _turn = self.pacer.turn().await;
        tracing::debug!(path, "musicbrainz request");
        let sent = self
            .http
            .get(url)
            .query(query)
            .query(&[("fmt", "json")])
            .send()
            .await;
        // MusicBrainz's 503 is its rate limit.
        crate::http::read_json("musicbrainz", path, &[503, 429], sent).await
    }
}

#[async_trait]
impl Catalogue for MusicBrainz {
    fn source(&self) -> MediaSource {
        MediaSource::Musicbrainz
    }

    /// The cheapest question MusicBrainz answers: a one-row artist search (it has no status
    /// endpoint and no key to check), paced like every other request.
    async fn check(&self) -> Result<String> {
        let params = [("query", "marquee".to_string()), ("limit", "1".to_string())];
        let _: wire::WSearch = self.get("artist", &params).await?;
        Ok("MusicBrainz answers a search".into())
    }

    async fn search_music(&self, search: &MusicSearch) -> Result<Page<MusicItem>> {
        let words = search.query.trim();
        if words.is_empty() {
            return Err(Error::invalid("query", "it is empty"));
        }
        if search.page == 0 {
            return Err(Error::invalid("page", "pages start at 1"));
        }
        let mut query = lucene_escape(words);
        match (search.kind, search.release_type) {
            (MusicKind::ReleaseGroup, Some(t)) => {
                query = format!("({query}) AND primarytype:{}", t.as_str())
            }
            (_, Some(_)) => {
                return Err(Error::invalid(
                    "release_type",
                    "only release group searches take a release type",
                ));
            }
            _ => {}
        }
        let offset = (search.page - 1).saturating_mul(PAGE_SIZE);
        let params = [
            ("query", query),
            ("limit", PAGE_SIZE.to_string()),
            ("offset", offset.to_string()),
        ];
        let found: wire::WSearch = self.get(entity(search.kind), &params).await?;
        let rows = match search.kind {
            MusicKind::Artist => found.artists,
            MusicKind::ReleaseGroup => found.release_groups,
            MusicKind::Recording => found.recordings,
        };
        Ok(Page {
            items: rows.into_iter().map(|e| e.into_item(search.kind)).collect(),
            page: search.page,
            total_pages: found.count.div_ceil(u64::from(PAGE_SIZE)) as u32,
            total_results: found.count,
            unapplied_filters: Vec::new(),
        })
    }

    async fn music_details(&self, id: &MediaId, kind: MusicKind) -> Result<MusicItem> {
        if id.media_source != MediaSource::Musicbrainz {
            return Err(Error::foreign_id(id, MediaSource::Musicbrainz));
        }
        let mbid = id.media_id.trim().to_ascii_lowercase();
        if !is_mbid(&mbid) {
            return Err(Error::invalid(
                "musicbrainz id",
                format!("\"{}\" is not an MBID", id.media_id),
            ));
        }
        let inc = match kind {
            MusicKind::Artist => "genres",
            _ => "artist-credits+genres",
        };
        let found: wire::WEntity = self
            .get(
                &format!("{}/{mbid}", entity(kind)),
                &[("inc", inc.to_string())],
            )
            .await
            .map_err(|e| match e.backend() {
                Some(httpx::Error::NotFound) => Error::NotFound {
                    what: entity(kind),
                    id: id.to_string(),
                    catalogue: MediaSource::Musicbrainz,
                },
                _ => e,
            })?;
        Ok(found.into_item(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_names_marquee_and_the_contact() {
        let ua = user_agent(Some("ops@example.org"));
        assert!(
            ua.starts_with("Marquee/") && ua.ends_with(" ( ops@example.org )"),
            "{ua}"
        );
        assert_eq!(user_agent(Some("  ")), httpx::USER_AGENT);
    }

    #[test]
    fn escapes_lucene_and_checks_mbids() {
        assert_eq!(lucene_escape("AC/DC: Back"), "AC\\/DC\\: Back");
        assert!(is_mbid("d87e52c5-bb8d-4da8-b941-9f4928627dc8"));
        assert!(!is_mbid("d87e52c5-bb8d-4da8-b941"));
    }
}
