//! A contract fake of Prowlarr's API v1: `indexer`, `indexerstatus`, `search` (free text and
//! the identity tokens `{ImdbId:…}`, `{TvdbId:…}{Season:…}{Episode:…}`, one indexer with
//! `indexerIds`), `indexer/{id}/download` (the .torrent, or a redirect to the magnet),
//! `health` and `system/status`, each behind `X-Api-Key`. Every answer is kept so a test can
//! check it against Prowlarr's OpenAPI document ([`ProwlarrFake::check_answers`]).

use std::{sync::Arc, time::Duration};

use axum::{
    Json,
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use chrono::Utc;
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::{FakeRelease, Served};
use crate::{
    RecordedRequest,
    arr::{
        ArrRequest,
        spec::{Report, Spec, check_log_in},
    },
};

/// One indexer inside the fake Prowlarr.
#[derive(Clone, Debug)]
pub struct FakeIndexer {
    pub id: i64,
    pub name: String,
    pub releases: Vec<FakeRelease>,
    /// How long its searches take.
    pub delay: Duration,
    /// Prowlarr disabled it after failures (for an hour from now).
    pub disabled: bool,
    pub usenet: bool,
    /// Its caps' `movieSearchParams` and `tvSearchParams`: an identity token it does not list
    /// finds nothing on it.
    pub movie_params: Vec<String>,
    pub tv_params: Vec<String>,
}

impl FakeIndexer {
    pub fn new(id: i64, name: &str, releases: Vec<FakeRelease>) -> FakeIndexer {
        FakeIndexer {
            id,
            name: name.into(),
            releases,
            delay: Duration::ZERO,
            disabled: false,
            usenet: false,
            movie_params: vec!["q".into(), "imdbId".into()],
            tv_params: vec!["q".into(), "season".into(), "ep".into(), "tvdbId".into()],
        }
    }
}

struct State {
    key: String,
    base: Mutex<String>,
    indexers: Mutex<Vec<FakeIndexer>>,
    answers: Mutex<Vec<ArrRequest>>,
}

/// A running Prowlarr fake. Dropping it stops the server.
pub struct ProwlarrFake {
    served: Served,
    state: Arc<State>,
}

impl ProwlarrFake {
    pub const API_KEY: &'static str = "fake-prowlarr-key-5c4b3a29";

    pub async fn start(indexers: Vec<FakeIndexer>) -> ProwlarrFake {
        let state = Arc::new(State {
            key: ProwlarrFake::API_KEY.into(),
            base: Mutex::new(String::new()),
            indexers: Mutex::new(indexers),
            answers: Mutex::new(Vec::new()),
        });
        let s = state.clone();
        let served = Served::start(Box::new(move |r| {
            let s = s.clone();
            Box::pin(async move { answer(&s, r).await })
        }))
        .await;
        *state.base.lock() = served.base.clone();
        ProwlarrFake { served, state }
    }

    /// The URL to configure the instance with (Prowlarr's root).
    pub fn url(&self) -> &str {
        &self.served.base
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.served.requests()
    }

    /// Changes one indexer (its delay, its releases, whether it is disabled).
    pub fn with_indexer(&self, id: i64, change: impl FnOnce(&mut FakeIndexer)) {
        if let Some(i) = self.state.indexers.lock().iter_mut().find(|i| i.id == id) {
            change(i);
        }
    }

    /// Checks every successful JSON answer given so far against Prowlarr's OpenAPI document.
    pub fn check_answers(&self) -> Report {
        let log = self.state.answers.lock().clone();
        check_log_in(&Spec::load_file("prowlarr-v1.openapi.json"), "", &log)
    }
}

fn keep(state: &State, r: &RecordedRequest, status: StatusCode, answer: Value) -> Response {
    state.answers.lock().push(ArrRequest {
        request: r.clone(),
        body: Value::Null,
        status: status.as_u16(),
        answer: answer.clone(),
    });
    (status, Json(answer)).into_response()
}

async fn answer(state: &State, r: RecordedRequest) -> Response {
    let key_ok = r.header("x-api-key") == Some(&state.key) || r.param("apikey") == Some(&state.key);
    if !key_ok {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let segments: Vec<&str> = r.path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api", "v1", "system", "status"] => keep(
            state,
            &r,
            StatusCode::OK,
            json!({ "appName": "Prowlarr", "version": "1.30.2.4939" }),
        ),
        ["api", "v1", "health"] => keep(state, &r, StatusCode::OK, json!([])),
        ["api", "v1", "indexer"] => {
            let list: Vec<Value> = state.indexers.lock().iter().map(indexer_resource).collect();
            keep(state, &r, StatusCode::OK, Value::Array(list))
        }
        ["api", "v1", "indexerstatus"] => {
            let now = Utc::now();
            let list: Vec<Value> = state
                .indexers
                .lock()
                .iter()
                .filter(|i| i.disabled)
                .map(|i| {
                    json!({
                        "id": i.id, "indexerId": i.id,
                        "disabledTill": (now + chrono::Duration::hours(1)).to_rfc3339(),
                        "mostRecentFailure": (now - chrono::Duration::minutes(5)).to_rfc3339(),
                        "initialFailure": (now - chrono::Duration::hours(2)).to_rfc3339(),
                    })
                })
                .collect();
            keep(state, &r, StatusCode::OK, Value::Array(list))
        }
        ["api", "v1", "search"] => search(state, &r).await,
        ["api", "v1", "indexer", id, "download"] => download(state, id, &r),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn indexer_resource(i: &FakeIndexer) -> Value {
    json!({
        "id": i.id,
        "name": i.name,
        "fields": [],
        "implementationName": "Cardigann",
        "implementation": "Cardigann",
        "configContract": "CardigannSettings",
        "tags": [],
        "indexerUrls": ["https://indexer.invalid/"],
        "legacyUrls": [],
        "definitionName": i.name.to_lowercase(),
        "description": format!("{} fake", i.name),
        "language": "en-US",
        "enable": true,
        "redirect": false,
        "supportsRss": true,
        "supportsSearch": true,
        "supportsRedirect": false,
        "supportsPagination": false,
        "appProfileId": 1,
        "protocol": if i.usenet { "usenet" } else { "torrent" },
        "privacy": "private",
        "capabilities": {
            "id": 0,
            "limitsMax": 100,
            "limitsDefault": 100,
            "categories": [
                { "id": 2000, "name": "Movies", "subCategories": [ { "id": 2040, "name": "Movies/HD", "subCategories": [] } ] },
                { "id": 5000, "name": "TV", "subCategories": [] }
            ],
            "supportsRawSearch": false,
            "searchParams": ["q"],
            "tvSearchParams": i.tv_params,
            "movieSearchParams": i.movie_params,
            "musicSearchParams": [],
            "bookSearchParams": []
        },
        "priority": 25,
        "downloadClientId": 0,
        "added": "2026-01-02T03:04:05Z",
        "sortName": i.name.to_lowercase(),
    })
}

/// `{Token:value}` of a Prowlarr query, and the free text left.
fn tokens(query: &str) -> (Vec<(String, String)>, String) {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = query;
    while let Some(open) = rest.find('{') {
        text.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        if let Some((k, v)) = inner.split_once(':') {
            out.push((k.to_string(), v.to_string()));
        }
        rest = &rest[open + close + 1..];
    }
    text.push_str(rest);
    (out, text.trim().to_string())
}

async fn search(state: &State, r: &RecordedRequest) -> Response {
    let (tokens, text) = tokens(r.param("query").unwrap_or(""));
    let token = |name: &str| {
        tokens
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let ids: Vec<i64> = r
        .query
        .iter()
        .filter(|(k, _)| k == "indexerIds")
        .filter_map(|(_, v)| v.parse().ok())
        .collect();
    let chosen: Vec<FakeIndexer> = state
        .indexers
        .lock()
        .iter()
        .filter(|i| ids.is_empty() || ids.contains(&i.id))
        .cloned()
        .collect();
    let delay = chosen.iter().map(|i| i.delay).max().unwrap_or_default();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let imdb = token("ImdbId");
    let tvdb = token("TvdbId").and_then(|t| t.parse().ok());
    let season = token("Season").and_then(|t| t.parse().ok());
    let episode = token("Episode").and_then(|t| t.parse().ok());
    let base = state.base.lock().clone();
    let now = Utc::now();
    let mut rows = Vec::new();
    let lists = |params: &[String], p: &str| params.iter().any(|x| x.eq_ignore_ascii_case(p));
    for i in &chosen {
        if imdb.is_some() && !lists(&i.movie_params, "imdbId")
            || tvdb.is_some() && !lists(&i.tv_params, "tvdbId")
        {
            continue;
        }
        for (n, rel) in i.releases.iter().enumerate() {
            let q = (!text.is_empty()).then_some(text.as_str());
            if !rel.answers(q, imdb.as_deref(), tvdb, season, episode) {
                continue;
            }
            let download = format!(
                "{base}/api/v1/indexer/{}/download?apikey={}&link={n}&file={}",
                i.id,
                state.key,
                rel.title.replace(' ', ".")
            );
            rows.push(json!({
                "id": 0,
                "guid": format!("https://indexer.invalid/details/{}/{n}?passkey=GUIDPASS", i.id),
                "age": rel.age_days,
                "ageHours": (rel.age_days * 24) as f64,
                "ageMinutes": (rel.age_days * 24 * 60) as f64,
                "size": rel.size,
                "files": 1,
                "grabs": 3,
                "indexerId": i.id,
                "indexer": i.name,
                "title": rel.title,
                "sortTitle": rel.title.to_lowercase(),
                "imdbId": rel.imdb.as_deref().and_then(|m| m.trim_start_matches("tt").parse::<i64>().ok()).unwrap_or(0),
                "tmdbId": 0,
                "tvdbId": rel.tvdb.unwrap_or(0),
                "tvMazeId": 0,
                "publishDate": (now - chrono::Duration::days(rel.age_days)).to_rfc3339(),
                "downloadUrl": download,
                "infoUrl": format!("https://indexer.invalid/details/{}/{n}", i.id),
                "indexerFlags": [],
                "categories": [ { "id": 2000, "name": "Movies", "subCategories": [] } ],
                "magnetUrl": rel.magnet,
                "infoHash": rel.info_hash,
                "seeders": rel.seeders,
                "leechers": rel.peers.saturating_sub(rel.seeders),
                "protocol": if i.usenet || rel.usenet { "usenet" } else { "torrent" },
                "fileName": format!("{}.torrent", rel.title),
            }));
            if let Some(Value::Object(row)) = rows.last_mut() {
                row.retain(|_, v| !v.is_null());
            }
        }
    }
    keep(state, r, StatusCode::OK, Value::Array(rows))
}

fn download(state: &State, id: &str, r: &RecordedRequest) -> Response {
    let id: i64 = id.parse().unwrap_or(-1);
    let n: usize = r
        .param("link")
        .and_then(|l| l.parse().ok())
        .unwrap_or(usize::MAX);
    let found = state
        .indexers
        .lock()
        .iter()
        .find(|i| i.id == id)
        .and_then(|i| i.releases.get(n).cloned());
    let Some(rel) = found else {
        return StatusCode::NOT_FOUND.into_response();
    };
    state.answers.lock().push(ArrRequest {
        request: r.clone(),
        body: Value::Null,
        status: 200,
        answer: Value::Null,
    });
    match (rel.torrent, rel.magnet) {
        (Some(bytes), _) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/x-bittorrent")],
            bytes,
        )
            .into_response(),
        (None, Some(m)) => (StatusCode::FOUND, [(header::LOCATION, m)]).into_response(),
        (None, None) => StatusCode::NOT_FOUND.into_response(),
    }
}
