//! The Bazarr fake: `/api/system/status`, `/api/movies`, `/api/movies/wanted`, `/api/series`,
//! `/api/episodes` (by `seriesid[]`), `/api/episodes/wanted` and
//! `/api/providers/movies|episodes` (GET: a provider search; POST: a download), each behind
//! `X-API-KEY`, in the shapes Bazarr's API answers.

use std::sync::Arc;

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use super::{Received, Serving};

/// A movie the Bazarr fake knows, with what its providers offer.
#[derive(Clone, Debug)]
pub struct BazarrMovie {
    pub radarr_id: i64,
    pub title: String,
    pub year: i32,
    pub imdb_id: String,
    /// ISO 639-1 codes Bazarr lists as missing.
    pub missing: Vec<String>,
    /// Languages its providers have a subtitle in.
    pub offers: Vec<String>,
}

/// A series the Bazarr fake knows (from Sonarr), with its episodes.
#[derive(Clone, Debug)]
pub struct BazarrSeries {
    pub sonarr_series_id: i64,
    pub title: String,
    pub tvdb_id: i64,
    pub episodes: Vec<BazarrEpisode>,
}

/// An episode the Bazarr fake knows, with what its providers offer.
#[derive(Clone, Debug)]
pub struct BazarrEpisode {
    pub sonarr_episode_id: i64,
    pub season: u32,
    pub episode: u32,
    pub title: String,
    /// ISO 639-1 codes Bazarr lists as missing.
    pub missing: Vec<String>,
    /// Languages its providers have a subtitle in.
    pub offers: Vec<String>,
}

struct BazarrState {
    key: String,
    movies: Vec<BazarrMovie>,
    series: Vec<BazarrSeries>,
}

/// A running Bazarr fake.
pub struct BazarrFake {
    serving: Serving,
}

impl BazarrFake {
    pub const API_KEY: &'static str = "fake-bazarr-key-0f9e8d7c";

    pub async fn start(movies: Vec<BazarrMovie>) -> BazarrFake {
        BazarrFake::start_with(movies, Vec::new()).await
    }

    /// With series and their episodes too.
    pub async fn start_with(movies: Vec<BazarrMovie>, series: Vec<BazarrSeries>) -> BazarrFake {
        let state = Arc::new(BazarrState {
            key: BazarrFake::API_KEY.into(),
            movies,
            series,
        });
        let serving = Serving::start(Box::new(move |r, _| bazarr_answer(&state, r))).await;
        BazarrFake { serving }
    }

    pub fn url(&self) -> String {
        self.serving.base.clone()
    }

    pub fn requests(&self) -> Vec<Received> {
        self.serving.shared.log.lock().clone()
    }
}

fn language(code: &str) -> Value {
    let name = match code {
        "en" => "English",
        "fr" => "French",
        "de" => "German",
        "pt-BR" => "Portuguese (Brazil)",
        other => other,
    };
    json!({ "name": name, "code2": code, "code3": "", "forced": false, "hi": false })
}

/// An episode as `/api/episodes` lists it.
fn episode_row(x: &BazarrSeries, e: &BazarrEpisode) -> Value {
    json!({
        "title": e.title, "season": e.season, "episode": e.episode,
        "sonarrSeriesId": x.sonarr_series_id, "sonarrEpisodeId": e.sonarr_episode_id,
        "monitored": true, "path": format!("/tv/{}/Season {}/{}.mkv", x.title, e.season, e.title),
        "subtitles": [], "audio_language": [language("en")], "sceneName": null,
        "missing_subtitles": e.missing.iter().map(|c| language(c)).collect::<Vec<_>>(),
    })
}

/// A provider search's results: one a language, best first, each with Bazarr's token.
fn offers(languages: &[String], release: &str, id: i64) -> Vec<Value> {
    languages
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "provider": "opensubtitlescom", "language": c, "forced": "False",
                "hearing_impaired": "False", "score": 90 - i as i64, "orig_score": 110,
                "score_without_hash": 90, "release_info": [release],
                "uploader": "bazarr-uploader", "url": "https://www.opensubtitles.com/en/subtitles/x",
                "matches": ["series", "season", "episode"], "dont_matches": [],
                "original_format": "False", "subtitle": format!("gASVPICKLED-{id}-{c}"),
            })
        })
        .collect()
}

