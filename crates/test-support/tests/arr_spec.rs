//! Every answer the *arr fakes give in these scenarios matches the vendor's OpenAPI document
//! (`../shared/specs/*.openapi.json`; set `MARQUEE_SHARED` when the shared folder is elsewhere).

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource, Verdict, spec::Spec};

async fn call(fake: &FakeArr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let url = format!("{}{}{path}", fake.url(), fake.api_prefix());
    let mut request = reqwest::Client::new()
        .request(method.parse().unwrap(), url)
        .header("X-Api-Key", fake.api_key());
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Reads the common resources and asserts every answer was documented and matched.
async fn read_common_and_check(fake: &FakeArr, reads: &[&str], minimum: usize) {
    let common = [
        "/system/status",
        "/qualityprofile",
        "/qualityprofile/1",
        "/customformat",
        "/rootfolder",
        "/tag",
        "/health",
        "/diskspace",
        "/indexer",
        "/downloadclient",
        "/delayprofile",
        "/remotepathmapping",
        "/queue?page=1&pageSize=20&includeUnknownMovieItems=true",
        "/queue/details",
        "/queue/status",
        "/history?page=1&pageSize=50",
        "/blocklist",
        "/command",
        "/command/1",
        "/calendar?start=2026-01-01&end=2027-12-31&unmonitored=true",
    ];
    for path in common.iter().chain(reads) {
        let (status, _) = call(fake, "GET", path, None).await;
        assert!((200..300).contains(&status), "GET {path} answered {status}");
    }
    let report = fake.check_answers();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert!(report.undocumented.is_empty(), "{:#?}", report.undocumented);
    assert!(
        report.checked.len() >= minimum,
        "checked only {:#?}",
        report.checked
    );
}

#[tokio::test]
async fn radarr_answers_match_its_document() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    fake.seed_lookup(Resource::Movie, json!({ "title": "Paddington", "year": 2014, "tmdbId": 116149, "imdbId": "tt1109624", "inCinemas": "2014-11-28T00:00:00Z" }), vec![]);
    let body = json!({ "tmdbId": 116149, "title": "Paddington", "qualityProfileId": 1, "rootFolderPath": "/data/media/movies", "monitored": true, "addOptions": { "searchForMovie": true } });
    assert_eq!(call(&fake, "POST", "/movie", Some(body)).await.0, 201);
    fake.advance(Duration::from_secs(700));
    let other = fake.insert(
        Resource::Movie,
        json!({ "title": "Heat", "tmdbId": 949, "year": 1995 }),
    );
    fake.seed_release(other, json!({ "title": "Heat.1995.2160p.UHD.BluRay-GRP", "rejections": ["Not an upgrade"], "approved": false, "rejected": true }));
    fake.seed_release(
        other,
        json!({ "title": "Heat.1995.1080p.BluRay-GRP", "guid": "g-1" }),
    );
    let (_, releases) = call(&fake, "GET", &format!("/release?movieId={other}"), None).await;
    assert_eq!(releases.as_array().unwrap().len(), 2);
    assert_eq!(
        call(
            &fake,
            "POST",
            "/release",
            Some(json!({ "guid": "g-1", "indexerId": 1 }))
        )
        .await
        .0,
        200
    );
    for verdict in Verdict::ALL {
        fake.seed_stuck(other, verdict);
    }
    call(
        &fake,
        "POST",
        "/command",
        Some(json!({ "name": "RescanMovie", "movieId": other })),
    )
    .await;
    let queue = fake.all(Resource::Queue);
    let download = queue[0]["downloadId"].as_str().unwrap().to_string();
    let reads = [
        "/movie".to_string(),
        "/movie/1".into(),
        "/movie?tmdbId=949".into(),
        "/movie/lookup?term=paddington".into(),
        "/movie/lookup/tmdb?tmdbId=116149".into(),
        "/movie/lookup/imdb?imdbId=tt1109624".into(),
        "/moviefile?movieId=1".into(),
        "/moviefile/1".into(),
        "/history/movie?movieId=1".into(),
        "/queue?includeMovie=true&pageSize=50".into(),
        format!("/manualimport?downloadId={download}"),
        "/manualimport?folder=/downloads".into(),
        "/history?eventType=3&page=1".into(),
    ];
    let reads: Vec<&str> = reads.iter().map(String::as_str).collect();
    read_common_and_check(&fake, &reads, 30).await;
}

