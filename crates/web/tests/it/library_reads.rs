//! Every library read and write tool once through the real MCP endpoint against the Radarr,
//! Sonarr and Readarr fakes, with canary secrets planted in the fakes' answers and config:
//! none reaches any answer, log line or `/metrics`, and the writes are audited.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::InstanceKind;
use serde_json::{Value, json};
use store::{AuditQuery, AuditStatus};
use test_support::arr::{ArrKind, FakeArr, Mode, Resource};

use crate::support::{self, builtin, instance, outcome, server_with_instances};

const CANARY: &str = "canary-5ecret-9d1f";
/// The key the fakes' default indexer carries in its settings.
const INDEXER_API_KEY: &str = "fake-indexer-apikey-7f6e5d4c";

struct Setup {
    s: support::Server,
    radarr: FakeArr,
    sonarr: FakeArr,
    _readarr: FakeArr,
}

async fn setup() -> Setup {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    let heat = radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1, "monitored": true}),
    );
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    radarr.start_download(heat, "Heat.1995.1080p.BluRay", 8_000_000_000);
    radarr.advance(Duration::from_secs(30 * 60));
    radarr.advance(Duration::from_secs(60));
    let q = radarr.start_download(heat, "Heat.1995.2160p.UHD", 20_000_000_000);
    // Canaries where services do put secrets: URLs in messages, health text, settings fields.
    radarr.update(
        Resource::Queue,
        q,
        json!({"errorMessage": format!("fetch http://bob:{CANARY}@idx:9696/api?apikey={CANARY} failed")}),
    );
    radarr.insert(
        Resource::Health,
        json!({"source": "IndexerCheck", "type": "warning", "message": format!("indexer failed: https://idx/api?t=search&token={CANARY}"), "wikiUrl": format!("https://wiki/x?key={CANARY}")}),
    );
    radarr.insert(
        Resource::Indexer,
        json!({"name": "Canary", "implementation": "Torznab", "protocol": "torrent", "enableRss": true, "priority": 25,
               "fields": [{"name": "apiKey", "value": CANARY}, {"name": "baseUrl", "value": format!("http://idx/?passkey={CANARY}")}]}),
    );
    let episodes: Vec<Value> = (1..=3)
        .map(|e| json!({"seasonNumber": 1, "episodeNumber": e, "title": format!("E{e}"), "airDateUtc": "2016-01-0{e}T01:00:00Z"}))
        .collect();
    sonarr.seed_lookup(
        Resource::Series,
        json!({"title": "Bluey", "year": 2018, "tvdbId": 353546, "tmdbId": 82728, "seasons": [{"seasonNumber": 1, "monitored": true}]}),
        episodes,
    );
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "releaseDate": "1937-09-21T00:00:00Z", "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    let mut specs = vec![
        builtin(),
        instance(
            "radarr",
            InstanceKind::Radarr,
            Some(&radarr.url()),
            Some(radarr.api_key()),
        ),
        instance(
            "sonarr",
            InstanceKind::Sonarr,
            Some(&sonarr.url()),
            Some(sonarr.api_key()),
        ),
        instance(
            "readarr",
            InstanceKind::Readarr,
            Some(&readarr.url()),
            Some(readarr.api_key()),
        ),
    ];
    specs[1].password = Some(domain::Secret::new(CANARY));
    let s = server_with_instances(specs).await;
    Setup {
        s,
        radarr,
        sonarr,
        _readarr: readarr,
    }
}

/// Calls a tool as the owner and checks no secret is in the whole result.
async fn call(t: &Setup, tool: &str, args: Value) -> (bool, String, Value) {
    let result = t.s.call(&t.s.owner_key, tool, args).await;
    let text = result.to_string();
    for secret in [
        CANARY,
        t.radarr.api_key(),
        t.sonarr.api_key(),
        INDEXER_API_KEY,
    ] {
        assert!(!text.contains(secret), "{tool} leaked {secret}: {text}");
    }
    outcome(&result)
}

fn heat() -> Value {
    json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"})
}

