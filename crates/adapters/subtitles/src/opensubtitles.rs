//! The OpenSubtitles REST API v1: `GET /subtitles` (by `imdb_id`, `tmdb_id`, `parent_imdb_id`,
//! `parent_tmdb_id`, `season_number`, `episode_number`, `languages`, `moviehash`,
//! `hearing_impaired`, `foreign_parts_only`) and `POST /download` (a link and the day's
//! remaining downloads). Every request carries `Api-Key` and the user agent; a spent quota
//! (406, or 429 with its message) is [`Error::Quota`] with the service's sentence.

use domain::Secret;
use httpx::reqwest;
use serde::Deserialize;
use serde_json::json;

use crate::{Error, Link, endpoint, json as parse, read_body, read_ok};

/// The public API's base.
pub const DEFAULT_URL: &str = "https://api.opensubtitles.com/api/v1";

/// One OpenSubtitles instance.
pub struct OpenSubtitles {
    http: reqwest::Client,
    base: url::Url,
    key: Secret,
}

/// What to search for. Ids are IMDb's and TMDB's numbers (`133093` for tt0133093).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Search {
    pub imdb_id: Option<u64>,
    pub tmdb_id: Option<u64>,
    /// The show's ids, for an episode.
    pub parent_imdb_id: Option<u64>,
    pub parent_tmdb_id: Option<u64>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    /// ISO 639-1 codes, with a region where meant (`pt-BR`).
    pub languages: Vec<String>,
    pub moviehash: Option<String>,
    /// `Some(true)`: only; `Some(false)`: exclude; `None`: include.
    pub hearing_impaired: Option<bool>,
    pub forced: Option<bool>,
    /// Free text, when there is no id.
    pub query: Option<String>,
}

/// One subtitle found (its first file).
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// OpenSubtitles' file id, what `/download` takes: never shown.
    pub file_id: u64,
    pub subtitle_id: String,
    pub file_name: Option<String>,
    pub language: String,
    pub release: Option<String>,
    pub hearing_impaired: bool,
    pub forced: bool,
    pub download_count: u64,
    pub from_trusted: bool,
    pub machine_translated: bool,
    pub ai_translated: bool,
    pub fps: Option<f64>,
    pub upload_date: Option<String>,
    pub moviehash_match: bool,
    pub title: Option<String>,
    pub year: Option<i32>,
    pub imdb_id: Option<u64>,
    pub feature_type: Option<String>,
    pub uploader: Option<String>,
}

/// What `/download` granted.
#[derive(Debug, PartialEq)]
pub struct Granted {
    pub link: Link,
    pub file_name: Option<String>,
    /// Downloads left today.
    pub remaining: Option<i64>,
    /// When the quota renews, as the service says it.
    pub reset_time_utc: Option<String>,
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    data: Vec<Item>,
    #[serde(default)]
    total_pages: Option<u32>,
}

