//! The shortlist pages as the owner sees them in headless Chromium, against the Jellyfin fake:
//! the rows with each schedule and who planned it, a row's page with what a run would do now
//! (the title shown, the one missing), and the owner pausing and resuming the schedule there.

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use test_support::media::{FakeMedia, MediaKind};

use crate::{
    media::serve,
    support::{Server, outcome},
    webdriver::Browser,
};

const PASSWORD: &str = "correct horse battery staple";

/// Plans with `key`; the owner approves it unless it is the owner's own; `key` applies it.
async fn planned(s: &Server, key: &str, tool: &str, args: Value) -> Value {
    let (err, summary, data) = outcome(&s.call(key, tool, args).await);
    assert!(!err, "{tool}: {summary}");
    let change = data["change_id"].as_str().unwrap();
    if !data["missing_authority"].is_null() {
        let store = s.host.app.store();
        let owner = store.person_by_name("owner").await.unwrap().unwrap();
        let hash = data["content_hash"].as_str().unwrap();
        store
            .decide_change(change, owner.id, true, hash)
            .await
            .unwrap();
    }
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = outcome(&s.call(key, "apply_change", apply).await);
    assert!(!err, "apply {tool}: {summary}");
    data
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_sees_rows_previews_and_pauses_a_schedule_in_the_browser() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jf", fake.url(), InstanceKind::Jellyfin)]).await;
    let base = s.on_loopback().await;
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let owner = s.owner_key.clone();
    let (_, _, libraries) = outcome(&s.call(&owner, "list_libraries", json!({})).await);
    let movies = libraries["libraries"][0]["library_id"]
        .as_str()
        .unwrap()
        .to_string();
    let picks = json!([
        {"media_source": "builtin", "media_id": "tt1109624", "media_type": "movie"},
        {"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"}
    ]);
    let setup = json!({"theme": {"name": "Sunday", "picks": picks},
        "row": {"instance_id": "jf", "library_id": movies, "name": "Sunday matinee"}});
    let done = planned(&s, &owner, "plan_setup", setup).await;
    let row_id = done["result"]["row_id"].as_i64().unwrap();
    let theme_id = done["result"]["theme_id"].as_i64().unwrap();
    let enable = json!({"row_id": row_id, "theme_id": theme_id, "instance_id": "jf",
        "library_id": movies, "name": "Sunday matinee", "enabled": true});
    planned(&s, &owner, "plan_row", enable).await;
    let ada = s.key_for("ada", Role::Admin, "admin").await;
    let schedule = json!({"row_id": row_id, "cron": "0 15 * * 0"});
    planned(&s, &ada, "plan_schedule", schedule).await;

    let b = Browser::start("shortlist-pages").await;
    b.goto(&format!("{base}/shortlists")).await;
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    b.wait_url("/changes").await;
    b.goto(&format!("{base}/shortlists")).await;
    let rows = b.text("#rows").await;
    assert!(
        rows.contains("Sunday matinee")
            && rows.contains("0 15 * * 0")
            && rows.contains("planned by ada"),
        "{rows}"
    );
    assert!(b.text("#themes").await.contains("Paddington"));
    b.screenshot("1-shortlists").await;

    b.goto(&format!("{base}/shortlists/rows/{row_id}")).await;
    let preview = b.text("#preview").await;
    assert!(
        preview.contains("Paddington (2014) shown") && preview.contains("Heat (1995) missing"),
        "{preview}"
    );
    assert!(
        b.text("#effect")
            .await
            .contains("creates the collection with 1")
    );
    b.screenshot("2-row").await;
    b.click("#pause").await;
    let state = b.wait_text("#schedule-state", "paused").await;
    assert!(state.contains("paused"), "{state}");
    let row = store.shortlist_row(row_id).await.unwrap().unwrap();
    let kept = row.schedule.unwrap();
    assert!(kept.paused && kept.next_at.is_none(), "{kept:?}");
    b.screenshot("3-row-paused").await;
    b.click("#resume").await;
    b.wait_text("#schedule-state", "runs this row").await;
    let row = store.shortlist_row(row_id).await.unwrap().unwrap();
    assert!(!row.schedule.unwrap().paused);
    b.quit().await;
}
