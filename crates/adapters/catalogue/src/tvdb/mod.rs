//! TheTVDB API v4: search series and movies, read their extended records (content ratings per
//! country, remote ids, cast, seasons, artwork) and episodes. TVDB takes a project API key (and,
//! for a subscriber key, the subscriber's PIN) at `POST /login` and answers a bearer token good
//! for a month; the client logs in on first use and again once when a token is refused.
//!
//! TVDB maps its records to IMDb and TMDB ids (`remoteIds`): rows carry them as external ids,
//! and an `imdb` or `tmdb` id is read through `GET /search/remoteid/{id}`.

mod map;
mod wire;

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType, Secret};
use serde::de::DeserializeOwned;
use url::Url;

use crate::{
    Catalogue, CertificationInfo, EpisodeDetails, Error, Page, Result, TitleDetails, TitleKind,
    TitleSearch, TitleSummary, http,
};

/// TVDB's public API.
pub const DEFAULT_BASE_URL: &str = "https://api4.thetvdb.com/v4";
/// Rows per search page.
pub const PAGE_SIZE: u32 = 20;
const SERVICE: &str = "tvdb";

/// One TVDB instance's settings.
#[derive(Clone, Debug)]
pub struct TvdbConfig {
    pub base_url: Url,
    /// The project API key.
    pub api_key: Secret,
    /// The subscriber's PIN, for a user-supported key.
    pub pin: Option<Secret>,
    pub timeouts: httpx::Timeouts,
}

impl TvdbConfig {
    pub fn new(api_key: Secret) -> TvdbConfig {
        TvdbConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL parses"),
            api_key,
            pin: None,
            timeouts: httpx::Timeouts::default(),
        }
    }
}

/// A TVDB client.
pub struct Tvdb {
    http: httpx::reqwest::Client,
    base_url: Url,
    api_key: Secret,
    pin: Option<Secret>,
    /// The bearer token of the last login; `None` until the first call, and after a refusal.
    token: tokio::sync::Mutex<Option<Secret>>,
}

impl std::fmt::Debug for Tvdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tvdb")
            .field("base_url", &self.base_url.as_str())
            .finish_non_exhaustive()
    }
}

impl Tvdb {
    pub fn new(config: TvdbConfig) -> Result<Tvdb> {
        let http = http::client(SERVICE, httpx::builder(config.timeouts))?;
        Ok(Tvdb {
            http,
            base_url: config.base_url,
            api_key: config.api_key,
            pin: config.pin.filter(|p| !p.is_empty()),
            token: tokio::sync::Mutex::new(None),
        })
    }

    /// Logs in and keeps the token; the key and PIN go in the body, never in a URL or a log.
    async fn login(&self) -> Result<Secret> {
        let mut body = serde_json::json!({ "apikey": self.api_key.expose() });
        if let Some(pin) = &self.pin {
            body["pin"] = pin.expose().into();
        }
        let sent = self
            .http
            .post(httpx::join(&self.base_url, "login"))
            .json(&body)
            .send()
            .await;
        let answer: wire::Envelope<wire::Login> =
            http::read_json(SERVICE, "login", &[429], sent).await?;
        Ok(Secret::new(answer.data.token))
    }

    /// The kept token, logging in when there is none.
    async fn token(&self, fresh: bool) -> Result<Secret> {
        let mut held = self.token.lock().await;
        if fresh || held.is_none() {
            *held = Some(self.login().await?);
        }
        Ok(held.clone().expect("set above"))
    }

    /// GETs `path`'s whole answer, logging in again once when TVDB refuses the kept token.
    async fn fetch<T: DeserializeOwned>(&self, path: &str, query: &[(&str, String)]) -> Result<T> {
        let mut fresh = false;
        loop {
            let token = self.token(fresh).await?;
            tracing::debug!(path, "tvdb request");
            let sent = self
                .http
                .get(httpx::join(&self.base_url, path))
                .query(query)
                .bearer_auth(token.expose())
                .send()
                .await;
            match http::read_json::<T>(SERVICE, path, &[429], sent).await {
                Err(Error::Backend {
                    error: httpx::Error::Unauthorized { .. },
                    ..
                }) if !fresh => fresh = true,
                answer => return answer,
            }
        }
    }

    /// GETs `path`'s `data`.
    async fn get<T: DeserializeOwned>(&self, path: &str, query: &[(&str, String)]) -> Result<T> {
        self.fetch::<wire::Envelope<T>>(path, query)
            .await
            .map(|e| e.data)
    }

    /// The TVDB id of `id`: its own, or the record TVDB maps an `imdb` or `tmdb` id to.
    async fn tvdb_id(&self, id: &MediaId, media_type: MediaType) -> Result<u64> {
        let not_found = || Error::NotFound {
            what: if media_type == MediaType::Movie {
                "movie"
            } else {
                "series"
            },
            id: id.to_string(),
            catalogue: MediaSource::Tvdb,
        };
        match id.media_source {
            MediaSource::Tvdb => id.media_id.trim().parse().map_err(|_| {
                Error::invalid("tvdb id", format!("\"{}\" is not a number", id.media_id))
            }),
            MediaSource::Imdb | MediaSource::Tmdb => {
                // The id becomes a path segment: letters and digits only.
                let remote = id.media_id.trim();
                if remote.is_empty() || !remote.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(Error::invalid(
                        "media_id",
                        format!("\"{remote}\" is not an {} id", id.media_source),
                    ));
                }
                let found: Vec<wire::RemoteHit> = self
                    .get(&format!("search/remoteid/{remote}"), &[])
                    .await
                    .map_err(|e| not_found_as(e, not_found()))?;
                found
                    .iter()
                    .find_map(|hit| match media_type {
                        MediaType::Movie => hit.movie.as_ref().map(|r| r.id),
                        _ => hit.series.as_ref().map(|r| r.id),
                    })
                    .ok_or_else(not_found)
            }
            _ => Err(Error::foreign_id(id, MediaSource::Tvdb)),
        }
    }
}

