//! Contract fakes of the media servers: Jellyfin (answers in the shapes of its OpenAPI document,
//! `../shared/specs/jellyfin-v12.openapi.json`; a test checks them against it), Emby (the same
//! API family; its user-scoped paths `/Users/{id}/Items/Resume` and `/Users/{id}/Items` and the
//! `X-Emby-Token` header, as Emby's REST documentation describes) and Plex Media Server (JSON
//! when `Accept: application/json` asks, `X-Plex-Token`, `MediaContainer` envelopes with
//! `X-Plex-Container-Start`/`-Size` paging, as the community `plex-pms` document describes).
//!
//! One small household on each: a movie within a child's limits (Paddington, PG), one beyond
//! them (Alien, R), a show with two seasons (Bluey, TV-Y), a half-watched episode (alice's
//! Bluey 1x02), the kid's Alien and Bluey 2x01 under way, and a session transcoding (alice
//! watching Paddington on the living-room TV). `add_movies(n)` adds `n` more movies, for a
//! library as large as a test needs. A request without the right token gets a 401.

use std::sync::Arc;

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::server::{Incoming, RecordedRequest, Running};

mod collections;
mod playlists;
mod plex;

use collections::Answer;
use plex::{container, plex, plex_item};

/// Which server the fake plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    Jellyfin,
    Emby,
    Plex,
}

/// The server's own (admin) token.
pub const MEDIA_TOKEN: &str = "fake-media-server-token-5d1e";
/// Plex managed users' own tokens, as the config hands them to Marquee.
pub const PLEX_USER_TOKENS: [(&str, &str); 2] = [
    ("alice", "plex-user-token-alice-77a1"),
    ("kid", "plex-user-token-kid-3c9b"),
];
/// The users of the Jellyfin and Emby fakes: (name, id).
pub const MEDIA_USERS: [(&str, &str); 3] = [
    ("alice-jf", "0a11ce00-0000-4000-8000-000000000001"),
    ("kid-jf", "00c1d000-0000-4000-8000-000000000002"),
    ("admin", "00ad0000-0000-4000-8000-000000000003"),
];

/// A collection or playlist on the fake, as a test checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shelf {
    pub name: String,
    /// A playlist's owner; `None`: a collection.
    pub user: Option<String>,
    /// Its titles' names, in order.
    pub items: Vec<String>,
    /// Jellyfin/Emby `DisplayOrder` or Plex `collectionSort`, once set.
    pub order: Option<String>,
    /// "poster of {title}", once uploaded.
    pub poster: Option<String>,
}

/// One title of the fake's library.
#[derive(Clone, Debug)]
struct Title {
    /// Jellyfin/Emby item id (a UUID).
    id: String,
    /// Plex ratingKey.
    key: u64,
    kind: &'static str,
    name: String,
    year: i64,
    /// Episodes: index of their show in the list, season and number.
    series: Option<usize>,
    season: Option<i64>,
    episode: Option<i64>,
    tmdb: Option<String>,
    imdb: Option<String>,
    tvdb: Option<String>,
    rating: &'static str,
    genres: &'static [&'static str],
    minutes: i64,
}

/// Where a user is in a title: (title index, percent watched, played).
type Mark = (usize, f64, bool);

