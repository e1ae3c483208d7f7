//! The indexers family through the core, against the Prowlarr and Torznab contract fakes on
//! 127.0.0.1: a search by a builtin-catalogue identity with a pattern and a resolution filter
//! merges both instances' rows; a failing indexer (HTML, broken XML, 401, the credentials
//! error element, too slow) is named in a warning while the others answer; no key, passkey,
//! download link or GUID reaches an answer; invalid patterns are refused with their position;
//! `list_indexers` shows Prowlarr's indexers with their health and a feed with its caps.

#![allow(clippy::unwrap_used)]

use std::{sync::Arc, time::Duration};

use domain::{Capability, InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::indexers::{
    FakeRelease, FeedMode, ProwlarrFake, TorznabFake, prowlarr::FakeIndexer,
};
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

struct World {
    app: App,
    owner: Caller,
    kid: Caller,
    reader: Caller,
    prowlarr: ProwlarrFake,
    feeds: Vec<TorznabFake>,
    _dir: tempfile::TempDir,
}

fn spec(id: &str, kind: InstanceKind, url: Option<&str>, key: Option<&str>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| u.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: key.map(|k| Secret::new(k.to_string())),
        default: false,
    }
}

fn matrix(title: &str, size: u64, seeders: u32, n: u8) -> FakeRelease {
    let mut r = FakeRelease::torrent(title, size, seeders, n);
    r.imdb = Some("tt0133093".into());
    r
}

/// The Matrix releases: the same 1080p torrent on both instances (one hash), a 2160p, a 720p,
/// a usenet copy, and a row tagged as another title.
fn prowlarr_releases() -> Vec<FakeRelease> {
    vec![
        matrix(
            "The.Matrix.1999.1080p.BluRay.x264-GRP",
            8_000_000_000,
            40,
            1,
        ),
        matrix(
            "The.Matrix.1999.2160p.UHD.BluRay.x265-HDR",
            30_000_000_000,
            12,
            2,
        ),
        matrix("The.Matrix.1999.720p.WEB.h264-SMALL", 2_000_000_000, 90, 3),
    ]
}

fn feed_releases() -> Vec<FakeRelease> {
    let mut usenet = matrix("The.Matrix.1999.1080p.BluRay.x264-NZB", 7_000_000_000, 0, 4);
    usenet.usenet = true;
    usenet.info_hash = None;
    let mut wrong = matrix(
        "The.Matrix.Reloaded.2003.1080p.BluRay.x264-GRP",
        9_000_000_000,
        55,
        5,
    );
    wrong.imdb = Some("tt0133093".into());
    let mut described = matrix("The.Matrix.1999.1080p.REMUX.AVC-FLT", 25_000_000_000, 7, 6);
    described.description =
        Some("Remux with Dolby Atmos, see http://t.invalid/x?passkey=DESCPASS".into());
    vec![
        matrix(
            "The.Matrix.1999.1080p.BluRay.x264-GRP",
            8_000_000_000,
            33,
            1,
        ),
        usenet,
        wrong,
        described,
    ]
}

