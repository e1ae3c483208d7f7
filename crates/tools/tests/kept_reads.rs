//! Answers read from the store are kept while the tables they read are unchanged, and never
//! past a change: a commit through another handle on the same file (as the CLI makes from
//! another process) shows in the very next read, and a write to other tables keeps them. A kept answer is one caller's view: a kid asking the
//! page the owner asked sees only their own requests.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use domain::{MediaId, MediaSource, MediaType, Role};
use serde_json::{Value, json};
use store::{NewAudit, NewRequest, Store};
use support::request;
use tools::{App, Called, Caller, Instances, Output, Settings};

struct Fixture {
    app: App,
    owner: Caller,
    kid: Caller,
    /// A second handle on the same database file: its own pool, its own connections.
    other: Store,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    fixture_with(Instances::default(), tempfile::tempdir().unwrap()).await
}

/// The fixture over these instances, its database in `dir`.
async fn fixture_with(instances: Instances, dir: tempfile::TempDir) -> Fixture {
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let kid = store.add_person("kid", Role::Kid).await.unwrap();
    let kid_key = store
        .create_key(kid.id, "requester", None, None)
        .await
        .unwrap();
    let owner_id = store.person_by_name("owner").await.unwrap().unwrap().id;
    for (i, who) in [owner_id, kid.id, owner_id].into_iter().enumerate() {
        request(&store, who, i).await;
    }
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
    );
    app.start_jobs(std::future::pending());
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let kid = app
        .authenticate(kid_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let other = Store::open(dir.path()).await.unwrap();
    Fixture {
        app,
        owner,
        kid,
        other,
        _dir: dir,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Output {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => out,
        Called::Done(Err(e)) => panic!("{name} failed: {}", e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

fn titles(out: &Output) -> Vec<String> {
    out.data()["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_page_asked_again_while_nothing_changed_is_the_kept_answer() {
    let f = fixture().await;
    let first = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    let again = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    assert_eq!(
        again.observed_at, first.observed_at,
        "read once, handed out again"
    );
    assert_eq!(again.data(), first.data());
}

#[tokio::test]
async fn a_request_made_through_another_handle_shows_in_the_next_page() {
    let f = fixture().await;
    let before = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&before), ["Title 2", "Title 1", "Title 0"]);
    let kid = f.other.person_by_name("kid").await.unwrap().unwrap();
    request(&f.other, kid.id, 7).await;
    let after = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&after), ["Title 7", "Title 2", "Title 1", "Title 0"]);
}

#[tokio::test]
async fn a_kid_asking_the_owners_page_sees_only_their_own_requests() {
    let f = fixture().await;
    let owner = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&owner).len(), 3);
    let kid = call(&f.app, &f.kid, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&kid), ["Title 1"]);
    assert!(kid.summary.contains("of yours"), "{}", kid.summary);
    let owner_again = call(&f.app, &f.owner, "list_requests", json!({"limit": 50})).await;
    assert_eq!(owner_again.data(), owner.data());
}

#[tokio::test]
async fn a_decision_made_through_another_handle_shows_in_the_next_status_check() {
    let f = fixture().await;
    let page = call(&f.app, &f.owner, "list_requests", json!({"limit": 1})).await;
    let id = page.data()["requests"][0]["request_id"].as_i64().unwrap();
    let args = json!({ "request_id": id });
    let before = call(&f.app, &f.owner, "check_request_status", args.clone()).await;
    assert_eq!(before.data()["requests"][0]["status"], "pending");
    let owner = f.other.person_by_name("owner").await.unwrap().unwrap();
    f.other
        .decide_request(id, owner.id, false, Some("not tonight"))
        .await
        .unwrap();
    let after = call(&f.app, &f.owner, "check_request_status", args).await;
    assert_eq!(after.data()["requests"][0]["status"], "rejected");
    assert_eq!(after.data()["requests"][0]["decision_note"], "not tonight");
}

#[tokio::test]
async fn an_audit_entry_written_through_another_handle_shows_in_the_next_activity_page() {
    let f = fixture().await;
    let empty = call(&f.app, &f.owner, "get_activity", json!({})).await;
    assert_eq!(empty.data()["entries"], json!([]));
    let kid = f.other.person_by_name("kid").await.unwrap().unwrap();
    f.other
        .audit_begin(&NewAudit {
            person: kid.id,
            key_id: None,
            tool: "pause_torrents".into(),
            instance: Some("qb-1".into()),
            args_digest: "d1".into(),
        })
        .await
        .unwrap();
    let after = call(&f.app, &f.owner, "get_activity", json!({})).await;
    let entries = after.data()["entries"].clone();
    assert_eq!(entries.as_array().unwrap().len(), 1, "{entries}");
    assert_eq!(entries[0]["tool"], "pause_torrents");
    assert_eq!(entries[0]["person"], "kid");
    let kids = call(&f.app, &f.kid, "get_activity", json!({})).await;
    assert_eq!(
        kids.data()["entries"][0]["tool"],
        "pause_torrents",
        "the kid's own entry"
    );
}