struct State {
    titles: Vec<Title>,
    /// Per user name (Jellyfin name, or Plex managed user name): titles under way or played.
    marks: Vec<(&'static str, Vec<Mark>)>,
    /// Every successful answer: method, path, status and body, for checking against a document.
    answers: Vec<(String, String, u16, Value)>,
    collections: Vec<collections::Collection>,
    next_collection: u64,
}

fn uuid(prefix: &str, n: u64) -> String {
    format!("{prefix}000000-0000-4000-8000-{n:012}")
}

fn seed() -> Vec<Title> {
    let t = |n: u64, kind, name: &str, year, rating, genres, minutes| Title {
        id: uuid("a0", n),
        key: n,
        kind,
        name: name.into(),
        year,
        series: None,
        season: None,
        episode: None,
        tmdb: None,
        imdb: None,
        tvdb: None,
        rating,
        genres,
        minutes,
    };
    let mut paddington = t(
        1,
        "Movie",
        "Paddington",
        2014,
        "PG",
        &["Family", "Comedy"],
        95,
    );
    paddington.tmdb = Some("116149".into());
    paddington.imdb = Some("tt1109624".into());
    let mut alien = t(
        2,
        "Movie",
        "Alien",
        1979,
        "R",
        &["Horror", "Science Fiction"],
        117,
    );
    alien.tmdb = Some("348".into());
    alien.imdb = Some("tt0078748".into());
    let mut bluey = t(
        10,
        "Series",
        "Bluey",
        2018,
        "TV-Y",
        &["Animation", "Kids"],
        7,
    );
    bluey.tmdb = Some("82728".into());
    bluey.tvdb = Some("353546".into());
    bluey.imdb = Some("tt7678620".into());
    let episode = |n: u64, name: &str, season, number| {
        let mut e = t(n, "Episode", name, 2018, "TV-Y", &["Animation", "Kids"], 7);
        e.series = Some(2);
        e.season = Some(season);
        e.episode = Some(number);
        e.tvdb = Some(format!("{}", 6_000_000 + n));
        e
    };
    vec![
        paddington,
        alien,
        bluey,
        episode(11, "Magic Xylophone", 1, 1),
        episode(12, "Hospital", 1, 2),
        episode(21, "Dance Mode", 2, 1),
    ]
}

/// A PG-13 drama of 100 minutes, the `k`-th title added.
fn film(k: u64, name: String, year: i64, tmdb: Option<String>, imdb: String) -> Title {
    Title {
        id: uuid("b0", k),
        key: k,
        kind: "Movie",
        name,
        year,
        series: None,
        season: None,
        episode: None,
        tmdb,
        imdb: Some(imdb),
        tvdb: None,
        rating: "PG-13",
        genres: &["Drama"],
        minutes: 100,
    }
}

/// A running media-server fake; dropping it stops the server.
pub struct FakeMedia {
    kind: MediaKind,
    running: Running,
    state: Arc<Mutex<State>>,
}

impl FakeMedia {
    pub async fn start(kind: MediaKind) -> FakeMedia {
        let state = Arc::new(Mutex::new(State {
            titles: seed(),
            marks: vec![
                ("alice", vec![(4, 50.0, false), (0, 100.0, true)]),
                (
                    "kid",
                    vec![(5, 30.0, false), (1, 40.0, false), (3, 100.0, true)],
                ),
            ],
            answers: Vec::new(),
            collections: Vec::new(),
            next_collection: 0,
        }));
        let shared = state.clone();
        let running = Running::start(
            "",
            Box::new(
                move |incoming: &Incoming<'_>, _before: &[RecordedRequest]| {
                    answer(kind, &shared, incoming)
                },
            ),
        )
        .await;
        FakeMedia {
            kind,
            running,
            state,
        }
    }

    /// The base URL (no trailing slash).
    pub fn url(&self) -> String {
        self.running.base_url.clone()
    }

    pub fn kind(&self) -> MediaKind {
        self.kind
    }

    /// Adds `n` movies (each with a tmdb and an imdb id) to the library.
    pub fn add_movies(&self, n: usize) {
        let mut state = self.state.lock();
        let first = state.titles.len() as u64 + 1000;
        for k in first..first + n as u64 {
            let name = format!("Film {k}");
            let imdb = format!("tt{:07}", 5_000_000 + k);
            let tmdb = format!("{}", 900_000 + k);
            state
                .titles
                .push(film(k, name, 1950 + (k % 75) as i64, Some(tmdb), imdb));
        }
    }

    /// Adds one movie with this IMDb id (a title of another catalogue the server holds too).
    pub fn add_movie(&self, name: &str, year: i64, imdb: &str) {
        let mut state = self.state.lock();
        let k = state.titles.len() as u64 + 1000;
        state
            .titles
            .push(film(k, name.into(), year, None, imdb.into()));
    }

    /// Gives the title named `name` another rating (a server whose copy is rated otherwise than
    /// the catalogue's).
    pub fn set_rating(&self, name: &str, rating: &'static str) {
        for t in self
            .state
            .lock()
            .titles
            .iter_mut()
            .filter(|t| t.name == name)
        {
            t.rating = rating;
        }
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.running.requests()
    }

    /// Every successful answer: (method, path, status, body).
    pub fn answers(&self) -> Vec<(String, String, u16, Value)> {
        self.state.lock().answers.clone()
    }

    /// The collections and playlists on the server, whole.
    pub fn shelves(&self) -> Vec<Shelf> {
        let state = self.state.lock();
        state
            .collections
            .iter()
            .map(|c| Shelf {
                name: c.name.clone(),
                user: c.user.clone(),
                items: c
                    .items
                    .iter()
                    .map(|&i| state.titles[i].name.clone())
                    .collect(),
                order: c.order.clone(),
                poster: c.poster.clone(),
            })
            .collect()
    }

    /// The collections (and playlists) on the server: (name, the names of their items in order).
    pub fn collections(&self) -> Vec<(String, Vec<String>)> {
        let state = self.state.lock();
        state
            .collections
            .iter()
            .map(|c| {
                let names = c.items.iter().map(|&i| state.titles[i].name.clone());
                (c.name.clone(), names.collect())
            })
            .collect()
    }
}

