//! Every answer the TVDB fake gives to the requests a TVDB v4 client makes (login, search, search
//! by remote id, extended series and movie records, episodes) matches TheTVDB's own document
//! (`../shared/specs/tvdb-v4.openapi.yaml`, YAML, converted to JSON values for the checker; set
//! `MARQUEE_SHARED` when the shared folder is elsewhere); and the fake refuses a wrong key or PIN
//! and a missing, unknown or expired token, and answers 404 for an unknown id.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::{TvdbFake, arr::spec::Spec};

mod yaml;

/// TVDB's document, with its one gap patched: `Links.next` is declared a non-nullable string,
/// but TVDB sends `"next": null` on the last page (as it does `prev` on the first, which the
/// document declares nullable).
fn tvdb_spec() -> Spec {
    let mut doc = yaml::document("tvdb-v4.openapi.yaml");
    assert!(doc["paths"]["/login"].is_object(), "the document converts");
    doc["components"]["schemas"]["Links"]["properties"]["next"]["nullable"] = json!(true);
    Spec::from_value(doc)
}

fn client() -> reqwest::Client {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    reqwest::Client::new()
}

async fn login(fake: &TvdbFake, body: Value) -> (u16, Value) {
    let response = client()
        .post(format!("{}/login", fake.base_url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn token(fake: &TvdbFake) -> String {
    let (status, body) = login(fake, json!({ "apikey": TvdbFake::API_KEY })).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["token"].as_str().unwrap().to_string()
}

async fn get(fake: &TvdbFake, path_and_query: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = client().get(format!("{}{path_and_query}", fake.base_url()));
    if let Some(t) = token {
        request = request.bearer_auth(t);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn tvdb_answers_match_its_document() {
    let fake = TvdbFake::start().await;
    let spec = tvdb_spec();
    let (status, body) = login(
        &fake,
        json!({ "apikey": TvdbFake::API_KEY, "pin": TvdbFake::PIN }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_string();
    assert_eq!(
        fake.requests()[0].json_body().unwrap()["apikey"],
        TvdbFake::API_KEY,
        "the fake records the login body"
    );
    let mut answers = vec![("POST".to_string(), "/login".to_string(), body)];
    let paths = [
        "/search?query=expanse&type=series",
        "/search?q=the&limit=1",
        "/search?query=the%20matrix&type=movie&year=1999",
        "/search/remoteid/tt3230854",
        "/search/remoteid/603",
        "/search/remoteid/tt0000001",
        "/series/280619/extended?meta=translations&short=false",
        "/series/353546/extended",
        "/movies/169/extended?meta=translations",
        "/series/280619/episodes/default?page=0",
        "/series/280619/episodes/default?page=0&season=1&episodeNumber=2",
        "/series/353546/episodes/official?page=0&season=1",
        "/content/ratings",
    ];
    for path in paths {
        let (status, body) = get(&fake, path, Some(token.as_str())).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        let bare = path.split('?').next().unwrap().to_string();
        answers.push(("GET".to_string(), bare, body));
    }
    let mut checked = Vec::new();
    let mut errors = Vec::new();
    for (method, path, body) in &answers {
        match spec.check(method, path, 200, body) {
            Ok(Some(c)) => checked.push(c),
            Ok(None) => errors.push(format!("{method} {path} is not in the document")),
            Err(e) => errors.push(e),
        }
    }
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(checked.len(), answers.len(), "{checked:#?}");

    let body = |i: usize| &answers[i + 1].2;
    // Search results: ids and years as strings, remote ids as RemoteID objects, TVDB's links.
    let expanse = &body(0)["data"][0];
    assert_eq!(expanse["tvdb_id"], "280619");
    assert_eq!(expanse["objectID"], "series-280619");
    assert_eq!(expanse["year"], "2015");
    assert_eq!(
        expanse["remote_ids"][0],
        json!({ "id": "tt3230854", "type": 2, "sourceName": "IMDB" })
    );
    assert_eq!(body(0)["links"]["total_items"], 1);
    assert_eq!(body(1)["data"].as_array().unwrap().len(), 1);
    assert_eq!(body(1)["links"]["total_items"], 2);
    assert_eq!(body(1)["links"]["prev"], Value::Null);
    assert!(
        body(1)["links"]["next"]
            .as_str()
            .unwrap()
            .contains("offset=1"),
        "{}",
        body(1)["links"]
    );
    assert_eq!(body(2)["data"][0]["director"], "Lana Wachowski");
    // Remote ids: an IMDb id finds the series, a TMDB id the movie, an unknown one nothing.
    assert_eq!(body(3)["data"][0]["series"]["id"], 280619);
    assert_eq!(body(4)["data"][0]["movie"]["id"], 169);
    assert_eq!(body(5)["data"], json!([]));
    // The extended series: official seasons 1 and 2 besides the specials and a DVD-order season.
    let series = &body(6)["data"];
    let official: Vec<&Value> = series["seasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["type"]["type"] == "official" && s["number"] != 0)
        .collect();
    assert_eq!(official.len(), 2);
    assert_eq!(series["seasons"].as_array().unwrap().len(), 4);
    assert_eq!(series["contentRatings"][0]["name"], "TV-14");
    assert_eq!(
        series["artworks"][0]["image"],
        "https://artworks.thetvdb.com/banners/fanart/original/280619-1.jpg"
    );
    let actors = series["characters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["peopleType"] == "Actor")
        .count();
    assert_eq!(actors, 2);
    assert_eq!(body(8)["data"]["first_release"]["date"], "1999-03-31");
    assert_eq!(body(8)["data"]["runtime"], 136);
    // Episodes: all three of The Expanse, then one by season and number.
    assert_eq!(body(9)["data"]["episodes"].as_array().unwrap().len(), 3);
    let one = body(10)["data"]["episodes"].as_array().unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["name"], "The Big Empty");
    assert_eq!(body(11)["data"]["episodes"][0]["name"], "Magic Xylophone");
}

#[tokio::test]
async fn tvdb_refuses_a_wrong_key_or_pin_and_a_missing_unknown_or_expired_token() {
    let fake = TvdbFake::start().await;
    let invalid = json!({ "status": "failure", "message": "InvalidAPIKey", "data": null });
    assert_eq!(
        login(&fake, json!({ "apikey": "nope" })).await,
        (401, invalid.clone())
    );
    assert_eq!(
        login(&fake, json!({ "apikey": TvdbFake::API_KEY, "pin": "0000" })).await,
        (401, invalid)
    );
    let unauthorized = json!({ "status": "failure", "message": "Unauthorized", "data": null });
    let path = "/series/280619/extended";
    assert_eq!(get(&fake, path, None).await, (401, unauthorized.clone()));
    assert_eq!(
        get(&fake, path, Some("made-up")).await,
        (401, unauthorized.clone())
    );
    let first = token(&fake).await;
    assert_eq!(get(&fake, path, Some(first.as_str())).await.0, 200);
    fake.expire_tokens();
    assert_eq!(
        get(&fake, path, Some(first.as_str())).await,
        (401, unauthorized)
    );
    let second = token(&fake).await;
    assert_ne!(first, second, "each login issues its own token");
    assert_eq!(get(&fake, path, Some(second.as_str())).await.0, 200);
    assert_eq!(fake.logins(), 2);
}

#[tokio::test]
async fn tvdb_answers_404_for_an_unknown_id() {
    let fake = TvdbFake::start().await;
    let token = token(&fake).await;
    for path in [
        "/series/999999/extended",
        "/movies/999999/extended",
        "/movies/280619/extended",
        "/series/999999/episodes/default?page=0",
    ] {
        let (status, body) = get(&fake, path, Some(token.as_str())).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_eq!(body["status"], "failure", "{path}");
        assert_eq!(body["data"], Value::Null, "{path}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .starts_with("NotFoundException"),
            "{path}: {body}"
        );
    }
}
