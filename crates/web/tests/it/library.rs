//! The library family through the real MCP endpoint, against the stateful contract fakes of
//! Radarr and Sonarr: requests that arrive (profile, folder, seasons, through to available),
//! complete queues or errors, unknown instances, and one instance down beside the others.

use std::time::Duration;

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::{
    TmdbFake,
    arr::{ArrKind, FakeArr, Mode, Resource},
};

use crate::support::{self, builtin, instance, outcome, server_with_instances};

fn library(id: &str, kind: InstanceKind, fake: &FakeArr) -> tools::InstanceSpec {
    instance(id, kind, Some(&fake.url()), Some(fake.api_key()))
}

/// Casablanca (1942, rated PG) as Radarr's lookup knows it.
fn seed_casablanca(radarr: &FakeArr) {
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Casablanca", "year": 1942, "tmdbId": 289, "imdbId": "tt0034583"}),
        vec![],
    );
}

fn casablanca() -> Value {
    json!({"media_source": "builtin", "media_id": "tt0034583", "media_type": "movie"})
}

async fn state_of(s: &support::Server, key: &str, request_id: i64) -> (String, Value) {
    let (err, summary, data) = outcome(
        &s.call(
            key,
            "check_request_status",
            json!({"request_id": request_id}),
        )
        .await,
    );
    assert!(!err, "{summary}");
    let row = data["requests"][0].clone();
    (row["state"].as_str().unwrap().to_string(), row)
}

#[tokio::test]
async fn a_kids_pg_film_request_lands_in_radarr_with_the_chosen_profile_and_folder_and_becomes_available()
 {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    seed_casablanca(&radarr);
    let s = server_with_instances(vec![
        builtin(),
        library("radarr", InstanceKind::Radarr, &radarr),
    ])
    .await;
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                max_movie_cert: Some("PG".into()),
                ..ContentLimits::default()
            },
        )
        .await;

    let (err, _, options) = outcome(&s.call(&kid, "get_request_options", casablanca()).await);
    assert!(!err, "{options}");
    let lib = &options["library"];
    assert_eq!(
        (lib["instance_id"].clone(), lib["in_library"].clone()),
        (json!("radarr"), json!(false))
    );
    let uhd = lib["quality_profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Ultra-HD")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let folder = lib["root_folders"][0]["path"].as_str().unwrap().to_string();

    let mut args = casablanca();
    args["quality_profile_id"] = json!(uhd);
    args["root_folder"] = json!(folder);
    let (err, summary, data) = outcome(&s.call(&kid, "request_media", args).await);
    assert!(!err, "{summary}");
    let id = data["request"]["request_id"].as_i64().unwrap();
    assert!(
        radarr.all(Resource::Movie).is_empty(),
        "nothing is added before approval"
    );

    let (err, summary, _) = outcome(
        &s.call(
            &s.owner_key,
            "decide_request",
            json!({"request_id": id, "decision": "approve"}),
        )
        .await,
    );
    assert!(!err && summary.contains("added to radarr"), "{summary}");
    let movies = radarr.all(Resource::Movie);
    assert_eq!(movies.len(), 1);
    assert_eq!(movies[0]["tmdbId"], 289);
    assert_eq!(movies[0]["qualityProfileId"], uhd);
    assert!(
        movies[0]["path"].as_str().unwrap().starts_with(&folder),
        "{}",
        movies[0]
    );
    let searches = radarr.requests_to("POST", "/command");
    assert_eq!(searches.len(), 1);
    assert_eq!(searches[0].body["name"], "MoviesSearch");

    assert_eq!(state_of(&s, &kid, id).await.0, "searching");
    radarr.advance(Duration::from_secs(1));
    let (state, row) = state_of(&s, &kid, id).await;
    assert_eq!(state, "downloading", "{row}");
    assert!(row["library"]["progress"].as_f64().is_some(), "{row}");
    radarr.advance(Duration::from_secs(6 * 3600));
    radarr.advance(Duration::from_secs(60));
    let (state, row) = state_of(&s, &kid, id).await;
    assert_eq!(state, "available", "{row}");
    assert_eq!(row["status"], "available");

    // Held now: asking again is "already available" and creates nothing.
    let (err, summary, data) = outcome(&s.call(&kid, "request_media", casablanca()).await);
    assert!(!err && data["already_available"] == true, "{summary}");
}

#[tokio::test]
async fn a_season_scoped_series_request_monitors_exactly_those_seasons() {
    season_scoped_request(FakeArr::start(ArrKind::Sonarr).await).await;
}

#[tokio::test]
async fn a_season_scoped_series_request_to_sonarr_v5_monitors_exactly_those_seasons() {
    let sonarr = season_scoped_request(FakeArr::start_sonarr_v5().await).await;
    assert!(!sonarr.requests_to("POST", "/series").is_empty());
    let report = sonarr.check_answers();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert!(report.undocumented.is_empty(), "{:#?}", report.undocumented);
}