fn authorized(kind: MediaKind, r: &RecordedRequest) -> Option<&'static str> {
    match kind {
        MediaKind::Jellyfin => r
            .header("authorization")
            .filter(|h| {
                h.starts_with("MediaBrowser") && h.contains(&format!("Token=\"{MEDIA_TOKEN}\""))
            })
            .map(|_| "admin"),
        MediaKind::Emby => (r.header("x-emby-token") == Some(MEDIA_TOKEN)).then_some("admin"),
        MediaKind::Plex => {
            let token = r.header("x-plex-token")?;
            if token == MEDIA_TOKEN {
                return Some("admin");
            }
            PLEX_USER_TOKENS
                .iter()
                .find(|(_, t)| *t == token)
                .map(|(n, _)| *n)
        }
    }
}

fn answer(kind: MediaKind, state: &Mutex<State>, incoming: &Incoming<'_>) -> Response {
    let r = incoming.request;
    let Some(who) = authorized(kind, r) else {
        return StatusCode::UNAUTHORIZED.into_response();
    };
    let mut state = state.lock();
    let path = incoming.path;
    let record = |state: &mut State, status: u16, body: Value| {
        let entry = (r.method.clone(), path.to_string(), status, body);
        state.answers.push(entry);
    };
    match collections::answer(kind, &mut state, path, r) {
        Some(Answer::Json(body)) => {
            record(&mut state, 200, body.clone());
            return axum::Json(body).into_response();
        }
        Some(Answer::Empty) => {
            record(&mut state, 200, Value::Null);
            return StatusCode::OK.into_response();
        }
        Some(Answer::NoContent) => {
            record(&mut state, 204, Value::Null);
            return StatusCode::NO_CONTENT.into_response();
        }
        Some(Answer::Image(bytes)) => {
            record(&mut state, 200, Value::Null);
            return ([("content-type", "image/png")], bytes).into_response();
        }
        Some(Answer::BadRequest) => return StatusCode::BAD_REQUEST.into_response(),
        Some(Answer::NotFound) => return StatusCode::NOT_FOUND.into_response(),
        None if r.method != "GET" => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
        None => {}
    }
    let body = match kind {
        MediaKind::Plex => plex(&state, who, incoming.path, r),
        _ => jellyfin(kind, &state, incoming.path, r),
    };
    match body {
        Some(body) => {
            record(&mut state, 200, body.clone());
            axum::Json(body).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A Jellyfin/Emby user's short name in the marks ("alice-jf" → "alice").
fn jf_user(id: &str) -> Option<&'static str> {
    let name = MEDIA_USERS.iter().find(|(_, i)| *i == id)?.0;
    Some(name.trim_end_matches("-jf"))
}

fn jf_item(titles: &[Title], t: &Title, mark: Option<&Mark>) -> Value {
    let mut ids = serde_json::Map::new();
    for (name, v) in [("Tmdb", &t.tmdb), ("Imdb", &t.imdb), ("Tvdb", &t.tvdb)] {
        if let Some(v) = v {
            ids.insert(name.into(), json!(v));
        }
    }
    let ticks = t.minutes * 60 * 10_000_000;
    let mut v = json!({
        "Id": t.id,
        "Name": t.name,
        "ServerId": "f00dfeed0000400080000000000000aa",
        "Type": t.kind,
        "ProductionYear": t.year,
        "ProviderIds": ids,
        "OfficialRating": t.rating,
        "Genres": t.genres,
        "DateCreated": format!("2026-0{}-01T12:00:00.0000000Z", 1 + t.key % 9),
        "RunTimeTicks": ticks,
        "IsFolder": t.kind == "Series",
    });
    if let Some(s) = t.series.and_then(|i| titles.get(i)) {
        v["SeriesId"] = json!(s.id);
        v["SeriesName"] = json!(s.name);
        v["ParentIndexNumber"] = json!(t.season);
        v["IndexNumber"] = json!(t.episode);
    }
    if let Some((_, percent, played)) = mark {
        v["UserData"] = json!({
            "PlaybackPositionTicks": if *played { 0 } else { (ticks as f64 * percent / 100.0) as i64 },
            "PlayedPercentage": if *played { Value::Null } else { json!(percent) },
            "PlayCount": i32::from(*played),
            "IsFavorite": false,
            "Played": played,
            "LastPlayedDate": "2026-12-05T19:30:00.0000000Z",
            "Key": t.id,
            "ItemId": t.id,
        });
    }
    v
}

fn marks_of<'s>(state: &'s State, user: &str) -> &'s [Mark] {
    state
        .marks
        .iter()
        .find(|(u, _)| *u == user)
        .map_or(&[], |(_, m)| m.as_slice())
}

