//! The *arr fakes keep state like the services: adds record profile, folder and monitoring, a
//! search moves through the queue to an imported file on the fake clock, the API key is checked.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Mode, Resource};

fn client() -> reqwest::Client {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    reqwest::Client::new()
}

async fn call(fake: &FakeArr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let url = format!("{}{}{path}", fake.url(), fake.kind().api_prefix());
    let mut request = client()
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

#[tokio::test]
async fn a_request_without_the_key_is_refused_401_and_the_query_key_is_accepted() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let url = format!("{}/api/v3/movie", fake.url());
    let refused = client().get(&url).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let wrong = client()
        .get(&url)
        .header("X-Api-Key", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let by_query = client()
        .get(format!("{url}?apikey={}", fake.api_key()))
        .send()
        .await
        .unwrap();
    assert_eq!(by_query.status().as_u16(), 200);
    assert_eq!(fake.requests().len(), 3, "refused requests are logged too");
}

#[tokio::test]
async fn an_added_movie_is_searched_downloaded_and_imported_on_the_fake_clock() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    fake.seed_lookup(
        Resource::Movie,
        json!({ "title": "Paddington", "year": 2014, "tmdbId": 116149, "certification": "PG" }),
        vec![],
    );
    let (status, movie) = call(
        &fake,
        "POST",
        "/movie",
        Some(
            json!({ "tmdbId": 116149, "title": "Paddington", "qualityProfileId": 2,
            "rootFolderPath": "/data/media/movies", "monitored": true,
            "minimumAvailability": "released", "addOptions": { "searchForMovie": true } }),
        ),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(movie["path"], "/data/media/movies/Paddington (2014)");
    assert_eq!(movie["qualityProfileId"], 2);
    let commands = fake.all(Resource::Command);
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0]["name"], "MoviesSearch");
    assert_eq!(commands[0]["status"], "queued");

    fake.advance(Duration::from_secs(1));
    let (_, command) = call(&fake, "GET", "/command/1", None).await;
    assert_eq!(command["status"], "completed");
    let (_, queue) = call(&fake, "GET", "/queue?page=1&pageSize=50", None).await;
    assert_eq!(queue["totalRecords"], 1);
    let item = &queue["records"][0];
    assert_eq!(
        (
            item["movieId"].clone(),
            item["trackedDownloadState"].clone()
        ),
        (json!(1), json!("downloading"))
    );

    fake.advance(Duration::from_secs(300));
    let (_, queue) = call(&fake, "GET", "/queue", None).await;
    let left = queue["records"][0]["sizeleft"].as_f64().unwrap();
    let size = queue["records"][0]["size"].as_f64().unwrap();
    assert!(left > 0.0 && left < size, "half way: {left} of {size}");
    assert_eq!(
        queue["records"][0]["timeleft"], "00:04:59",
        "started one second into the first tick"
    );

    fake.advance(Duration::from_secs(300));
    let (_, queue) = call(&fake, "GET", "/queue", None).await;
    assert_eq!(queue["records"][0]["trackedDownloadState"], "importPending");

    fake.advance(Duration::from_secs(60));
    let (_, queue) = call(&fake, "GET", "/queue", None).await;
    assert_eq!(queue["totalRecords"], 0);
    let (_, movie) = call(&fake, "GET", "/movie/1", None).await;
    assert_eq!(movie["hasFile"], true);
    assert_eq!(movie["movieFile"]["mediaInfo"]["resolution"], "1920x1080");
    let (_, history) = call(&fake, "GET", "/history/movie?movieId=1", None).await;
    let events: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["eventType"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["downloadFolderImported", "grabbed"]);
}

#[tokio::test]
async fn a_series_add_monitors_exactly_the_chosen_seasons() {
    let fake = FakeArr::start(ArrKind::Sonarr).await;
    let episodes = (1..=3)
        .flat_map(|s| (1..=2).map(move |e| json!({ "seasonNumber": s, "episodeNumber": e, "title": format!("S{s}E{e}") })))
        .collect();
    fake.seed_lookup(
        Resource::Series,
        json!({ "title": "Bluey", "tvdbId": 353546, "year": 2018 }),
        episodes,
    );
    let seasons = json!([{ "seasonNumber": 1, "monitored": false }, { "seasonNumber": 2, "monitored": true }, { "seasonNumber": 3, "monitored": false }]);
    let (status, series) = call(
        &fake,
        "POST",
        "/series",
        Some(json!({ "tvdbId": 353546, "title": "Bluey", "qualityProfileId": 1, "rootFolderPath": "/data/media/tv",
            "monitored": true, "seasons": seasons, "addOptions": { "monitor": "none", "searchForMissingEpisodes": false } })),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(series["seasons"][1]["statistics"]["totalEpisodeCount"], 2);
    let stored = fake.get(Resource::Series, 1).unwrap();
    assert_eq!(stored["seasons"], seasons);
    let (_, episodes) = call(&fake, "GET", "/episode?seriesId=1", None).await;
    assert_eq!(episodes.as_array().unwrap().len(), 6);
    assert!(
        episodes
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["monitored"] == json!(false)),
        "monitor none"
    );

    let (_, episodes) = call(&fake, "GET", "/episode?seriesId=1&seasonNumber=2", None).await;
    assert_eq!(episodes.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_duplicate_add_or_an_unknown_profile_is_refused_with_a_validation_error() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let body = json!({ "tmdbId": 1, "title": "X", "qualityProfileId": 1, "rootFolderPath": "/data/media/movies" });
    assert_eq!(
        call(&fake, "POST", "/movie", Some(body.clone())).await.0,
        201
    );
    let (status, errors) = call(&fake, "POST", "/movie", Some(body)).await;
    assert_eq!(status, 400);
    assert_eq!(
        errors[0]["errorMessage"],
        "This movie has already been added"
    );
    let (status, errors) = call(
        &fake,
        "POST",
        "/movie",
        Some(json!({ "tmdbId": 2, "title": "Y", "qualityProfileId": 9, "rootFolderPath": "/data/media/movies" })),
    )
    .await;
    assert_eq!(
        (status, errors[0]["propertyName"].clone()),
        (400, json!("QualityProfileId"))
    );
}

#[tokio::test]
async fn a_misreported_queue_total_disagrees_with_its_records() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let movie = fake.insert(Resource::Movie, json!({ "title": "Heat", "tmdbId": 949 }));
    fake.start_download(movie, "Heat.1995.1080p", 1000);
    fake.misreport_queue_total(3);
    let (_, queue) = call(&fake, "GET", "/queue?pageSize=100", None).await;
    assert_eq!(
        (
            queue["totalRecords"].clone(),
            queue["records"].as_array().unwrap().len()
        ),
        (json!(4), 1)
    );
}

