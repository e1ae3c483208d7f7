//! AniList's GraphQL API (no key): anime searched and read by AniList id, or by the MyAnimeList id
//! AniList maps each title to (`idMal`). Movies are AniList's `MOVIE` format; every other format
//! (TV, TV_SHORT, OVA, ONA, SPECIAL) is a show. Searches leave adult titles out (`isAdult:
//! false`). AniList has no rating system: titles are `Unrated` (hidden from a person whose limits
//! hide unrated titles), but a title it marks `isAdult` is read as rated [`ADULT`], which no
//! region's ladder knows, so any rating cap hides it.

mod wire;

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType};
use serde_json::{Value, json};
use url::Url;

use crate::{
    Catalogue, Certification, Error, Page, Result, TitleDetails, TitleKind, TitleSearch,
    TitleSummary, http,
};

/// AniList's public endpoint.
pub const DEFAULT_BASE_URL: &str = "https://graphql.anilist.co";
/// Rows per page.
pub const PAGE_SIZE: u32 = 20;
const SERVICE: &str = "anilist";

/// The fields of a title every question asks for.
const FIELDS: &str = "id idMal format title { romaji english native } description(asHtml: false) \
    startDate { year month day } seasonYear episodes duration countryOfOrigin genres averageScore \
    popularity isAdult coverImage { large } bannerImage";

/// The formats a kind of search covers.
fn formats(kind: TitleKind) -> Value {
    match kind {
        TitleKind::Movie => json!(["MOVIE"]),
        TitleKind::Tv => json!(["TV", "TV_SHORT", "OVA", "ONA", "SPECIAL"]),
        TitleKind::Any => Value::Null,
    }
}

/// One AniList instance's settings.
#[derive(Clone, Debug)]
pub struct AniListConfig {
    pub base_url: Url,
    pub timeouts: httpx::Timeouts,
}

impl Default for AniListConfig {
    fn default() -> AniListConfig {
        AniListConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL parses"),
            timeouts: httpx::Timeouts::default(),
        }
    }
}

/// An AniList client.
#[derive(Debug)]
pub struct AniList {
    http: httpx::reqwest::Client,
    base_url: Url,
}

impl AniList {
    pub fn new(config: AniListConfig) -> Result<AniList> {
        let http = http::client(SERVICE, httpx::builder(config.timeouts))?;
        Ok(AniList {
            http,
            base_url: config.base_url,
        })
    }

    /// One GraphQL question; `what` names it in errors. AniList answers a missing title with
    /// HTTP 404 and its rate limit (90 a minute) with 429 and `Retry-After`.
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        query: &str,
        variables: Value,
    ) -> Result<T> {
        tracing::debug!(what, "anilist request");
        let sent = self
            .http
            .post(self.base_url.clone())
            .json(&json!({ "query": query, "variables": variables }))
            .send()
            .await;
        let answer: wire::Answer<T> = http::read_json(SERVICE, what, &[429], sent).await?;
        answer.data.ok_or_else(|| {
            http::backend(
                SERVICE,
                httpx::Error::Decode {
                    detail: format!("{what}: an answer without data"),
                },
            )
        })
    }

    /// The media an id names: an AniList id, or a MyAnimeList id AniList maps.
    async fn media(&self, id: &MediaId, extra: &str) -> Result<wire::Media> {
        let key = match id.media_source {
            MediaSource::Anilist => "id",
            MediaSource::Myanimelist => "idMal",
            _ => return Err(Error::foreign_id(id, MediaSource::Anilist)),
        };
        let number: u64 = id.media_id.trim().parse().map_err(|_| {
            Error::invalid(
                "media_id",
                format!("\"{}\" is not an {} id", id.media_id, id.media_source),
            )
        })?;
        let query =
            format!("query ($id: Int) {{ Media({key}: $id, type: ANIME) {{ {FIELDS} {extra} }} }}");
        let found: wire::One = self
            .ask("title", &query, json!({ "id": number }))
            .await
            .map_err(|e| match e.backend() {
                Some(httpx::Error::NotFound) => Error::NotFound {
                    what: "title",
                    id: id.to_string(),
                    catalogue: MediaSource::Anilist,
                },
                _ => e,
            })?;
        found.media.ok_or_else(|| Error::NotFound {
            what: "title",
            id: id.to_string(),
            catalogue: MediaSource::Anilist,
        })
    }
}

