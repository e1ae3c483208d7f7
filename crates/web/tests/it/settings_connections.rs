//! A secret handed over in the owner's browser against the Jellyfin fake, never through a
//! tool: check_connection names what is missing, start_connection answers a page link, the
//! owner (signed in, in headless Chromium) types a wrong key (refused by the instance's own
//! probe, nothing kept) and then the right one (checked and kept; the page never shows it
//! again), and get_connection_status follows each. An expired hand-over, someone else's, and
//! an instance whose key the config sets are refused.

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use test_support::media::{FakeMedia, MEDIA_TOKEN, MediaKind};

use crate::support::{Server, builtin, instance, outcome, server_with_instances};
use crate::webdriver::Browser;

const PASSWORD: &str = "correct horse battery staple";

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

/// What get_connection_status answers the owner.
async fn status(s: &Server, id: &str) -> Value {
    let args = json!({"connection_id": id});
    call(s, &s.owner_key, "get_connection_status", args).await.2
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_is_entered_in_the_owners_browser_checked_and_kept() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = server_with_instances(vec![
        builtin(),
        instance("jf", InstanceKind::Jellyfin, Some(&fake.url()), None),
        instance(
            "jf2",
            InstanceKind::Jellyfin,
            Some(&fake.url()),
            Some(MEDIA_TOKEN),
        ),
    ])
    .await;
    let base = s.on_loopback().await;
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let owner = s.owner_key.clone();

    // The configured instance without a key: its check names what is missing.
    let (err, summary, checked) =
        call(&s, &owner, "check_connection", json!({"instance_id": "jf"})).await;
    assert!(!err, "{summary}");
    assert_eq!(checked["ok"], false, "{checked}");
    assert!(summary.contains("no token"), "{summary}");
    let (_, _, checked) = call(
        &s,
        &owner,
        "check_connection",
        json!({"instance_id": "jf2"}),
    )
    .await;
    assert_eq!(checked["ok"], true, "{checked}");
    let (err, summary, _) = call(
        &s,
        &owner,
        "start_connection",
        json!({"instance_id": "jf2"}),
    )
    .await;
    assert!(
        err && summary.contains("set in the config file"),
        "{summary}"
    );
    let (err, summary, _) = call(
        &s,
        &owner,
        "start_connection",
        json!({"instance_id": "nope"}),
    )
    .await;
    assert!(err && summary.contains("no instance \"nope\""), "{summary}");

    let (err, summary, started) =
        call(&s, &owner, "start_connection", json!({"instance_id": "jf"})).await;
    assert!(!err, "{summary}");
    let id = started["connection_id"].as_str().unwrap().to_string();
    let page = started["page_url"].as_str().unwrap().to_string();
    assert_eq!(page, format!("{base}/connections/{id}"));
    assert_eq!(started["status"], "waiting");
    let b = Browser::start("connection-page").await;
    b.goto(&page).await;
    assert!(b.url().await.ends_with("/sign-in"), "{}", b.url().await);
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    b.wait_url("/changes").await;
    b.goto(&page).await;
    b.screenshot("1-connection-waiting").await;
    b.type_into("#secret", "not-the-token").await;
    b.click("#connect").await;
    let said = b.wait_text("#status", "failed").await;
    assert!(said.contains("failed"), "{said}");
    b.screenshot("2-connection-refused").await;
    let failed = status(&s, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(store.instances_with_secrets().await.unwrap().is_empty());

    let (_, _, started) = call(&s, &owner, "start_connection", json!({"instance_id": "jf"})).await;
    let id = started["connection_id"].as_str().unwrap().to_string();
    b.goto(started["page_url"].as_str().unwrap()).await;
    b.type_into("#secret", MEDIA_TOKEN).await;
    b.click("#connect").await;
    let said = b.wait_text("#status", "saved").await;
    assert!(
        said.contains("next start") && !said.contains(MEDIA_TOKEN),
        "{said}"
    );
    b.screenshot("3-connection-saved").await;
    b.quit().await;
    let saved = status(&s, &id).await;
    assert_eq!(saved["status"], "saved", "{saved}");
    assert!(!saved.to_string().contains(MEDIA_TOKEN));
    assert_eq!(store.instances_with_secrets().await.unwrap(), ["jf"]);
    assert_eq!(
        store.instance_secrets().await.unwrap()["jf"].expose(),
        MEDIA_TOKEN
    );

    // Someone else's hand-over is not theirs to read; an expired one says so.
    let admin = s.key_for("ada", Role::Admin, "admin").await;
    let (err, _, _) = call(
        &s,
        &admin,
        "get_connection_status",
        json!({"connection_id": id}),
    )
    .await;
    assert!(err);
    let person = store.person_by_name("owner").await.unwrap().unwrap();
    let old = store.create_connection("jf", person.id, 0).await.unwrap();
    assert_eq!(status(&s, &old.id).await["status"], "expired");
}
