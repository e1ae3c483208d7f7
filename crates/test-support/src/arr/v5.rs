//! The Sonarr v5 dialect of the Sonarr fake: the same memory, served at `/api/v5` in the shapes
//! of `sonarr-v5-prerelease.openapi.json`. A request is read as its v3 equivalent
//! (`includeSubresources=series` is `includeSeries=true`, `downloadIds` is `downloadId`), answered
//! by the v3 routes, and the answer rewritten where v5 differs:
//!
//! - a queue item names lists (`episodeIds`, `seasonNumbers`, `episodes`) and spells `sizeLeft`,
//!   `timeLeft`;
//! - a release nests what the indexer said (`release`), the parse (`parsedInfo`) and the decision
//!   (`decision`, whose rejections carry a reason code, a message and a type);
//! - a file's media info lists its audio and subtitle streams;
//! - a series has no `languageProfileId`, and a release profile lists `indexerIds`;
//! - an import rejection carries a reason code and a message;
//! - `system/status` reports version 5, and `episode/monitor` answers the episodes it changed.
//!
//! `history/season` and `history/episode` exist only here (the v3 routes refuse them).

use serde_json::{Map, Value, json};

use super::{
    Resource,
    routes::{self, Answer},
    server::ArrRequest,
    state::State,
};

/// The version a v5 fake reports.
pub(crate) const VERSION: &str = "5.0.0.3145";

