//! The fakes answer in the vendors' documented shapes, including their refusals.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::{MusicBrainzFake, TmdbFake};

/// A bare client: no User-Agent, as reqwest sends by default.
fn bare() -> reqwest::Client {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    reqwest::Client::new()
}

async fn get(url: &str) -> (u16, Value) {
    let response = bare().get(url).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn tmdb_refuses_a_missing_or_wrong_key_with_its_401_body() {
    let fake = TmdbFake::start().await;
    let expected = json!({ "status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false });
    assert_eq!(
        get(&format!("{}/search/movie?query=heat", fake.base_url())).await,
        (401, expected.clone())
    );
    assert_eq!(
        get(&format!(
            "{}/search/movie?query=heat&api_key=nope",
            fake.base_url()
        ))
        .await,
        (401, expected)
    );
    assert_eq!(
        fake.requests().len(),
        2,
        "refused requests are recorded too"
    );
}

#[tokio::test]
async fn tmdb_pages_and_details_have_tmdb_fields() {
    let fake = TmdbFake::start().await;
    let key = TmdbFake::API_KEY;
    let (status, page) = get(&format!(
        "{}/search/movie?query=matrix&api_key={key}",
        fake.base_url()
    ))
    .await;
    assert_eq!(status, 200);
    for field in ["page", "results", "total_pages", "total_results"] {
        assert!(page.get(field).is_some(), "{field} in {page}");
    }
    assert_eq!(page["results"][0]["genre_ids"], json!([28, 878]));
    let url = format!(
        "{}/movie/603?append_to_response=release_dates,credits&api_key={key}",
        fake.base_url()
    );
    let (_, movie) = get(&url).await;
    assert_eq!(movie["release_dates"]["results"][0]["iso_3166_1"], "US");
    assert_eq!(
        movie["release_dates"]["results"][0]["release_dates"][1]["certification"],
        "R"
    );
    assert_eq!(movie["credits"]["crew"][0]["job"], "Director");
    let (_, tv) = get(&format!(
        "{}/tv/1399?append_to_response=content_ratings&api_key={key}",
        fake.base_url()
    ))
    .await;
    assert_eq!(tv["content_ratings"]["results"][0]["rating"], "TV-MA");
    let (status, missing) = get(&format!("{}/movie/1?api_key={key}", fake.base_url())).await;
    assert_eq!((status, missing["status_code"].clone()), (404, json!(34)));
}

#[tokio::test]
async fn musicbrainz_refuses_no_user_agent_and_answers_503_to_a_burst() {
    let fake = MusicBrainzFake::start().await;
    let url = format!("{}/artist?query=abba&fmt=json", fake.base_url());
    let (status, body) = get(&url).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = get(&url).await;
    assert_eq!(status, 503);
    assert_eq!(body["error"], test_support::MUSICBRAINZ_RATE_LIMIT_MESSAGE);
}

#[tokio::test]
async fn musicbrainz_searches_carry_count_offset_and_scores() {
    let fake = MusicBrainzFake::start().await;
    // httpx installs the TLS crypto provider every reqwest client needs; do not rely on test order.
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let client = reqwest::Client::builder()
        .user_agent("fake-test/1 ( test@example.org )")
        .build()
        .unwrap();
    let url = format!("{}/release-group?query=radiohead&fmt=json", fake.base_url());
    let body: Value = client.get(url).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        (body["count"].clone(), body["offset"].clone()),
        (json!(2), json!(0))
    );
    let first = &body["release-groups"][0];
    assert_eq!(
        (first["score"].clone(), first["primary-type"].clone()),
        (json!(100), json!("Album"))
    );
    assert_eq!(first["artist-credit"][0]["artist"]["name"], "Radiohead");
}
