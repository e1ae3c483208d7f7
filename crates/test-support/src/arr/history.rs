//! History (paged, and per item) with the services' numeric event filters, and the calendar.

use serde_json::{Value, json};

use super::{
    ArrKind, Resource,
    library::keeps,
    routes::{Answer, ok, page},
    server::ArrRequest,
    state::State,
};

/// The numeric `eventType` each service's history filter takes, by event name.
fn event_number(kind: ArrKind, name: &str) -> i64 {
    let names: &[&str] = match kind {
        ArrKind::Radarr => &[
            "unknown",
            "grabbed",
            "",
            "downloadFolderImported",
            "downloadFailed",
            "",
            "movieFileDeleted",
            "",
            "movieFolderImported",
            "movieFileRenamed",
            "downloadIgnored",
        ],
        ArrKind::Sonarr => &[
            "unknown",
            "grabbed",
            "seriesFolderImported",
            "downloadFolderImported",
            "downloadFailed",
            "episodeFileDeleted",
            "episodeFileRenamed",
            "downloadIgnored",
        ],
        ArrKind::Lidarr => &[
            "unknown",
            "grabbed",
            "artistFolderImported",
            "trackFileImported",
            "downloadFailed",
            "trackFileDeleted",
            "trackFileRenamed",
            "albumImportIncomplete",
            "downloadImported",
            "trackFileRetagged",
            "downloadIgnored",
        ],
        ArrKind::Readarr => &[
            "unknown",
            "grabbed",
            "authorFolderImported",
            "bookFileImported",
            "downloadFailed",
            "bookFileDeleted",
            "bookFileRenamed",
            "bookImportIncomplete",
            "downloadImported",
            "bookFileRetagged",
            "downloadIgnored",
        ],
    };
    names
        .iter()
        .position(|n| *n == name)
        .map_or(-1, |i| i as i64)
}

fn history_keeps(state: &State, v: &Value, r: &ArrRequest) -> bool {
    let event_ok = r.param("eventType").is_none_or(|want| {
        let name = v["eventType"].as_str().unwrap_or("");
        want == name || want.parse::<i64>().ok() == Some(event_number(state.kind, name))
    });
    event_ok && keeps(v, r)
}

/// `GET history` (paged, newest first unless asked otherwise).
pub(crate) fn history_page(state: &State, r: &ArrRequest) -> Answer {
    let records = state
        .all(Resource::History)
        .into_iter()
        .filter(|v| history_keeps(state, v, r))
        .collect();
    page(r, records, 0)
}

/// `GET history/movie?movieId=`, `history/series?seriesId=&seasonNumber=`, `history/artist`,
/// `history/author`; Sonarr v5's `history/season?seriesId=&seasonNumber=` and
/// `history/episode?episodeId=`. A history record names its episode, not its season: the season
/// is the episode's.
pub(crate) fn history_of(state: &State, r: &ArrRequest) -> Answer {
    let season: Option<i64> = r
        .param("seasonNumber")
        .filter(|_| state.kind == ArrKind::Sonarr)
        .and_then(|s| s.parse().ok());
    let in_season = |v: &Value| {
        season.is_none_or(|s| {
            v["episodeId"]
                .as_i64()
                .and_then(|id| state.get(Resource::Episode, id))
                .is_some_and(|e| e["seasonNumber"].as_i64() == Some(s))
        })
    };
    let mut rows: Vec<Value> = state
        .all(Resource::History)
        .into_iter()
        .filter(|v| history_keeps(state, v, r) && in_season(v))
        .collect();
    rows.reverse();
    ok(json!(rows))
}

/// `GET calendar?start=&end=&unmonitored=`: what is released or airs in the window.
pub(crate) fn calendar(state: &State, r: &ArrRequest) -> Value {
    let start = r.param("start").unwrap_or("0000").to_string();
    let end = r.param("end").unwrap_or("9999").to_string();
    let unmonitored = r.param("unmonitored") == Some("true");
    let (resource, dates): (Resource, &[&str]) = match state.kind {
        ArrKind::Radarr => (
            Resource::Movie,
            &["inCinemas", "digitalRelease", "physicalRelease"],
        ),
        ArrKind::Sonarr => (Resource::Episode, &["airDateUtc"]),
        ArrKind::Lidarr => (Resource::Album, &["releaseDate"]),
        ArrKind::Readarr => (Resource::Book, &["releaseDate"]),
    };
    let rows: Vec<Value> = state
        .all(resource)
        .into_iter()
        .filter(|v| unmonitored || v["monitored"] == json!(true))
        .filter(|v| {
            dates.iter().filter_map(|d| v[*d].as_str()).any(|d| {
                let day = &d[..d.len().min(10)];
                day >= &start[..start.len().min(10)] && day <= &end[..end.len().min(10)]
            })
        })
        .map(|mut v| {
            let embed = state.kind == ArrKind::Sonarr && r.param("includeSeries") == Some("true");
            let series = v["seriesId"].as_i64().filter(|_| embed);
            if let Some(series) = series.and_then(|id| state.get(Resource::Series, id)) {
                v["series"] = series;
            }
            v
        })
        .collect();
    json!(rows)
}