async fn world(feed_modes: &[FeedMode], timeout: Option<Duration>) -> World {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = FakeIndexer::new(2, "Bravo", vec![]);
    slow.disabled = true;
    let prowlarr = ProwlarrFake::start(vec![
        FakeIndexer::new(1, "Alpha", prowlarr_releases()),
        slow,
    ])
    .await;
    let mut feeds = Vec::new();
    let mut list = vec![
        spec("builtin", InstanceKind::Builtin, None, None),
        spec(
            "prowlarr",
            InstanceKind::Prowlarr,
            Some(prowlarr.url()),
            Some(ProwlarrFake::API_KEY),
        ),
    ];
    let mut timeouts = Vec::new();
    for (n, mode) in feed_modes.iter().enumerate() {
        let feed = TorznabFake::start(&format!("Feed{n}"), feed_releases()).await;
        feed.set_mode(mode.clone());
        let id = format!("feed{n}");
        list.push(spec(
            &id,
            InstanceKind::Torznab,
            Some(&feed.url()),
            Some(TorznabFake::API_KEY),
        ));
        if let Some(t) = timeout {
            timeouts.push((id, t));
        }
        feeds.push(feed);
    }
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let kid = store.add_person("kid", Role::Kid).await.unwrap();
    store
        .create_grant(
            "kid-with-search",
            &store::GrantSpec {
                capabilities: [Capability::Discover, Capability::IndexersSearch].into(),
                ..store::GrantSpec::default()
            },
        )
        .await
        .unwrap();
    let kid_key = store
        .create_key(kid.id, "kid-with-search", None, None)
        .await
        .unwrap();
    let reader = store.add_person("reader", Role::User).await.unwrap();
    let reader_key = store
        .create_key(reader.id, "reader", None, None)
        .await
        .unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap().with_timeouts(timeouts)),
    );
    let who = |key: String| {
        let app = &app;
        async move { app.authenticate(&key).await.unwrap().unwrap() }
    };
    World {
        owner: who(owner_key.secret.expose().to_owned()).await,
        kid: who(kid_key.secret.expose().to_owned()).await,
        reader: who(reader_key.secret.expose().to_owned()).await,
        app,
        prowlarr,
        feeds,
        _dir: dir,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Result<Output, String> {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => Ok(out),
        Called::Done(Err(e)) => Err(e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

/// Everything a person could read of an answer.
fn shown(out: &Output) -> String {
    format!("{} {} {:?}", out.summary, out.data(), out.warnings)
}

fn assert_no_secrets(text: &str) {
    for secret in [
        ProwlarrFake::API_KEY,
        TorznabFake::API_KEY,
        TorznabFake::PASSKEY,
        "GUIDPASS",
        "DESCPASS",
        "/dl/",
        "/download",
        "magnet:",
        "apikey",
        "/details/",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

#[tokio::test]
async fn a_search_by_builtin_identity_with_a_pattern_and_a_resolution_merges_both_instances() {
    let w = world(&[FeedMode::Up], None).await;
    let out = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "resolution": "1080p", "title_pattern": "bluray|remux" }),
    )
    .await
    .unwrap();
    let d = out.data();
    assert_no_secrets(&shown(&out));
    assert_eq!(d["searched_for"], "The Matrix (1999)", "{d}");
    let rows = d["releases"].as_array().unwrap();
    let titles: Vec<&str> = rows.iter().map(|r| r["title"].as_str().unwrap()).collect();
    // 1080p and matching the pattern only: the 2160p, the 720p (WEB) are filtered out.
    assert_eq!(
        titles,
        [
            "The.Matrix.1999.1080p.BluRay.x264-GRP",
            "The.Matrix.1999.1080p.REMUX.AVC-FLT",
            "The.Matrix.1999.1080p.BluRay.x264-NZB",
            "The.Matrix.Reloaded.2003.1080p.BluRay.x264-GRP",
        ],
        "{d}"
    );
    let grp = &rows[0];
    assert_eq!(grp["indexer"], "prowlarr/1", "the better-seeded copy stays");
    assert_eq!(grp["also_on"], json!(["feed0"]));
    assert_eq!(d["merged"], 1);
    assert_eq!(grp["resolution"], "1080p");
    assert_eq!(grp["source"], "Blu-ray");
    assert_eq!(grp["video_codec"], "H.264");
    assert_eq!(grp["release_group"], "GRP");
    assert_eq!(grp["matches_identity"], true);
    assert!(
        grp["release_ref"]
            .as_str()
            .unwrap()
            .starts_with("idx:prowlarr:")
    );
    let usenet = &rows[2];
    assert_eq!(usenet["protocol"], "usenet");
    assert_eq!(usenet["grabbable"], false);
    assert_eq!(usenet["release_ref"], Value::Null);
    let wrong = &rows[3];
    assert_eq!(wrong["matches_identity"], false);
    assert!(
        wrong["mismatch"]
            .as_str()
            .unwrap()
            .contains("Matrix Reloaded"),
        "{wrong}"
    );
    // Searched by id: Prowlarr got the identity token, the feed t=movie&imdbid.
    let searches: Vec<_> = w
        .prowlarr
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/search")
        .collect();
    assert_eq!(
        searches.len(),
        2,
        "each enabled Prowlarr indexer is asked alone"
    );
    assert!(
        searches
            .iter()
            .all(|r| r.param("query") == Some("{ImdbId:tt0133093}"))
    );
    let feed = w.feeds[0].requests();
    let asked = feed.iter().find(|r| r.param("t") == Some("movie")).unwrap();
    assert_eq!(asked.param("imdbid"), Some("0133093"));
    // The content pattern reads descriptions too.
    let out = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix", "content_pattern": "atmos" }),
    )
    .await
    .unwrap();
    let titles: Vec<String> = out.data()["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(titles, ["The.Matrix.1999.1080p.REMUX.AVC-FLT"]);
    assert_eq!(out.data()["releases"][0]["matches_identity"], Value::Null);
}

/// A feed is asked as its caps allow: by imdbid where its movie search takes one, by title
/// where it takes only text, and with a plain search where it offers no movie search at all;
/// the caps are read once, not before every search.
#[tokio::test]
async fn feeds_are_searched_by_what_their_caps_offer() {
    let w = world(&[FeedMode::Up, FeedMode::Up, FeedMode::Up], None).await;
    w.feeds[1].set_searching(Some("q"), Some("q,season,ep"));
    w.feeds[2].set_searching(None, Some("q"));
    let search = json!({ "media_source": "builtin", "media_id": "tt0133093", "indexers": ["feed0", "feed1", "feed2"] });
    for _ in 0..2 {
        let out = call(&w.app, &w.owner, "search_indexers", search.clone())
            .await
            .unwrap();
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        for asked in out.data()["indexers"].as_array().unwrap() {
            assert!(asked["rows"].as_u64().unwrap() >= 3, "{asked}");
        }
    }
    let searches = |n: usize| -> Vec<test_support::RecordedRequest> {
        w.feeds[n]
            .requests()
            .into_iter()
            .filter(|r| r.param("t") != Some("caps"))
            .collect()
    };
    for n in 0..3 {
        let caps = w.feeds[n]
            .requests()
            .iter()
            .filter(|r| r.param("t") == Some("caps"))
            .count();
        assert_eq!(caps, 1, "feed{n}'s caps are read once");
        assert_eq!(searches(n).len(), 2);
    }
    let by_id = &searches(0)[0];
    assert_eq!(by_id.param("t"), Some("movie"));
    assert_eq!(by_id.param("imdbid"), Some("0133093"));
    assert_eq!(by_id.param("q"), None);
    let by_title = &searches(1)[0];
    assert_eq!(by_title.param("t"), Some("movie"));
    assert_eq!(by_title.param("imdbid"), None);
    assert_eq!(by_title.param("q"), Some("The Matrix"));
    let plain = &searches(2)[0];
    assert_eq!(plain.param("t"), Some("search"));
    assert_eq!(plain.param("q"), Some("The Matrix"));
}

#[tokio::test]
async fn a_prowlarr_indexer_is_searched_by_what_its_caps_offer() {
    let w = world(&[], None).await;
    let search =
        json!({ "media_source": "builtin", "media_id": "tt0133093", "indexers": ["prowlarr/1"] });
    let queries = || -> Vec<String> {
        w.prowlarr
            .requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/search"))
            .filter_map(|r| r.param("query").map(str::to_string))
            .collect()
    };
    let rows = |out: &Output| out.data()["indexers"][0]["rows"].as_u64().unwrap();
    // Its caps list imdbId: asked by the IMDb token alone.
    let out = call(&w.app, &w.owner, "search_indexers", search.clone())
        .await
        .unwrap();
    assert!(rows(&out) >= 3, "{}", out.data());
    assert_eq!(queries(), vec!["{ImdbId:tt0133093}".to_string()]);
    // Its caps do not: asked by the title, and the rows are still found.
    w.prowlarr
        .with_indexer(1, |i| i.movie_params = vec!["q".into()]);
    let out = call(&w.app, &w.owner, "search_indexers", search)
        .await
        .unwrap();
    assert!(rows(&out) >= 3, "{}", out.data());
    assert_eq!(queries()[1], "The Matrix");
}

#[tokio::test]
async fn filters_combine_and_pages_and_sorts_apply() {
    let w = world(&[FeedMode::Up], None).await;
    let out = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix 1999", "min_size": "5GB", "max_size": 26_000_000_000u64, "min_seeders": 5, "sort": "size", "page_size": 1, "page": 2 }),
    )
    .await
    .unwrap();
    let d = out.data();
    // 5 GB to 26 GB, 5 seeders or more: the merged 1080p GRP (8 GB) and the REMUX (25 GB).
    assert_eq!(d["total"], 2, "{d}");
    assert_eq!(d["releases"].as_array().unwrap().len(), 1);
    assert_eq!(
        d["releases"][0]["title"],
        "The.Matrix.1999.1080p.BluRay.x264-GRP"
    );
}

#[tokio::test]
async fn bad_answers_are_named_per_indexer_and_the_others_still_answer() {
    let modes = [
        FeedMode::Html,
        FeedMode::BrokenXml,
        FeedMode::Unauthorized,
        FeedMode::WrongKey,
        FeedMode::Slow(Duration::from_secs(5)),
    ];
    let w = world(&modes, Some(Duration::from_millis(800))).await;
    let started = std::time::Instant::now();
    let out = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix" }),
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the slow feed was not waited for"
    );
    assert_no_secrets(&shown(&out));
    let warnings = out.warnings.join("\n");
    assert!(
        warnings.contains("indexer feed0 answered something unreadable: an HTML page"),
        "{warnings}"
    );
    assert!(
        warnings.contains("indexer feed1 answered something unreadable: not well-formed XML"),
        "{warnings}"
    );
    assert!(
        warnings.contains("indexer feed2 refused the API key"),
        "{warnings}"
    );
    assert!(
        warnings.contains("indexer feed3 refused the API key (the indexer answered error 100: Incorrect user credentials)"),
        "{warnings}"
    );
    assert!(
        warnings.contains("indexer feed4 did not answer"),
        "{warnings}"
    );
    // Prowlarr's rows still come back.
    assert_eq!(out.data()["total"], 3, "{}", out.data());
    let asked = out.data()["indexers"].as_array().unwrap().clone();
    assert_eq!(asked.iter().filter(|a| a["error"].is_null()).count(), 2);
}

