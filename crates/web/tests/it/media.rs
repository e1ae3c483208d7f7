//! The media-server tools through the real MCP endpoint against the Jellyfin, Emby and Plex
//! fakes: continue watching for a linked person and the sentence for an unlinked one, a kid's
//! limits, a title found by its tmdb id, a server that is down named in a warning while the
//! others answer, admin-only sessions, and no token in any answer.

use std::{sync::Arc, time::Instant};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::media::{FakeMedia, MEDIA_TOKEN, MediaKind, PLEX_USER_TOKENS};
use tools::{Instances, Settings};
use web::{EdgeConfig, Host, Metrics, Web};

use crate::support::{Server, builtin, instance, outcome};

fn kind_of(kind: MediaKind) -> InstanceKind {
    match kind {
        MediaKind::Jellyfin => InstanceKind::Jellyfin,
        MediaKind::Emby => InstanceKind::Emby,
        MediaKind::Plex => InstanceKind::Plex,
    }
}

/// A Marquee with these media servers (id, url, kind); Plex instances get the fake's managed
/// users' tokens.
pub(crate) async fn serve(servers: &[(&str, String, InstanceKind)]) -> Server {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let mut specs = vec![builtin()];
    let mut tokens = Vec::new();
    for (id, url, kind) in servers {
        specs.push(instance(id, *kind, Some(url), Some(MEDIA_TOKEN)));
        if *kind == InstanceKind::Plex {
            tokens.push((
                id.to_string(),
                PLEX_USER_TOKENS
                    .iter()
                    .map(|(n, t)| (n.to_string(), Secret::new(*t)))
                    .collect(),
            ));
        }
    }
    let instances = Instances::new(specs).unwrap().with_user_tokens(tokens);
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

async fn link(s: &Server, person: &str, instance: &str, user: &str) {
    let store = s.host.app.store();
    let p = store.person_by_name(person).await.unwrap().unwrap();
    store.link_media_user(p.id, instance, user).await.unwrap();
}

fn titles(data: &Value) -> Vec<String> {
    data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["title"].as_str().unwrap(),
                i["percent"]
                    .as_f64()
                    .map(|p| p.to_string())
                    .unwrap_or_default()
            )
            .trim()
            .to_string()
        })
        .collect()
}

/// No token, admin's or a managed user's, anywhere in a result.
fn no_token(result: &Value) {
    let text = result.to_string();
    assert!(!text.contains(MEDIA_TOKEN), "{text}");
    for (_, t) in PLEX_USER_TOKENS {
        assert!(!text.contains(t), "{text}");
    }
}

#[tokio::test]
async fn continue_watching_answers_for_the_linked_user_and_tells_an_unlinked_person_how_to_link() {
    for kind in [MediaKind::Jellyfin, MediaKind::Emby, MediaKind::Plex] {
        let fake = FakeMedia::start(kind).await;
        let s = serve(&[("tv", fake.url(), kind_of(kind))]).await;
        let alice = s.key_for("alice", Role::User, "requester").await;
        let bob = s.key_for("bob", Role::User, "requester").await;
        let user = if kind == MediaKind::Plex {
            "alice"
        } else {
            "alice-jf"
        };
        link(&s, "alice", "tv", user).await;

        let r = s.call(&alice, "get_continue_watching", json!({})).await;
        no_token(&r);
        let (err, summary, data) = outcome(&r);
        assert!(!err, "{kind:?}: {r}");
        assert_eq!(titles(&data), ["Hospital 50"], "{kind:?}: {r}");
        assert_eq!(data["items"][0]["series_title"], "Bluey");
        assert_eq!(data["items"][0]["season"], 1);
        assert_eq!(data["items"][0]["episode"], 2);
        assert_eq!(data["items"][0]["instance_id"], "tv");
        assert!(summary.contains("Bluey 1x02 Hospital"), "{summary}");

        let r = s.call(&bob, "get_continue_watching", json!({})).await;
        let (err, summary, data) = outcome(&r);
        assert!(!err, "{r}");
        assert_eq!(data["linked"], false);
        assert!(data["items"].as_array().unwrap().is_empty());
        assert!(
            summary.contains("bob is not linked")
                && summary.contains("marquee people link bob --instance tv --user"),
            "{summary}"
        );

        let r = s.call(&alice, "get_watch_history", json!({})).await;
        let (err, _, data) = outcome(&r);
        assert!(!err, "{kind:?}: {r}");
        assert_eq!(titles(&data), ["Paddington"], "{kind:?}: {r}");
        assert_eq!(data["items"][0]["played"], true);
    }
}

