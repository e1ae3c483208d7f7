//! A contract fake of TheTVDB's API v4 (base path `/v4`): `POST /login`, search (with its `links`
//! paging), search by remote id (IMDb or TMDB), extended series and movie records, and a series'
//! episodes in aired order, in the shapes of TVDB's own document
//! (`../shared/specs/tvdb-v4.openapi.yaml`, checked by `tests/tvdb_spec.rs`).
//!
//! Like TVDB it hands out a bearer token for the project key (and the subscriber PIN, when one is
//! sent: a wrong PIN is refused) and refuses every other request without a token it issued (401,
//! TVDB's `{"status":"failure",...}` body). [`TvdbFake::expire_tokens`] forgets the tokens issued,
//! so a client must log in again. Extended records ignore `meta` and `short`: they always carry
//! their English translations (as with `meta=translations`) and never their episodes.

mod data;
mod render;

use std::sync::Arc;

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::server::{Incoming, RecordedRequest, Running};
use data::{RECORDS, Record};

/// Episodes per page of `/series/{id}/episodes/{season-type}`, as TVDB pages them.
const EPISODE_PAGE: usize = 500;

#[derive(Default)]
struct Tokens {
    issued: Vec<String>,
    logins: usize,
}

/// A running TVDB fake. Dropping it stops the server.
pub struct TvdbFake {
    running: Running,
    tokens: Arc<Mutex<Tokens>>,
}

impl TvdbFake {
    /// The project API key the fake accepts at `/login` as `apikey`.
    pub const API_KEY: &'static str = "fake-tvdb-project-key-5e6f";
    /// The subscriber PIN the fake accepts at `/login` as `pin` (optional; refused when wrong).
    pub const PIN: &'static str = "4321";

    pub async fn start() -> TvdbFake {
        let tokens = Arc::new(Mutex::new(Tokens::default()));
        let shared = tokens.clone();
        let answer = move |i: &Incoming<'_>, _before: &[RecordedRequest]| answer(i, &shared);
        TvdbFake {
            running: Running::start("/v4", Box::new(answer)).await,
            tokens,
        }
    }

    /// The base URL to configure an adapter with, e.g. `http://127.0.0.1:41234/v4`.
    pub fn base_url(&self) -> &str {
        &self.running.base_url
    }

    /// Every request received so far, in arrival order (refused ones too).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.running.requests()
    }

    pub fn clear(&self) {
        self.running.clear();
    }

    /// Forgets every token issued so far: the next request with one of them gets a 401.
    pub fn expire_tokens(&self) {
        self.tokens.lock().issued.clear();
    }

    /// How many logins succeeded so far.
    pub fn logins(&self) -> usize {
        self.tokens.lock().logins
    }
}

fn failure(status: StatusCode, message: &str) -> Response {
    let body = json!({ "status": "failure", "message": message, "data": null });
    (status, Json(body)).into_response()
}

fn success(data: Value) -> Response {
    Json(json!({ "status": "success", "data": data })).into_response()
}

fn answer(incoming: &Incoming<'_>, tokens: &Mutex<Tokens>) -> Response {
    let r = incoming.request;
    let segments: Vec<&str> = incoming.path.trim_matches('/').split('/').collect();
    if r.method == "POST" && matches!(segments.as_slice(), ["login"]) {
        return login(r, tokens);
    }
    let bearer = r
        .header("authorization")
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim);
    let known = bearer.is_some_and(|t| tokens.lock().issued.iter().any(|i| i == t));
    if !known {
        return failure(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    if r.method != "GET" {
        return failure(
            StatusCode::NOT_FOUND,
            "NotFoundException: this fake serves GET only, besides POST /login",
        );
    }
    match segments.as_slice() {
        ["search"] => search(r),
        ["content", "ratings"] => success(render::all_content_ratings()),
        ["search", "remoteid", remote] => {
            let rows: Vec<Value> = data::by_remote_id(remote)
                .into_iter()
                .map(|rec| {
                    if rec.movie {
                        json!({ "movie": render::movie_base(rec) })
                    } else {
                        json!({ "series": render::series_base(rec) })
                    }
                })
                .collect();
            success(Value::Array(rows))
        }
        ["series", id, "extended"] => match lookup(false, id) {
            Ok(rec) => success(render::series_extended(rec)),
            Err(refused) => refused,
        },
        ["movies", id, "extended"] => match lookup(true, id) {
            Ok(rec) => success(render::movie_extended(rec)),
            Err(refused) => refused,
        },
        ["series", id, "episodes", season_type] => match lookup(false, id) {
            Ok(rec) => episodes(r, incoming.path, rec, season_type),
            Err(refused) => refused,
        },
        _ => failure(
            StatusCode::NOT_FOUND,
            &format!("NotFoundException: no route {}", incoming.path),
        ),
    }
}

fn login(r: &RecordedRequest, tokens: &Mutex<Tokens>) -> Response {
    let body = r.json_body().unwrap_or(Value::Null);
    let key_ok = body["apikey"].as_str() == Some(TvdbFake::API_KEY);
    let pin_ok = match &body["pin"] {
        Value::Null => true,
        pin => pin.as_str() == Some(TvdbFake::PIN),
    };
    if !(key_ok && pin_ok) {
        return failure(StatusCode::UNAUTHORIZED, "InvalidAPIKey");
    }
    let mut t = tokens.lock();
    t.logins += 1;
    let token = format!("fake-tvdb-token-{}", t.logins);
    t.issued.push(token.clone());
    success(json!({ "token": token }))
}

/// The series (or movie) of a path id: 400 for an id that is not a number, 404 for an unknown one.
fn lookup(movie: bool, id: &str) -> Result<&'static Record, Response> {
    let kind = if movie { "movie" } else { "series" };
    let Ok(n) = id.parse::<u64>() else {
        return Err(failure(
            StatusCode::BAD_REQUEST,
            &format!("InvalidValueType: invalid {kind} id {id}"),
        ));
    };
    data::find(movie, n).ok_or_else(|| {
        failure(
            StatusCode::NOT_FOUND,
            &format!("NotFoundException: {kind} {id} not found"),
        )
    })
}