fn bazarr_answer(s: &BazarrState, r: &Received) -> Response {
    if r.header("x-api-key") != Some(s.key.as_str()) {
        return (StatusCode::UNAUTHORIZED, "Unauthorized").into_response();
    }
    let movie = || {
        r.param("radarrid")
            .and_then(|v| v.parse::<i64>().ok())
            .and_then(|id| s.movies.iter().find(|m| m.radarr_id == id))
    };
    let episode = || {
        let num = |k: &str| r.param(k).and_then(|v| v.parse::<i64>().ok());
        let (series, episode) = (num("seriesid")?, num("episodeid")?);
        let x = s.series.iter().find(|x| x.sonarr_series_id == series)?;
        Some((
            x,
            x.episodes.iter().find(|e| e.sonarr_episode_id == episode)?,
        ))
    };
    match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/api/system/status") => axum::Json(json!({ "data": { "bazarr_version": "1.4.3", "python_version": "3.11.9" } })).into_response(),
        ("GET", "/api/movies") => axum::Json(json!({
            "data": s.movies.iter().map(|m| json!({
                "title": m.title, "year": m.year.to_string(), "imdbId": m.imdb_id, "radarrId": m.radarr_id,
                "monitored": true, "path": format!("/movies/{}/{}.mkv", m.title, m.title),
                "subtitles": [], "missing_subtitles": m.missing.iter().map(|c| language(c)).collect::<Vec<_>>(),
                "audio_language": [language("en")], "tags": [], "sceneName": null,
            })).collect::<Vec<_>>(),
            "total": s.movies.len(),
        }))
        .into_response(),
        ("GET", "/api/movies/wanted") => axum::Json(json!({
            "data": s.movies.iter().filter(|m| !m.missing.is_empty()).map(|m| json!({
                "title": m.title, "radarrId": m.radarr_id, "sceneName": null, "tags": [],
                "missing_subtitles": m.missing.iter().map(|c| language(c)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "total": s.movies.iter().filter(|m| !m.missing.is_empty()).count(),
        }))
        .into_response(),
        ("GET", "/api/series") => axum::Json(json!({
            "data": s.series.iter().map(|x| json!({
                "title": x.title, "sonarrSeriesId": x.sonarr_series_id, "tvdbId": x.tvdb_id,
                "imdbId": "", "monitored": true, "path": format!("/tv/{}", x.title),
                "episodeFileCount": x.episodes.len(), "episodeMissingCount": 0, "tags": [],
            })).collect::<Vec<_>>(),
            "total": s.series.len(),
        }))
        .into_response(),
        ("GET", "/api/episodes") => {
            // Bazarr takes `seriesid[]` (and `episodeid[]`); none: nothing.
            let wanted: Vec<i64> = r
                .query
                .iter()
                .filter(|(k, _)| k == "seriesid[]")
                .filter_map(|(_, v)| v.parse().ok())
                .collect();
            let data: Vec<Value> = s
                .series
                .iter()
                .filter(|x| wanted.contains(&x.sonarr_series_id))
                .flat_map(|x| x.episodes.iter().map(move |e| episode_row(x, e)))
                .collect();
            axum::Json(json!({ "total": data.len(), "data": data })).into_response()
        }
        ("GET", "/api/episodes/wanted") => {
            let data: Vec<Value> = s
                .series
                .iter()
                .flat_map(|x| x.episodes.iter().map(move |e| (x, e)))
                .filter(|(_, e)| !e.missing.is_empty())
                .map(|(x, e)| json!({
                    "seriesTitle": x.title, "episode_number": format!("{}x{:02}", e.season, e.episode),
                    "episodeTitle": e.title, "sonarrSeriesId": x.sonarr_series_id,
                    "sonarrEpisodeId": e.sonarr_episode_id, "sceneName": null, "tags": [],
                    "seriesType": "standard",
                    "missing_subtitles": e.missing.iter().map(|c| language(c)).collect::<Vec<_>>(),
                }))
                .collect();
            axum::Json(json!({ "total": data.len(), "data": data })).into_response()
        }
        ("GET", "/api/providers/episodes") => match episode() {
            Some((x, e)) => axum::Json(json!({
                "data": offers(&e.offers, &format!("{}.S{:02}E{:02}.720p.HDTV", x.title.replace(' ', "."), e.season, e.episode), e.sonarr_episode_id),
            }))
            .into_response(),
            None => (StatusCode::NOT_FOUND, "Episode not found").into_response(),
        },
        ("POST", "/api/providers/episodes") => match episode() {
            Some(_) => StatusCode::NO_CONTENT.into_response(),
            None => (StatusCode::NOT_FOUND, "Episode not found").into_response(),
        },
        ("GET", "/api/providers/movies") => match movie() {
            Some(m) => axum::Json(json!({
                "data": m.offers.iter().enumerate().map(|(i, c)| json!({
                    "provider": "opensubtitlescom",
                    "language": c,
                    "forced": "False",
                    "hearing_impaired": "False",
                    "score": 90 - i as i64,
                    "orig_score": 110,
                    "score_without_hash": 90,
                    "release_info": [format!("{}.{}.1080p.BluRay", m.title.replace(' ', "."), m.year)],
                    "uploader": "bazarr-uploader",
                    "url": "https://www.opensubtitles.com/en/subtitles/x",
                    "matches": ["title", "year"],
                    "dont_matches": [],
                    "original_format": "False",
                    "subtitle": format!("gASVPICKLED-{}-{c}", m.radarr_id),
                })).collect::<Vec<_>>(),
            }))
            .into_response(),
            None => (StatusCode::NOT_FOUND, "Movie not found").into_response(),
        },
        ("POST", "/api/providers/movies") => match movie() {
            Some(_) => StatusCode::NO_CONTENT.into_response(),
            None => (StatusCode::NOT_FOUND, "Movie not found").into_response(),
        },
        _ => (StatusCode::NOT_FOUND, "Not found").into_response(),
    }
}
