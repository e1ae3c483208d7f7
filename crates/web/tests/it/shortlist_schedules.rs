//! A shortlist row from setup to cleanup through the real MCP endpoint against the Jellyfin
//! fake: a theme of five picks (two the server has, three it lacks) set up with its disabled
//! row in one approval, previewed, enabled, run (a collection of the two titles, at most
//! max_requests requests), run again (no second collection, no second request), scheduled by an
//! admin and run on the tasks' clock (kept as a run like any other), still run after that
//! admin's key is revoked (its requests then refused, named in the report), paused, and cleaned
//! up (the collection Marquee made removed, the row retired).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use test_support::media::{FakeMedia, MediaKind};
use tools::{
    shortlists::Schedules,
    tasks::{Scheduler, TasksConfig, schedule::ManualClock},
};

use crate::{
    media::serve,
    support::{Server, outcome},
};

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

/// Plans with `key`; the owner approves it (as on the review page) unless it is the owner's
/// own; then `key` applies it.
async fn planned(s: &Server, key: &str, tool: &str, args: Value) -> Value {
    let (err, summary, data) = call(s, key, tool, args).await;
    assert!(!err, "{tool}: {summary} {data}");
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
    let (err, summary, data) = call(s, key, "apply_change", apply).await;
    assert!(!err, "apply {tool}: {summary} {data}");
    data
}

fn movie(imdb: &str) -> Value {
    json!({"media_source": "builtin", "media_id": imdb, "media_type": "movie"})
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// The row's runs, newest first.
async fn runs(s: &Server, row_id: i64) -> Vec<String> {
    let (err, _, runs) = call(s, &s.owner_key, "list_runs", json!({"row_id": row_id})).await;
    assert!(!err, "{runs}");
    runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_owned())
        .collect()
}

