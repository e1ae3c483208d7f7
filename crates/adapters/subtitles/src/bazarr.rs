//! Bazarr's API (`X-API-KEY`): its wanted lists (`/api/movies/wanted`,
//! `/api/episodes/wanted`), its movies, series and episodes, a provider search for one movie or
//! episode (`GET /api/providers/movies|episodes`) and the download of one result
//! (`POST` of the same path): Bazarr fetches and writes the file itself, beside its own copy of
//! the video.

use domain::Secret;
use httpx::reqwest;
use serde::{Deserialize, Deserializer};

use crate::{Error, endpoint, json, read_ok};

/// One Bazarr instance.
pub struct Bazarr {
    http: reqwest::Client,
    base: url::Url,
    key: Secret,
}

/// A language Bazarr names: `{"name": "English", "code2": "en", "forced": false, "hi": false}`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Language {
    pub name: String,
    pub code2: Option<String>,
    #[serde(deserialize_with = "flag")]
    pub forced: bool,
    #[serde(deserialize_with = "flag")]
    pub hi: bool,
}

/// A movie as Bazarr knows it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct Movie {
    pub title: String,
    pub radarr_id: i64,
    pub imdb_id: Option<String>,
    pub tmdb_id: Option<i64>,
    #[serde(deserialize_with = "loose_year")]
    pub year: Option<i32>,
    #[serde(rename = "missing_subtitles")]
    pub missing_subtitles: Vec<Language>,
}

/// A series as Bazarr knows it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct Series {
    pub title: String,
    pub sonarr_series_id: i64,
    pub tvdb_id: Option<i64>,
    pub imdb_id: Option<String>,
}

/// An episode as Bazarr knows it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct Episode {
    pub title: String,
    pub season: u32,
    pub episode: u32,
    pub sonarr_series_id: i64,
    pub sonarr_episode_id: i64,
    #[serde(rename = "missing_subtitles")]
    pub missing_subtitles: Vec<Language>,
}

/// A movie on Bazarr's wanted list.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct WantedMovie {
    pub title: String,
    pub radarr_id: i64,
    #[serde(rename = "missing_subtitles")]
    pub missing_subtitles: Vec<Language>,
}

/// An episode on Bazarr's wanted list.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct WantedEpisode {
    #[serde(rename = "seriesTitle")]
    pub series_title: String,
    /// `1x02`.
    pub episode_number: String,
    #[serde(rename = "episodeTitle")]
    pub episode_title: String,
    #[serde(rename = "sonarrSeriesId")]
    pub sonarr_series_id: i64,
    #[serde(rename = "sonarrEpisodeId")]
    pub sonarr_episode_id: i64,
    pub missing_subtitles: Vec<Language>,
}

/// One result of a provider search. `subtitle` is Bazarr's own token for it (opaque, long):
/// handed back to download it, never shown.
#[derive(Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Offer {
    pub provider: String,
    pub language: String,
    #[serde(deserialize_with = "flag")]
    pub forced: bool,
    #[serde(deserialize_with = "flag")]
    pub hearing_impaired: bool,
    pub score: Option<f64>,
    pub release_info: Vec<String>,
    pub uploader: Option<String>,
    pub subtitle: String,
    pub original_format: Option<serde_json::Value>,
}

impl std::fmt::Debug for Offer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offer")
            .field("provider", &self.provider)
            .field("language", &self.language)
            .field("forced", &self.forced)
            .field("hearing_impaired", &self.hearing_impaired)
            .finish_non_exhaustive()
    }
}

/// What a provider search or download is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Movie { radarr_id: i64 },
    Episode { series_id: i64, episode_id: i64 },
}

#[derive(Deserialize)]
struct Data<T> {
    #[serde(default = "Vec::new")]
    data: Vec<T>,
}

/// Bazarr writes flags as booleans, or as the strings "True"/"False".
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Bool(b) => b,
        serde_json::Value::String(s) => s.eq_ignore_ascii_case("true"),
        serde_json::Value::Number(n) => n.as_i64().is_some_and(|n| n != 0),
        _ => false,
    })
}

/// A year as a number or a string.
fn loose_year<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n.as_i64().and_then(|n| i32::try_from(n).ok()),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

impl Bazarr {
    pub fn new(base: url::Url, key: Secret, timeouts: httpx::Timeouts) -> Result<Bazarr, Error> {
        let http = crate::client(&base, &key, timeouts)?;
        Ok(Bazarr { http, base, key })
    }

