//! Sonarr v5 through the MCP endpoint: two Sonarr fakes holding the same series, one speaking
//! API v3 (`sonarr`) and one API v5 (`sonarr5`), answer every library tool alike (data-driven);
//! a v5 release search shows its rejections and grabs by reference; a v5 file's media info
//! shows its streams; the history of one season and one episode is read from v5's own
//! endpoints; and a failing v5 instance gives an error naming it.

use std::time::Duration;

use chrono::Utc;
use domain::InstanceKind;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Mode, Resource};

use crate::support::{self, builtin, instance, outcome, server_with_instances};

struct Setup {
    s: support::Server,
    v3: FakeArr,
    v5: FakeArr,
}

/// The same library in either fake: Bluey with two seasons; S01E01 and S02E01 downloaded and
/// imported, S01E02 downloading, S01E03 with one release Sonarr would take and one it refuses.
fn seed(fake: &FakeArr) {
    let day = |d: i64| {
        (Utc::now() + chrono::Duration::days(d))
            .format("%Y-%m-%dT01:00:00Z")
            .to_string()
    };
    let series = fake.insert(
        Resource::Series,
        json!({"title": "Bluey", "year": 2018, "tvdbId": 353546, "tmdbId": 82728, "path": "/tv/Bluey",
               "seasons": [{"seasonNumber": 1, "monitored": true}, {"seasonNumber": 2, "monitored": true}]}),
    );
    let mut ids = Vec::new();
    for (season, episode, aired) in [(1, 1, -20), (1, 2, -10), (1, 3, -3), (2, 1, -1), (2, 2, 5)] {
        ids.push(fake.insert(
            Resource::Episode,
            json!({"seriesId": series, "seasonNumber": season, "episodeNumber": episode,
                   "title": format!("S{season}E{episode}"), "airDateUtc": day(aired)}),
        ));
    }
    fake.insert(
        Resource::ReleaseProfile,
        json!({"name": "Bluey only", "enabled": true, "required": ["Bluey"], "ignored": ["CAM"], "indexerId": 1, "tags": []}),
    );
    fake.start_download(ids[0], "Bluey.S01E01.1080p.WEB", 1_000_000_000);
    fake.start_download(ids[3], "Bluey.S02E01.1080p.WEB", 1_000_000_000);
    fake.advance(Duration::from_secs(30 * 60));
    fake.advance(Duration::from_secs(60));
    fake.start_download(ids[1], "Bluey.S01E02.1080p.WEB", 2_000_000_000);
    fake.advance(Duration::from_secs(60));
    fake.seed_manual_import(
        ids[2],
        "/downloads/complete/Bluey.S01E03/bluey.s01e03.mkv",
        700_000_000,
        "dl-bluey-103",
        &["Not an upgrade for existing episode file(s)"],
    );
    fake.seed_release(
        ids[2],
        json!({"title": "Bluey.S01E03.1080p.WEB-DL", "guid": "https://idx/details/1?apikey=idx-secret-1", "customFormatScore": 25}),
    );
    fake.seed_release(
        ids[2],
        json!({"title": "Bluey.S01E03.720p.HDTV", "guid": "g-hdtv", "approved": false, "rejected": true,
               "rejections": ["Quality HDTV-720p is not wanted in profile"]}),
    );
}

async fn setup() -> Setup {
    let v3 = FakeArr::start(ArrKind::Sonarr).await;
    let v5 = FakeArr::start_sonarr_v5().await;
    seed(&v3);
    seed(&v5);
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "sonarr",
            InstanceKind::Sonarr,
            Some(&v3.url()),
            Some(v3.api_key()),
        ),
        instance(
            "sonarr5",
            InstanceKind::Sonarr,
            Some(&v5.url()),
            Some(v5.api_key()),
        ),
    ])
    .await;
    Setup { s, v3, v5 }
}

async fn call(t: &Setup, tool: &str, args: Value) -> (bool, String, Value) {
    let result = t.s.call(&t.s.owner_key, tool, args).await;
    let text = result.to_string();
    // The fakes' releases carry download and magnet links with the indexer's key.
    for secret in [
        t.v5.api_key(),
        "idx-secret-1",
        "fake-indexer-apikey-7f6e5d4c",
        "magnet:",
    ] {
        assert!(!text.contains(secret), "{tool} leaked {secret}: {text}");
    }
    outcome(&result)
}

fn bluey(extra: Value) -> Value {
    let mut args = json!({"media_source": "tvdb", "media_id": "353546", "media_type": "tv"});
    if let (Some(a), Value::Object(e)) = (args.as_object_mut(), extra) {
        a.extend(e);
    }
    args
}

