//! The Plex fake's reads: `MediaContainer` envelopes with `X-Plex-Container-Start`/`-Size`
//! paging, sections, items, on-deck and history per managed user's token, and sessions.

use serde_json::{Value, json};

use super::{Mark, State, Title, marks_of};
use crate::server::RecordedRequest;

pub(super) fn plex_item(titles: &[Title], t: &Title, mark: Option<&Mark>) -> Value {
    let kind = match t.kind {
        "Movie" => "movie",
        "Series" => "show",
        _ => "episode",
    };
    let mut guids = Vec::new();
    for (scheme, v) in [("imdb", &t.imdb), ("tmdb", &t.tmdb), ("tvdb", &t.tvdb)] {
        if let Some(v) = v {
            guids.push(json!({ "id": format!("{scheme}://{v}") }));
        }
    }
    let duration = t.minutes * 60_000;
    let mut v = json!({
        "ratingKey": t.key.to_string(),
        "key": format!("/library/metadata/{}", t.key),
        "guid": format!("plex://{kind}/{:024x}", t.key),
        "type": kind,
        "title": t.name,
        "year": t.year,
        "contentRating": t.rating,
        "Genre": t.genres.iter().map(|g| json!({ "tag": g })).collect::<Vec<_>>(),
        "Guid": guids,
        "addedAt": 1_767_225_600 + t.key as i64 * 3600,
        "duration": duration,
        "thumb": format!("/library/metadata/{}/thumb/{}", t.key, 1_767_225_600 + t.key * 3600),
    });
    if let Some(s) = t.series.and_then(|i| titles.get(i)) {
        v["grandparentRatingKey"] = json!(s.key.to_string());
        v["grandparentTitle"] = json!(s.name);
        v["parentIndex"] = json!(t.season);
        v["index"] = json!(t.episode);
    }
    if let Some((_, percent, played)) = mark {
        if *played {
            v["viewCount"] = json!(1);
            v["viewedAt"] = json!(1_796_500_000);
        } else {
            v["viewOffset"] = json!((duration as f64 * percent / 100.0) as i64);
            v["lastViewedAt"] = json!(1_796_500_000);
        }
    }
    v
}

pub(super) fn container(fields: Value) -> Value {
    json!({ "MediaContainer": fields })
}

pub(super) fn plex(state: &State, who: &str, path: &str, r: &RecordedRequest) -> Option<Value> {
    let start = r
        .param("X-Plex-Container-Start")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0usize);
    let size = r
        .param("X-Plex-Container-Size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let admin = who == "admin";
    match segments.as_slice() {
        ["identity"] => Some(container(
            json!({ "size": 0, "claimed": true, "machineIdentifier": "f00dfeed", "version": "1.41.3.9314" }),
        )),
        ["library", "metadata", key] => {
            let t = state.titles.iter().find(|t| t.key.to_string() == *key)?;
            Some(container(
                json!({ "size": 1, "Metadata": [plex_item(&state.titles, t, None)] }),
            ))
        }
        ["library", "sections", "all"] if admin => Some(container(json!({
            "size": 2,
            "Directory": [
                { "key": "1", "type": "movie", "title": "Movies", "agent": "tv.plex.agents.movie" },
                { "key": "2", "type": "show", "title": "TV Shows", "agent": "tv.plex.agents.series" }
            ]
        }))),
        ["library", "sections", section, "all"] if admin => {
            let want = match (*section, r.param("type")) {
                ("1", Some("1")) => "Movie",
                ("2", Some("2")) => "Series",
                ("2", Some("4")) => "Episode",
                _ => return None,
            };
            let chosen: Vec<&Title> = state.titles.iter().filter(|t| t.kind == want).collect();
            let list: Vec<Value> = chosen
                .iter()
                .skip(start)
                .take(size)
                .map(|t| plex_item(&state.titles, t, None))
                .collect();
            Some(container(
                json!({ "size": list.len(), "totalSize": chosen.len(), "offset": start, "Metadata": list }),
            ))
        }
        ["hubs", "continueWatching"] => {
            let list: Vec<Value> = marks_of(state, who)
                .iter()
                .filter(|(_, _, played)| !played)
                .map(|m| plex_item(&state.titles, &state.titles[m.0], Some(m)))
                .collect();
            Some(container(json!({
                "size": 1,
                "Hub": [{ "hubIdentifier": "home.continue", "title": "Continue Watching", "type": "mixed", "size": list.len(), "Metadata": list }]
            })))
        }
        ["status", "sessions", "history", "all"] => {
            let list: Vec<Value> = marks_of(state, who)
                .iter()
                .filter(|(_, _, played)| *played)
                .take(size)
                .map(|m| plex_item(&state.titles, &state.titles[m.0], Some(m)))
                .collect();
            Some(container(json!({ "size": list.len(), "Metadata": list })))
        }
        ["status", "sessions"] if admin => {
            let mut item = plex_item(&state.titles, &state.titles[0], None);
            item["viewOffset"] = json!(2_300_000);
            item["User"] = json!({ "id": "2", "title": "alice" });
            item["Player"] = json!({ "title": "Living Room TV", "product": "Plex for Android (TV)", "state": "playing", "local": true });
            item["Session"] = json!({ "id": "5e55104a11ce", "bandwidth": 8000, "location": "lan" });
            item["TranscodeSession"] = json!({ "key": "/transcode/sessions/t1", "videoDecision": "transcode", "audioDecision": "copy", "throttled": false });
            Some(container(json!({ "size": 1, "Metadata": [item] })))
        }
        _ => None,
    }
}
