//! Shortlist rows through the real MCP endpoint against the Jellyfin fake: the server's
//! libraries are listed, a row of a theme (two titles the server has, one it lacks) planned for
//! a kid and saved when applied, and its preview shows what a run would do: the title within
//! the kid's limits shown, the one beyond them left out with why, the missing one named, and a
//! collection to create. A disabled row does not run; enabled, a dry run writes nothing, a run
//! makes the collection on the server and requests the missing title, and a second run changes
//! nothing and requests nothing twice. A library or person that does not exist is refused.

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::media::{FakeMedia, MediaKind};

use crate::{
    media::serve,
    support::{Server, outcome},
};

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

/// Plans with the owner's key and applies at once (the owner's own plan needs no approval).
async fn planned(s: &Server, tool: &str, args: Value) -> Value {
    let (err, summary, data) = call(s, &s.owner_key, tool, args).await;
    assert!(!err, "{tool}: {summary} {data}");
    let change = data["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = call(s, &s.owner_key, "apply_change", apply).await;
    assert!(!err, "apply {tool}: {summary} {data}");
    data
}

/// How many requests the household has.
async fn requests(s: &Server) -> usize {
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

fn movie(imdb: &str) -> Value {
    json!({"media_source": "builtin", "media_id": imdb, "media_type": "movie"})
}

fn titles(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_row_is_planned_for_a_kid_and_its_preview_keeps_to_their_limits() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jf", fake.url(), InstanceKind::Jellyfin)]).await;
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..ContentLimits::default()
    };
    s.key_with_limits("kid", Role::Kid, "reader", limits).await;

    // Paddington (PG) and Alien (R) are on the server; Heat is not.
    let picks = json!([movie("tt1109624"), movie("tt0078748"), movie("tt0113277")]);
    planned(&s, "plan_theme", json!({"name": "Friday", "picks": picks})).await;
    let (_, _, themes) = call(&s, &s.owner_key, "list_themes", json!({})).await;
    let theme_id = themes["themes"][0]["theme_id"].as_i64().unwrap();

    let (err, _, libraries) = call(
        &s,
        &s.owner_key,
        "list_libraries",
        json!({"instance_id": "jf"}),
    )
    .await;
    assert!(!err, "{libraries}");
    let movies = libraries["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "movies")
        .unwrap()["library_id"]
        .as_str()
        .unwrap()
        .to_string();

    // A library or a person that does not exist is refused when planning.
    let bad =
        json!({"theme_id": theme_id, "instance_id": "jf", "library_id": "nope", "name": "Friday"});
    let (err, summary, _) = call(&s, &s.owner_key, "plan_row", bad).await;
    assert!(
        err && summary.contains("has no library nope") && summary.contains("Movies"),
        "{summary}"
    );
    let bad = json!({"theme_id": theme_id, "instance_id": "jf", "library_id": movies, "name": "Friday",
        "audience": ["nobody"]});
    let (err, summary, _) = call(&s, &s.owner_key, "plan_row", bad).await;
    assert!(
        err && summary.contains("no person named \"nobody\""),
        "{summary}"
    );

    let row = json!({"theme_id": theme_id, "instance_id": "jf", "library_id": movies,
        "name": "Friday night", "audience": ["kid"]});
    planned(&s, "plan_row", row).await;
    let (_, _, rows) = call(&s, &s.owner_key, "list_rows", json!({})).await;
    let row_id = rows["rows"][0]["row_id"].as_i64().unwrap();
    assert_eq!(rows["rows"][0]["audience"], json!(["kid"]));
    assert_eq!(
        rows["rows"][0]["enabled"], false,
        "a new row starts disabled"
    );
    let (err, _, row) = call(&s, &s.owner_key, "get_row", json!({"row_id": row_id})).await;
    assert!(!err);
    assert_eq!(
        (row["theme"].clone(), row["name"].clone()),
        (json!("Friday"), json!("Friday night"))
    );

    let (err, summary, preview) =
        call(&s, &s.owner_key, "preview_row", json!({"row_id": row_id})).await;
    assert!(!err, "{summary}");
    assert_eq!(titles(&preview["shown"]), ["Paddington"], "{preview}");
    assert_eq!(titles(&preview["left_out"]), ["Alien"]);
    assert_eq!(
        preview["left_out"][0]["reason"],
        "beyond kid's content limits"
    );
    assert_eq!(titles(&preview["missing"]), ["Heat"]);
    assert_eq!(preview["creates_collection"], true);
    assert_eq!(preview["to_add"], json!([preview["shown"][0]["item_id"]]));
    // A preview changes nothing on the server.
    assert!(fake.collections().is_empty());
    assert!(fake.requests().iter().all(|r| r.method == "GET"));

    // A disabled row does not run; enabled (a plan of its own), a dry run writes nothing.
    let run = json!({"row_ids": [row_id], "dry_run": true, "max_requests": 1});
    let (err, summary, _) = call(&s, &s.owner_key, "plan_run", run.clone()).await;
    assert!(err && summary.contains("disabled"), "{summary}");
    let enable = json!({"row_id": row_id, "theme_id": theme_id, "instance_id": "jf", "library_id": movies,
        "name": "Friday night", "audience": ["kid"], "enabled": true});
    planned(&s, "plan_row", enable).await;
    let (err, summary, dry) = call(&s, &s.owner_key, "plan_run", run).await;
    assert!(!err, "{summary}");
    assert_eq!(dry["rows"][0]["outcome"], "dry_run");
    assert_eq!(dry["rows"][0]["creates_collection"], true);
    assert_eq!(dry["rows"][0]["requests"][0]["outcome"], "would_request");
    assert!(fake.collections().is_empty());

    // Run: the collection holds the one title within the kid's limits; one missing title is
    // requested (max_requests 1).
    let run = json!({"row_ids": [row_id], "dry_run": false, "max_requests": 1});
    let applied = planned(&s, "plan_run", run.clone()).await;
    let report = &applied["result"]["rows"][0];
    assert_eq!(
        (report["outcome"].clone(), report["added"].clone()),
        (json!("done"), json!(1)),
        "{applied}"
    );
    assert_eq!(report["requests"][0]["title"], "Heat");
    assert_eq!(report["requests"][0]["outcome"], "requested", "{applied}");
    assert_eq!(
        fake.collections(),
        [("Friday night".to_string(), vec!["Paddington".to_string()])],
        "{applied}"
    );
    let (_, _, row) = call(&s, &s.owner_key, "get_row", json!({"row_id": row_id})).await;
    assert!(row["collection_id"].is_string(), "{row}");
    let requests_after_first = requests(&s).await;

    // Run again: nothing to add or take out, no second collection, no second request.
    let (_, _, again) = call(&s, &s.owner_key, "preview_row", json!({"row_id": row_id})).await;
    assert_eq!(
        (again["creates_collection"].clone(), again["to_add"].clone()),
        (json!(false), json!([]))
    );
    planned(&s, "plan_run", run).await;
    assert_eq!(fake.collections().len(), 1);
    let requests_after_second = requests(&s).await;
    assert_eq!((requests_after_first, requests_after_second), (1, 1));

    // Both runs are listed, newest first, with their row reports.
    let (err, _, runs) = call(&s, &s.owner_key, "list_runs", json!({"row_id": row_id})).await;
    assert!(!err, "{runs}");
    let runs = runs["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (
            runs[0]["rows"][0]["added"].clone(),
            runs[1]["rows"][0]["added"].clone()
        ),
        (json!(0), json!(1))
    );
    let first = runs[1]["run_id"].as_str().unwrap();
    let (err, summary, report) =
        call(&s, &s.owner_key, "get_run_report", json!({"run_id": first})).await;
    assert!(!err, "{summary}");
    assert_eq!(report["status"], "succeeded");
    assert_eq!(report["rows"][0]["requests"][0]["outcome"], "requested");
    let (err, summary, _) = call(
        &s,
        &s.owner_key,
        "get_run_report",
        json!({"run_id": "op_nope"}),
    )
    .await;
    assert!(
        err && summary.contains("no shortlist run op_nope"),
        "{summary}"
    );
    // A grant that does not reach the server sees none of its rows, nor them in run reports.
    let store = s.host.app.store();
    let elsewhere = store.add_person("rae", Role::Admin).await.unwrap();
    let spec = store::GrantSpec {
        capabilities: std::collections::BTreeSet::from([domain::Capability::Shortlists]),
        instances: Some(vec!["plex".into()]),
        ..store::GrantSpec::default()
    };
    store.create_grant("elsewhere", &spec).await.unwrap();
    let key = store
        .create_key(elsewhere.id, "elsewhere", None, None)
        .await
        .unwrap();
    let rae = key.secret.expose().to_string();
    let (_, _, rows) = call(&s, &rae, "list_rows", json!({})).await;
    assert_eq!(rows["rows"], json!([]), "{rows}");
    let (err, _, _) = call(&s, &rae, "get_row", json!({"row_id": row_id})).await;
    assert!(err);
    let (err, _, _) = call(&s, &rae, "preview_row", json!({"row_id": row_id})).await;
    assert!(err);
    let (_, _, report) = call(&s, &rae, "get_run_report", json!({"run_id": first})).await;
    assert_eq!(report["rows"], json!([]), "{report}");
}

#[tokio::test]
async fn a_setup_saves_a_theme_and_its_disabled_row_together_or_neither() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = serve(&[("jf", fake.url(), InstanceKind::Jellyfin)]).await;
    let (_, _, libraries) = call(&s, &s.owner_key, "list_libraries", json!({})).await;
    let movies = libraries["libraries"][0]["library_id"]
        .as_str()
        .unwrap()
        .to_string();
    let setup = |theme: &str| {
        json!({"theme": {"name": theme, "picks": [movie("tt1109624")]},
               "row": {"instance_id": "jf", "library_id": movies, "name": "Sunday"}})
    };
    let with_id = json!({"theme": {"theme_id": 1, "name": "X", "picks": [movie("tt1109624")]},
        "row": {"instance_id": "jf", "library_id": movies}});
    let (err, summary, _) = call(&s, &s.owner_key, "plan_setup", with_id).await;
    assert!(err && summary.contains("leave theme_id out"), "{summary}");

    // Two setups for the same row name: the first applied saves both; the second is stale
    // and saves neither its theme nor its row.
    let (_, _, first) = call(&s, &s.owner_key, "plan_setup", setup("Paddington days")).await;
    let (_, _, second) = call(&s, &s.owner_key, "plan_setup", setup("Bear films")).await;
    for (data, ok) in [(first, true), (second, false)] {
        let change = data["change_id"].as_str().unwrap();
        let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
        let (err, summary, _) = call(&s, &s.owner_key, "apply_change", apply).await;
        assert_eq!(!err, ok, "{summary}");
    }
    let (_, _, themes) = call(&s, &s.owner_key, "list_themes", json!({})).await;
    assert_eq!(titles_of(&themes["themes"], "name"), ["Paddington days"]);
    let (_, _, rows) = call(&s, &s.owner_key, "list_rows", json!({})).await;
    assert_eq!(titles_of(&rows["rows"], "name"), ["Sunday"]);
    assert_eq!(
        (
            rows["rows"][0]["enabled"].clone(),
            rows["rows"][0]["theme"].clone()
        ),
        (json!(false), json!("Paddington days"))
    );
}

fn titles_of(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_str().unwrap().to_string())
        .collect()
}
