//! The household's own library as the first answer: discovery rows (`search_titles`,
//! `get_title_details`) carry `playable_on` from the media servers' kept indexes, and
//! `request_media` answers "already in the library on <server>" instead of filing a request (a
//! show's missing seasons are still requested). A media server that is slow or answers garbage
//! is named in a warning, within its own timeout, while discovery and the other servers answer.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::{
    TmdbFake,
    fault::{Fault, FaultProxy},
    media::{FakeMedia, MEDIA_TOKEN, MediaKind, PLEX_USER_TOKENS},
};
use tools::{InstanceSpec, Instances, Settings};
use web::{EdgeConfig, Host, Metrics, Web};

use crate::support::{Server, builtin, instance, outcome};

/// Paddington's and Bluey's item ids on the Jellyfin fake.
const PADDINGTON: &str = "a0000000-0000-4000-8000-000000000001";
const BLUEY: &str = "a0000000-0000-4000-8000-000000000010";

/// A Marquee with the builtin catalogue, `more` instances (catalogues, media servers) and each
/// `(id, seconds)` as that instance's own `timeout_seconds`.
async fn serve(more: Vec<InstanceSpec>, timeouts: &[(&str, u64)]) -> Server {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let plex_tokens: Vec<(String, Vec<(String, Secret)>)> = more
        .iter()
        .filter(|s| s.kind == InstanceKind::Plex)
        .map(|s| {
            (
                s.id.clone(),
                PLEX_USER_TOKENS
                    .iter()
                    .map(|(n, t)| (n.to_string(), Secret::new(*t)))
                    .collect(),
            )
        })
        .collect();
    let mut specs = vec![builtin()];
    specs.extend(more);
    let instances = Instances::new(specs)
        .unwrap()
        .with_timeouts(
            timeouts
                .iter()
                .map(|(id, s)| (id.to_string(), Duration::from_secs(*s))),
        )
        .with_user_tokens(plex_tokens);
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
    );
    app.start_jobs(std::future::pending());
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(EdgeConfig::default(), metrics);
    web.set_ready(host.clone());
    Server {
        router: web::router(web),
        host,
        owner_key: issued.secret.expose().to_string(),
    }
}

fn media(id: &str, url: &str, kind: InstanceKind) -> InstanceSpec {
    instance(id, kind, Some(url), Some(MEDIA_TOKEN))
}

fn warnings(r: &Value) -> String {
    r["structuredContent"]["warnings"].to_string()
}

/// The first row of a list answer whose title is `title`.
fn row<'a>(data: &'a Value, title: &str) -> &'a Value {
    data["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["title"] == title)
        .unwrap_or_else(|| panic!("no row {title}: {data}"))
}

#[tokio::test]
async fn search_titles_and_details_say_which_media_server_can_play_the_title() {
    let jellyfin = FakeMedia::start(MediaKind::Jellyfin).await;
    let plex = FakeMedia::start(MediaKind::Plex).await;
    let s = serve(
        vec![
            media("jellyfin", &jellyfin.url(), InstanceKind::Jellyfin),
            media("plex", &plex.url(), InstanceKind::Plex),
        ],
        &[],
    )
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;

    let r = s
        .call(&alice, "search_titles", json!({"query": "paddington"}))
        .await;
    s.conforms("search_titles", &r);
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    let paddington = row(&data, "Paddington");
    assert_eq!(
        paddington["playable_on"],
        json!([
            {"instance_id": "jellyfin", "item_id": PADDINGTON},
            {"instance_id": "plex", "item_id": "1"}
        ]),
        "{r}"
    );
    assert!(!r.to_string().contains(MEDIA_TOKEN), "{r}");

    // A title no server has says so with an empty list.
    let r = s
        .call(&alice, "search_titles", json!({"query": "the matrix"}))
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(row(&data, "The Matrix")["playable_on"], json!([]), "{r}");

    let r = s
        .call(
            &alice,
            "get_title_details",
            json!({"media_source": "builtin", "media_id": "tt1109624", "media_type": "movie"}),
        )
        .await;
    s.conforms("get_title_details", &r);
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["playable_on"][0]["instance_id"], "jellyfin", "{r}");
    assert_eq!(data["playable_on"][0]["item_id"], PADDINGTON, "{r}");
    assert!(
        summary.contains("Playable now on jellyfin, plex"),
        "{summary}"
    );
}