#[tokio::test]
async fn a_down_fake_answers_503_or_refuses_then_comes_back() {
    let fake = FakeArr::start(ArrKind::Lidarr).await;
    fake.set_mode(Mode::Unavailable).await;
    assert_eq!(call(&fake, "GET", "/artist", None).await.0, 503);
    fake.set_mode(Mode::Refusing).await;
    let url = format!("{}/api/v1/artist", fake.url());
    let error = client().get(&url).send().await.unwrap_err();
    assert!(error.is_connect(), "{error}");
    fake.set_mode(Mode::Up).await;
    assert_eq!(call(&fake, "GET", "/artist", None).await.0, 200);
}

#[tokio::test]
async fn a_blocklisted_release_is_rejected_and_the_new_search_grabs_another() {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    let movie = fake.insert(Resource::Movie, json!({ "title": "Heat", "tmdbId": 949 }));
    fake.seed_release(
        movie,
        json!({ "title": "Heat.1995.Bad-GRP", "guid": "bad" }),
    );
    fake.seed_release(
        movie,
        json!({ "title": "Heat.1995.Good-GRP", "guid": "good" }),
    );
    fake.set_search_finds_releases(false);
    call(
        &fake,
        "POST",
        "/command",
        Some(json!({ "name": "MoviesSearch", "movieIds": [movie] })),
    )
    .await;
    fake.advance(Duration::from_secs(1));
    let queued = fake.all(Resource::Queue);
    assert_eq!(queued[0]["title"], "Heat.1995.Bad-GRP");

    let id = queued[0]["id"].as_i64().unwrap();
    let (status, _) = call(
        &fake,
        "DELETE",
        &format!("/queue/{id}?removeFromClient=true&blocklist=true"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (_, releases) = call(&fake, "GET", &format!("/release?movieId={movie}"), None).await;
    assert_eq!(releases[0]["rejections"], json!(["Release is blocklisted"]));
    assert_eq!(releases[0]["approved"], false);

    fake.advance(Duration::from_secs(1));
    let titles: Vec<Value> = fake
        .all(Resource::Queue)
        .iter()
        .map(|q| q["title"].clone())
        .collect();
    assert_eq!(
        titles,
        [json!("Heat.1995.Good-GRP")],
        "blocklisting searched again"
    );
    let grabbed: Vec<Value> = fake.grabs().iter().map(|g| g["guid"].clone()).collect();
    assert_eq!(grabbed, [json!("bad"), json!("good")]);
}

#[tokio::test]
async fn a_manual_import_command_imports_the_mapped_file_and_clears_the_download() {
    let fake = FakeArr::start(ArrKind::Sonarr).await;
    let series = fake.insert(
        Resource::Series,
        json!({ "title": "Bluey", "tvdbId": 1, "path": "/tv/Bluey" }),
    );
    let episode = fake.insert(
        Resource::Episode,
        json!({ "seriesId": series, "seasonNumber": 1, "episodeNumber": 4 }),
    );
    let queue_id = fake.seed_stuck(episode, test_support::arr::Verdict::WrongEpisodeMapping);
    let download = fake.get(Resource::Queue, queue_id).unwrap()["downloadId"].clone();
    let (_, candidates) = call(
        &fake,
        "GET",
        &format!("/manualimport?downloadId={}", download.as_str().unwrap()),
        None,
    )
    .await;
    let path = candidates[0]["path"].clone();
    let body = json!({ "name": "ManualImport", "importMode": "move",
        "files": [{ "path": path, "seriesId": series, "episodeIds": [episode], "downloadId": download, "quality": candidates[0]["quality"] }] });
    let (status, command) = call(&fake, "POST", "/command", Some(body)).await;
    assert_eq!((status, command["status"].clone()), (201, json!("queued")));
    fake.advance(Duration::from_secs(1));
    assert_eq!(
        fake.get(Resource::Command, 1).unwrap()["status"],
        "completed"
    );
    assert!(fake.get(Resource::Queue, queue_id).is_none());
    assert_eq!(
        fake.get(Resource::Episode, episode).unwrap()["hasFile"],
        true
    );
    let refused = json!({ "name": "ManualImport", "files": [{ "path": "/x.mkv", "seriesId": series, "episodeIds": [99] }] });
    call(&fake, "POST", "/command", Some(refused)).await;
    fake.advance(Duration::from_secs(1));
    assert_eq!(fake.get(Resource::Command, 2).unwrap()["status"], "failed");
}