fn number(r: &RecordedRequest, name: &str) -> Option<usize> {
    r.param(name).and_then(|v| v.trim().parse().ok())
}

/// Percent-encodes a query component.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The request's own URL with `key` set to `value` (TVDB's `links` are absolute URLs).
fn link(r: &RecordedRequest, path: &str, key: &str, value: usize) -> String {
    let host = r.header("host").unwrap_or("127.0.0.1");
    let mut pairs: Vec<String> = r
        .query
        .iter()
        .filter(|(k, _)| k != key)
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    pairs.push(format!("{key}={value}"));
    format!("http://{host}/v4{path}?{}", pairs.join("&"))
}

/// A Links object: `prev`/`next` are null at either end.
fn links(
    r: &RecordedRequest,
    path: &str,
    key: &str,
    (prev, current, next): (Option<usize>, usize, Option<usize>),
    total: usize,
    page_size: usize,
) -> Value {
    json!({
        "prev": prev.map(|p| link(r, path, key, p)),
        "self": link(r, path, key, current),
        "next": next.map(|n| link(r, path, key, n)),
        "total_items": total,
        "page_size": page_size,
    })
}

/// `/search`: every word of `query` (or `q`) in the name or an alias, case-insensitively;
/// `type` and `year` filter; `offset` and `limit` (default 50) page.
fn search(r: &RecordedRequest) -> Response {
    let Some(query) = r
        .param("query")
        .or(r.param("q"))
        .filter(|q| !q.trim().is_empty())
    else {
        return failure(
            StatusCode::BAD_REQUEST,
            "InvalidValueType: query is required",
        );
    };
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let kind = r.param("type");
    let year = r.param("year");
    let offset = number(r, "offset").unwrap_or(0);
    let limit = number(r, "limit").filter(|l| *l > 0).unwrap_or(50);
    let hits: Vec<Value> = RECORDS
        .iter()
        .filter(|rec| {
            let hay = format!("{} {}", rec.name, rec.aliases.join(" ")).to_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .filter(|rec| kind.is_none_or(|k| k == (if rec.movie { "movie" } else { "series" })))
        .filter(|rec| year.is_none_or(|y| rec.year == y))
        .map(render::search_result)
        .collect();
    let total = hits.len();
    let rows: Vec<Value> = hits.into_iter().skip(offset).take(limit).collect();
    let prev = (offset > 0).then(|| offset.saturating_sub(limit));
    let next = (offset + limit < total).then_some(offset + limit);
    let links = links(r, "/search", "offset", (prev, offset, next), total, limit);
    Json(json!({ "status": "success", "data": rows, "links": links })).into_response()
}

/// `/series/{id}/episodes/{season-type}`: aired order for `default` and `official` (the fake
/// knows no other order, so the others answer no episodes); `season`, `episodeNumber` (which
/// needs `season`, as TVDB says) and `airDate` filter; `page` pages by 500.
fn episodes(r: &RecordedRequest, path: &str, rec: &Record, season_type: &str) -> Response {
    let aired_order = match season_type {
        "default" | "official" => true,
        "dvd" | "absolute" | "alternate" | "regional" | "altdvd" | "alttwo" => false,
        _ => {
            return failure(
                StatusCode::BAD_REQUEST,
                &format!("InvalidValueType: unknown season type {season_type}"),
            );
        }
    };
    let season = number(r, "season");
    let episode = number(r, "episodeNumber");
    if episode.is_some() && season.is_none() {
        return failure(
            StatusCode::BAD_REQUEST,
            "InvalidValueType: episodeNumber is not null then season must be present",
        );
    }
    let air_date = r.param("airDate");
    let page = number(r, "page").unwrap_or(0);
    let list: Vec<Value> = rec
        .episodes
        .iter()
        .filter(|_| aired_order)
        .filter(|e| season.is_none_or(|s| e.season as usize == s))
        .filter(|e| episode.is_none_or(|n| e.number as usize == n))
        .filter(|e| air_date.is_none_or(|d| e.aired == d))
        .map(|e| render::episode(rec, e))
        .collect();
    let total = list.len();
    let rows: Vec<Value> = list
        .into_iter()
        .skip(page * EPISODE_PAGE)
        .take(EPISODE_PAGE)
        .collect();
    let prev = page.checked_sub(1);
    let next = ((page + 1) * EPISODE_PAGE < total).then_some(page + 1);
    let links = links(r, path, "page", (prev, page, next), total, EPISODE_PAGE);
    let data = json!({ "series": render::series_base(rec), "episodes": rows });
    Json(json!({ "status": "success", "data": data, "links": links })).into_response()
}