fn page_of(found: wire::Paged, page: u32, total_default: usize) -> Page<TitleSummary> {
    let info = found.page_info.unwrap_or_default();
    let total = info.total.unwrap_or(total_default as u64);
    Page {
        items: found.media.into_iter().map(wire::Media::summary).collect(),
        page,
        total_pages: info
            .last_page
            .unwrap_or_else(|| total.div_ceil(u64::from(PAGE_SIZE)) as u32),
        total_results: total,
        unapplied_filters: Vec::new(),
    }
}

#[async_trait]
impl Catalogue for AniList {
    fn source(&self) -> MediaSource {
        MediaSource::Anilist
    }

    /// The cheapest question: one title by id.
    async fn check(&self) -> Result<String> {
        let query = "query { Media(id: 1, type: ANIME) { id } }";
        let _: wire::One = self.ask("check", query, json!({})).await?;
        Ok("AniList answers".into())
    }

    async fn search_titles(&self, search: &TitleSearch) -> Result<Page<TitleSummary>> {
        let words = search.query.trim();
        if words.is_empty() {
            return Err(Error::invalid("query", "it is empty"));
        }
        if search.page == 0 {
            return Err(Error::invalid("page", "pages start at 1"));
        }
        let query = format!(
            "query ($search: String, $page: Int, $perPage: Int, $format_in: [MediaFormat], \
             $seasonYear: Int, $isAdult: Boolean) {{ Page(page: $page, perPage: $perPage) {{ \
             pageInfo {{ total currentPage lastPage hasNextPage }} media(search: $search, \
             type: ANIME, format_in: $format_in, seasonYear: $seasonYear, isAdult: $isAdult, \
             sort: SEARCH_MATCH) {{ {FIELDS} }} }} }}"
        );
        let variables = json!({
            "search": words,
            "page": search.page,
            "perPage": PAGE_SIZE,
            "format_in": formats(search.kind),
            "seasonYear": search.year,
            "isAdult": false,
        });
        let found: wire::Searched = self.ask("search", &query, variables).await?;
        let n = found.page.media.len();
        Ok(page_of(found.page, search.page, n))
    }

    async fn title_details(
        &self,
        id: &MediaId,
        media_type: MediaType,
        region: &str,
    ) -> Result<TitleDetails> {
        let staff = "staff(sort: RELEVANCE, perPage: 10) { edges { role node { name { full } } } }";
        let media = self.media(id, staff).await?;
        let adult = media.is_adult == Some(true);
        let mut details = media.details();
        if adult {
            // Explicit: a rating no region's list knows, so any rating cap hides it.
            details.summary.certification = Certification::Rated {
                region: region.trim().to_ascii_uppercase(),
                rating: ADULT.into(),
            };
        }
        if details.summary.media_type != media_type {
            return Err(Error::invalid(
                "media_type",
                format!(
                    "{id} is a {} at AniList",
                    if details.summary.media_type == MediaType::Movie {
                        "movie"
                    } else {
                        "show (tv)"
                    }
                ),
            ));
        }
        Ok(details)
    }

    async fn recommendations(
        &self,
        id: &MediaId,
        media_type: MediaType,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        let _ = media_type;
        if page == 0 {
            return Err(Error::invalid("page", "pages start at 1"));
        }
        let extra = format!(
            "recommendations(page: {page}, perPage: {PAGE_SIZE}, sort: RATING_DESC) {{ \
             pageInfo {{ total currentPage lastPage hasNextPage }} nodes {{ \
             mediaRecommendation {{ {FIELDS} }} }} }}"
        );
        let media = self.media(id, &extra).await?;
        let found = media.recommendations.unwrap_or_default();
        let rows: Vec<wire::Media> = found
            .nodes
            .into_iter()
            .filter_map(|n| n.media_recommendation)
            .filter(|m| !m.is_adult.unwrap_or(false))
            .collect();
        let n = rows.len();
        Ok(page_of(
            wire::Paged {
                page_info: found.page_info,
                media: rows,
            },
            page,
            n,
        ))
    }
}

/// The rating an AniList title marked `isAdult` is given in details.
pub const ADULT: &str = "Adult (AniList isAdult)";

/// AniList has no ratings: every title is read and unrated.
pub(crate) fn unrated() -> Certification {
    Certification::Unrated { region: None }
}
