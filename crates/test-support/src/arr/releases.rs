//! The queue as served (paged, with embedded items), its removal options, the blocklist,
//! interactive release search and grab, and manual import candidates.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{
    ArrKind, Resource, commands,
    routes::{Answer, invalid, not_found, ok, page, parse_id},
    server::ArrRequest,
    state::State,
};

/// Queue items with what `includeMovie`, `includeSeries`, `includeEpisode`, `includeArtist`,
/// `includeAlbum`, `includeAuthor`, `includeBook` ask to embed.
pub(crate) fn queue_list(state: &State, r: &ArrRequest) -> Vec<Value> {
    let embeds = [
        ("includeMovie", "movie", Resource::Movie),
        ("includeSeries", "series", Resource::Series),
        ("includeEpisode", "episode", Resource::Episode),
        ("includeArtist", "artist", Resource::Artist),
        ("includeAlbum", "album", Resource::Album),
        ("includeAuthor", "author", Resource::Author),
        ("includeBook", "book", Resource::Book),
    ];
    state
        .all(Resource::Queue)
        .into_iter()
        .map(|mut item| {
            for (flag, field, resource) in embeds {
                let wanted = r.param(flag) == Some("true");
                let id = item[format!("{field}Id")].as_i64();
                if let (true, Some(value)) = (wanted, id.and_then(|id| state.get(resource, id))) {
                    item[field] = value;
                }
            }
            item
        })
        .collect()
}

pub(crate) fn queue_page(state: &State, r: &ArrRequest) -> Answer {
    page(r, queue_list(state, r), state.queue_total_extra)
}

pub(crate) fn queue_status(state: &State) -> Value {
    let items = state.all(Resource::Queue);
    let has = |status: &str| {
        items
            .iter()
            .any(|i| i["trackedDownloadStatus"] == json!(status))
    };
    json!({ "id": 0, "totalCount": items.len(), "count": items.len(), "unknownCount": 0,
        "errors": has("error"), "warnings": has("warning"), "unknownErrors": false, "unknownWarnings": false })
}

/// What a test can read back about one queue removal.
fn flag(r: &ArrRequest, name: &str, default: bool) -> bool {
    r.param(name).map_or(default, |v| v == "true")
}

pub(crate) fn remove_queue(state: &mut State, r: &ArrRequest, id: &str) -> Answer {
    let Some(id) = parse_id(id).filter(|id| state.get(Resource::Queue, *id).is_some()) else {
        return not_found();
    };
    remove_one(state, r, id);
    (StatusCode::OK, Value::Null)
}

pub(crate) fn remove_queue_bulk(state: &mut State, r: &ArrRequest) -> Answer {
    let ids: Vec<i64> = r.body["ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    if ids.is_empty() {
        return invalid("Ids", "'Ids' must not be empty.");
    }
    for id in ids {
        remove_one(state, r, id);
    }
    (StatusCode::OK, Value::Null)
}

/// Removes a queue item as asked: from the client or not, blocklisted (then searched again
/// unless `skipRedownload`), or only moved to the post-import category.
fn remove_one(state: &mut State, r: &ArrRequest, id: i64) {
    let Some(item) = state.remove(Resource::Queue, id) else {
        return;
    };
    state.downloads.remove(&id);
    let removal = json!({
        "queueId": id, "downloadId": item["downloadId"], "title": item["title"],
        "removeFromClient": flag(r, "removeFromClient", true), "blocklist": flag(r, "blocklist", false),
        "skipRedownload": flag(r, "skipRedownload", false), "changeCategory": flag(r, "changeCategory", false),
    });
    state.removals.push(removal);
    if !flag(r, "blocklist", false) {
        return;
    }
    let unit = super::clock::unit_id(state.kind, &item);
    let mut entry = json!({ "sourceTitle": item["title"], "quality": item["quality"], "indexer": item["indexer"],
        "protocol": item["protocol"], "message": "Manually marked as failed" });
    match state.kind {
        ArrKind::Radarr => entry["movieId"] = json!(unit),
        ArrKind::Sonarr => {
            entry["seriesId"] = item["seriesId"].clone();
            entry["episodeIds"] = json!([unit]);
        }
        ArrKind::Lidarr => {
            entry["artistId"] = item["artistId"].clone();
            entry["albumIds"] = json!([unit]);
        }
        ArrKind::Readarr => {
            entry["authorId"] = item["authorId"].clone();
            entry["bookIds"] = json!([unit]);
        }
    }
    state.insert(Resource::Blocklist, entry);
    if !flag(r, "skipRedownload", false) {
        let search = match state.kind {
            ArrKind::Radarr => json!({ "name": "MoviesSearch", "movieIds": [unit] }),
            ArrKind::Sonarr => json!({ "name": "EpisodeSearch", "episodeIds": [unit] }),
            ArrKind::Lidarr => json!({ "name": "AlbumSearch", "albumIds": [unit] }),
            ArrKind::Readarr => json!({ "name": "BookSearch", "bookIds": [unit] }),
        };
        commands::queue(state, search);
    }
}

