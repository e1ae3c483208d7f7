//! The indexer fakes answer in their vendors' shapes: every Prowlarr answer matches Prowlarr's
//! OpenAPI document (`../shared/specs/prowlarr-v1.openapi.json`), and the Torznab feed answers
//! caps, RSS with `torznab:attr` and the credentials error element as Jackett does.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use test_support::indexers::{
    FakeRelease, FeedMode, ProwlarrFake, TorznabFake, prowlarr::FakeIndexer,
};

async fn get(url: &str, key: Option<&str>) -> (u16, String) {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let mut request = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(url);
    if let Some(k) = key {
        request = request.header("X-Api-Key", k);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.text().await.unwrap())
}

fn releases() -> Vec<FakeRelease> {
    let mut a = FakeRelease::torrent(
        "The.Matrix.1999.1080p.BluRay.x264-GRP",
        8_000_000_000,
        40,
        1,
    );
    a.imdb = Some("tt0133093".into());
    a.torrent = Some(b"d4:infod4:name1:xee".to_vec());
    let mut b = FakeRelease::torrent(
        "The.Matrix.1999.2160p.UHD.BluRay.x265-HDR",
        30_000_000_000,
        12,
        2,
    );
    b.imdb = Some("tt0133093".into());
    b.magnet = Some(format!("magnet:?xt=urn:btih:{}", "02".repeat(20)));
    vec![a, b]
}

#[tokio::test]
async fn prowlarr_answers_match_its_document() {
    let mut disabled = FakeIndexer::new(2, "Slowpoke", releases());
    disabled.disabled = true;
    let fake = ProwlarrFake::start(vec![FakeIndexer::new(1, "Alpha", releases()), disabled]).await;
    let key = Some(ProwlarrFake::API_KEY);
    let base = fake.url();
    for path in [
        "/api/v1/system/status",
        "/api/v1/health",
        "/api/v1/indexer",
        "/api/v1/indexerstatus",
        "/api/v1/search?query=matrix&type=search",
        "/api/v1/search?query=%7BImdbId:tt0133093%7D&type=movie&indexerIds=1&limit=100",
        "/api/v1/indexer/1/download?link=0&file=x",
    ] {
        let (status, _) = get(&format!("{base}{path}"), key).await;
        assert_eq!(status, 200, "GET {path}");
    }
    let (status, _) = get(&format!("{base}/api/v1/indexer/1/download?link=1"), key).await;
    assert_eq!(status, 302, "a magnet-only release redirects to its magnet");
    assert_eq!(get(&format!("{base}/api/v1/indexer"), None).await.0, 401);
    let report = fake.check_answers();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert!(report.undocumented.is_empty(), "{:#?}", report.undocumented);
    assert!(report.checked.len() >= 7, "{:#?}", report.checked);
}

#[tokio::test]
async fn the_torznab_feed_answers_in_jacketts_shapes() {
    let fake = TorznabFake::start("Feed", releases()).await;
    let key = TorznabFake::API_KEY;
    let (_, caps) = get(&format!("{}?t=caps&apikey={key}", fake.url()), None).await;
    let caps = adapters_indexers::parse_caps(caps.as_bytes()).unwrap();
    assert_eq!(caps.movie_params, vec!["q", "imdbid"]);
    let (_, rss) = get(
        &format!("{}?t=movie&imdbid=0133093&apikey={key}", fake.url()),
        None,
    )
    .await;
    let rows = adapters_indexers::parse_feed(rss.as_bytes()).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].seeders, Some(40));
    assert!(rows[1].magnet.is_some());
    let (status, wrong) = get(&format!("{}?t=caps&apikey=nope", fake.url()), None).await;
    assert_eq!(status, 200);
    assert!(wrong.contains(r#"<error code="100" description="Incorrect user credentials" />"#));
    fake.set_mode(FeedMode::Html);
    let (_, html) = get(&format!("{}?t=caps&apikey={key}", fake.url()), None).await;
    assert!(html.starts_with("<!DOCTYPE html>"));
}
