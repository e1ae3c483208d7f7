//! A contract fake of LRCLIB's lyrics API (<https://lrclib.net/docs>): `/api/search` (by `q`, or by
//! `track_name` with optional `artist_name` and `album_name`), `/api/get/{id}` and `/api/get` by
//! track signature (track, artist and album names compared case-insensitively, duration within
//! two seconds), answering LRCLIB's lyrics records and its `{"code","name","message"}` errors
//! (400 QueryParamsMissing, 404 TrackNotFound). LRCLIB asks every client to name itself in its
//! User-Agent; the fake refuses a request without one (400 UserAgentMissing). The lyrics are
//! invented lines, never real song lyrics.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use crate::server::{Incoming, RecordedRequest, Running};

/// A running LRCLIB fake. Dropping it stops the server.
pub struct LrclibFake {
    running: Running,
}

impl LrclibFake {
    pub async fn start() -> LrclibFake {
        LrclibFake {
            running: Running::start("", Box::new(answer)).await,
        }
    }

    /// The base URL to configure an adapter with, e.g. `http://127.0.0.1:41234` (routes are under
    /// `/api`).
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
}

/// One track with its lyrics.
struct Track {
    id: u64,
    track: &'static str,
    artist: &'static str,
    album: &'static str,
    /// Seconds.
    duration: f64,
    instrumental: bool,
    plain: Option<&'static str>,
    synced: Option<&'static str>,
}

const TRACKS: &[Track] = &[
    Track {
        id: 3001,
        track: "Dancing Queen",
        artist: "ABBA",
        album: "Arrival",
        duration: 230.4,
        instrumental: false,
        plain: Some(
            "First invented line for the test\nSecond invented line for the test\n\nThird invented line after a pause\nFourth invented line to close",
        ),
        synced: Some(
            "[00:12.30] First invented line for the test\n[00:16.85] Second invented line for the test\n[00:21.10] \n[00:24.40] Third invented line after a pause\n[00:29.95] Fourth invented line to close",
        ),
    },
    Track {
        id: 3002,
        track: "Paranoid Android",
        artist: "Radiohead",
        album: "OK Computer",
        duration: 387.0,
        instrumental: false,
        plain: Some(
            "Invented opening line for the fake\nInvented second line for the fake\nInvented closing line for the fake",
        ),
        synced: Some(
            "[00:05.10] Invented opening line for the fake\n[00:09.75] Invented second line for the fake\n[06:12.00] Invented closing line for the fake",
        ),
    },
    Track {
        id: 3003,
        track: "Treefingers",
        artist: "Radiohead",
        album: "Kid A",
        duration: 222.0,
        instrumental: true,
        plain: None,
        synced: None,
    },
];

/// Most records one search answers, as LRCLIB caps them.
const SEARCH_LIMIT: usize = 20;

fn error(status: StatusCode, name: &str, message: &str) -> Response {
    let body = json!({ "code": status.as_u16(), "name": name, "message": message });
    (status, Json(body)).into_response()
}

fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "TrackNotFound",
        "Failed to find specified track",
    )
}

fn missing(message: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "QueryParamsMissing", message)
}

fn record(t: &Track) -> Value {
    json!({
        "id": t.id,
        "name": t.track,
        "trackName": t.track,
        "artistName": t.artist,
        "albumName": t.album,
        "duration": t.duration,
        "instrumental": t.instrumental,
        "plainLyrics": t.plain,
        "syncedLyrics": t.synced,
    })
}

/// A query parameter with a non-blank value.
fn given<'a>(r: &'a RecordedRequest, name: &str) -> Option<&'a str> {
    r.param(name).filter(|v| !v.trim().is_empty())
}

fn answer(incoming: &Incoming<'_>, _before: &[RecordedRequest]) -> Response {
    let r = incoming.request;
    if r.header("user-agent").is_none_or(|ua| ua.trim().is_empty()) {
        return error(
            StatusCode::BAD_REQUEST,
            "UserAgentMissing",
            "A User-Agent header naming your application (name, version and homepage) is required.",
        );
    }
    if r.method != "GET" {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "This fake serves GET only.",
        );
    }
    let segments: Vec<&str> = incoming.path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api", "search"] => search(r),
        ["api", "get"] => get_by_signature(r),
        ["api", "get", id] => match id.parse::<u64>().ok().and_then(find) {
            Some(t) => Json(record(t)).into_response(),
            None => not_found(),
        },
        _ => error(StatusCode::NOT_FOUND, "NotFound", "No such route."),
    }
}

fn find(id: u64) -> Option<&'static Track> {
    TRACKS.iter().find(|t| t.id == id)
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack
        .to_lowercase()
        .contains(&needle.trim().to_lowercase())
}

/// `q`: every word in the track, artist or album name; `track_name`, `artist_name`, `album_name`:
/// each given one a substring of its field. Case-insensitive.
fn search(r: &RecordedRequest) -> Response {
    let q = given(r, "q");
    let track_name = given(r, "track_name");
    if q.is_none() && track_name.is_none() {
        return missing("At least one of the query parameters q or track_name must be present.");
    }
    let words: Vec<String> = q
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let artist_name = given(r, "artist_name");
    let album_name = given(r, "album_name");
    let rows: Vec<Value> = TRACKS
        .iter()
        .filter(|t| {
            words
                .iter()
                .all(|w| [t.track, t.artist, t.album].iter().any(|f| contains(f, w)))
        })
        .filter(|t| track_name.is_none_or(|n| contains(t.track, n)))
        .filter(|t| artist_name.is_none_or(|n| contains(t.artist, n)))
        .filter(|t| album_name.is_none_or(|n| contains(t.album, n)))
        .take(SEARCH_LIMIT)
        .map(record)
        .collect();
    Json(Value::Array(rows)).into_response()
}

/// `/api/get`: all of `track_name`, `artist_name`, `album_name` and `duration` are required.
fn get_by_signature(r: &RecordedRequest) -> Response {
    let (Some(track), Some(artist), Some(album), Some(duration)) = (
        given(r, "track_name"),
        given(r, "artist_name"),
        given(r, "album_name"),
        given(r, "duration").and_then(|d| d.trim().parse::<f64>().ok()),
    ) else {
        return missing(
            "The query parameters track_name, artist_name, album_name and duration (in seconds) are all required.",
        );
    };
    let same = |a: &str, b: &str| a.trim().to_lowercase() == b.trim().to_lowercase();
    let found = TRACKS.iter().find(|t| {
        same(t.track, track)
            && same(t.artist, artist)
            && same(t.album, album)
            && (t.duration - duration).abs() <= 2.0
    });
    match found {
        Some(t) => Json(record(t)).into_response(),
        None => not_found(),
    }
}