#[tokio::test]
async fn with_a_readarr_configured_diagnose_does_not_say_books_have_no_source() {
    let t = setup().await;
    let (err, summary, data) = call(&t, "diagnose", json!({})).await;
    assert!(!err, "{summary}");
    let notes = data["notes"].to_string();
    assert!(!notes.contains("no book source"), "{notes}");
}

#[tokio::test]
async fn reads_answer_every_instance_and_leak_no_secret() {
    let t = setup().await;
    let (err, summary, data) = call(&t, "get_queue", json!({})).await;
    assert!(!err, "{summary}");
    assert_eq!(data["total"], 1, "{data}");
    assert!(
        data["items"][0]["error"]
            .as_str()
            .unwrap()
            .contains("http://***@idx:9696/api failed"),
        "{data}"
    );
    let (err, summary, _) = call(&t, "get_health", json!({})).await;
    assert!(!err && summary.contains("radarr reports"), "{summary}");
    let (err, summary, _) = call(&t, "get_disk_space", json!({})).await;
    assert!(!err && summary.starts_with("Fullest disk"), "{summary}");
    let (err, summary, data) =
        call(&t, "get_service_config", json!({"instance_id": "radarr"})).await;
    assert!(!err, "{summary}");
    assert!(
        data["config"]["indexers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "Canary"),
        "{data}"
    );
    let (err, _, data) = call(&t, "get_quality_profiles", json!({"media_type": "movie"})).await;
    assert!(
        !err && data["quality_profiles"].as_array().unwrap().len() == 2,
        "{data}"
    );
    let (err, _, data) = call(&t, "get_custom_formats", json!({"instance_id": "sonarr"})).await;
    assert!(!err && data["instance_id"] == "sonarr", "{data}");
    let (err, summary, data) = call(
        &t,
        "get_library",
        json!({"media_type": "movie", "query": "heat"}),
    )
    .await;
    assert!(!err && data["items"][0]["title"] == "Heat", "{summary}");
    assert_eq!(data["items"][0]["files_held"], 1, "{data}");
    let (err, summary, _) = call(
        &t,
        "get_calendar",
        json!({"days_back": 30, "days_ahead": 30}),
    )
    .await;
    assert!(!err, "{summary}");
    let (err, summary, data) = call(&t, "get_history", json!({})).await;
    assert!(
        !err && !data["instances"].as_array().unwrap().is_empty(),
        "{summary}"
    );
    let (err, summary, data) = call(&t, "get_history", heat()).await;
    assert!(!err, "{summary}");
    let events: Vec<&str> = data["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert!(
        events.contains(&"grabbed") && events.contains(&"downloadFolderImported"),
        "{events:?}"
    );
    let (err, summary, data) = call(&t, "get_item_timeline", heat()).await;
    assert!(!err, "{summary}");
    assert!(
        data["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "file_on_disk"),
        "{data}"
    );
    let (err, summary, data) = call(&t, "get_media_file_details", heat()).await;
    assert!(!err, "{summary}");
    assert_eq!(data["files"][0]["analysed"], true, "{data}");
    let (err, summary, data) = call(&t, "search_books", json!({"query": "hobbit"})).await;
    assert!(!err, "{summary}");
    assert_eq!(data["results"][0]["author"], "J.R.R. Tolkien", "{data}");
}

/// Log lines written while the guard lives, at every level.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_canary_reaches_no_log_line_and_no_metric_even_when_an_instance_fails() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::info!("capturing");

    let t = setup().await;
    t.sonarr.set_mode(Mode::Unavailable).await;
    for (tool, args) in [
        ("get_queue", json!({})),
        ("get_health", json!({})),
        ("get_service_config", json!({"instance_id": "radarr"})),
        ("get_history", json!({})),
        ("get_library", json!({"media_type": "tv"})),
        ("search_titles", json!({"query": "heat"})),
        ("search_books", json!({"query": "hobbit"})),
        ("trigger_search", heat()),
    ] {
        call(&t, tool, args).await;
    }
    let (_, metrics) =
        t.s.send(
            Request::get("/metrics")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, format!("Bearer {}", t.s.owner_key))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let metrics = String::from_utf8(metrics).unwrap();
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("capturing"), "the capture works");
    assert!(
        logged.contains("could not be read for in_library"),
        "the failing instance was logged: {logged}"
    );
    assert!(metrics.contains("mcp"), "{metrics}");
    for secret in [
        CANARY,
        t.radarr.api_key(),
        t.sonarr.api_key(),
        INDEXER_API_KEY,
    ] {
        assert!(
            !logged.contains(secret),
            "a log line has {secret}: {logged}"
        );
        assert!(
            !metrics.contains(secret),
            "/metrics has {secret}: {metrics}"
        );
    }
}