#[tokio::test]
async fn a_kids_continue_watching_hides_a_title_over_their_limit() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jellyfin", fake.url(), InstanceKind::Jellyfin)]).await;
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                max_movie_cert: Some("PG".into()),
                max_tv_rating: Some("TV-Y7".into()),
                ..ContentLimits::default()
            },
        )
        .await;
    link(&s, "kid", "jellyfin", "kid-jf").await;
    let r = s.call(&kid, "get_continue_watching", json!({})).await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(titles(&data), ["Dance Mode 30"], "Alien (R) is hidden: {r}");
    assert_eq!(data["hidden"], 1);
    assert!(!r.to_string().contains("Alien"), "{r}");

    // The owner sees the same user's state unfiltered.
    let r = s
        .call(
            &s.owner_key,
            "get_continue_watching",
            json!({"person": "kid"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(titles(&data), ["Dance Mode 30", "Alien 40"], "{r}");

    // The kid asking for Alien by its id is told it is not available.
    let r = s
        .call(
            &kid,
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "348", "media_type": "movie"}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(!r.to_string().contains("Alien"), "{r}");
}

#[tokio::test]
async fn someone_elses_history_needs_admin_rights() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jellyfin", fake.url(), InstanceKind::Jellyfin)]).await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    s.key_for("kid", Role::Kid, "requester").await;
    link(&s, "kid", "jellyfin", "kid-jf").await;
    for tool in ["get_watch_history", "get_continue_watching"] {
        let r = s.call(&alice, tool, json!({"person": "kid"})).await;
        assert_eq!(r["isError"], true, "{r}");
        assert!(r.to_string().contains("only an admin"), "{r}");
    }
    let r = s
        .call(&s.owner_key, "get_watch_history", json!({"person": "kid"}))
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(titles(&data), ["Magic Xylophone"], "{r}");
}

#[tokio::test]
async fn query_library_exists_finds_the_movie_by_tmdb_id_and_a_shows_seasons() {
    for kind in [MediaKind::Jellyfin, MediaKind::Emby, MediaKind::Plex] {
        let fake = FakeMedia::start(kind).await;
        let s = serve(&[("tv", fake.url(), kind_of(kind))]).await;
        let alice = s.key_for("alice", Role::User, "reader").await;
        let r = s
            .call(
                &alice,
                "query_library_exists",
                json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
            )
            .await;
        no_token(&r);
        let (err, summary, data) = outcome(&r);
        assert!(!err, "{kind:?}: {r}");
        assert_eq!(data["exists"], true);
        assert_eq!(data["found"][0]["instance_id"], "tv");
        assert_eq!(data["found"][0]["title"], "Paddington");
        assert_eq!(data["found"][0]["imdb_id"], "tt1109624");
        assert!(
            summary.contains("Paddington (2014) is in the library on tv"),
            "{summary}"
        );

        let r = s
            .call(
                &alice,
                "query_library_exists",
                json!({"media_source": "tvdb", "media_id": "353546", "media_type": "tv"}),
            )
            .await;
        let (err, _, data) = outcome(&r);
        assert!(!err, "{r}");
        assert_eq!(
            data["found"][0]["seasons"],
            json!([{"season": 1, "episodes": [1, 2]}, {"season": 2, "episodes": [1]}]),
            "{kind:?}: {r}"
        );

        let r = s
            .call(
                &alice,
                "query_library_exists",
                json!({"media_source": "tmdb", "media_id": "603", "media_type": "movie"}),
            )
            .await;
        let (err, _, data) = outcome(&r);
        assert!(!err, "{r}");
        assert_eq!(data["exists"], false);
    }
}

#[tokio::test]
async fn a_server_that_is_down_is_named_in_a_warning_while_the_others_answer() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[
        ("jellyfin", fake.url(), InstanceKind::Jellyfin),
        ("plex-down", "http://127.0.0.1:1".into(), InstanceKind::Plex),
    ])
    .await;
    let key = s.key_for("alice", Role::User, "requester").await;
    link(&s, "alice", "jellyfin", "alice-jf").await;
    link(&s, "alice", "plex-down", "alice").await;
    let calls = [
        ("get_continue_watching", json!({})),
        (
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
        ),
        ("get_recently_added", json!({"type": "movie", "limit": 5})),
    ];
    for (tool, args) in calls {
        let r = s.call(&key, tool, args).await;
        no_token(&r);
        let (err, _, data) = outcome(&r);
        assert!(!err, "{tool}: {r}");
        let warnings = r["structuredContent"]["warnings"].to_string();
        assert!(
            warnings.contains("media server plex-down could not be read"),
            "{tool}: {r}"
        );
        assert_eq!(data["unreadable"][0]["instance_id"], "plex-down", "{r}");
        assert!(!r.to_string().contains("127.0.0.1:1/"), "{r}");
    }
    let r = s
        .call(&key, "get_recently_added", json!({"type": "movie"}))
        .await;
    let (_, _, data) = outcome(&r);
    assert_eq!(titles(&data), ["Alien", "Paddington"], "{r}");
}

