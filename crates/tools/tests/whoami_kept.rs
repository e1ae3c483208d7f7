//! whoami's answer is kept per authority and database state, and never past a change: a use
//! of an allowance, a grant change or a revoked key made through another handle on the same
//! file (as the CLI does from another process) each show at the very next call.

#![allow(clippy::unwrap_used)]

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use domain::{AllowanceKind, AllowanceRule, Capability, Role};
use serde_json::{Value, json};
use store::{GrantSpec, NewAudit, Reserved, Store};
use tools::{App, Called, Caller, Instances, Output, Settings};

struct Fixture {
    app: App,
    /// Ann's key (a grant allowing 3 grabs per day).
    key: String,
    key_id: String,
    /// A second handle on the same database file: its own pool, its own connections.
    other: Store,
    _dir: tempfile::TempDir,
}

fn spec(grabs: u32) -> GrantSpec {
    GrantSpec {
        capabilities: BTreeSet::from([Capability::Discover, Capability::Request]),
        allowances: BTreeMap::from([(
            AllowanceKind::Grabs,
            AllowanceRule {
                count: grabs,
                days: 1,
            },
        )]),
        ..GrantSpec::default()
    }
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let ann = store.add_person("ann", Role::User).await.unwrap();
    store.create_grant("grabber", &spec(3)).await.unwrap();
    let key = store
        .create_key(ann.id, "grabber", None, None)
        .await
        .unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::default()),
    );
    app.start_jobs(std::future::pending());
    let other = Store::open(dir.path()).await.unwrap();
    Fixture {
        app,
        key: key.secret.expose().to_owned(),
        key_id: key.info.key_id,
        other,
        _dir: dir,
    }
}

/// Authenticates as every request does, then asks whoami.
async fn ask(f: &Fixture) -> Output {
    let caller = f
        .app
        .authenticate(&f.key)
        .await
        .unwrap()
        .expect("a live key");
    whoami(f, &caller).await
}

async fn whoami(f: &Fixture, caller: &Caller) -> Output {
    match f.app.call(caller, "whoami", None).await {
        Called::Done(Ok(out)) => out,
        Called::Done(Err(e)) => panic!("whoami failed: {}", e.message),
        Called::UnknownTool => panic!("no whoami"),
    }
}

fn grabs(out: &Output) -> Value {
    let a = &out.data()["grant"]["allowances"][0];
    json!({ "count": a["count"], "used": a["used"], "left": a["left"] })
}

async fn spend_a_grab(f: &Fixture) {
    let ann = f.other.person_by_name("ann").await.unwrap().unwrap();
    let entry = NewAudit {
        person: ann.id,
        key_id: Some(f.key_id.clone()),
        tool: "grab_release".into(),
        instance: None,
        args_digest: "d".into(),
    };
    let rule = AllowanceRule { count: 3, days: 1 };
    let reserved = f
        .other
        .audit_begin_reserving(&entry, AllowanceKind::Grabs, rule)
        .await
        .unwrap();
    assert!(matches!(reserved, Reserved::Begun(_)), "{reserved:?}");
}

#[tokio::test]
async fn whoami_asked_again_while_nothing_changed_is_the_kept_answer() {
    let f = fixture().await;
    let first = ask(&f).await;
    let again = ask(&f).await;
    assert_eq!(again.observed_at, first.observed_at, "computed once");
    assert_eq!(again.data(), first.data());
    assert_eq!(again.summary, first.summary);
}

#[tokio::test]
async fn a_use_of_an_allowance_through_another_handle_shows_at_the_next_call() {
    let f = fixture().await;
    // One authenticated caller throughout: the database's state, not a new authority,
    // is what makes the next call read again.
    let caller = f.app.authenticate(&f.key).await.unwrap().unwrap();
    let before = whoami(&f, &caller).await;
    assert_eq!(grabs(&before), json!({ "count": 3, "used": 0, "left": 3 }));
    spend_a_grab(&f).await;
    let after = whoami(&f, &caller).await;
    assert_eq!(grabs(&after), json!({ "count": 3, "used": 1, "left": 2 }));
    assert!(
        after.summary.contains("2 of 3 grabs per day left"),
        "{}",
        after.summary
    );
    let refills = after.data()["grant"]["allowances"][0]["refills_at"].clone();
    assert!(refills.is_string(), "{refills}");
}