/// A run's report once it ended (a pass of the server's own job may still be running it).
async fn settled(s: &Server, run_id: &str) -> Value {
    for _ in 0..200 {
        let (err, _, report) =
            call(s, &s.owner_key, "get_run_report", json!({"run_id": run_id})).await;
        assert!(!err, "{report}");
        if report["status"] != "running" && report["status"] != "in_flight" {
            return report;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("run {run_id} did not end");
}

async fn request_count(s: &Server) -> usize {
    let query = store::RequestQuery {
        limit: 200,
        ..Default::default()
    };
    s.host
        .app
        .store()
        .requests_page(&query)
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_row_is_set_up_run_scheduled_and_cleaned_up() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jf", fake.url(), InstanceKind::Jellyfin)]).await;
    let clock = ManualClock::new(at("2026-12-04T17:00:00Z"));
    let scheduler = s.host.app.family::<Arc<Scheduler>>().unwrap().clone();
    scheduler.set_clock(clock.clone());
    scheduler.configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: Vec::new(),
    });
    let schedules = s.host.app.family::<Arc<Schedules>>().unwrap().clone();
    let owner = s.owner_key.clone();

    let (err, _, templates) = call(&s, &owner, "list_templates", json!({})).await;
    assert!(!err);
    let wishlist = templates["templates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["template_id"] == "wishlist")
        .unwrap();
    assert_eq!(wishlist["rules"], json!({"missing_only": true}));

    // Paddington and Alien are on the server; Heat and two Beauty and the Beasts are not.
    let (_, _, libraries) = call(&s, &owner, "list_libraries", json!({})).await;
    let movies = libraries["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "movies")
        .unwrap()["library_id"]
        .as_str()
        .unwrap()
        .to_string();
    let picks = json!([
        movie("tt1109624"),
        movie("tt0078748"),
        movie("tt0113277"),
        movie("tt0101414"),
        movie("tt2316801")
    ]);
    let setup = json!({"theme": {"name": "Friday", "picks": picks},
        "row": {"instance_id": "jf", "library_id": movies, "name": "Friday night"}});
    let applied = planned(&s, &owner, "plan_setup", setup).await;
    let row_id = applied["result"]["row_id"].as_i64().unwrap();
    let theme_id = applied["result"]["theme_id"].as_i64().unwrap();

    let (_, _, preview) = call(&s, &owner, "preview_row", json!({"row_id": row_id})).await;
    assert_eq!(preview["shown"].as_array().unwrap().len(), 2, "{preview}");
    assert_eq!(preview["missing"].as_array().unwrap().len(), 3, "{preview}");

    // A disabled row cannot be scheduled; enabled, it runs: two titles, two of three requested.
    let (err, summary, _) = call(
        &s,
        &owner,
        "plan_schedule",
        json!({"row_id": row_id, "cron": "0 18 * * *"}),
    )
    .await;
    assert!(err && summary.contains("disabled"), "{summary}");
    let enable = json!({"row_id": row_id, "theme_id": theme_id, "instance_id": "jf",
        "library_id": movies, "name": "Friday night", "enabled": true});
    planned(&s, &owner, "plan_row", enable).await;
    let run = json!({"row_ids": [row_id], "dry_run": false, "max_requests": 2});
    let applied = planned(&s, &owner, "plan_run", run.clone()).await;
    let report = &applied["result"]["rows"][0];
    assert_eq!(report["added"], 2, "{applied}");
    assert_eq!(report["requests"].as_array().unwrap().len(), 2);
    assert_eq!(report["not_requested"], 1);
    let shelf = |fake: &FakeMedia| {
        let mut c = fake.collections();
        c.iter_mut().for_each(|(_, items)| items.sort());
        c
    };
    let expected = vec![(
        "Friday night".to_string(),
        vec!["Alien".to_string(), "Paddington".to_string()],
    )];
    assert_eq!(shelf(&fake), expected);
    assert_eq!(request_count(&s).await, 2);
    planned(&s, &owner, "plan_run", run).await;
    assert_eq!(shelf(&fake), expected, "no second collection");
    assert_eq!(request_count(&s).await, 2, "no second request");

    // An admin schedules it (one request a run); bad cron and doubled arguments are refused.
    let ada = s.key_for("ada", Role::Admin, "admin").await;
    let store = s.host.app.store();
    for (args, says) in [
        (json!({"row_id": row_id, "cron": "every friday"}), "cron"),
        (
            json!({"row_id": row_id, "cron": "0 18 * * *", "remove": true}),
            "not both",
        ),
        (json!({"row_id": row_id}), "give cron"),
        (json!({"row_id": 999, "cron": "0 18 * * *"}), "no row 999"),
    ] {
        let (err, summary, _) = call(&s, &ada, "plan_schedule", args).await;
        assert!(err && summary.contains(says), "{says}: {summary}");
    }
    let schedule = json!({"row_id": row_id, "cron": "0 18 * * *", "max_requests": 1});
    let saved = planned(&s, &ada, "plan_schedule", schedule).await;
    assert_eq!(
        saved["result"]["next_run"], "2026-12-04T18:00:00Z",
        "{saved}"
    );
    let (_, _, row) = call(&s, &owner, "get_row", json!({"row_id": row_id})).await;
    assert_eq!(row["schedule"]["planned_by"], "ada", "{row}");
    assert_eq!(row["schedule"]["cron"], "0 18 * * *");

    // Not yet due: nothing runs. Due: one run, kept like any other, the third title requested.
    // (The server's own job passes tick too: runs are counted from list_runs.)
    schedules.tick().await;
    assert_eq!(runs(&s, row_id).await.len(), 2);
    clock.set(at("2026-12-04T18:00:30Z"));
    schedules.tick().await;
    schedules.tick().await;
    let ran = runs(&s, row_id).await;
    assert_eq!(ran.len(), 3, "a due time runs once");
    let report = settled(&s, &ran[0]).await;
    assert_eq!(report["status"], "succeeded", "{report}");
    assert_eq!(report["rows"][0]["outcome"], "done");
    assert_eq!(
        report["rows"][0]["requests"][0]["outcome"], "requested",
        "{report}"
    );
    assert_eq!(shelf(&fake), expected);

    // Ada's key is revoked: the schedule still runs (the owner's now), but files no request.
    let ada_key = store
        .keys()
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.person == "ada")
        .unwrap()
        .key_id;
    store.revoke_key(&ada_key).await.unwrap();
    clock.set(at("2026-12-05T18:00:10Z"));
    schedules.tick().await;
    let ran = runs(&s, row_id).await;
    assert_eq!(ran.len(), 4, "revoking the planner's key does not stop it");
    let report = settled(&s, &ran[0]).await;
    assert_eq!(report["rows"][0]["outcome"], "done", "{report}");
    let request = &report["rows"][0]["requests"][0];
    assert_eq!(request["outcome"], "refused", "{report}");
    assert!(
        request["message"]
            .as_str()
            .unwrap()
            .contains("no longer valid"),
        "{report}"
    );

    // A time missed while the server was down is skipped, never run late.
    clock.set(at("2026-12-06T19:00:00Z"));
    schedules.tick().await;
    assert_eq!(runs(&s, row_id).await.len(), 4);
    // The owner pauses it: due times pass without a run.
    let pause = json!({"row_id": row_id, "cron": "0 18 * * *", "paused": true});
    planned(&s, &owner, "plan_schedule", pause).await;
    clock.set(at("2026-12-07T18:00:05Z"));
    schedules.tick().await;
    assert_eq!(runs(&s, row_id).await.len(), 4);
    let (_, _, row) = call(&s, &owner, "get_row", json!({"row_id": row_id})).await;
    assert_eq!(row["schedule"]["paused"], true, "{row}");
    assert!(row["schedule"]["next_run"].is_null(), "{row}");

    // Maintenance: a named cache is read again; cleanup lists exactly what goes, then removes
    // only the collection Marquee made and retires the row.
    let refresh = json!({"action": "refresh_cache", "cache": "media_index"});
    let done = planned(&s, &owner, "plan_maintenance", refresh).await;
    assert_eq!(done["result"]["steps"][0]["outcome"], "done", "{done}");
    let (err, summary, _) =
        call(&s, &owner, "plan_maintenance", json!({"action": "cleanup"})).await;
    assert!(err && summary.contains("row_ids"), "{summary}");
    let cleanup = json!({"action": "cleanup", "row_ids": [row_id]});
    let (err, summary, plan) = call(&s, &owner, "plan_maintenance", cleanup.clone()).await;
    assert!(!err, "{summary}");
    assert_eq!(
        plan["plan"]["cleanup"][0]["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let change = plan["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, done) = call(&s, &owner, "apply_change", apply).await;
    assert!(!err, "{summary}");
    assert_eq!(done["result"]["steps"][0]["outcome"], "done", "{done}");
    assert!(fake.collections().is_empty(), "{:?}", fake.collections());
    let (_, _, row) = call(&s, &owner, "get_row", json!({"row_id": row_id})).await;
    assert_eq!(row["enabled"], false, "{row}");
    assert!(
        row["collection_id"].is_null() && row["schedule"].is_null(),
        "{row}"
    );
    let (err, summary, _) = call(&s, &owner, "plan_maintenance", cleanup).await;
    assert!(err && summary.contains("nothing to clean up"), "{summary}");
}

/// A scheduled row whose server cannot be read is kept as a failed run, with why.
#[tokio::test]
async fn a_scheduled_row_whose_server_is_down_is_kept_as_a_failed_run() {
    // Nothing listens on port 9: the server's library cannot be read.
    let s = serve(&[("jf", "http://127.0.0.1:9/".into(), InstanceKind::Jellyfin)]).await;
    let clock = ManualClock::new(at("2026-12-04T17:59:00Z"));
    let scheduler = s.host.app.family::<Arc<Scheduler>>().unwrap().clone();
    scheduler.set_clock(clock.clone());
    scheduler.configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: Vec::new(),
    });
    let store = s.host.app.store();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let picks = json!([{"media_source": "builtin", "media_id": "tt1109624", "media_type": "movie",
        "title": "Paddington", "year": 2014}]);
    let theme = store
        .save_theme(
            &store::NewTheme {
                id: None,
                name: "Down".into(),
                description: String::new(),
                picks: picks.to_string(),
                rules: "{}".into(),
            },
            owner.id,
        )
        .await
        .unwrap();
    let row = store::NewRow {
        id: None,
        theme_id: theme.id,
        instance_id: "jf".into(),
        library_id: "movies".into(),
        name: "Down".into(),
        audience: Vec::new(),
        enabled: true,
        display: store::Display::default(),
    };
    let row = store.save_shortlist_row(&row, owner.id).await.unwrap();
    let due = at("2026-12-04T18:00:00Z").timestamp_millis();
    let schedule = store::RowSchedule {
        cron: "0 18 * * *".into(),
        paused: false,
        max_requests: 0,
        max_acquisitions: 0,
        by: Some(owner.id),
        key_id: "none".into(),
        next_at: Some(due),
    };
    store
        .set_row_schedule(row.id, Some(&schedule))
        .await
        .unwrap();
    clock.set(at("2026-12-04T18:00:20Z"));
    let schedules = s.host.app.family::<Arc<Schedules>>().unwrap().clone();
    schedules.tick().await;
    let ran = runs(&s, row.id).await;
    assert_eq!(ran.len(), 1);
    let report = settled(&s, &ran[0]).await;
    assert_eq!(report["status"], "failed", "{report}");
    assert_eq!(report["rows"][0]["outcome"], "failed");
    assert!(
        report["rows"][0]["message"]
            .as_str()
            .unwrap()
            .contains("media server jf"),
        "{report}"
    );
}