#[tokio::test]
async fn a_diagnosis_with_a_problem_is_handed_out_again_briefly_and_a_commit_checks_again() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library");
    let folder = tools::InstanceSpec {
        id: "library".into(),
        kind: domain::InstanceKind::Folder,
        url: None,
        path: Some(library.display().to_string()),
        username: None,
        password: None,
        api_key: None,
        default: false,
    };
    let f = fixture_with(Instances::new(vec![folder]).unwrap(), dir).await;
    let started = std::time::Instant::now();
    let first = call(&f.app, &f.owner, "diagnose", json!({})).await;
    assert!(
        first.summary.contains("1 with problems (library)")
            && first.summary.contains("reused for up to 1 s"),
        "{}",
        first.summary
    );
    std::fs::create_dir(&library).unwrap();
    let again = call(&f.app, &f.owner, "diagnose", json!({})).await;
    // Only within the second the answer is kept for (a stalled machine may take longer).
    if started.elapsed() < std::time::Duration::from_millis(500) {
        assert_eq!(again.observed_at, first.observed_at, "kept for a moment");
    }
    f.other.set_tool_switch("whoami", false).await.unwrap();
    let after = call(&f.app, &f.owner, "diagnose", json!({})).await;
    assert_eq!(
        after.data()["instances"][0]["ok"],
        true,
        "{}",
        after.summary
    );
}

/// The fixture with the builtin catalogue, as the embedded default declares it.
async fn builtin_fixture() -> Fixture {
    let builtin = tools::InstanceSpec {
        id: "builtin".into(),
        kind: domain::InstanceKind::Builtin,
        url: None,
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: true,
    };
    let instances = Instances::new(vec![builtin]).unwrap();
    fixture_with(instances, tempfile::tempdir().unwrap()).await
}

#[tokio::test]
async fn a_request_made_through_another_handle_shows_in_the_next_request_options() {
    let f = builtin_fixture().await;
    let heat = json!({"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"});
    let first = call(&f.app, &f.owner, "get_request_options", heat.clone()).await;
    assert_eq!(first.data()["requestable"], true, "{}", first.summary);
    let again = call(&f.app, &f.owner, "get_request_options", heat.clone()).await;
    assert_eq!(again.observed_at, first.observed_at, "kept");
    let kid = f.other.person_by_name("kid").await.unwrap().unwrap();
    let new = NewRequest {
        person: kid.id,
        media: MediaId::new(MediaSource::Builtin, "tt0113277"),
        media_type: MediaType::Movie,
        title: "Heat".into(),
        year: Some(1995),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: false,
    };
    f.other.create_request(&new).await.unwrap();
    let after = call(&f.app, &f.owner, "get_request_options", heat).await;
    assert_eq!(after.data()["requestable"], false, "{}", after.summary);
    assert_eq!(after.data()["open_requests"][0]["status"], "pending");
}

#[tokio::test]
async fn a_grant_changed_through_another_handle_is_seen_at_the_next_call() {
    let f = fixture().await;
    let requester = f.other.grant_by_name("requester").await.unwrap().unwrap();
    let mut spec = store::GrantSpec::of(&requester);
    f.other.create_grant("family", &spec).await.unwrap();
    let kid = f.other.person_by_name("kid").await.unwrap().unwrap();
    let key = f.other.create_key(kid.id, "family", None, None).await;
    let key = key.unwrap().secret.expose().to_string();
    let caller = f.app.authenticate(&key).await.unwrap().unwrap();
    let own = call(&f.app, &caller, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&own), ["Title 1"]);
    spec.capabilities.insert(domain::Capability::RequestsManage);
    f.other.update_grant("family", &spec).await.unwrap();
    // Every request reads its authority afresh, as the edge does.
    let caller = f.app.authenticate(&key).await.unwrap().unwrap();
    let all = call(&f.app, &caller, "list_requests", json!({"limit": 50})).await;
    assert_eq!(titles(&all), ["Title 2", "Title 1", "Title 0"]);
}

#[tokio::test]
async fn a_write_to_other_tables_keeps_the_answer_and_one_to_its_own_does_not() {
    let f = fixture().await;
    let page = json!({"limit": 2});
    let first = call(&f.app, &f.owner, "list_requests", page.clone()).await;
    let owner = f.other.person_by_name("owner").await.unwrap().unwrap();
    // Writes no kept answer reads: owner-page sign-ins (sessions).
    for _ in 0..3 {
        f.other.create_session(owner.id).await.unwrap();
    }
    // The fixture's caller reads the state anew for each call after its first.
    let kept = call(&f.app, &f.owner, "list_requests", page.clone()).await;
    assert_eq!(
        kept.observed_at, first.observed_at,
        "kept across other writes"
    );
    assert_eq!(titles(&kept), titles(&first));
    // A request is written: the page is read again and shows it.
    request(&f.other, owner.id, 9).await;
    let fresh = call(&f.app, &f.owner, "list_requests", page).await;
    assert_ne!(fresh.observed_at, first.observed_at);
    assert_ne!(
        titles(&fresh),
        titles(&first),
        "the new request is on the page"
    );
}