pub(crate) fn blocklist_page(state: &State, r: &ArrRequest) -> Answer {
    page(r, state.all(Resource::Blocklist), 0)
}

/// The units an interactive search covers: `movieId`; `episodeId` or `seriesId`+`seasonNumber`;
/// `albumId`; `bookId`.
fn search_units(state: &State, r: &ArrRequest) -> Option<Vec<i64>> {
    let id = |name: &str| r.param(name).and_then(|v| v.parse::<i64>().ok());
    let units = match state.kind {
        ArrKind::Radarr => vec![id("movieId")?],
        ArrKind::Sonarr => match (id("episodeId"), id("seriesId"), id("seasonNumber")) {
            (Some(episode), _, _) => vec![episode],
            (None, Some(series), Some(season)) => state
                .find(Resource::Episode, "seriesId", &json!(series))
                .into_iter()
                .filter(|e| e["seasonNumber"] == json!(season))
                .filter_map(|e| e["id"].as_i64())
                .collect(),
            _ => return None,
        },
        ArrKind::Lidarr => vec![id("albumId")?],
        ArrKind::Readarr => vec![id("bookId")?],
    };
    Some(units)
}

/// `GET release?…`: the seeded releases of the scope, blocklisted ones rejected, remembered for
/// a later grab as the services cache them.
pub(crate) fn search(state: &mut State, r: &ArrRequest) -> Answer {
    let Some(units) = search_units(state, r) else {
        return invalid(
            "",
            "a movie, episode, season, album or book to search for is required",
        );
    };
    if units
        .iter()
        .any(|u| state.get(state.kind.unit(), *u).is_none())
    {
        return not_found();
    }
    let blocked: Vec<Value> = state
        .all(Resource::Blocklist)
        .into_iter()
        .map(|b| b["sourceTitle"].clone())
        .collect();
    let mut rows: Vec<Value> = Vec::new();
    for (unit, release) in state.releases.iter().filter(|(u, _)| units.contains(u)) {
        if rows
            .iter()
            .any(|row| row["guid"] == release["guid"] && row["indexerId"] == release["indexerId"])
        {
            continue;
        }
        let mut row = release.clone();
        if blocked.contains(&row["title"]) {
            row["approved"] = json!(false);
            row["rejected"] = json!(true);
            if let Some(rejections) = row["rejections"].as_array_mut() {
                rejections.push(json!("Release is blocklisted"));
            }
        }
        let ids = state.unit_ids(*unit);
        match state.kind {
            ArrKind::Radarr => {
                row["movieId"] = ids["movieId"].clone();
                row["mappedMovieId"] = ids["movieId"].clone();
            }
            ArrKind::Sonarr => {
                row["seriesId"] = ids["seriesId"].clone();
                row["mappedSeriesId"] = ids["seriesId"].clone();
                row["episodeId"] = ids["episodeId"].clone();
                row["seasonNumber"] = ids["seasonNumber"].clone();
            }
            ArrKind::Lidarr => {
                row["artistId"] = ids["artistId"].clone();
                row["albumId"] = ids["albumId"].clone();
            }
            ArrKind::Readarr => {
                row["authorId"] = ids["authorId"].clone();
                row["bookId"] = ids["bookId"].clone();
            }
        }
        state.release_cache.push((*unit, row.clone()));
        rows.push(row);
    }
    ok(json!(rows))
}

/// `POST release {guid, indexerId}`: grabs a release from the last searches' cache.
pub(crate) fn grab(state: &mut State, body: &Value) -> Answer {
    let found = state
        .release_cache
        .iter()
        .rev()
        .find(|(_, r)| r["guid"] == body["guid"] && r["indexerId"] == body["indexerId"])
        .cloned();
    match found {
        Some((unit, release)) => {
            state.grab_release(unit, &release);
            (StatusCode::OK, Value::Null)
        }
        None => (
            StatusCode::NOT_FOUND,
            json!({ "message": "Couldn't find requested release in cache, cache timeout is 30 minutes" }),
        ),
    }
}

/// `GET manualimport?downloadId=` or `?folder=`: the seeded candidates of that download or under
/// that folder.
pub(crate) fn manual_import_candidates(state: &State, r: &ArrRequest) -> Answer {
    let download = r.param("downloadId");
    let folder = r.param("folder");
    if download.is_none() && folder.is_none() {
        return invalid("", "a folder or a download id is required");
    }
    let rows: Vec<Value> = state
        .all(Resource::ManualImport)
        .into_iter()
        .filter(|c| download.is_none_or(|d| c["downloadId"] == json!(d)))
        .filter(|c| folder.is_none_or(|f| c["path"].as_str().is_some_and(|p| p.starts_with(f))))
        .collect();
    ok(json!(rows))
}
