//! Subtitles: the OpenSubtitles REST API v1 (`Api-Key` header, `/subtitles` search,
//! `/download` with its daily quota) and Bazarr's API (`X-API-KEY`: wanted lists, provider
//! search and download for a movie or an episode), the OpenSubtitles movie hash ([`hash`]),
//! and subtitle bytes checked and converted to UTF-8 ([`text`]). Every answer body has the
//! instance's own key scrubbed out before it is read; errors name what happened, never a URL
//! or a key. Download links are [`Link`]s, whose `Debug` shows nothing.

pub mod bazarr;
pub mod hash;
pub mod opensubtitles;
pub mod text;

use domain::Secret;
use httpx::reqwest;

pub use bazarr::Bazarr;
pub use opensubtitles::OpenSubtitles;

/// The most bytes of one answer read (a subtitle file is rarely above 1 MB).
pub const MAX_ANSWER: usize = 16 * 1024 * 1024;

/// What went wrong asking a subtitle service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Http(#[from] httpx::Error),
    /// The daily download quota is spent (OpenSubtitles answers 406, or 429 with a quota
    /// message): the service's own sentence, when it said when the quota renews.
    #[error("the daily download quota is used up: {message}")]
    Quota { message: String },
    /// A link the service handed out may not be fetched under the outbound rule.
    #[error("the download link the service answered is refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Config(String),
}

impl Error {
    pub fn is_credentials(&self) -> bool {
        matches!(self, Error::Http(httpx::Error::Unauthorized { .. }))
    }

    pub(crate) fn decode(detail: impl Into<String>) -> Error {
        Error::Http(httpx::Error::Decode {
            detail: detail.into(),
        })
    }
}

/// A download link: it may carry a token, so its `Debug` shows nothing and it is never
/// serialised.
#[derive(Clone, PartialEq, Eq)]
pub struct Link(String);

impl Link {
    pub fn new(s: impl Into<String>) -> Link {
        Link(s.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Link(***)")
    }
}

/// The HTTP client of one instance.
pub(crate) fn client(
    base: &url::Url,
    key: &Secret,
    timeouts: httpx::Timeouts,
) -> Result<reqwest::Client, Error> {
    if key.expose().trim().is_empty() {
        return Err(Error::Config("the instance has no api_key".into()));
    }
    if !matches!(base.scheme(), "http" | "https") {
        return Err(Error::Config("the instance url is not http(s)".into()));
    }
    httpx::client(timeouts).map_err(Error::Http)
}

/// The body of an answer, at most [`MAX_ANSWER`] bytes, with `key` replaced by `***`.
pub(crate) async fn read_body(mut answer: reqwest::Response, key: &str) -> Result<Vec<u8>, Error> {
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
    Ok(httpx::scrub_secret(&body, key).unwrap_or(body))
}

/// The body of a successful answer; a failed status classified without its body.
pub(crate) async fn read_ok(answer: reqwest::Response, key: &str) -> Result<Vec<u8>, Error> {
    let status = answer.status();
    if !status.is_success() {
        return Err(Error::Http(httpx::Error::from_status(status.as_u16(), "")));
    }
    read_body(answer, key).await
}

/// `bytes` as JSON of type `T`, or a decode error naming `what`.
pub(crate) fn json<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, Error> {
    serde_json::from_slice(bytes)
        .map_err(|e| Error::decode(format!("{what}: {}", httpx::redact(&e.to_string()))))
}

/// `base` with `path` appended to its own path.
pub(crate) fn endpoint(base: &url::Url, path: &str) -> url::Url {
    let mut url = base.clone();
    let root = url.path().trim_end_matches('/').to_string();
    url.set_path(&format!("{root}/{}", path.trim_start_matches('/')));
    url.set_query(None);
    url
}
