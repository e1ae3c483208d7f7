//! Indexers: a Prowlarr instance (API v1, `X-Api-Key`; each of its indexers usable alone) and any
//! Torznab/Newznab feed (`t=caps`, `t=search`, `t=movie`, `t=tvsearch`; RSS XML with
//! `torznab:attr`), behind one [`IndexerClient`]. Every text an answer shows (titles,
//! descriptions, tags, names, the feed's error) has the instance's own key scrubbed out; errors
//! name what happened, never a URL (download links carry API keys and passkeys). The links a release carries are [`Link`]s, whose `Debug` shows
//! nothing: they leave this crate only to be fetched.

mod prowlarr;
mod torznab;

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::{InfoHash, Secret};
use httpx::reqwest;

pub use torznab::{parse_caps, parse_feed};

/// The most bytes of one answer read (a 1,000-item feed is about 2 MB).
const MAX_ANSWER: usize = 32 * 1024 * 1024;

/// Which API an instance speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Prowlarr,
    Torznab,
}

/// What went wrong asking an indexer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Http(#[from] httpx::Error),
    /// The feed answered its own error element (`<error code=".." description=".."/>`).
    #[error("the indexer answered error {code}: {description}")]
    Feed { code: u32, description: String },
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// The feed refused the credentials (Torznab codes 100 to 102, or HTTP 401/403).
    pub fn is_credentials(&self) -> bool {
        matches!(self, Error::Http(httpx::Error::Unauthorized { .. }))
            || matches!(
                self,
                Error::Feed {
                    code: 100..=102,
                    ..
                }
            )
    }

    fn decode(detail: impl Into<String>) -> Error {
        Error::Http(httpx::Error::Decode {
            detail: detail.into(),
        })
    }
}

/// A download link or magnet of a release: it may carry an API key or a passkey, so its `Debug`
/// shows nothing and it is never serialised.
#[derive(Clone, PartialEq, Eq)]
pub struct Link(String);

impl Link {
    pub fn new(s: impl Into<String>) -> Link {
        Link(s.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_magnet(&self) -> bool {
        self.0.starts_with("magnet:")
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Link(***)")
    }
}

/// Torrent, usenet, or not said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Torrent,
    Usenet,
    Unknown,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Torrent => "torrent",
            Protocol::Usenet => "usenet",
            Protocol::Unknown => "unknown",
        }
    }
}

/// One category an indexer serves (Newznab numbering: 2000 movies, 5000 TV, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    pub id: u32,
    pub name: String,
}

/// One indexer: a Prowlarr indexer, or the feed itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Indexer {
    /// Prowlarr's indexer id; `None` for a Torznab feed (the feed is the indexer).
    pub id: Option<i64>,
    pub name: String,
    pub protocol: Protocol,
    pub enabled: bool,
    /// public, semiPrivate, private, when said.
    pub privacy: Option<String>,
    pub categories: Vec<Category>,
    /// Which identity searches it supports (`imdbid`, `tvdbid`, `season`, `ep`, ...).
    pub movie_params: Vec<String>,
    pub tv_params: Vec<String>,
    /// Disabled by Prowlarr after failures until this time.
    pub disabled_till: Option<DateTime<Utc>>,
    pub most_recent_failure: Option<DateTime<Utc>>,
}

/// What one indexer takes by parameter in a movie and a TV search, as its caps list them
/// (`imdbid`, `tvdbid`, `season`, `ep`, ...; compared case-insensitively).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchCaps {
    pub movie: Vec<String>,
    pub tv: Vec<String>,
}

impl Indexer {
    /// Its search parameters, for [`IndexerClient::search`]; `None` when its list gave none
    /// (unknown: every identity token is sent, as without caps).
    pub fn search_caps(&self) -> Option<SearchCaps> {
        (!self.movie_params.is_empty() || !self.tv_params.is_empty()).then(|| SearchCaps {
            movie: self.movie_params.clone(),
            tv: self.tv_params.clone(),
        })
    }
}