#[tokio::test]
async fn a_season_timeline_shows_each_episode_and_what_is_held() {
    let t = setup().await;
    t.sonarr.insert(Resource::Series, json!({"title": "Bluey", "year": 2018, "tvdbId": 353546, "seasons": [{"seasonNumber": 1, "monitored": true}], "qualityProfileId": 1, "monitored": true}));
    let series = t.sonarr.all(Resource::Series)[0]["id"].as_i64().unwrap();
    for e in 1..=2 {
        t.sonarr.insert(Resource::Episode, json!({"seriesId": series, "seasonNumber": 1, "episodeNumber": e, "title": format!("E{e}"), "airDateUtc": "2016-01-01T01:00:00Z", "monitored": true, "hasFile": false}));
    }
    let (err, summary, data) = call(
        &t,
        "get_episode_timeline",
        json!({"media_source": "tvdb", "media_id": "353546", "season": 1}),
    )
    .await;
    assert!(!err, "{summary}");
    assert_eq!(data["episodes"].as_array().unwrap().len(), 2, "{data}");
    assert_eq!(data["episodes"][0]["aired"], true);
    let (err, summary, _) = call(
        &t,
        "get_episode_timeline",
        json!({"media_source": "tvdb", "media_id": "353546", "season": 4}),
    )
    .await;
    assert!(err && summary.contains("its seasons: 1"), "{summary}");
}

#[tokio::test]
async fn searches_and_rescans_reach_the_service_and_are_audited() {
    let t = setup().await;
    t.radarr.clear_requests();
    let (err, summary, data) = call(&t, "trigger_search", heat()).await;
    assert!(!err, "{summary}");
    assert!(data["command"]["id"].as_i64().is_some(), "{data}");
    let (err, summary, _) = call(&t, "rescan_media", heat()).await;
    assert!(!err, "{summary}");
    let names: Vec<Value> = t
        .radarr
        .requests_to("POST", "/command")
        .iter()
        .map(|r| r.body["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("MoviesSearch"), json!("RescanMovie")]);
    let mut args = heat();
    args["season"] = json!(1);
    let (err, summary, _) = call(&t, "trigger_search", args).await;
    assert!(err && summary.contains("for tv titles"), "{summary}");
    let audit =
        t.s.host
            .app
            .store()
            .audit_page(&AuditQuery::default())
            .await
            .unwrap();
    let done: Vec<(&str, AuditStatus)> =
        audit.iter().map(|a| (a.tool.as_str(), a.status)).collect();
    assert!(
        done.contains(&("trigger_search", AuditStatus::Applied)),
        "{done:?}"
    );
    assert!(
        done.contains(&("rescan_media", AuditStatus::Applied)),
        "{done:?}"
    );
}

#[tokio::test]
async fn a_title_the_library_does_not_hold_is_named_with_what_to_do() {
    let t = setup().await;
    let (err, summary, data) = call(
        &t,
        "get_media_file_details",
        json!({"media_source": "imdb", "media_id": "tt0133093", "media_type": "movie"}),
    )
    .await;
    assert!(err, "{data}");
    assert!(
        summary.contains("radarr") && summary.contains("tt0133093"),
        "{summary}"
    );
    let (err, summary, _) = call(
        &t,
        "get_history",
        json!({"media_source": "musicbrainz", "media_id": "x", "media_type": "movie"}),
    )
    .await;
    assert!(
        err && summary.contains("valid sources: tmdb, imdb, builtin"),
        "{summary}"
    );
}