/// Seasons 2 and 3 of a series with eight are requested and added to `sonarr`, with only their
/// episodes monitored and a series search started, then followed to available.
async fn season_scoped_request(sonarr: FakeArr) -> FakeArr {
    let tmdb = TmdbFake::start().await;
    let seasons: Vec<Value> = (0..=8)
        .map(|n| json!({"seasonNumber": n, "monitored": true}))
        .collect();
    let episodes: Vec<Value> = (1..=8)
        .flat_map(|s| (1..=3).map(move |e| json!({"seasonNumber": s, "episodeNumber": e, "title": format!("S{s}E{e}"), "airDateUtc": "2015-04-12T01:00:00Z"})))
        .collect();
    sonarr.seed_lookup(
        Resource::Series,
        json!({"title": "Game of Thrones", "year": 2011, "tvdbId": 121361, "tmdbId": 1399, "seasons": seasons}),
        episodes,
    );
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tmdb",
            InstanceKind::Tmdb,
            Some(tmdb.base_url()),
            Some(TmdbFake::API_KEY),
        ),
        library("sonarr", InstanceKind::Sonarr, &sonarr),
    ])
    .await;
    let (err, summary, data) = outcome(
        &s.call(
            &s.owner_key,
            "request_media",
            json!({"media_source": "tmdb", "media_id": "1399", "media_type": "tv", "seasons": [2, 3]}),
        )
        .await,
    );
    assert!(!err && summary.contains("added to sonarr"), "{summary}");
    let id = data["request"]["request_id"].as_i64().unwrap();
    let series = sonarr.all(Resource::Series);
    assert_eq!(series.len(), 1);
    let monitored: Vec<i64> = series[0]["seasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["monitored"] == true)
        .map(|s| s["seasonNumber"].as_i64().unwrap())
        .collect();
    assert_eq!(monitored, vec![2, 3]);
    let watched: Vec<i64> = sonarr
        .all(Resource::Episode)
        .iter()
        .filter(|e| e["monitored"] == true)
        .map(|e| e["seasonNumber"].as_i64().unwrap())
        .collect();
    assert_eq!(watched, vec![2, 2, 2, 3, 3, 3]);
    assert_eq!(
        sonarr.requests_to("POST", "/command")[0].body["name"],
        "SeriesSearch"
    );
    let (state, row) = state_of(&s, &s.owner_key, id).await;
    assert_eq!(state, "searching", "{row}");
    sonarr.advance(Duration::from_secs(1));
    let (state, row) = state_of(&s, &s.owner_key, id).await;
    assert_eq!(state, "downloading", "{row}");
    sonarr.advance(Duration::from_secs(6 * 3600));
    sonarr.advance(Duration::from_secs(60));
    let (state, row) = state_of(&s, &s.owner_key, id).await;
    assert_eq!(state, "available", "{row}");
    sonarr
}

/// A Radarr fake holding one movie with a download in its queue.
async fn radarr_with_a_download() -> FakeArr {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let movie = radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1, "monitored": true}),
    );
    radarr.start_download(movie, "Heat.1995.1080p.BluRay", 8_000_000_000);
    radarr
}

#[tokio::test]
async fn a_queue_whose_total_disagrees_with_its_records_is_an_error_not_a_short_list() {
    let radarr = radarr_with_a_download().await;
    let s = server_with_instances(vec![library("radarr", InstanceKind::Radarr, &radarr)]).await;
    let (err, _, data) = outcome(&s.call(&s.owner_key, "get_queue", json!({})).await);
    assert!(!err, "{data}");
    assert_eq!(data["total"], 1);
    radarr.misreport_queue_total(3);
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "get_queue", json!({})).await);
    assert!(err, "{data}");
    assert!(
        summary.contains("could not be read completely") && summary.contains("radarr"),
        "{summary}"
    );
    assert_eq!(data["code"], "backend_incomplete");
}

#[tokio::test]
async fn an_unknown_instance_id_is_refused_with_the_valid_ids() {
    let radarr = radarr_with_a_download().await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let s = server_with_instances(vec![
        library("radarr", InstanceKind::Radarr, &radarr),
        library("sonarr", InstanceKind::Sonarr, &sonarr),
    ])
    .await;
    for tool in ["get_queue", "get_health", "get_library"] {
        let (err, summary, _) = outcome(
            &s.call(&s.owner_key, tool, json!({"instance_id": "plex"}))
                .await,
        );
        assert!(err, "{tool}");
        assert_eq!(
            summary, "unknown instance_id \"plex\"; valid ids: radarr, sonarr",
            "{tool}"
        );
    }
    assert!(radarr.requests().is_empty() && sonarr.requests().is_empty());
}

#[tokio::test]
async fn one_instance_down_leaves_the_others_answering_and_is_named() {
    let radarr = radarr_with_a_download().await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let s = server_with_instances(vec![
        library("radarr", InstanceKind::Radarr, &radarr),
        library("sonarr", InstanceKind::Sonarr, &sonarr),
    ])
    .await;
    sonarr.set_mode(Mode::Refusing).await;
    let result = s.call(&s.owner_key, "get_queue", json!({})).await;
    let (err, summary, data) = outcome(&result);
    assert!(!err, "{data}");
    assert!(summary.contains("Could not be read: sonarr"), "{summary}");
    assert_eq!(data["items"][0]["instance_id"], "radarr");
    assert_eq!(data["items"][0]["title"], "Heat.1995.1080p.BluRay");
    assert_eq!(data["unreadable"][0]["instance_id"], "sonarr");
    assert_eq!(data["unreadable"][0]["code"], "backend_unreachable");
    let warning = result["structuredContent"]["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("library instance sonarr could not be reached"),
        "{warning}"
    );

    // Asked alone, the down instance is an error naming it and what to do.
    let (err, summary, _) = outcome(
        &s.call(&s.owner_key, "get_health", json!({"instance_id": "sonarr"}))
            .await,
    );
    assert!(
        err && summary.contains("sonarr") && summary.contains("check that it is running"),
        "{summary}"
    );
}