#[tokio::test]
async fn now_playing_shows_who_watches_what_and_transcoding_to_admins_only() {
    for kind in [MediaKind::Jellyfin, MediaKind::Plex] {
        let fake = FakeMedia::start(kind).await;
        let s = serve(&[("tv", fake.url(), kind_of(kind))]).await;
        let r = s.call(&s.owner_key, "get_now_playing", json!({})).await;
        no_token(&r);
        let (err, summary, data) = outcome(&r);
        assert!(!err, "{r}");
        let sessions = data["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 1, "an idle session is not a playback: {r}");
        assert_eq!(sessions[0]["title"], "Paddington");
        assert_eq!(sessions[0]["device"], "Living Room TV");
        assert_eq!(sessions[0]["transcoding"], true);
        assert!(
            summary.contains("is watching Paddington (2014) on Living Room TV (transcoding)"),
            "{summary}"
        );
        let kid = s.key_for("kid", Role::Kid, "requester").await;
        let r = s.call(&kid, "get_now_playing", json!({})).await;
        assert_eq!(r["isError"], true, "{r}");
    }
}

/// The whole-library sync of a 50,000-item server: measured (printed), not asserted; the index
/// must hold every item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_of_fifty_thousand_items_syncs_into_the_index() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    fake.add_movies(50_000 - 6);
    let s = serve(&[("jellyfin", fake.url(), InstanceKind::Jellyfin)]).await;
    let started = Instant::now();
    let r = s
        .call(
            &s.owner_key,
            "query_library_exists",
            json!({"media_source": "imdb", "media_id": "tt5050000", "media_type": "movie"}),
        )
        .await;
    let took = started.elapsed();
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["exists"], true, "{r}");
    let pages = fake
        .requests()
        .iter()
        .filter(|q| q.path == "/Items")
        .count();
    assert!(pages >= 50, "read with paging: {pages} pages");
    eprintln!("media sync: 50,000 items in {took:?} ({pages} pages)");
    let started = Instant::now();
    let r = s
        .call(
            &s.owner_key,
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "116149", "media_type": "movie"}),
        )
        .await;
    assert_eq!(outcome(&r).2["exists"], true);
    eprintln!("media lookup after sync: {:?}", started.elapsed());
}
