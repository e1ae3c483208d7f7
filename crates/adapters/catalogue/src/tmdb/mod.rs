//! TMDB v3: search, collections, trending, discover with names resolved server-side, details with
//! certifications per region, recommendations, and TMDB's certification and genre lists.
//!
//! Authentication is a v3 API key (`?api_key=`) or a read-access token (`Authorization: Bearer`);
//! both live in [`domain::Secret`], so neither a `Debug` print nor an error message shows them.

mod catalogue;
mod client;
mod map;
mod resolve;
mod wire;

pub use client::GENRE_LIST_LIFETIME;

use domain::{MediaId, MediaSource, MediaType, Secret};
use parking_lot::Mutex;
use url::Url;

use self::{client::Cache, map::kind_path};
use crate::{Error, Result};

/// TMDB's public API.
pub const DEFAULT_BASE_URL: &str = "https://api.themoviedb.org/3";
/// Where poster paths are served from, at a list-friendly width.
pub const DEFAULT_IMAGE_BASE: &str = "https://image.tmdb.org/t/p/w342";

/// How the client authenticates.
#[derive(Clone, Debug)]
pub enum TmdbAuth {
    /// A v3 API key, sent as the `api_key` query parameter.
    ApiKey(Secret),
    /// A v4 read-access token, sent as `Authorization: Bearer`.
    ReadToken(Secret),
}

/// One TMDB instance's settings.
#[derive(Clone, Debug)]
pub struct TmdbConfig {
    pub base_url: Url,
    pub auth: TmdbAuth,
    pub timeouts: httpx::Timeouts,
    /// TMDB's `language` parameter (e.g. "en-US"); TMDB's default when None.
    pub language: Option<String>,
    pub image_base: String,
}

impl TmdbConfig {
    pub fn new(auth: TmdbAuth) -> TmdbConfig {
        TmdbConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL parses"),
            auth,
            timeouts: httpx::Timeouts::default(),
            language: None,
            image_base: DEFAULT_IMAGE_BASE.to_string(),
        }
    }
}

/// A TMDB client. `Debug` shows the base URL, never the key or token.
pub struct Tmdb {
    http: httpx::reqwest::Client,
    base_url: Url,
    auth: TmdbAuth,
    language: Option<String>,
    image_base: String,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for Tmdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tmdb")
            .field("base_url", &self.base_url.as_str())
            .field("auth", &self.auth)
            .finish()
    }
}

impl Tmdb {
    pub fn new(config: TmdbConfig) -> Result<Tmdb> {
        let http = httpx::client(config.timeouts).map_err(client::backend)?;
        Ok(Tmdb {
            http,
            base_url: config.base_url,
            auth: config.auth,
            language: config.language,
            image_base: config.image_base,
            cache: Mutex::new(Cache::default()),
        })
    }

    /// The numeric TMDB id of `id`; ids of other sources are refused naming the catalogue that takes them.
    fn tmdb_id(id: &MediaId) -> Result<u64> {
        if id.media_source != MediaSource::Tmdb {
            return Err(Error::foreign_id(id, MediaSource::Tmdb));
        }
        id.media_id
            .trim()
            .parse()
            .map_err(|_| Error::invalid("tmdb id", format!("\"{}\" is not a number", id.media_id)))
    }

    fn title_kind(media_type: MediaType, what: &str) -> Result<&'static str> {
        match media_type {
            MediaType::Movie | MediaType::Tv => Ok(kind_path(media_type)),
            MediaType::Music => Err(Error::unsupported(
                format!("{what} for music"),
                MediaSource::Tmdb,
                &[MediaSource::Musicbrainz],
            )),
            MediaType::Book => Err(Error::unsupported(
                format!("{what} for books"),
                MediaSource::Tmdb,
                &[],
            )),
        }
    }

    /// Turns "not found" into the catalogue's own error, naming the id.
    fn not_found(id: &MediaId) -> impl FnOnce(Error) -> Error + '_ {
        move |e| match e.backend() {
            Some(httpx::Error::NotFound) => Error::NotFound {
                what: "title",
                id: id.to_string(),
                catalogue: MediaSource::Tmdb,
            },
            _ => e,
        }
    }
}
