//! Commands (`POST command`, `GET command/{id}`): queued when posted, run at the next tick of the
//! fake clock. Searches grab the best seeded release of each wanted unit (or a made-up one) into
//! the queue; `ManualImport` imports the files it names; refreshes and rescans only complete.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{
    ArrKind, Resource, clock,
    routes::{Answer, invalid},
    state::State,
};

/// Command names each service accepts (the ones Marquee sends, and their common neighbours).
fn known(kind: ArrKind) -> &'static [&'static str] {
    match kind {
        ArrKind::Radarr => &[
            "MoviesSearch",
            "MissingMoviesSearch",
            "RescanMovie",
            "RefreshMovie",
            "DownloadedMoviesScan",
            "ManualImport",
            "RssSync",
        ],
        ArrKind::Sonarr => &[
            "SeriesSearch",
            "SeasonSearch",
            "EpisodeSearch",
            "MissingEpisodeSearch",
            "RescanSeries",
            "RefreshSeries",
            "DownloadedEpisodesScan",
            "ManualImport",
            "RssSync",
        ],
        ArrKind::Lidarr => &[
            "AlbumSearch",
            "ArtistSearch",
            "MissingAlbumSearch",
            "RescanFolders",
            "RefreshArtist",
            "RefreshAlbum",
            "DownloadedAlbumsScan",
            "ManualImport",
            "RssSync",
        ],
        ArrKind::Readarr => &[
            "BookSearch",
            "AuthorSearch",
            "MissingBookSearch",
            "RescanFolders",
            "RefreshAuthor",
            "RefreshBook",
            "DownloadedBooksScan",
            "ManualImport",
            "RssSync",
        ],
    }
}

pub(crate) fn post(state: &mut State, body: &Value) -> Answer {
    let name = body["name"].as_str().unwrap_or("");
    if !known(state.kind).contains(&name) {
        return invalid("Name", &format!("Unknown command: {name}"));
    }
    let id = queue(state, body.clone());
    (
        StatusCode::CREATED,
        state.get(Resource::Command, id).unwrap_or_default(),
    )
}

/// Queues a command as the service would; returns its id.
pub(crate) fn queue(state: &mut State, body: Value) -> i64 {
    let name = body["name"].as_str().unwrap_or("").to_string();
    let now = state.stamp();
    let mut command_body = body;
    for (k, v) in [
        ("sendUpdatesToClient", json!(true)),
        ("updateScheduledTask", json!(true)),
        ("requiresDiskAccess", json!(false)),
        ("isExclusive", json!(false)),
        ("isLongRunning", json!(false)),
        ("trigger", json!("manual")),
        ("suppressMessages", json!(false)),
    ] {
        command_body[k] = v;
    }
    state.insert(
        Resource::Command,
        json!({
            "name": name, "commandName": spaced(&name), "body": command_body, "priority": "normal",
            "status": "queued", "result": "unknown", "queued": now, "trigger": "manual",
            "stateChangeTime": now, "sendUpdatesToClient": true, "updateScheduledTask": true
        }),
    )
}

fn spaced(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_uppercase() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Runs every queued command to completion.
pub(crate) fn run_pending(state: &mut State) {
    let queued: Vec<Value> = state
        .all(Resource::Command)
        .into_iter()
        .filter(|c| c["status"] == json!("queued"))
        .collect();
    for command in queued {
        let id = command["id"].as_i64().unwrap_or_default();
        let outcome = run(state, &command["body"]);
        let now = state.stamp();
        let (status, result, message) = match outcome {
            Ok(()) => ("completed", "successful", "Completed".to_string()),
            Err(message) => ("failed", "unsuccessful", message),
        };
        let mut fields = json!({ "status": status, "result": result, "message": message, "started": now,
            "ended": now, "stateChangeTime": now });
        if state.kind != ArrKind::Readarr {
            // Readarr documents `duration` as a TimeSpan object; the others as text.
            fields["duration"] = json!("00:00:00.0500000");
        }
        state.update(Resource::Command, id, fields);
    }
}

fn ids(body: &Value, key: &str) -> Vec<i64> {
    body[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect()
}

fn run(state: &mut State, body: &Value) -> Result<(), String> {
    let name = body["name"].as_str().unwrap_or("");
    let children = |state: &State,
                    resource: Resource,
                    key: &str,
                    parent: &Value,
                    season: Option<&Value>|
     -> Vec<i64> {
        state
            .find(resource, key, parent)
            .into_iter()
            .filter(|u| u["monitored"] == json!(true))
            .filter(|u| season.is_none_or(|s| u["seasonNumber"] == *s))
            .filter_map(|u| u["id"].as_i64())
            .collect()
    };
    let units: Vec<i64> = match name {
        "MoviesSearch" => ids(body, "movieIds"),
        "EpisodeSearch" => ids(body, "episodeIds"),
        "AlbumSearch" => ids(body, "albumIds"),
        "BookSearch" => ids(body, "bookIds"),
        "SeriesSearch" => children(
            state,
            Resource::Episode,
            "seriesId",
            &body["seriesId"],
            None,
        ),
        "SeasonSearch" => children(
            state,
            Resource::Episode,
            "seriesId",
            &body["seriesId"],
            Some(&body["seasonNumber"]),
        ),
        "ArtistSearch" => children(state, Resource::Album, "artistId", &body["artistId"], None),
        "AuthorSearch" => children(state, Resource::Book, "authorId", &body["authorId"], None),
        "ManualImport" => return clock::manual_import(state, body),
        _ => Vec::new(),
    };
    for unit in units {
        clock::search_unit(state, unit);
    }
    Ok(())
}