    /// `GET /api/system/status`: Bazarr's version, for diagnose.
    pub async fn version(&self) -> Result<String, Error> {
        #[derive(Deserialize)]
        struct Status {
            data: StatusData,
        }
        #[derive(Deserialize)]
        struct StatusData {
            #[serde(default)]
            bazarr_version: String,
        }
        let body = self.get("api/system/status", &[]).await?;
        let s: Status = json(&body, "Bazarr's status")?;
        Ok(s.data.bazarr_version)
    }

    pub async fn wanted_movies(&self) -> Result<Vec<WantedMovie>, Error> {
        self.list("api/movies/wanted", &all()).await
    }

    pub async fn wanted_episodes(&self) -> Result<Vec<WantedEpisode>, Error> {
        self.list("api/episodes/wanted", &all()).await
    }

    pub async fn movies(&self) -> Result<Vec<Movie>, Error> {
        self.list("api/movies", &all()).await
    }

    pub async fn series(&self) -> Result<Vec<Series>, Error> {
        self.list("api/series", &all()).await
    }

    pub async fn episodes(&self, series_id: i64) -> Result<Vec<Episode>, Error> {
        self.list("api/episodes", &[("seriesid[]", series_id.to_string())])
            .await
    }

    /// A provider search for `target`.
    pub async fn search(&self, target: Target) -> Result<Vec<Offer>, Error> {
        let (path, query) = target_query(target);
        self.list(path, &query).await
    }

    /// Asks Bazarr to download `offer` for `target` (it writes the file itself).
    pub async fn download(&self, target: Target, offer: &Offer) -> Result<(), Error> {
        let (path, query) = target_query(target);
        let original = match &offer.original_format {
            Some(serde_json::Value::Bool(b)) => if *b { "True" } else { "False" }.to_string(),
            Some(serde_json::Value::String(s)) => s.clone(),
            _ => "False".into(),
        };
        let flag = |b: bool| if b { "True" } else { "False" };
        let form = [
            ("hi", flag(offer.hearing_impaired).to_string()),
            ("forced", flag(offer.forced).to_string()),
            ("original_format", original),
            ("provider", offer.provider.clone()),
            ("subtitle", offer.subtitle.clone()),
            ("language", offer.language.clone()),
        ];
        let answer = self
            .http
            .post(endpoint(&self.base, path))
            .query(&query)
            .header("X-API-KEY", self.key.expose())
            .form(&form)
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        read_ok(answer, self.key.expose()).await.map(|_| ())
    }

    async fn list<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, Error> {
        let body = self.get(path, query).await?;
        let d: Data<T> = json(&body, &format!("Bazarr's {path}"))?;
        Ok(d.data)
    }

    async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Vec<u8>, Error> {
        let answer = self
            .http
            .get(endpoint(&self.base, path))
            .query(query)
            .header("X-API-KEY", self.key.expose())
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| Error::Http(httpx::Error::from_reqwest(&e)))?;
        read_ok(answer, self.key.expose()).await
    }
}

fn all() -> [(&'static str, String); 2] {
    [("start", "0".into()), ("length", "-1".into())]
}

fn target_query(target: Target) -> (&'static str, Vec<(&'static str, String)>) {
    match target {
        Target::Movie { radarr_id } => (
            "api/providers/movies",
            vec![("radarrid", radarr_id.to_string())],
        ),
        Target::Episode {
            series_id,
            episode_id,
        } => (
            "api/providers/episodes",
            vec![
                ("seriesid", series_id.to_string()),
                ("episodeid", episode_id.to_string()),
            ],
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn flags_read_as_booleans_or_strings() {
        let o: Offer = serde_json::from_str(
            r#"{"provider":"opensubtitlescom","language":"en","forced":"False","hearing_impaired":"True","subtitle":"gASV"}"#,
        )
        .unwrap();
        assert!(o.hearing_impaired && !o.forced);
        assert!(!format!("{o:?}").contains("gASV"), "the token is not shown");
        let m: Movie = serde_json::from_str(r#"{"title":"x","radarrId":3,"year":"1999","missing_subtitles":[{"name":"English","code2":"en","forced":false,"hi":false}]}"#).unwrap();
        assert_eq!(
            (m.radarr_id, m.year, m.missing_subtitles.len()),
            (3, Some(1999), 1)
        );
    }
}
