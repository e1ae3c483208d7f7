//! A contract fake of MusicBrainz WS/2: search (`/artist`, `/release-group`, `/recording` with `query=`)
//! and lookups by MBID, in the JSON shapes `fmt=json` gives. Like MusicBrainz it refuses a request without
//! a User-Agent (403), and answers 503 with its rate-limit message when two requests arrive closer than
//! the rate window (one second by default), so a client's pacing is really checked.

use std::time::Duration;

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

mod data;

use crate::server::{Incoming, RecordedRequest, Running};
use data::{ARTISTS, RECORDINGS, RELEASE_GROUPS, artist, recording, release_group};

/// A running MusicBrainz fake. Dropping it stops the server.
pub struct MusicBrainzFake {
    running: Running,
}

/// The 503 message MusicBrainz sends to clients over the rate limit.
pub const RATE_LIMIT_MESSAGE: &str = "Your requests are exceeding the allowable rate limit. Please see https://musicbrainz.org/doc/MusicBrainz_API/Rate_Limiting for more information.";

impl MusicBrainzFake {
    /// A fake enforcing MusicBrainz's one request per second.
    pub async fn start() -> MusicBrainzFake {
        MusicBrainzFake::start_with_window(Duration::from_secs(1)).await
    }

    /// A fake refusing requests that arrive within `window` of the previous one (tests use a short
    /// window with a client paced to match, to stay fast).
    pub async fn start_with_window(window: Duration) -> MusicBrainzFake {
        let answer = move |i: &Incoming<'_>, before: &[RecordedRequest]| answer(i, before, window);
        MusicBrainzFake {
            running: Running::start("/ws/2", Box::new(answer)).await,
        }
    }

    /// The base URL to configure an adapter with, e.g. `http://127.0.0.1:41234/ws/2`.
    pub fn base_url(&self) -> &str {
        &self.running.base_url
    }

    /// Every request received so far, in arrival order (refused ones too).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.running.requests()
    }
}

fn mb_error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message, "help": "For usage, please see: https://musicbrainz.org/development/mmd" })))
        .into_response()
}

fn answer(incoming: &Incoming<'_>, before: &[RecordedRequest], window: Duration) -> Response {
    let r = incoming.request;
    if before
        .last()
        .is_some_and(|prev| r.at.duration_since(prev.at) < window)
    {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "error": RATE_LIMIT_MESSAGE })),
        )
            .into_response();
    }
    if r.header("user-agent").is_none_or(str::is_empty) {
        return mb_error(StatusCode::FORBIDDEN, "A User-Agent header is required.");
    }
    if r.param("fmt") != Some("json") && r.header("accept") != Some("application/json") {
        return mb_error(
            StatusCode::BAD_REQUEST,
            "this fake answers JSON only: pass fmt=json",
        );
    }
    let segments: Vec<&str> = incoming.path.trim_matches('/').split('/').collect();
    let inc = r.param("inc").unwrap_or("");
    let body = match segments.as_slice() {
        [entity] => match r.param("query") {
            Some(query) => search(entity, query, r),
            None => {
                return mb_error(
                    StatusCode::BAD_REQUEST,
                    "this fake serves searches only: pass query=",
                );
            }
        },
        [entity, mbid] => {
            if mbid.len() != 36 || mbid.chars().filter(|c| *c == '-').count() != 4 {
                return mb_error(StatusCode::BAD_REQUEST, "Invalid mbid.");
            }
            match lookup(entity, mbid, inc) {
                Some(v) => v,
                None => return mb_error(StatusCode::NOT_FOUND, "Not Found"),
            }
        }
        _ => return mb_error(StatusCode::NOT_FOUND, "Not Found"),
    };
    Json(body).into_response()
}

/// The searched words of a Lucene query: field clauses (`primarytype:album`) and syntax removed.
fn words(query: &str) -> (String, Option<String>) {
    let mut kind = None;
    let mut text = Vec::new();
    for token in query.split_whitespace() {
        if let Some(t) = token.strip_prefix("primarytype:") {
            kind = Some(t.trim_matches(['(', ')', '"']).to_lowercase());
        } else if token != "AND" {
            text.push(token.replace(['(', ')', '\\', '"'], "").to_lowercase());
        }
    }
    (text.join(" "), kind)
}

fn search(entity: &str, query: &str, r: &RecordedRequest) -> Value {
    let (text, kind) = words(query);
    let hit = |s: &str| !text.is_empty() && s.to_lowercase().contains(&text);
    let offset: usize = r.param("offset").and_then(|o| o.parse().ok()).unwrap_or(0);
    let limit: usize = r.param("limit").and_then(|o| o.parse().ok()).unwrap_or(25);
    let rows: Vec<Value> = match entity {
        "artist" => ARTISTS
            .iter()
            .filter(|a| hit(a.name))
            .map(|a| artist(a, true, false))
            .collect(),
        "release-group" => RELEASE_GROUPS
            .iter()
            .filter(|g| hit(&format!("{} {}", g.1, ARTISTS[g.4].name)))
            .filter(|g| kind.as_deref().is_none_or(|k| g.2.eq_ignore_ascii_case(k)))
            .map(|g| release_group(g, true, false))
            .collect(),
        "recording" => RECORDINGS
            .iter()
            .filter(|x| hit(&format!("{} {}", x.1, ARTISTS[x.4].name)))
            .map(|x| recording(x, true, false))
            .collect(),
        _ => Vec::new(),
    };
    let key = match entity {
        "artist" => "artists",
        "release-group" => "release-groups",
        _ => "recordings",
    };
    let count = rows.len();
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    json!({ "created": "2026-01-01T00:00:00.000Z", "count": count, "offset": offset, key: page })
}

fn lookup(entity: &str, mbid: &str, inc: &str) -> Option<Value> {
    let genres = inc.split('+').any(|i| i == "genres");
    match entity {
        "artist" => ARTISTS
            .iter()
            .find(|a| a.id == mbid)
            .map(|a| artist(a, false, genres)),
        "release-group" => RELEASE_GROUPS
            .iter()
            .find(|g| g.0 == mbid)
            .map(|g| release_group(g, false, genres)),
        "recording" => RECORDINGS
            .iter()
            .find(|x| x.0 == mbid)
            .map(|x| recording(x, false, genres)),
        _ => None,
    }
}