#[tokio::test]
async fn a_kid_sees_playable_on_only_for_items_within_their_limits() {
    let jellyfin = FakeMedia::start(MediaKind::Jellyfin).await;
    let plex = FakeMedia::start(MediaKind::Plex).await;
    // Plex's copy of Paddington is rated PG-13 there (another cut); the catalogue's is PG.
    plex.set_rating("Paddington", "PG-13");
    let s = serve(
        vec![
            media("jellyfin", &jellyfin.url(), InstanceKind::Jellyfin),
            media("plex", &plex.url(), InstanceKind::Plex),
        ],
        &[],
    )
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
    let r = s
        .call(&kid, "search_titles", json!({"query": "paddington"}))
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(
        row(&data, "Paddington")["playable_on"],
        json!([{"instance_id": "jellyfin", "item_id": PADDINGTON}]),
        "the PG-13 copy on plex is over the kid's cap: {r}"
    );
    let r = s
        .call(
            &s.owner_key,
            "search_titles",
            json!({"query": "paddington"}),
        )
        .await;
    let (_, _, data) = outcome(&r);
    assert_eq!(
        row(&data, "Paddington")["playable_on"][1]["instance_id"],
        "plex",
        "{r}"
    );
}

#[tokio::test]
async fn request_media_answers_from_the_library_and_files_only_missing_seasons() {
    let jellyfin = FakeMedia::start(MediaKind::Jellyfin).await;
    let tmdb = TmdbFake::start().await;
    let s = serve(
        vec![
            instance(
                "tmdb",
                InstanceKind::Tmdb,
                Some(tmdb.base_url()),
                Some(TmdbFake::API_KEY),
            ),
            media("jellyfin", &jellyfin.url(), InstanceKind::Jellyfin),
        ],
        &[],
    )
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;

    let r = s
        .call(
            &alice,
            "request_media",
            json!({"media_source": "builtin", "media_id": "tt1109624", "media_type": "movie"}),
        )
        .await;
    s.conforms("request_media", &r);
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["already_in_library"], true, "{r}");
    assert_eq!(data["playable_on"][0]["item_id"], PADDINGTON, "{r}");
    assert!(
        summary.contains("Paddington (2014) is already in the library on jellyfin")
            && summary.contains("nothing was requested"),
        "{summary}"
    );

    // Bluey: the server has seasons 1 and 2.
    let bluey = |seasons: Value| json!({"media_source": "tmdb", "media_id": "82728", "media_type": "tv", "seasons": seasons});
    let r = s.call(&alice, "request_media", bluey(json!([1, 2]))).await;
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["already_in_library"], true, "{r}");
    assert_eq!(data["playable_on"][0]["item_id"], BLUEY, "{r}");
    assert_eq!(
        data["playable_on"][0]["seasons"],
        json!([{"season": 1, "episodes": [1, 2]}, {"season": 2, "episodes": [1]}])
    );
    assert!(
        summary.contains("is already in the library on jellyfin (seasons 1, 2)"),
        "{summary}"
    );

    let r = s.call(&alice, "request_media", bluey(json!([2, 3]))).await;
    s.conforms("request_media", &r);
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["request"]["seasons"], json!([3]), "{r}");
    assert_eq!(data["in_library_seasons"], json!([2]), "{r}");
    assert!(
        summary.contains("Season 2 is already in the library on jellyfin"),
        "{summary}"
    );

    // Only the one request for season 3 was created.
    let store = s.host.app.store();
    let mut created = 0;
    for status in [
        store::RequestStatus::Pending,
        store::RequestStatus::Approved,
    ] {
        created += store.count_requests(status).await.unwrap();
    }
    assert_eq!(created, 1);
}