/// What differs only because the instances differ: their ids, and release references (keyed by
/// the instance).
fn same_instance(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("release_ref");
                m.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::String(s) if s.contains("sonarr5") => *s = s.replace("sonarr5", "sonarr"),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

#[tokio::test]
async fn a_v3_and_a_v5_instance_answer_every_library_tool_alike() {
    let t = setup().await;
    let cases: Vec<(&str, Value)> = vec![
        ("get_library", json!({"media_type": "tv"})),
        ("get_queue", json!({})),
        ("get_calendar", json!({"days_back": 30, "days_ahead": 30})),
        ("get_history", json!({})),
        ("get_history", bluey(json!({}))),
        ("get_history", bluey(json!({"season": 1}))),
        ("get_history", bluey(json!({"season": 2, "episode": 1}))),
        (
            "get_episode_timeline",
            json!({"media_source": "tvdb", "media_id": "353546", "season": 1}),
        ),
        ("search_releases", bluey(json!({"season": 1, "episode": 3}))),
        ("get_media_file_details", bluey(json!({"season": 1}))),
        ("get_service_config", json!({})),
        (
            "get_manual_import_candidates",
            json!({"folder": "/downloads/complete/Bluey.S01E03"}),
        ),
    ];
    for (tool, args) in cases {
        let mut answers = Vec::new();
        for id in ["sonarr", "sonarr5"] {
            let mut args = args.clone();
            args["instance_id"] = json!(id);
            let (err, summary, data) = call(&t, tool, args).await;
            assert!(!err, "{tool} on {id}: {summary}");
            answers.push(same_instance(json!({"summary": summary, "data": data})));
        }
        let v5 = answers.pop().unwrap();
        let v3 = answers.pop().unwrap();
        // A v5 file describes each of its streams; the flat fields and the stream languages
        // read the same.
        // A v5 release profile also restricts by air date and excludes tags.
        let (v3, v5) = match tool {
            "get_media_file_details" => (streams_as_languages(v3), streams_as_languages(v5)),
            "get_service_config" => (v3, without_v5_release_profile_fields(v5)),
            _ => (v3, v5),
        };
        assert!(
            v3.to_string().contains("Bluey"),
            "{tool} read nothing: {v3}"
        );
        assert_eq!(v3, v5, "{tool} {args}");
    }
    assert!(!t.v5.requests_to("GET", "/history/season").is_empty());
    assert!(!t.v5.requests_to("GET", "/history/episode").is_empty());
    assert!(t.v3.requests_to("GET", "/history/season").is_empty());
    for fake in [&t.v3, &t.v5] {
        let report = fake.check_answers();
        assert!(report.errors.is_empty(), "{:#?}", report.errors);
        assert!(report.undocumented.is_empty(), "{:#?}", report.undocumented);
    }
}

fn without_v5_release_profile_fields(mut v: Value) -> Value {
    let profiles = &mut v["data"]["config"]["release_profiles"];
    for p in profiles.as_array_mut().into_iter().flatten() {
        let p = p.as_object_mut().unwrap();
        for key in ["airDateRestriction", "airDateGracePeriod", "excludedTags"] {
            assert!(p.remove(key).is_some(), "v5 release profiles carry {key}");
        }
    }
    v
}

/// Each stream reduced to its language.
fn streams_as_languages(mut v: Value) -> Value {
    for file in v["data"]["files"].as_array_mut().into_iter().flatten() {
        let info = &mut file["file"]["media_info"];
        for key in ["audio_streams", "subtitle_streams"] {
            let languages: Vec<Value> = info[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| s["language"].clone())
                .collect();
            info[key] = json!(languages);
        }
    }
    v
}

#[tokio::test]
async fn a_v5_release_search_shows_its_rejections_and_grabs_with_its_search() {
    let t = setup().await;
    let (err, summary, data) = call(
        &t,
        "search_releases",
        bluey(json!({"instance_id": "sonarr5", "season": 1, "episode": 3})),
    )
    .await;
    assert!(!err, "{summary}");
    let rows = data["releases"].as_array().expect("releases");
    let refused = rows
        .iter()
        .find(|r| r["title"] == "Bluey.S01E03.720p.HDTV")
        .expect("the refused release");
    assert_eq!(refused["accepted"], false);
    assert_eq!(
        refused["rejections"],
        json!(["Quality HDTV-720p is not wanted in profile"])
    );
    let taken = rows
        .iter()
        .find(|r| r["title"] == "Bluey.S01E03.1080p.WEB-DL")
        .expect("the accepted release");
    assert_eq!(taken["accepted"], true);
    assert_eq!(taken["custom_format_score"], 25);
    let (err, summary, _) = call(
        &t,
        "grab_release",
        bluey(json!({"instance_id": "sonarr5", "season": 1, "episode": 3,
            "release_ref": taken["release_ref"], "indexer_id": taken["indexer_id"]})),
    )
    .await;
    assert!(!err, "{summary}");
    let grabs = t.v5.grabs();
    assert_eq!(
        grabs.last().unwrap()["guid"],
        "https://idx/details/1?apikey=idx-secret-1"
    );
    let posted = t.v5.requests_to("POST", "/release");
    let episode = posted[0].body["searchInfo"]["episodeId"].clone();
    assert!(episode.as_i64().is_some(), "{}", posted[0].body);
}

#[tokio::test]
async fn a_v5_episode_file_shows_each_stream() {
    let t = setup().await;
    let file = t.v5.insert(
        Resource::EpisodeFile,
        json!({"seriesId": 1, "seasonNumber": 2, "relativePath": "Season 2/Bluey.S02E02.mkv", "size": 900,
            "mediaInfo": {"id": 0, "videoBitDepth": 10, "videoBitrate": 0, "videoCodec": "x265", "videoFps": 25.0,
                "resolution": "1920x1080", "runTime": "7:00", "scanType": "Progressive",
                "audioStreams": [
                    {"language": "eng", "codec": "EAC3", "channels": 5.1, "bitrate": 640000, "title": "Main"},
                    {"language": "ger", "codec": "AAC", "channels": 2.0, "bitrate": 128000, "title": null}],
                "subtitleStreams": [
                    {"language": "eng", "format": "SubRip", "title": "SDH", "forced": false, "hearingImpaired": true},
                    {"language": "spa", "format": "PGS", "title": null, "forced": true, "hearingImpaired": false}]}}),
    );
    t.v5.update(
        Resource::Episode,
        5,
        json!({"hasFile": true, "episodeFileId": file}),
    );
    let (err, summary, data) = call(
        &t,
        "get_media_file_details",
        bluey(json!({"instance_id": "sonarr5", "season": 2, "episode": 2})),
    )
    .await;
    assert!(!err, "{summary}");
    let info = &data["files"][0]["file"]["media_info"];
    assert_eq!(info["audio_codec"], "EAC3", "{data}");
    assert_eq!(info["audio_languages"], "eng/ger");
    assert_eq!(info["subtitles"], "eng/spa");
    assert_eq!(info["audio_streams"][1]["codec"], "AAC");
    assert_eq!(info["audio_streams"][1]["channels"], 2.0);
    assert_eq!(info["subtitle_streams"][0]["hearing_impaired"], true);
    assert_eq!(info["subtitle_streams"][1]["forced"], true);
    assert_eq!(info["subtitle_streams"][1]["format"], "PGS");
    let report = t.v5.check_answers();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
}

#[tokio::test]
async fn v5_history_of_one_season_and_one_episode_holds_only_theirs() {
    let t = setup().await;
    let (err, summary, data) = call(
        &t,
        "get_history",
        bluey(json!({"instance_id": "sonarr5", "season": 2})),
    )
    .await;
    assert!(!err, "{summary}");
    let titles = |data: &Value| -> Vec<String> {
        data["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["source_title"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let season = titles(&data);
    assert!(!season.is_empty(), "{data}");
    assert!(season.iter().all(|t| t.contains("S02E01")), "{season:?}");
    assert!(summary.contains("season 2"), "{summary}");
    let (err, summary, data) = call(
        &t,
        "get_history",
        bluey(json!({"instance_id": "sonarr5", "season": 1, "episode": 2})),
    )
    .await;
    assert!(!err, "{summary}");
    let episode = titles(&data);
    assert_eq!(episode, ["Bluey.S01E02.1080p.WEB"], "{data}");
    let asked = t.v5.requests_to("GET", "/history/episode");
    assert_eq!(asked.len(), 1);
}

#[tokio::test]
async fn a_season_or_episode_the_series_lacks_is_refused_with_the_valid_ones() {
    let t = setup().await;
    let (err, summary, _) = call(
        &t,
        "get_history",
        bluey(json!({"instance_id": "sonarr5", "season": 4})),
    )
    .await;
    assert!(err);
    assert!(summary.contains("its seasons: 1, 2"), "{summary}");
    let (err, summary, _) = call(
        &t,
        "get_history",
        bluey(json!({"instance_id": "sonarr5", "season": 2, "episode": 9})),
    )
    .await;
    assert!(err);
    assert!(summary.contains("its episodes: 1, 2"), "{summary}");
    let (err, summary, _) = call(&t, "get_history", json!({"season": 1})).await;
    assert!(err && summary.contains("media_type tv"), "{summary}");
}

#[tokio::test]
async fn a_failing_v5_instance_is_named_and_the_v3_one_keeps_answering() {
    let t = setup().await;
    let (err, _, _) = call(
        &t,
        "get_library",
        json!({"instance_id": "sonarr5", "media_type": "tv"}),
    )
    .await;
    assert!(!err);
    t.v5.set_mode(Mode::Unavailable).await;
    let (err, summary, _) = call(
        &t,
        "search_releases",
        bluey(json!({"instance_id": "sonarr5", "season": 1, "episode": 3})),
    )
    .await;
    assert!(err);
    assert!(summary.contains("library instance sonarr5"), "{summary}");
    assert!(summary.contains("/api/v5/"), "{summary}");
    let (err, summary, data) = call(&t, "get_queue", json!({})).await;
    assert!(!err, "{summary}");
    assert!(data.to_string().contains("sonarr5"), "{data}");
    t.v5.set_mode(Mode::Refusing).await;
    let (err, summary, _) = call(
        &t,
        "get_history",
        bluey(json!({"instance_id": "sonarr5", "season": 1})),
    )
    .await;
    assert!(err && summary.contains("sonarr5"), "{summary}");
}