pub(crate) fn answer(state: &mut State, r: &ArrRequest) -> Answer {
    let (status, mut body) = routes::answer(state, &as_v3(r));
    if !status.is_success() {
        return (status, body);
    }
    let segments: Vec<&str> = r.path.trim_matches('/').split('/').collect();
    match (r.method.as_str(), segments.as_slice()) {
        ("GET", ["queue"]) => each(&mut body["records"], queue_item),
        ("GET", ["queue", "details"]) => each(&mut body, queue_item),
        ("GET", ["release"]) => each(&mut body, release),
        // `ReleaseGrabResource`: what was grabbed.
        ("POST", ["release"]) => {
            body = json!({ "guid": r.body["guid"], "indexerId": r.body["indexerId"] });
        }
        // v5 answers the episodes it changed.
        ("PUT", ["episode", "monitor"]) => {
            body = r.body["episodeIds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|id| state.get(Resource::Episode, id.as_i64()?))
                .collect();
        }
        ("GET", ["releaseprofile"]) => each(&mut body, |p| {
            if let Some(map) = p.as_object_mut() {
                let one = map.remove("indexerId").and_then(|i| i.as_i64());
                let ids: Vec<i64> = one.into_iter().filter(|i| *i > 0).collect();
                map.insert("indexerIds".into(), json!(ids));
                for (k, v) in [
                    ("airDateRestriction", json!(false)),
                    ("airDateGracePeriod", json!(0)),
                    ("excludedTags", json!([])),
                ] {
                    map.entry(k).or_insert(v);
                }
            }
        }),
        ("GET", ["manualimport"]) => each(&mut body, |c| {
            each(&mut c["rejections"], import_rejection);
        }),
        _ => {}
    }
    walk(&mut body);
    (status, body)
}

/// Query parameters only v3 reads: v5 ignores them, as the real v5 does.
const V3_ONLY: [&str; 7] = [
    "includeSeries",
    "includeEpisode",
    "includeEpisodeFile",
    "includeImages",
    "includeEpisodeImages",
    "downloadId",
    "unmonitored",
];

/// The request as the v3 routes read it.
fn as_v3(r: &ArrRequest) -> ArrRequest {
    let mut v3 = r.clone();
    v3.request.query = r
        .query
        .iter()
        .filter(|(k, _)| !V3_ONLY.contains(&k.as_str()))
        .map(|(k, v)| match (k.as_str(), v.as_str()) {
            ("includeSubresources", "series") => ("includeSeries".into(), "true".into()),
            ("includeSubresources", "episode" | "episodes") => {
                ("includeEpisode".into(), "true".into())
            }
            ("includeSubresources", "episodeFile") => ("includeEpisodeFile".into(), "true".into()),
            ("includeSubresources", _) => ("includeImages".into(), "true".into()),
            ("downloadIds", _) => ("downloadId".into(), v.clone()),
            ("includeUnmonitored", _) => ("unmonitored".into(), v.clone()),
            _ => (k.clone(), v.clone()),
        })
        .collect();
    v3
}

fn each(list: &mut Value, f: impl Fn(&mut Value)) {
    if let Some(items) = list.as_array_mut() {
        items.iter_mut().for_each(f);
    }
}

/// Every series and media info anywhere in the answer, in v5's shape.
fn walk(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("languageProfileId");
            if let Some(info) = map.get_mut("mediaInfo").filter(|i| i.is_object()) {
                media_info(info);
            }
            map.values_mut().for_each(walk);
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

fn rename(map: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(v) = map.remove(from) {
        map.insert(to.into(), v);
    }
}

/// One value as a list of it (`null` as an empty list).
fn listed(map: &mut Map<String, Value>, from: &str, to: &str) {
    let v = map.remove(from).unwrap_or(Value::Null);
    let list = if v.is_null() { json!([]) } else { json!([v]) };
    map.insert(to.into(), list);
}

fn queue_item(q: &mut Value) {
    let Some(map) = q.as_object_mut() else {
        return;
    };
    listed(map, "episodeId", "episodeIds");
    listed(map, "seasonNumber", "seasonNumbers");
    if map.contains_key("episode") {
        listed(map, "episode", "episodes");
    }
    rename(map, "sizeleft", "sizeLeft");
    rename(map, "timeleft", "timeLeft");
    let held = map.remove("episodeHasFile") == Some(Value::Bool(true));
    map.insert("episodesWithFilesCount".into(), json!(i64::from(held)));
    map.insert("isFullSeason".into(), json!(false));
}

/// Fields of a v3 release row and where v5 puts them.
const INFO: [&str; 21] = [
    "guid",
    "age",
    "ageHours",
    "ageMinutes",
    "size",
    "indexerId",
    "indexer",
    "title",
    "tvdbId",
    "tvRageId",
    "imdbId",
    "publishDate",
    "commentUrl",
    "downloadUrl",
    "infoUrl",
    "magnetUrl",
    "infoHash",
    "seeders",
    "leechers",
    "protocol",
    "indexerFlags",
];
const PARSED: [&str; 13] = [
    "quality",
    "releaseGroup",
    "releaseHash",
    "fullSeason",
    "seasonNumber",
    "airDate",
    "seriesTitle",
    "episodeNumbers",
    "absoluteEpisodeNumbers",
    "isDaily",
    "isAbsoluteNumbering",
    "isPossibleSpecialEpisode",
    "special",
];
const DECISION: [&str; 4] = ["approved", "temporarilyRejected", "rejected", "rejections"];
const TOP: [&str; 14] = [
    "id",
    "qualityWeight",
    "languages",
    "mappedSeasonNumber",
    "mappedEpisodeNumbers",
    "mappedAbsoluteEpisodeNumbers",
    "mappedSeriesId",
    "mappedEpisodeInfo",
    "episodeRequested",
    "downloadAllowed",
    "releaseWeight",
    "customFormats",
    "customFormatScore",
    "sceneMapping",
];

fn release(row: &mut Value) {
    let Some(map) = row.as_object_mut() else {
        return;
    };
    let take = |map: &mut Map<String, Value>, keys: &[&str]| -> Map<String, Value> {
        keys.iter()
            .filter_map(|k| map.remove(*k).map(|v| (k.to_string(), v)))
            .collect()
    };
    let info = take(map, &INFO);
    let parsed = take(map, &PARSED);
    let mut decision = take(map, &DECISION);
    if let Some(rejections) = decision.get_mut("rejections") {
        each(rejections, download_rejection);
    }
    let top = take(map, &TOP);
    *map = top;
    map.insert("release".into(), Value::Object(info));
    map.insert("parsedInfo".into(), Value::Object(parsed));
    map.insert("decision".into(), Value::Object(decision));
}

/// A v3 rejection sentence as v5's `DownloadRejectionResource`.
fn download_rejection(r: &mut Value) {
    let Some(message) = r.as_str().map(String::from) else {
        return;
    };
    let lower = message.to_lowercase();
    let reason = if lower.contains("blocklisted") {
        "blocklisted"
    } else if lower.contains("not wanted") {
        "qualityNotWanted"
    } else if lower.contains("seeders") {
        "minimumSeeders"
    } else {
        "unknown"
    };
    *r = json!({ "reason": reason, "message": message, "type": "permanent" });
}

/// A v3 import rejection (`reason` is the sentence) as v5's (`reason` a code, `message`).
fn import_rejection(r: &mut Value) {
    if r.get("message").is_some() {
        return;
    }
    let message = r["reason"].take();
    r["reason"] = json!("unknown");
    r["message"] = message;
}

/// The v3 media info (main stream, `/`-separated languages) as v5's streams; a test may store
/// v5 streams itself, which are kept.
fn media_info(info: &mut Value) {
    let Some(map) = info.as_object_mut() else {
        return;
    };
    let languages = |v: Option<Value>| -> Vec<String> {
        v.as_ref()
            .and_then(Value::as_str)
            .unwrap_or("")
            .split('/')
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    };
    let audio = languages(map.remove("audioLanguages"));
    let subtitles = languages(map.remove("subtitles"));
    let codec = map.remove("audioCodec").unwrap_or(Value::Null);
    let channels = map.remove("audioChannels").unwrap_or(json!(0.0));
    let bitrate = map.remove("audioBitrate").unwrap_or(json!(0));
    map.remove("audioStreamCount");
    if !map.contains_key("audioStreams") {
        let streams: Vec<Value> = audio
            .iter()
            .enumerate()
            .map(|(i, language)| {
                let main = i == 0;
                json!({
                    "language": language,
                    "codec": if main { codec.clone() } else { Value::Null },
                    "codecId": null, "profile": null,
                    "bitrate": if main { bitrate.clone() } else { json!(0) },
                    "channels": if main { channels.clone() } else { json!(0.0) },
                    "channelPositions": null, "title": null
                })
            })
            .collect();
        map.insert("audioStreams".into(), json!(streams));
    }
    if !map.contains_key("subtitleStreams") {
        let streams: Vec<Value> = subtitles
            .iter()
            .map(|language| json!({ "language": language, "format": "SubRip", "title": null, "forced": false, "hearingImpaired": false }))
            .collect();
        map.insert("subtitleStreams".into(), json!(streams));
    }
}