/// A series with two seasons added and searched, a season's releases grabbed, stuck downloads of
/// every verdict, a monitoring change and a season search.
async fn sonarr_scenario(fake: &FakeArr) {
    let episodes = (1..=2)
        .flat_map(|s| {
            (1..=3).map(move |e| {
                json!({ "seasonNumber": s, "episodeNumber": e, "title": format!("Episode {e}"),
            "airDate": "2026-11-30", "airDateUtc": "2026-11-30T20:00:00Z" })
            })
        })
        .collect();
    fake.seed_lookup(
        Resource::Series,
        json!({ "title": "Bluey", "tvdbId": 353546, "year": 2018, "network": "ABC Kids" }),
        episodes,
    );
    let body = json!({ "tvdbId": 353546, "title": "Bluey", "qualityProfileId": 1, "rootFolderPath": "/data/media/tv", "monitored": true,
        "seasons": [{ "seasonNumber": 1, "monitored": true }, { "seasonNumber": 2, "monitored": false }],
        "addOptions": { "monitor": "all", "searchForMissingEpisodes": true } });
    assert_eq!(call(fake, "POST", "/series", Some(body)).await.0, 201);
    fake.advance(Duration::from_secs(700));
    fake.seed_release(
        4,
        json!({ "title": "Bluey.S02E01.1080p.WEB-DL", "guid": "g-s" }),
    );
    call(fake, "GET", "/release?seriesId=1&seasonNumber=2", None).await;
    call(
        fake,
        "POST",
        "/release",
        Some(json!({ "guid": "g-s", "indexerId": 1 })),
    )
    .await;
    for verdict in Verdict::ALL {
        fake.seed_stuck(5, verdict);
    }
    call(
        fake,
        "PUT",
        "/episode/monitor",
        Some(json!({ "episodeIds": [4], "monitored": true })),
    )
    .await;
    call(
        fake,
        "POST",
        "/command",
        Some(json!({ "name": "SeasonSearch", "seriesId": 1, "seasonNumber": 2 })),
    )
    .await;
}