#[tokio::test]
async fn a_grant_change_through_another_handle_shows_at_the_next_call() {
    let f = fixture().await;
    let before = ask(&f).await;
    let revision = before.data()["grant"]["revision"].as_i64().unwrap();
    f.other.update_grant("grabber", &spec(5)).await.unwrap();
    let after = ask(&f).await;
    assert_eq!(after.data()["grant"]["revision"], revision + 1);
    assert_eq!(grabs(&after), json!({ "count": 5, "used": 0, "left": 5 }));
}

#[tokio::test]
async fn a_key_revoked_through_another_handle_gets_no_answer_at_the_next_call() {
    let f = fixture().await;
    ask(&f).await;
    f.other.revoke_key(&f.key_id).await.unwrap();
    let caller = f.app.authenticate(&f.key).await.unwrap();
    assert!(caller.is_none(), "the key is checked before any answer");
}

/// A new key of the grant "grabber" for `person`, made through the other handle, and the
/// caller it authenticates: its key id and the caller.
async fn new_key(f: &Fixture, person: domain::PersonId) -> (String, Caller) {
    let key = f
        .other
        .create_key(person, "grabber", None, None)
        .await
        .unwrap();
    let caller = f
        .app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .expect("a live key");
    (key.info.key_id, caller)
}

#[tokio::test]
async fn callers_do_not_share_kept_answers() {
    let f = fixture().await;
    let ann = ask(&f).await;
    let bob = f.other.add_person("bob", Role::Kid).await.unwrap();
    let (_, bobs) = new_key(&f, bob.id).await;
    let out = whoami(&f, &bobs).await;
    assert_eq!(out.data()["person"]["name"], "bob");
    assert_eq!(
        ask(&f).await.data()["person"]["name"],
        ann.data()["person"]["name"]
    );
}

fn movie_quota(out: &Output) -> Value {
    let q = &out.data()["request_quotas"]["allowances"][0];
    json!({ "units": q["units"], "used": q["used"], "remaining": q["remaining"] })
}

#[tokio::test]
async fn two_keys_of_one_person_and_grant_each_see_their_own_key() {
    let f = fixture().await;
    let first = ask(&f).await;
    assert_eq!(first.data()["key_id"], f.key_id.as_str());
    let ann = f.other.person_by_name("ann").await.unwrap().unwrap();
    let (second, caller) = new_key(&f, ann.id).await;
    let out = whoami(&f, &caller).await;
    assert_eq!(out.data()["key_id"], second.as_str());
    assert_eq!(ask(&f).await.data()["key_id"], f.key_id.as_str());
}

#[tokio::test]
async fn a_request_quota_set_and_charged_through_another_handle_shows_at_the_next_call() {
    let f = fixture().await;
    let caller = f.app.authenticate(&f.key).await.unwrap().unwrap();
    let before = whoami(&f, &caller).await;
    assert_eq!(before.data()["request_quotas"]["allowances"], json!([]));
    let user = store::QuotaScope::Role { role: Role::User };
    let movie = domain::MediaType::Movie;
    f.other.set_quota(&user, movie, 2, 7).await.unwrap();
    let set = whoami(&f, &caller).await;
    assert_eq!(
        movie_quota(&set),
        json!({ "units": 2, "used": 0, "remaining": 2 })
    );
    let ann = f.other.person_by_name("ann").await.unwrap().unwrap();
    let request = store::NewRequest {
        person: ann.id,
        media: domain::MediaId::new(domain::MediaSource::Builtin, "tt0113277".to_owned()),
        media_type: movie,
        title: "Heat".into(),
        year: Some(1995),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: false,
    };
    f.other.create_request(&request).await.unwrap();
    let charged = whoami(&f, &caller).await;
    assert_eq!(
        movie_quota(&charged),
        json!({ "units": 2, "used": 1, "remaining": 1 })
    );
}