/// One release an indexer answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Release {
    pub title: String,
    /// The indexer's own id of the release (often its URL): never shown.
    pub guid: Link,
    /// The indexer's name as the answer gives it.
    pub indexer: String,
    /// Prowlarr's indexer id.
    pub indexer_id: Option<i64>,
    pub size: Option<u64>,
    pub seeders: Option<u32>,
    pub leechers: Option<u32>,
    pub grabs: Option<u32>,
    pub published: Option<DateTime<Utc>>,
    pub info_hash: Option<InfoHash>,
    pub protocol: Protocol,
    /// The .torrent (or .nzb) download URL.
    pub download: Option<Link>,
    pub magnet: Option<Link>,
    pub description: Option<String>,
    /// Category ids.
    pub categories: Vec<u32>,
    /// Tags and flags (freeleech, internal, ...).
    pub tags: Vec<String>,
    /// "tt0133093" when the indexer says.
    pub imdb: Option<String>,
    pub tvdb: Option<u64>,
}

/// What to search for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// Free text (with an identity: a fallback for indexers that cannot search by it).
    pub text: Option<String>,
    pub kind: SearchKind,
    /// "tt0133093".
    pub imdb: Option<String>,
    pub tvdb: Option<u64>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    /// The most rows asked of one indexer.
    pub limit: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchKind {
    #[default]
    Any,
    Movie,
    Tv,
}

/// What fetching a release's download link brought back.
#[derive(Debug)]
pub enum Download {
    /// The .torrent file's bytes.
    Torrent(Vec<u8>),
    /// The indexer redirected to a magnet link.
    Magnet(Link),
    /// The indexer redirected to another host: the caller follows it under the outbound rule.
    Elsewhere(Link),
}

/// One configured indexer instance.
pub struct IndexerClient {
    api: Api,
    http: reqwest::Client,
    base: url::Url,
    key: Secret,
    /// How long one indexer may take to answer a search.
    search_timeout: Duration,
    /// A feed's caps, as last read, and when: what its searches ask by.
    caps: std::sync::Mutex<Option<(std::time::Instant, torznab::Caps)>>,
}

/// How long a feed's caps are trusted before they are read again.
const CAPS_FOR: Duration = Duration::from_secs(60 * 60);