/// A 404 answered as `instead` (what was not found, named).
fn not_found_as(e: Error, instead: Error) -> Error {
    match e.backend() {
        Some(httpx::Error::NotFound) => instead,
        _ => e,
    }
}

#[async_trait]
impl Catalogue for Tvdb {
    fn source(&self) -> MediaSource {
        MediaSource::Tvdb
    }

    /// A login: TVDB has no cheaper question, and it is the one that checks the key and PIN.
    async fn check(&self) -> Result<String> {
        self.token(true).await?;
        Ok("TVDB accepted the API key".into())
    }

    async fn search_titles(&self, search: &TitleSearch) -> Result<Page<TitleSummary>> {
        let words = search.query.trim();
        if words.is_empty() {
            return Err(Error::invalid("query", "it is empty"));
        }
        if search.page == 0 {
            return Err(Error::invalid("page", "pages start at 1"));
        }
        let mut query = vec![
            ("query", words.to_string()),
            ("limit", PAGE_SIZE.to_string()),
            (
                "offset",
                ((search.page - 1).saturating_mul(PAGE_SIZE)).to_string(),
            ),
        ];
        match search.kind {
            TitleKind::Movie => query.push(("type", "movie".into())),
            TitleKind::Tv => query.push(("type", "series".into())),
            TitleKind::Any => {}
        }
        if let Some(year) = search.year {
            query.push(("year", year.to_string()));
        }
        let sent: wire::SearchPage = self.fetch("search", &query).await?;
        let total = sent.links.and_then(|l| l.total_items).unwrap_or(0);
        Ok(Page {
            items: sent.data.into_iter().filter_map(map::search_row).collect(),
            page: search.page,
            total_pages: total.div_ceil(u64::from(PAGE_SIZE)) as u32,
            total_results: total,
            unapplied_filters: Vec::new(),
        })
    }

    async fn title_details(
        &self,
        id: &MediaId,
        media_type: MediaType,
        region: &str,
    ) -> Result<TitleDetails> {
        let tvdb = self.tvdb_id(id, media_type).await?;
        let not_found = || Error::NotFound {
            what: if media_type == MediaType::Movie {
                "movie"
            } else {
                "series"
            },
            id: id.to_string(),
            catalogue: MediaSource::Tvdb,
        };
        let query = [("meta", "translations".to_string())];
        match media_type {
            MediaType::Movie => {
                let record: wire::Extended = self
                    .get(&format!("movies/{tvdb}/extended"), &query)
                    .await
                    .map_err(|e| not_found_as(e, not_found()))?;
                Ok(map::details(record, MediaType::Movie, region))
            }
            MediaType::Tv => {
                let record: wire::Extended = self
                    .get(&format!("series/{tvdb}/extended"), &query)
                    .await
                    .map_err(|e| not_found_as(e, not_found()))?;
                Ok(map::details(record, MediaType::Tv, region))
            }
            other => Err(Error::invalid(
                "media_type",
                format!("TVDB holds movies and series, not {other:?}"),
            )),
        }
    }

    /// `GET /content/ratings`: every country's ratings; the region's, for movies or shows.
    async fn certifications(
        &self,
        media_type: MediaType,
        region: &str,
    ) -> Result<Vec<CertificationInfo>> {
        let Some(alpha3) = map::alpha3(region) else {
            return Err(Error::UnknownName {
                what: "region",
                given: region.to_string(),
                options: map::regions(),
                close_matches: false,
            });
        };
        let all: Vec<wire::ContentRating> = self.get("content/ratings", &[]).await?;
        Ok(map::ladder(
            all,
            alpha3,
            media_type == MediaType::Movie,
            region,
        ))
    }

    async fn episode_details(
        &self,
        show: &MediaId,
        season: u32,
        episode: u32,
    ) -> Result<EpisodeDetails> {
        let tvdb = self.tvdb_id(show, MediaType::Tv).await?;
        let query = [
            ("season", season.to_string()),
            ("episodeNumber", episode.to_string()),
            ("page", "0".to_string()),
        ];
        let not_found = || Error::NotFound {
            what: "episode",
            id: format!("{show} S{season:02}E{episode:02}"),
            catalogue: MediaSource::Tvdb,
        };
        let found: wire::Episodes = self
            .get(&format!("series/{tvdb}/episodes/default"), &query)
            .await
            .map_err(|e| not_found_as(e, not_found()))?;
        let e = found
            .episodes
            .into_iter()
            .find(|e| e.season_number == Some(season) && e.number == Some(episode))
            .ok_or_else(not_found)?;
        Ok(EpisodeDetails {
            season,
            episode,
            name: e.name.filter(|n| !n.is_empty()),
            overview: e.overview.filter(|o| !o.is_empty()),
            air_date: e.aired.filter(|d| !d.is_empty()),
        })
    }
}
