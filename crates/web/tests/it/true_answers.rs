//! Answers that say no more than the code knows: book searches pass a limited person's content
//! limits, `in_library` is unknown (not false) while the library cannot be read, a merged read
//! answers without the instance that did not answer in time, and approved requests are handed
//! over once a library serves them.

use domain::{InstanceKind, Role};
use serde_json::json;
use store::ContentLimits;
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{builtin, instance, outcome, server_with_instances};

fn arr(id: &str, kind: InstanceKind, fake: &FakeArr) -> tools::InstanceSpec {
    instance(id, kind, Some(&fake.url()), Some(fake.api_key()))
}

#[tokio::test]
async fn search_books_hides_and_counts_what_a_limited_person_may_not_see() {
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "genres": ["Fantasy"], "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit Horror", "foreignBookId": "6666", "genres": ["Horror"], "author": {"authorName": "Someone Else", "foreignAuthorId": "1"}}),
        vec![],
    );
    let s = server_with_instances(vec![
        builtin(),
        arr("readarr", InstanceKind::Readarr, &readarr),
    ])
    .await;
    let no_horror = ContentLimits {
        blocked_genres: vec!["horror".into()],
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", no_horror)
        .await;
    let strict = ContentLimits {
        block_unrated: true,
        ..ContentLimits::default()
    };
    let strict_kid = s
        .key_with_limits("strict", Role::Kid, "requester", strict)
        .await;
    let args = json!({"query": "hobbit"});
    let (err, summary, all) = outcome(&s.call(&s.owner_key, "search_books", args.clone()).await);
    assert!(!err, "{summary}");
    assert_eq!(all["results"].as_array().unwrap().len(), 2, "{all}");
    assert_eq!(all["hidden_by_limits"], 0);
    let (err, summary, seen) = outcome(&s.call(&kid, "search_books", args.clone()).await);
    assert!(!err, "{summary}");
    let titles: Vec<&str> = seen["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["The Hobbit"], "{seen}");
    assert_eq!(seen["hidden_by_limits"], 1);
    assert_eq!(seen["content_limits_applied"], true);
    assert!(summary.contains("1 result was hidden"), "{summary}");
    assert!(!seen.to_string().contains("Horror"), "{seen}");
    // Books carry no rating: limits that hide unrated titles hide them all.
    let (err, summary, none) = outcome(&s.call(&strict_kid, "search_books", args).await);
    assert!(!err, "{summary}");
    assert_eq!(none["results"], json!([]), "{none}");
    assert_eq!(none["hidden_by_limits"], 2);
}

/// An address where nothing listens any more.
fn closed_url() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/", closed.local_addr().unwrap())
}

fn in_library_flags(data: &serde_json::Value) -> Vec<serde_json::Value> {
    data["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.get("in_library").cloned().unwrap_or(json!("absent")))
        .collect()
}

#[tokio::test]
async fn in_library_is_null_and_warned_when_the_library_cannot_know() {
    // Radarr answers and holds Heat: movie rows are true or false.
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
    );
    let s = server_with_instances(vec![
        builtin(),
        arr("radarr", InstanceKind::Radarr, &radarr),
    ])
    .await;
    let (err, summary, data) = outcome(
        &s.call(&s.owner_key, "search_titles", json!({"query": "heat"}))
            .await,
    );
    assert!(!err, "{summary}");
    let flags = in_library_flags(&data);
    assert!(flags.contains(&json!(true)), "{flags:?}");
    assert!(flags.iter().all(|f| f.is_boolean()), "{flags:?}");
    // Radarr down: the same rows say null, and a warning names it.
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "radarr",
            InstanceKind::Radarr,
            Some(&closed_url()),
            Some("k"),
        ),
    ])
    .await;
    let r = s
        .call(&s.owner_key, "search_titles", json!({"query": "heat"}))
        .await;
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{summary}");
    let flags = in_library_flags(&data);
    assert!(!flags.is_empty());
    assert!(flags.iter().all(|f| f.is_null()), "{flags:?}");
    let warnings = r["structuredContent"]["warnings"].to_string();
    assert!(
        warnings.contains("library instance radarr could not be read"),
        "{warnings}"
    );
    // Only a Sonarr: movie rows cannot be known either.
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let s = server_with_instances(vec![
        builtin(),
        arr("sonarr", InstanceKind::Sonarr, &sonarr),
    ])
    .await;
    let r = s
        .call(&s.owner_key, "search_titles", json!({"query": "heat"}))
        .await;
    let (_, _, data) = outcome(&r);
    assert!(in_library_flags(&data).iter().all(|f| f.is_null()));
    let warnings = r["structuredContent"]["warnings"].to_string();
    assert!(warnings.contains("no radarr instance"), "{warnings}");
    // No library at all: the flag is left out, as before.
    let s = server_with_instances(vec![builtin()]).await;
    let (_, _, data) = outcome(
        &s.call(&s.owner_key, "search_titles", json!({"query": "heat"}))
            .await,
    );
    assert!(
        in_library_flags(&data)
            .iter()
            .all(|f| *f == json!("absent")),
        "{data}"
    );
}

/// A library service that accepts connections and never answers.
async fn hung_service() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((conn, _)) = listener.accept().await {
            held.push(conn);
        }
    });
    url
}

#[tokio::test]
async fn a_merged_read_answers_without_the_instance_that_did_not_answer_in_its_timeout() {
    use std::{sync::Arc, time::Duration};

    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let heat = radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
    );
    radarr.start_download(heat, "Heat.1995.1080p.BluRay", 8_000_000_000);
    let hung = hung_service().await;
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let instances = tools::Instances::new(vec![
        builtin(),
        arr("radarr", InstanceKind::Radarr, &radarr),
        instance("radarr-4k", InstanceKind::Radarr, Some(&hung), Some("k")),
    ])
    .unwrap()
    .with_timeouts([("radarr-4k".to_string(), Duration::from_secs(1))]);
    let app = tools::app(
        store,
        Arc::new(tools::Settings::new(false, None)),
        Arc::new(instances),
    );
    let metrics = Arc::new(web::Metrics::default());
    let host = Arc::new(web::Host::new(app, metrics.clone()));
    let w = web::Web::new(web::EdgeConfig::default(), metrics);
    w.set_ready(host.clone());
    let s = crate::support::Server {
        router: web::router(w),
        host,
        owner_key: issued.secret.expose().to_string(),
    };
    // The hung instance's own limit is 1 s: the answer comes well before the 15 s default.
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        s.call(&s.owner_key, "get_queue", json!({})),
    )
    .await
    .expect("get_queue waited for the hung instance past its timeout_seconds");
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{summary}");
    assert_eq!(data["total"], 1, "{data}");
    assert!(
        summary.contains("Could not be read: radarr-4k"),
        "{summary}"
    );
    let warnings = r["structuredContent"]["warnings"].to_string();
    assert!(
        warnings.contains("radarr-4k") && warnings.contains("did not answer in time"),
        "{warnings}"
    );
}