impl IndexerClient {
    /// A client for `base` (Prowlarr's root, or the feed's API endpoint) with `key`.
    pub fn new(
        api: Api,
        base: url::Url,
        key: Secret,
        timeouts: httpx::Timeouts,
    ) -> Result<IndexerClient, Error> {
        if key.expose().trim().is_empty() {
            return Err(Error::Config("the instance has no api_key".into()));
        }
        if !matches!(base.scheme(), "http" | "https") {
            return Err(Error::Config("the instance url is not http(s)".into()));
        }
        let http = httpx::builder(timeouts)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                Error::Config(format!(
                    "cannot build the HTTP client: {}",
                    httpx::redact(&e.to_string())
                ))
            })?;
        Ok(IndexerClient {
            api,
            http,
            base,
            key,
            search_timeout: timeouts.request,
            caps: std::sync::Mutex::new(None),
        })
    }

    pub fn api(&self) -> Api {
        self.api
    }

    /// How long one indexer's search may take.
    pub fn search_timeout(&self) -> Duration {
        self.search_timeout
    }

    /// The indexers behind this instance: Prowlarr's list with their status, or the feed's caps
    /// as one indexer named `name`.
    pub async fn indexers(&self, name: &str) -> Result<Vec<Indexer>, Error> {
        let mut list = self
            .indexers_raw(name)
            .await
            .map_err(|e| self.scrub_error(e))?;
        for i in &mut list {
            i.name = self.scrub(&i.name);
            for c in &mut i.categories {
                c.name = self.scrub(&c.name);
            }
        }
        Ok(list)
    }

    async fn indexers_raw(&self, name: &str) -> Result<Vec<Indexer>, Error> {
        match self.api {
            Api::Prowlarr => prowlarr::indexers(self).await,
            Api::Torznab => {
                let caps = self.read_caps().await?;
                Ok(vec![caps.into_indexer(name)])
            }
        }
    }

    /// One search: of one Prowlarr indexer (`indexer`, with its search parameters when its
    /// list gave them: an identity it cannot search by is asked as its title), or of the feed
    /// (whose own caps it reads).
    pub async fn search(
        &self,
        query: &Query,
        indexer: Option<(i64, Option<&SearchCaps>)>,
        name: &str,
    ) -> Result<Vec<Release>, Error> {
        let mut rows = self
            .search_raw(query, indexer, name)
            .await
            .map_err(|e| self.scrub_error(e))?;
        for r in &mut rows {
            r.title = self.scrub(&r.title);
            r.indexer = self.scrub(&r.indexer);
            r.description = r.description.as_deref().map(|d| self.scrub(d));
            for t in &mut r.tags {
                *t = self.scrub(t);
            }
        }
        Ok(rows)
    }

    /// `text` with this instance's key replaced by `***`.
    fn scrub(&self, text: &str) -> String {
        match httpx::scrub_secret(text.as_bytes(), self.key.expose()) {
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
            None => text.to_string(),
        }
    }

    /// The feed's caps while they are fresh.
    fn kept_caps(&self) -> Option<torznab::Caps> {
        let kept = self.caps.lock().ok()?;
        kept.as_ref()
            .filter(|(at, _)| at.elapsed() < CAPS_FOR)
            .map(|(_, c)| c.clone())
    }

    /// `t=caps`, read now and kept (a failure is not kept).
    async fn read_caps(&self) -> Result<torznab::Caps, Error> {
        let body = self.torznab_get(&[("t", "caps".to_string())]).await?;
        let caps = torznab::parse_caps(&body)?;
        if let Ok(mut kept) = self.caps.lock() {
            *kept = Some((std::time::Instant::now(), caps.clone()));
        }
        Ok(caps)
    }

    fn scrub_error(&self, e: Error) -> Error {
        match e {
            Error::Feed { code, description } => Error::Feed {
                code,
                description: self.scrub(&description),
            },
            Error::Http(httpx::Error::Decode { detail }) => Error::decode(self.scrub(&detail)),
            other => other,
        }
    }

    async fn search_raw(
        &self,
        query: &Query,
        indexer: Option<(i64, Option<&SearchCaps>)>,
        name: &str,
    ) -> Result<Vec<Release>, Error> {
        match self.api {
            Api::Prowlarr => {
                let (id, caps) = indexer.unzip();
                prowlarr::search(self, query, id, caps.flatten()).await
            }
            Api::Torznab => {
                // A feed whose caps cannot be read is still asked, as if it took everything.
                let caps = match self.kept_caps() {
                    Some(c) => Some(c),
                    None => self.read_caps().await.ok(),
                };
                let params = torznab::search_params_for(query, caps.as_ref());
                let body = self.torznab_get(&params).await?;
                let mut rows = torznab::parse_feed(&body)?;
                for r in &mut rows {
                    if r.indexer.is_empty() {
                        r.indexer = name.to_string();
                    }
                }
                Ok(rows)
            }
        }
    }

    /// Fetches a release's download link from this instance's own host (the key sent as the
    /// instance sends it); a redirect to a magnet or to another host is handed back, not
    /// followed. A link on another host is refused here: the caller fetches it under the
    /// outbound rule.
    pub async fn download(&self, link: &Link) -> Result<Download, Error> {
        if link.is_magnet() {
            return Ok(Download::Magnet(link.clone()));
        }
        let url = url::Url::parse(link.expose())
            .map_err(|_| Error::decode("the release's download link is not a URL"))?;
        if url.origin() != self.base.origin() {
            return Ok(Download::Elsewhere(link.clone()));
        }
        let mut request = self.http.get(url.clone());
        if self.api == Api::Prowlarr {
            request = request.header("X-Api-Key", self.key.expose());
        }
        let answer = request
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        let status = answer.status();
        if status.is_redirection() {
            let location = answer
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| Error::decode("a redirect without a location"))?;
            if location.starts_with("magnet:") {
                return Ok(Download::Magnet(Link::new(location)));
            }
            let next = url
                .join(location)
                .map_err(|_| Error::decode("a redirect to no URL"))?;
            return Ok(Download::Elsewhere(Link::new(next.to_string())));
        }
        let body = self.read(answer).await?;
        Ok(Download::Torrent(body))
    }

    /// `GET {feed}?{params}&apikey=…`.
    async fn torznab_get(&self, params: &[(&str, String)]) -> Result<Vec<u8>, Error> {
        let mut url = self.base.clone();
        {
            let mut q = url.query_pairs_mut();
            for (k, v) in params {
                q.append_pair(k, v);
            }
            q.append_pair("apikey", self.key.expose());
        }
        let answer = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        self.read(answer).await
    }

    /// `GET {prowlarr}/api/v1/{path}?query` with the key header.
    async fn prowlarr_get(&self, path: &str, query: &[(&str, String)]) -> Result<Vec<u8>, Error> {
        let mut url = self.base.clone();
        let root = url.path().trim_end_matches('/').to_string();
        url.set_path(&format!("{root}/api/v1/{path}"));
        let answer = self
            .http
            .get(url)
            .query(query)
            .header("X-Api-Key", self.key.expose())
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        self.read(answer).await
    }

    /// The body of a successful answer, at most [`MAX_ANSWER`] bytes, as it came (its links
    /// carry the key; every text shown is scrubbed of it after parsing); a failed status is
    /// classified without its body.
    async fn read(&self, mut answer: reqwest::Response) -> Result<Vec<u8>, Error> {
        let status = answer.status();
        if !status.is_success() {
            return Err(Error::Http(httpx::Error::from_status(status.as_u16(), "")));
        }
        if answer
            .content_length()
            .is_some_and(|n| n > MAX_ANSWER as u64)
        {
            return Err(Error::decode("the answer is too large"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?
        {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(Error::decode("the answer is too large"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// True when `body` starts like an HTML page (a login page, a proxy's error page).
fn looks_like_html(body: &[u8]) -> bool {
    let start: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace() || **b == 0xEF || **b == 0xBB || **b == 0xBF)
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    start.starts_with(b"<!doctype html") || start.starts_with(b"<html")
}

/// A description as shown: credentials in any URL it holds (`apikey=`, `passkey=`, ...) out.
pub fn clean_text(text: &str) -> String {
    let mut out = httpx::redact(text);
    for name in ["passkey=", "torrent_pass=", "authkey=", "rsskey=", "pid="] {
        let mut at = 0;
        while let Some(i) = out[at..].to_ascii_lowercase().find(name).map(|i| i + at) {
            let start = i + name.len();
            let end = out[start..]
                .find(|c: char| c == '&' || c.is_whitespace() || c == '"' || c == '<')
                .map_or(out.len(), |e| e + start);
            out.replace_range(start..end, "***");
            at = start + 3;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_debugs_as_nothing() {
        let l = Link::new("http://x/dl?apikey=SECRET&passkey=P");
        assert_eq!(format!("{l:?}"), "Link(***)");
    }

    #[test]
    fn descriptions_lose_their_keys() {
        let t = clean_text("see http://t.example/dl?id=1&passkey=abc123&apikey=k9 now");
        assert!(!t.contains("abc123") && !t.contains("k9"), "{t}");
    }

    #[test]
    fn html_is_recognised() {
        assert!(looks_like_html(b"\n  <!DOCTYPE html><html>"));
        assert!(looks_like_html(b"<HTML><body>login</body>"));
        assert!(!looks_like_html(b"<?xml version=\"1.0\"?><rss>"));
    }
}