#[tokio::test]
async fn invalid_patterns_and_unknown_indexers_are_refused_before_any_indexer_is_asked() {
    let w = world(&[FeedMode::Up], None).await;
    let e = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix", "title_pattern": "1080p.(x264" }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e,
        "invalid argument \"title_pattern\": the pattern is not a valid regular expression: unclosed group, at position 7"
    );
    let e = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix", "indexers": ["nope"] }),
    )
    .await
    .unwrap_err();
    assert!(e.contains("unknown indexer \"nope\"; valid indexers: prowlarr/1 (Alpha), prowlarr/2 (Bravo), feed0 (feed0)"), "{e}");
    assert!(w.feeds[0].requests().is_empty(), "no feed was asked");
    let searches = w
        .prowlarr
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/search")
        .count();
    assert_eq!(searches, 0);
    // Only the named indexer is asked.
    let out = call(
        &w.app,
        &w.owner,
        "search_indexers",
        json!({ "query": "matrix", "indexers": ["feed0"] }),
    )
    .await
    .unwrap();
    assert_eq!(out.data()["indexers"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn kids_and_grants_without_indexers_search_get_no_rows() {
    let w = world(&[FeedMode::Up], None).await;
    assert!(!w.app.visible(&w.reader).contains(&"search_indexers"));
    assert!(w.app.visible(&w.owner).contains(&"search_indexers"));
    let e = call(
        &w.app,
        &w.kid,
        "search_indexers",
        json!({ "query": "matrix" }),
    )
    .await
    .unwrap_err();
    assert_eq!(e, "Release searches are not available for this account.");
    let e = call(
        &w.app,
        &w.reader,
        "search_indexers",
        json!({ "query": "matrix" }),
    )
    .await
    .unwrap_err();
    assert!(e.contains("indexers.search"), "{e}");
}

#[tokio::test]
async fn list_indexers_shows_health_and_categories() {
    let w = world(&[FeedMode::Up, FeedMode::WrongKey], None).await;
    let out = call(&w.app, &w.owner, "list_indexers", json!({}))
        .await
        .unwrap();
    let d = out.data();
    let rows = d["indexers"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["prowlarr/1", "prowlarr/2", "feed0"], "{d}");
    assert_eq!(rows[0]["health"], "ok");
    assert_eq!(rows[1]["health"], "disabled");
    assert!(rows[1]["disabled_till"].is_string());
    assert_eq!(rows[0]["categories"][1]["name"], "Movies/HD");
    assert_eq!(rows[2]["name"], "Feed0");
    assert_eq!(rows[2]["tv_search"], json!(["q", "season", "ep", "tvdbid"]));
    assert_eq!(
        out.warnings,
        [
            "indexer feed1 refused the API key (the indexer answered error 100: Incorrect user credentials); check the instance's api_key"
        ]
    );
    assert_no_secrets(&shown(&out));
    let report = w.prowlarr.check_answers();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
}