#[tokio::test]
async fn a_slow_media_server_times_out_naming_it_while_discovery_and_the_others_answer() {
    let good = FakeMedia::start(MediaKind::Jellyfin).await;
    let slow = FakeMedia::start(MediaKind::Jellyfin).await;
    let proxy = FaultProxy::in_front_of(&slow.url()).await;
    proxy.set(Fault::Latency(Duration::from_secs(4)));
    let s = serve(
        vec![
            media("good", &good.url(), InstanceKind::Jellyfin),
            media("slow", &proxy.url_for(&slow.url()), InstanceKind::Jellyfin),
        ],
        &[("slow", 1)],
    )
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;

    let started = Instant::now();
    let r = s
        .call(
            &alice,
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
        )
        .await;
    let took = started.elapsed();
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert!(took < Duration::from_secs(3), "held up for {took:?}");
    assert_eq!(data["found"][0]["instance_id"], "good", "{r}");
    assert_eq!(data["unreadable"][0]["instance_id"], "slow", "{r}");
    let reason = data["unreadable"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("media server slow could not be read")
            && reason.contains("did not answer in time"),
        "{reason}"
    );
    assert!(proxy.requests() >= 1, "the slow server was asked");

    let started = Instant::now();
    let r = s
        .call(&alice, "search_titles", json!({"query": "paddington"}))
        .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(
        row(&data, "Paddington")["playable_on"],
        json!([{"instance_id": "good", "item_id": PADDINGTON}]),
        "{r}"
    );
    assert!(
        warnings(&r).contains("media server slow could not be read"),
        "{r}"
    );
}

#[tokio::test]
async fn a_garbled_answer_is_a_clear_error_naming_the_server() {
    let good = FakeMedia::start(MediaKind::Jellyfin).await;
    let bad = FakeMedia::start(MediaKind::Jellyfin).await;
    let proxy = FaultProxy::in_front_of(&bad.url()).await;
    proxy.set(Fault::GarbageBody);
    let s = serve(
        vec![
            media("good", &good.url(), InstanceKind::Jellyfin),
            media(
                "garbled",
                &proxy.url_for(&bad.url()),
                InstanceKind::Jellyfin,
            ),
        ],
        &[],
    )
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s
        .call(
            &alice,
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["found"][0]["instance_id"], "good", "{r}");
    let reason = data["unreadable"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("media server garbled could not be read")
            && reason.contains("GET /Items")
            && reason.contains("not the JSON expected"),
        "{reason}"
    );

    let r = s
        .call(&alice, "get_recently_added", json!({"type": "movie"}))
        .await;
    let (err, _, _) = outcome(&r);
    assert!(!err, "{r}");
    assert!(warnings(&r).contains("media server garbled"), "{r}");

    // Alone, the garbled server's read is the call's error, naming it.
    let s = serve(
        vec![media(
            "garbled",
            &proxy.url_for(&bad.url()),
            InstanceKind::Jellyfin,
        )],
        &[],
    )
    .await;
    let r = s
        .call(
            &s.owner_key,
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        r.to_string()
            .contains("media server garbled could not be read"),
        "{r}"
    );
    assert!(!r.to_string().contains(MEDIA_TOKEN), "{r}");
}

#[tokio::test]
async fn a_british_kids_limits_measure_items_rated_in_other_countries() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(
        vec![media("jellyfin", &fake.url(), InstanceKind::Jellyfin)],
        &[],
    )
    .await;
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                rating_region: Some("GB".into()),
                max_movie_cert: Some("12A".into()),
                max_tv_rating: Some("PG".into()),
                ..ContentLimits::default()
            },
        )
        .await;
    let store = s.host.app.store();
    let p = store.person_by_name("kid").await.unwrap().unwrap();
    store
        .link_media_user(p.id, "jellyfin", "kid-jf")
        .await
        .unwrap();
    let titles = |r: &Value| -> Vec<String> {
        outcome(r).2["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["title"].as_str().unwrap().to_string())
            .collect()
    };
    // Alien is rated R (US, 17 and over): over a 12A cap; Bluey's TV-Y is within PG.
    let r = s.call(&kid, "get_continue_watching", json!({})).await;
    assert_eq!(titles(&r), ["Dance Mode"], "{r}");
    // Rated FSK 12 instead (Germany), it is within 12A; FSK 16 is not.
    fake.set_rating("Alien", "DE-12");
    let r = s.call(&kid, "get_continue_watching", json!({})).await;
    assert_eq!(titles(&r), ["Dance Mode", "Alien"], "{r}");
    fake.set_rating("Alien", "FSK-16");
    let r = s.call(&kid, "get_continue_watching", json!({})).await;
    assert_eq!(titles(&r), ["Dance Mode"], "{r}");
}
