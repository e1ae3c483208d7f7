//! Answers that say no more than the code knows: book searches pass a limited person's content
//! limits, `in_library` is unknown (not false) while the library cannot be read, a merged read
//! answers without the instance that did not answer in time, and approved requests are handed
//! over once a library serves them.

use domain::{InstanceKind, Role};
use serde_json::json;
use store::ContentLimits;
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{Server, builtin, instance, outcome, server_with_instances};

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
    use std::time::Duration;

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
    let s = server_over(store, instances, issued.secret.expose());
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

/// A Marquee over `store` (shared by several servers in one test) with `instances`; its
/// background jobs are not started: a test runs them with `App::run_job`.
fn server_over(store: store::Store, instances: tools::Instances, owner_key: &str) -> Server {
    use std::sync::Arc;
    let app = tools::app(
        store,
        Arc::new(tools::Settings::new(false, None)),
        Arc::new(instances),
    );
    let metrics = Arc::new(web::Metrics::default());
    let host = Arc::new(web::Host::new(app, metrics.clone()));
    let w = web::Web::new(web::EdgeConfig::default(), metrics);
    w.set_ready(host.clone());
    Server {
        router: web::router(w),
        host,
        owner_key: owner_key.to_string(),
    }
}

fn notes_of(diagnosed: &serde_json::Value) -> String {
    diagnosed["structuredContent"]["data"]["notes"].to_string()
}

#[tokio::test]
async fn a_request_approved_before_any_library_is_handed_over_and_followed_in_the_background() {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let owner = issued.secret.expose().to_string();
    // No library yet: the approval waits, and diagnose counts it.
    let before = server_over(
        store.clone(),
        tools::Instances::new(vec![builtin()]).unwrap(),
        &owner,
    );
    let ana = before.key_for("ana", Role::User, "requester").await;
    let heat = json!({"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"});
    let (err, summary, data) = outcome(&before.call(&ana, "request_media", heat).await);
    assert!(!err, "{summary}");
    let id = data["request"]["request_id"].as_i64().unwrap();
    let (err, summary, _) = outcome(
        &before
            .call(
                &owner,
                "decide_request",
                json!({"request_id": id, "decision": "approve"}),
            )
            .await,
    );
    assert!(!err && summary.contains("It waits"), "{summary}");
    let notes = notes_of(&before.call(&owner, "diagnose", json!({})).await);
    assert!(notes.contains("(1 approved request waiting)"), "{notes}");
    // A Radarr is configured (the server restarted with it): the request still counts as
    // waiting until the background pass hands it over.
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    let after = server_over(
        store.clone(),
        tools::Instances::new(vec![
            builtin(),
            arr("radarr", InstanceKind::Radarr, &radarr),
        ])
        .unwrap(),
        &owner,
    );
    let notes = notes_of(&after.call(&owner, "diagnose", json!({})).await);
    assert!(
        notes.contains("1 approved request not handed to a library yet"),
        "{notes}"
    );
    assert!(after.host.app.run_job("requests.follow").await);
    let movies = radarr.all(Resource::Movie);
    assert_eq!(movies.len(), 1, "handed over: {movies:?}");
    assert_eq!(movies[0]["imdbId"], "tt0113277");
    let link = store.library_link(id).await.unwrap().unwrap();
    assert_eq!(link.instance_id, "radarr");
    assert!(link.item_id.is_some() && link.failure.is_none(), "{link:?}");
    let notes = notes_of(&after.call(&owner, "diagnose", json!({})).await);
    assert!(!notes.contains("not handed"), "{notes}");
    // The write is audited, in the approver's name.
    let audit = store
        .audit_page(&store::AuditQuery::default())
        .await
        .unwrap();
    let entry = audit
        .iter()
        .find(|e| e.tool == "requests.follow")
        .expect("the hand-over is audited");
    assert_eq!(
        (
            entry.person.as_str(),
            entry.instance.as_deref(),
            entry.status
        ),
        ("owner", Some("radarr"), store::AuditStatus::Applied)
    );
    // Followed without anyone asking: once the file is on disk, the request is available.
    radarr.advance(std::time::Duration::from_secs(6 * 3600));
    assert!(after.host.app.run_job("requests.follow").await);
    let request = store.request(id).await.unwrap().unwrap();
    assert_eq!(
        request.status,
        store::RequestStatus::Available,
        "{request:?}"
    );
}