fn page(items: Vec<Value>, start: usize, total: usize) -> Value {
    json!({ "Items": items, "TotalRecordCount": total, "StartIndex": start })
}

fn jellyfin(kind: MediaKind, state: &State, path: &str, r: &RecordedRequest) -> Option<Value> {
    let num = |name: &str| r.param(name).and_then(|v| v.parse::<usize>().ok());
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let emby = kind == MediaKind::Emby;
    match segments.as_slice() {
        ["System", "Info"] => Some(json!({
            "ServerName": if emby { "Emby on the shelf" } else { "Jellyfin on the shelf" },
            "Version": if emby { "4.8.10.0" } else { "10.10.3" },
            "Id": "f00dfeed0000400080000000000000aa",
            "OperatingSystem": "Linux",
        })),
        ["Users"] => Some(json!(MEDIA_USERS
            .iter()
            .map(|(name, id)| json!({ "Name": name, "Id": id, "ServerId": "f00dfeed0000400080000000000000aa", "HasPassword": true }))
            .collect::<Vec<_>>())),
        ["UserItems", "Resume"] if !emby => resume(state, jf_user(r.param("userId")?)?, num("limit")),
        ["Users", id, "Items", "Resume"] if emby => resume(state, jf_user(id)?, num("limit")),
        ["Items"] => items(state, r.param("userId").and_then(jf_user), r),
        ["Users", id, "Items"] if emby => items(state, Some(jf_user(id)?), r),
        ["Sessions"] => {
            let t = &state.titles[0];
            Some(json!([
                {
                    "Id": "5e55104a11ce",
                    "UserId": MEDIA_USERS[0].1,
                    "UserName": MEDIA_USERS[0].0,
                    "Client": if emby { "Emby Theater" } else { "Jellyfin Android TV" },
                    "DeviceName": "Living Room TV",
                    "DeviceId": "tv-1",
                    "IsActive": true,
                    "SupportsRemoteControl": true,
                    "NowPlayingItem": jf_item(&state.titles, t, None),
                    "PlayState": { "PositionTicks": 23_000_000_000i64, "IsPaused": false, "PlayMethod": "Transcode", "CanSeek": true },
                    "TranscodingInfo": { "VideoCodec": "h264", "AudioCodec": "aac", "IsVideoDirect": false, "IsAudioDirect": false, "Bitrate": 8_000_000 },
                },
                {
                    "Id": "1d1e5e55",
                    "UserId": MEDIA_USERS[2].1,
                    "UserName": MEDIA_USERS[2].0,
                    "Client": "Jellyfin Web",
                    "DeviceName": "Firefox",
                    "DeviceId": "web-1",
                    "IsActive": true,
                    "SupportsRemoteControl": false,
                }
            ]))
        }
        _ => None,
    }
}

fn resume(state: &State, user: &str, limit: Option<usize>) -> Option<Value> {
    let list: Vec<Value> = marks_of(state, user)
        .iter()
        .filter(|(_, _, played)| !played)
        .take(limit.unwrap_or(usize::MAX))
        .map(|m| jf_item(&state.titles, &state.titles[m.0], Some(m)))
        .collect();
    let n = list.len();
    Some(page(list, 0, n))
}

fn items(state: &State, user: Option<&str>, r: &RecordedRequest) -> Option<Value> {
    let start = r
        .param("startIndex")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let limit = r
        .param("limit")
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    // Jellyfin repeats a list parameter per value; Emby joins the values with commas.
    let types: Vec<&str> = r
        .query
        .iter()
        .filter(|(k, _)| k == "includeItemTypes")
        .flat_map(|(_, v)| v.split(','))
        .collect();
    let types = (!types.is_empty()).then_some(types);
    if r.param("isPlayed") == Some("true") {
        let user = user?;
        let list: Vec<Value> = marks_of(state, user)
            .iter()
            .filter(|(_, _, played)| *played)
            .take(limit)
            .map(|m| jf_item(&state.titles, &state.titles[m.0], Some(m)))
            .collect();
        let n = list.len();
        return Some(page(list, 0, n));
    }
    let chosen: Vec<&Title> = state
        .titles
        .iter()
        .filter(|t| types.as_ref().is_none_or(|ts| ts.contains(&t.kind)))
        .collect();
    let list = chosen
        .iter()
        .skip(start)
        .take(limit)
        .map(|t| jf_item(&state.titles, t, None))
        .collect();
    Some(page(list, start, chosen.len()))
}