#[tokio::test]
async fn sonarr_answers_match_its_document() {
    let fake = FakeArr::start(ArrKind::Sonarr).await;
    sonarr_scenario(&fake).await;
    let reads = [
        "/series",
        "/series/1",
        "/series/lookup?term=tvdb:353546",
        "/episode?seriesId=1",
        "/episode?seriesId=1&seasonNumber=1",
        "/episode/1",
        "/episodefile?seriesId=1",
        "/episodefile/1",
        "/history/series?seriesId=1",
        "/queue?includeSeries=true&includeEpisode=true&pageSize=50",
        "/release?episodeId=6",
        "/calendar?start=2026-11-01&end=2026-12-31&includeSeries=true",
        "/manualimport?folder=/downloads",
    ];
    read_common_and_check(&fake, &reads, 30).await;
    assert_eq!(
        call(
            &fake,
            "GET",
            "/history/season?seriesId=1&seasonNumber=1",
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn sonarr_v5_answers_match_its_own_document() {
    let fake = FakeArr::start_sonarr_v5().await;
    sonarr_scenario(&fake).await;
    fake.seed_release(
        5,
        json!({ "title": "Bluey.S02E02.720p.HDTV", "guid": "g-r", "approved": false, "rejected": true,
            "rejections": ["Quality HDTV-720p is not wanted in profile"] }),
    );
    fake.seed_manual_import(
        6,
        "/downloads/Bluey.S02E03/b.mkv",
        9,
        "dl-v5",
        &["Not an upgrade"],
    );
    let (_, grab) = call(
        &fake,
        "POST",
        "/release",
        Some(json!({ "guid": "g-s", "indexerId": 1, "searchInfo": { "seriesId": 1, "seasonNumber": 2 } })),
    )
    .await;
    assert_eq!(grab, json!({ "guid": "g-s", "indexerId": 1 }));
    let reads = [
        "/series",
        "/series/1",
        "/series/lookup?term=tvdb:353546",
        "/episode?seriesId=1&seasonNumber=1",
        "/episodefile?seriesId=1",
        "/episodefile/1",
        "/history/series?seriesId=1",
        "/history/season?seriesId=1&seasonNumber=2",
        "/history/episode?episodeId=4",
        "/queue?includeSubresources=series&includeSubresources=episodes&pageSize=50",
        "/release?episodeId=5",
        "/calendar?start=2026-11-01&end=2026-12-31&includeSubresources=series",
        "/manualimport?downloadIds=dl-v5",
    ];
    read_common_and_check(&fake, &reads, 30).await;
    let (_, status) = call(&fake, "GET", "/system/status", None).await;
    assert!(status["version"].as_str().unwrap().starts_with("5."));
    let (_, releases) = call(&fake, "GET", "/release?episodeId=5", None).await;
    assert_eq!(
        releases[0]["decision"]["rejections"][0]["reason"],
        "qualityNotWanted"
    );
    let (_, queue) = call(&fake, "GET", "/queue?pageSize=50", None).await;
    assert!(queue["records"][0]["episodeIds"].is_array());
    let (_, files) = call(&fake, "GET", "/episodefile?seriesId=1", None).await;
    assert!(files[0]["mediaInfo"]["audioStreams"].is_array());
}

#[tokio::test]
async fn lidarr_answers_match_its_document() {
    let fake = FakeArr::start(ArrKind::Lidarr).await;
    let albums = vec![
        json!({ "title": "Abbey Road", "foreignAlbumId": "abbey", "releaseDate": "1969-09-26T00:00:00Z" }),
        json!({ "title": "Revolver", "foreignAlbumId": "revolver", "releaseDate": "1966-08-05T00:00:00Z" }),
    ];
    fake.seed_lookup(
        Resource::Artist,
        json!({ "artistName": "The Beatles", "foreignArtistId": "b10bbbfc" }),
        albums,
    );
    fake.seed_lookup(
        Resource::Album,
        json!({ "title": "Abbey Road", "foreignAlbumId": "abbey" }),
        vec![],
    );
    let body = json!({ "foreignAlbumId": "abbey", "title": "Abbey Road", "monitored": true,
        "artist": { "foreignArtistId": "b10bbbfc", "artistName": "The Beatles", "qualityProfileId": 1, "metadataProfileId": 1,
            "rootFolderPath": "/data/media/music", "monitored": true, "addOptions": { "monitor": "none" } },
        "addOptions": { "searchForNewAlbum": true } });
    let (status, album) = call(&fake, "POST", "/album", Some(body)).await;
    assert_eq!(status, 201, "{album}");
    fake.advance(Duration::from_secs(700));
    fake.seed_release(
        2,
        json!({ "title": "The Beatles - Revolver (1966) [FLAC]" }),
    );
    call(&fake, "GET", "/release?albumId=2", None).await;
    fake.seed_stuck(2, Verdict::SampleFile);
    let reads = [
        "/artist",
        "/artist/1",
        "/artist/lookup?term=beatles",
        "/album?artistId=1",
        "/album/1",
        "/album/lookup?term=abbey",
        "/trackfile?albumId=1",
        "/history/artist?artistId=1",
        "/queue?includeArtist=true&includeAlbum=true",
        "/metadataprofile",
        "/manualimport?folder=/downloads",
    ];
    read_common_and_check(&fake, &reads, 25).await;
}

#[tokio::test]
async fn readarr_answers_match_its_document() {
    let fake = FakeArr::start(ArrKind::Readarr).await;
    let books = vec![
        json!({ "title": "Dune", "foreignBookId": "dune", "releaseDate": "1965-08-01T00:00:00Z" }),
    ];
    fake.seed_lookup(
        Resource::Author,
        json!({ "authorName": "Frank Herbert", "foreignAuthorId": "herbert" }),
        books,
    );
    fake.seed_lookup(
        Resource::Book,
        json!({ "title": "Dune", "foreignBookId": "dune" }),
        vec![],
    );
    let body = json!({ "foreignBookId": "dune", "title": "Dune", "monitored": true,
        "author": { "foreignAuthorId": "herbert", "authorName": "Frank Herbert", "qualityProfileId": 1, "metadataProfileId": 1,
            "rootFolderPath": "/data/media/books", "monitored": true, "addOptions": { "monitor": "none" } },
        "addOptions": { "searchForNewBook": true } });
    let (status, book) = call(&fake, "POST", "/book", Some(body)).await;
    assert_eq!(status, 201, "{book}");
    fake.advance(Duration::from_secs(700));
    fake.seed_release(1, json!({ "title": "Frank Herbert - Dune (epub)" }));
    call(&fake, "GET", "/release?bookId=1", None).await;
    fake.seed_stuck(1, Verdict::StalledDownload);
    let reads = [
        "/author",
        "/author/1",
        "/author/lookup?term=herbert",
        "/book?authorId=1",
        "/book/1",
        "/book/lookup?term=dune",
        "/bookfile?bookId=1",
        "/history/author?authorId=1",
        "/queue?includeAuthor=true&includeBook=true",
        "/metadataprofile",
    ];
    read_common_and_check(&fake, &reads, 25).await;
}

#[test]
fn the_checker_refuses_unknown_fields_wrong_types_nulls_and_enum_values() {
    let spec = Spec::load(ArrKind::Radarr);
    let check = |body: Value| spec.check("GET", "/api/v3/movie/1", 200, &body);
    assert!(check(json!({ "id": 1, "title": "Heat", "status": "released" })).is_ok());
    let refusals = [
        check(json!({ "id": 1, "secret": "x" })),
        check(json!({ "id": "1" })),
        check(json!({ "id": 1, "monitored": null })),
        check(json!({ "id": 1, "status": "available" })),
        check(json!({ "id": 1, "tags": ["kids"] })),
    ];
    let errors: Vec<String> = refusals.into_iter().map(|r| r.unwrap_err()).collect();
    expect_test::expect![[r#"
        [
            "GET /api/v3/movie/{id}: $: MovieResource has no property \"secret\"",
            "GET /api/v3/movie/{id}: $.id: \"1\" is not an integer",
            "GET /api/v3/movie/{id}: $.monitored: null where the value is not nullable",
            "GET /api/v3/movie/{id}: $.status: \"available\" is not one of MovieStatusType",
            "GET /api/v3/movie/{id}: $.tags[0]: \"kids\" is not an integer",
        ]
    "#]]
    .assert_debug_eq(&errors);
}
