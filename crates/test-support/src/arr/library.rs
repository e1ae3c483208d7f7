//! Library reads: lists with the services' own filters, statistics computed from the files held,
//! lookups, edits and monitoring.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{
    ArrKind, Resource,
    routes::{Answer, not_found, ok, parse_id},
    server::ArrRequest,
    state::{State, merge},
};

/// Query parameters that are not filters on a field.
const NOT_FILTERS: [&str; 9] = [
    "apikey",
    "page",
    "pageSize",
    "sortKey",
    "sortDirection",
    "term",
    "includeSeries",
    "includeEpisodeFile",
    "includeImages",
];

/// Stored resources kept by every `field=value` query parameter naming one of their fields.
pub(crate) fn list(state: &State, resource: Resource, r: &ArrRequest) -> Vec<Value> {
    state
        .all(resource)
        .into_iter()
        .filter(|v| keeps(v, r))
        .map(|v| decorate(state, resource, v))
        .collect()
}

pub(crate) fn keeps(v: &Value, r: &ArrRequest) -> bool {
    r.query.iter().all(|(k, want)| {
        if NOT_FILTERS.contains(&k.as_str()) {
            return true;
        }
        // `episodeIds=1&episodeIds=2`, `albumIds=…`: any of the ids.
        if let Some(field) = k
            .strip_suffix("Ids")
            .filter(|_| v.get(k.as_str()).is_none())
        {
            let id = if matches!(field, "episode" | "album" | "book" | "movie") {
                "id"
            } else {
                field
            };
            return r
                .query
                .iter()
                .any(|(k2, w)| k2 == k && value_text(&v[id]) == *w);
        }
        match v.get(k.as_str()) {
            Some(field) => value_text(field) == *want,
            None => true,
        }
    })
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A resource as served: statistics computed from what the fake holds, files embedded.
pub(crate) fn decorate(state: &State, resource: Resource, mut value: Value) -> Value {
    let id = value["id"].clone();
    match resource {
        Resource::Movie => {
            let files = state.find(Resource::MovieFile, "movieId", &id);
            let size: i64 = files.iter().filter_map(|f| f["size"].as_i64()).sum();
            value["statistics"] =
                json!({ "movieFileCount": files.len(), "sizeOnDisk": size, "releaseGroups": [] });
            if let Some(file) = files.into_iter().next() {
                value["movieFile"] = file;
            }
        }
        Resource::Series => {
            let episodes = state.find(Resource::Episode, "seriesId", &id);
            let files = state.find(Resource::EpisodeFile, "seriesId", &id);
            let stats = |season: Option<i64>| {
                let of_season =
                    |v: &&Value| season.is_none_or(|s| v["seasonNumber"].as_i64() == Some(s));
                let eps: Vec<&Value> = episodes.iter().filter(of_season).collect();
                let held = eps.iter().filter(|e| e["hasFile"] == json!(true)).count();
                let wanted = eps
                    .iter()
                    .filter(|e| e["monitored"] == json!(true) || e["hasFile"] == json!(true))
                    .count();
                let size: i64 = files
                    .iter()
                    .filter(of_season)
                    .filter_map(|f| f["size"].as_i64())
                    .sum();
                let percent = if wanted == 0 {
                    0.0
                } else {
                    held as f64 * 100.0 / wanted as f64
                };
                json!({ "episodeFileCount": held, "episodeCount": wanted, "totalEpisodeCount": eps.len(),
                    "sizeOnDisk": size, "releaseGroups": [], "percentOfEpisodes": percent })
            };
            if let Some(seasons) = value["seasons"].as_array_mut() {
                for season in seasons.iter_mut() {
                    season["statistics"] = stats(season["seasonNumber"].as_i64());
                }
            }
            let mut total = stats(None);
            total["seasonCount"] = json!(value["seasons"].as_array().map_or(0, |s| s.len()));
            value["statistics"] = total;
        }
        Resource::Artist | Resource::Author => {
            let (child, key, stat) = if resource == Resource::Artist {
                (Resource::Album, "artistId", "track")
            } else {
                (Resource::Book, "authorId", "book")
            };
            let children = state.find(child, key, &id);
            let sum = |field: &str| -> i64 {
                children
                    .iter()
                    .filter_map(|c| c["statistics"][field].as_i64())
                    .sum()
            };
            let held = sum(&format!("{stat}FileCount"));
            let count = sum(&format!("{stat}Count"));
            let percent = if count == 0 {
                0.0
            } else {
                held as f64 * 100.0 / count as f64
            };
            let mut statistics = json!({
                format!("{stat}FileCount"): held, format!("{stat}Count"): count,
                format!("total{}Count", capitalize(stat)): sum(&format!("total{}Count", capitalize(stat))),
                "sizeOnDisk": sum("sizeOnDisk"), format!("percentOf{}s", capitalize(stat)): percent
            });
            if resource == Resource::Artist {
                statistics["albumCount"] = json!(children.len());
            } else {
                statistics["availableBookCount"] = json!(held);
            }
            value["statistics"] = statistics;
        }
        _ => {}
    }
    value
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// `GET movie/lookup?term=`, `movie/lookup/tmdb?tmdbId=`, `series/lookup?term=tvdb:123`, …
pub(crate) fn lookup(state: &State, segments: &[&str], r: &ArrRequest) -> Answer {
    let kind = state.kind;
    let resource = if segments[0] == kind.item().path() {
        kind.item()
    } else if segments[0] == kind.unit().path() && kind != ArrKind::Radarr {
        kind.unit()
    } else {
        return not_found();
    };
    let (key, want): (Option<&str>, String) = match segments.get(2) {
        Some(&"tmdb") => (Some("tmdbId"), r.param("tmdbId").unwrap_or("").into()),
        Some(&"imdb") => (Some("imdbId"), r.param("imdbId").unwrap_or("").into()),
        Some(_) => return not_found(),
        None => (None, r.param("term").unwrap_or("").to_lowercase()),
    };
    let rows: Vec<Value> = state
        .lookups
        .iter()
        .filter(|(res, meta, _)| *res == resource && lookup_matches(meta, key, &want))
        .map(|(_, meta, _)| in_library(state, resource, meta.clone()))
        .collect();
    match key {
        None => ok(json!(rows)),
        Some(_) => rows.into_iter().next().map_or_else(not_found, ok),
    }
}

const FOREIGN_KEYS: [&str; 8] = [
    "tmdbId",
    "tvdbId",
    "imdbId",
    "foreignArtistId",
    "foreignAlbumId",
    "foreignAuthorId",
    "foreignBookId",
    "foreignEditionId",
];

fn lookup_matches(meta: &Value, key: Option<&str>, want: &str) -> bool {
    if let Some(key) = key {
        return value_text(&meta[key]) == want;
    }
    if let Some((prefix, id)) = want.split_once(':') {
        // Readarr reads `work:`, `edition:` and `author:` followed by a whole number only
        // (`BookInfoProxy.SearchForNewBook`); the other services' prefixes name their own ids.
        let keys: &[&str] = match prefix {
            "work" => &["foreignBookId"],
            "edition" => &["foreignEditionId"],
            "author" => &["foreignAuthorId"],
            _ => &FOREIGN_KEYS,
        };
        let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
        if keys.len() == 1 && !numeric {
            return false;
        }
        return keys
            .iter()
            .any(|k| value_text(&meta[*k]).to_lowercase() == id);
    }
    ["title", "artistName", "authorName"]
        .iter()
        .filter_map(|k| meta[*k].as_str())
        .any(|name| !want.is_empty() && name.to_lowercase().contains(want))
}

/// A lookup row of something the library holds carries the library's id and path, as the
/// services answer it; otherwise it has no id.
fn in_library(state: &State, resource: Resource, mut meta: Value) -> Value {
    let held = FOREIGN_KEYS.iter().find_map(|k| {
        meta.get(*k)
            .filter(|v| !v.is_null() && **v != json!(0) && **v != json!(""))
            .and_then(|v| state.find(resource, k, v).into_iter().next())
    });
    match held {
        Some(held) if matches!(resource, Resource::Album | Resource::Book) => {
            merge(
                &mut meta,
                json!({ "id": held["id"], "monitored": held["monitored"] }),
            );
        }
        Some(held) => {
            merge(
                &mut meta,
                json!({ "id": held["id"], "path": held["path"], "monitored": held["monitored"],
                "qualityProfileId": held["qualityProfileId"] }),
            );
            if !held["added"].is_null() {
                meta["added"] = held["added"].clone();
            }
        }
        None => {
            if let Some(meta) = meta.as_object_mut() {
                meta.remove("id");
            }
        }
    }
    meta
}

/// `PUT movie/{id}`, `PUT series/{id}` (season monitoring reaches the episodes), …
pub(crate) fn edit(state: &mut State, resource: Resource, id: &str, body: &Value) -> Answer {
    let Some(id) = parse_id(id).filter(|id| state.get(resource, *id).is_some()) else {
        return not_found();
    };
    let mut fields = body.clone();
    if let Some(fields) = fields.as_object_mut() {
        fields.remove("id");
        fields.remove("statistics");
    }
    state.update(resource, id, fields);
    if resource == Resource::Series {
        for season in body["seasons"].as_array().into_iter().flatten() {
            for episode in state.find(Resource::Episode, "seriesId", &json!(id)) {
                if episode["seasonNumber"] == season["seasonNumber"] {
                    let episode_id = episode["id"].as_i64().unwrap_or_default();
                    state.update(
                        Resource::Episode,
                        episode_id,
                        json!({ "monitored": season["monitored"] }),
                    );
                }
            }
        }
    }
    let value = state.get(resource, id).unwrap_or_default();
    (StatusCode::ACCEPTED, decorate(state, resource, value))
}

/// `PUT episode/monitor {episodeIds, monitored}`, `album/monitor`, `book/monitor`.
pub(crate) fn monitor(state: &mut State, resource: Resource, body: &Value) -> Answer {
    let ids_key = format!("{}Ids", resource.path());
    let monitored = body["monitored"].as_bool().unwrap_or(false);
    for id in body[&ids_key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
    {
        if state.get(resource, id).is_some() {
            state.update(resource, id, json!({ "monitored": monitored }));
        }
    }
    (StatusCode::ACCEPTED, Value::Null)
}