/// The most pages of one search read (60 rows a page on the service).
pub const MAX_PAGES: u32 = 5;

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    id: String,
    attributes: Attributes,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Attributes {
    subtitle_id: Option<String>,
    language: Option<String>,
    download_count: u64,
    hearing_impaired: bool,
    foreign_parts_only: bool,
    fps: Option<f64>,
    from_trusted: Option<bool>,
    machine_translated: Option<bool>,
    ai_translated: Option<bool>,
    upload_date: Option<String>,
    release: Option<String>,
    moviehash_match: Option<bool>,
    uploader: Option<Uploader>,
    feature_details: Option<Feature>,
    files: Vec<File>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Uploader {
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Feature {
    feature_type: Option<String>,
    year: Option<i32>,
    title: Option<String>,
    imdb_id: Option<u64>,
}

#[derive(Deserialize)]
struct File {
    file_id: u64,
    #[serde(default)]
    file_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DownloadAnswer {
    link: Option<String>,
    file_name: Option<String>,
    remaining: Option<i64>,
    message: Option<String>,
    reset_time_utc: Option<String>,
}

impl OpenSubtitles {
    /// A client for `base` (the public API when `None`) with `key`.
    pub fn new(
        base: Option<url::Url>,
        key: Secret,
        timeouts: httpx::Timeouts,
    ) -> Result<OpenSubtitles, Error> {
        let base = match base {
            Some(b) => b,
            None => url::Url::parse(DEFAULT_URL)
                .map_err(|_| Error::Config("the default url does not parse".into()))?,
        };
        let http = crate::client(&base, &key, timeouts)?;
        Ok(OpenSubtitles { http, base, key })
    }

    /// The query parameters of `s`, sorted by name and lowercase as the API asks (it redirects
    /// otherwise).
    pub fn params(s: &Search) -> Vec<(&'static str, String)> {
        let mut p: Vec<(&'static str, String)> = Vec::new();
        let tri = |v: Option<bool>| match v {
            Some(true) => "only",
            Some(false) => "exclude",
            None => "include",
        };
        if let Some(n) = s.episode {
            p.push(("episode_number", n.to_string()));
        }
        p.push(("foreign_parts_only", tri(s.forced).into()));
        p.push(("hearing_impaired", tri(s.hearing_impaired).into()));
        if let Some(n) = s.imdb_id {
            p.push(("imdb_id", n.to_string()));
        }
        if !s.languages.is_empty() {
            let mut l: Vec<String> = s.languages.iter().map(|l| l.to_ascii_lowercase()).collect();
            l.sort();
            l.dedup();
            p.push(("languages", l.join(",")));
        }
        if let Some(h) = &s.moviehash {
            p.push(("moviehash", h.to_ascii_lowercase()));
        }
        if let Some(n) = s.parent_imdb_id {
            p.push(("parent_imdb_id", n.to_string()));
        }
        if let Some(n) = s.parent_tmdb_id {
            p.push(("parent_tmdb_id", n.to_string()));
        }
        if let Some(q) = &s.query {
            p.push(("query", q.to_lowercase()));
        }
        if let Some(n) = s.season {
            p.push(("season_number", n.to_string()));
        }
        if let Some(n) = s.tmdb_id {
            p.push(("tmdb_id", n.to_string()));
        }
        p
    }

    /// `GET /subtitles`: what matches, page after page as the answer's `total_pages` says, at
    /// most [`MAX_PAGES`] pages.
    pub async fn search(&self, s: &Search) -> Result<Vec<Found>, Error> {
        let mut items = Vec::new();
        let mut page = 1u32;
        loop {
            let mut params = OpenSubtitles::params(s);
            if page > 1 {
                params.push(("page", page.to_string()));
                params.sort_by(|a, b| a.0.cmp(b.0));
            }
            let answer = self
                .request(reqwest::Method::GET, "subtitles")
                .query(&params)
                .send()
                .await
                .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
            let body = read_ok(answer, self.key.expose()).await?;
            let read: Page = parse(&body, "the subtitle search answer")?;
            let empty = read.data.is_empty();
            items.extend(read.data);
            if empty || page >= read.total_pages.unwrap_or(1).min(MAX_PAGES) {
                break;
            }
            page += 1;
        }
        Ok(items
            .into_iter()
            .filter_map(|item| {
                let a = item.attributes;
                let file = a.files.first()?;
                let feature = a.feature_details.unwrap_or_default();
                Some(Found {
                    file_id: file.file_id,
                    subtitle_id: a.subtitle_id.unwrap_or(item.id),
                    file_name: file.file_name.clone(),
                    language: a.language.unwrap_or_default(),
                    release: a.release.filter(|r| !r.trim().is_empty()),
                    hearing_impaired: a.hearing_impaired,
                    forced: a.foreign_parts_only,
                    download_count: a.download_count,
                    from_trusted: a.from_trusted.unwrap_or(false),
                    machine_translated: a.machine_translated.unwrap_or(false),
                    ai_translated: a.ai_translated.unwrap_or(false),
                    fps: a.fps.filter(|f| *f > 0.0),
                    upload_date: a.upload_date,
                    moviehash_match: a.moviehash_match.unwrap_or(false),
                    title: feature.title,
                    year: feature.year,
                    imdb_id: feature.imdb_id,
                    feature_type: feature.feature_type,
                    uploader: a.uploader.and_then(|u| u.name),
                })
            })
            .collect())
    }

    /// `POST /download {file_id}`: the file's link and the day's remaining downloads. A spent
    /// quota is [`Error::Quota`].
    pub async fn download(&self, file_id: u64) -> Result<Granted, Error> {
        let answer = self
            .request(reqwest::Method::POST, "download")
            .json(&json!({ "file_id": file_id }))
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        let status = answer.status().as_u16();
        let body = read_body(answer, self.key.expose()).await?;
        let said: DownloadAnswer = serde_json::from_slice(&body).unwrap_or_default();
        let message = said
            .message
            .as_deref()
            .map(|m| {
                httpx::redact(m.trim())
                    .chars()
                    .take(300)
                    .collect::<String>()
            })
            .filter(|m| !m.is_empty());
        let quota = |message: Option<String>| Error::Quota {
            message: message.unwrap_or_else(|| "the service gave no time it renews".into()),
        };
        match status {
            406 => return Err(quota(message)),
            429 if message
                .as_deref()
                .is_some_and(|m| m.to_lowercase().contains("quota") || m.contains("allowed")) =>
            {
                return Err(quota(message));
            }
            s if !(200..300).contains(&s) => {
                return Err(Error::Http(httpx::Error::from_status(s, "")));
            }
            _ => {}
        }
        if said.remaining.is_some_and(|r| r < 0) {
            return Err(quota(message));
        }
        let link = said
            .link
            .filter(|l| !l.trim().is_empty())
            .ok_or_else(|| Error::decode("the download answer has no link"))?;
        Ok(Granted {
            link: Link::new(link),
            file_name: said.file_name,
            remaining: said.remaining,
            reset_time_utc: said.reset_time_utc,
        })
    }

    /// Fetches a link `/download` granted. One on this instance's own origin is fetched with
    /// its client; any other goes through `outbound` (the rule for URLs an answer supplies).
    pub async fn fetch(
        &self,
        link: &Link,
        outbound: &httpx::outbound::Outbound,
        timeouts: httpx::Timeouts,
    ) -> Result<Vec<u8>, Error> {
        let url = url::Url::parse(link.expose())
            .map_err(|_| Error::decode("the download link is not a URL"))?;
        if url.origin() == self.base.origin() {
            let answer = self
                .http
                .get(url)
                .send()
                .await
                .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
            return read_ok(answer, self.key.expose()).await;
        }
        match outbound
            .fetch(link.expose(), crate::MAX_ANSWER, timeouts)
            .await
        {
            Ok(httpx::outbound::Fetched::Body(b)) => {
                Ok(httpx::scrub_secret(&b, self.key.expose()).unwrap_or(b))
            }
            Ok(httpx::outbound::Fetched::Magnet(_)) => {
                Err(Error::decode("the download link led to a magnet"))
            }
            Err(httpx::outbound::FetchError::Refused(r)) => Err(Error::Refused(r.to_string())),
            Err(httpx::outbound::FetchError::TooLarge { .. }) => {
                Err(Error::decode("the subtitle file is too large"))
            }
            Err(httpx::outbound::FetchError::Failed(e)) => Err(Error::Http(e)),
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, endpoint(&self.base, path))
            .header("Api-Key", self.key.expose())
            .header("Accept", "application/json")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_sorted_and_lowercase() {
        let s = Search {
            imdb_id: Some(133093),
            languages: vec!["pt-BR".into(), "en".into()],
            moviehash: Some("ABCDEF0123456789".into()),
            hearing_impaired: Some(false),
            ..Search::default()
        };
        let p = OpenSubtitles::params(&s);
        let names: Vec<&str> = p.iter().map(|(k, _)| *k).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert!(p.contains(&("languages", "en,pt-br".into())));
        assert!(p.contains(&("moviehash", "abcdef0123456789".into())));
        assert!(p.contains(&("hearing_impaired", "exclude".into())));
        assert!(p.contains(&("foreign_parts_only", "include".into())));
    }
}
