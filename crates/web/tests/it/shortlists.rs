//! Shortlist themes through the real MCP endpoint on the builtin catalogue: picks found with
//! search_titles are resolved again when the theme is planned (an id that does not resolve is
//! refused by its place in the list), nothing is saved until the plan is applied, a saved
//! theme is listed and shown, replaced by a later plan, and a plan whose name was taken
//! meanwhile is stale. Kids and readers have no `shortlists`.

use domain::Role;
use serde_json::{Value, json};
use store::ChangeStatus;

use crate::support::{Server, outcome, server};

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

/// The first `n` movie rows search_titles answers for `query`, as picks.
async fn picks(s: &Server, query: &str, n: usize) -> Vec<Value> {
    let (err, summary, data) =
        call(s, &s.owner_key, "search_titles", json!({"query": query})).await;
    assert!(!err, "{summary}");
    let rows = data["results"].as_array().unwrap();
    let picked: Vec<Value> = rows
        .iter()
        .filter(|r| r["media_type"] == "movie")
        .take(n)
        .map(|r| json!({"media_source": r["media_source"], "media_id": r["media_id"], "media_type": "movie"}))
        .collect();
    assert_eq!(picked.len(), n, "{data}");
    picked
}

async fn apply(s: &Server, change_id: &str) -> (bool, String, Value) {
    let args = json!({"change_id": change_id, "idempotency_key": format!("k-{change_id}")});
    call(s, &s.owner_key, "apply_change", args).await
}

#[tokio::test]
async fn a_theme_is_planned_from_resolved_picks_and_saved_only_when_applied() {
    let s = server().await;
    let owner = s.owner_key.clone();
    let mut chosen = picks(&s, "heat", 2).await;
    chosen.extend(picks(&s, "alien", 1).await);

    // A remembered id that resolves to nothing is refused by its place, and nothing is stored.
    let mut wrong = chosen.clone();
    wrong.push(json!({"media_source": "builtin", "media_id": "tt9999999", "media_type": "movie"}));
    let (err, summary, _) = call(
        &s,
        &owner,
        "plan_theme",
        json!({"name": "Friday", "picks": wrong}),
    )
    .await;
    assert!(
        err && summary.contains("pick 4 (builtin tt9999999)"),
        "{summary}"
    );
    let twice = vec![chosen[0].clone(), chosen[0].clone()];
    let (err, summary, _) = call(
        &s,
        &owner,
        "plan_theme",
        json!({"name": "Friday", "picks": twice}),
    )
    .await;
    assert!(
        err && summary.contains("pick 2") && summary.contains("twice"),
        "{summary}"
    );
    let both = json!({"name": "Friday", "picks": chosen, "rules": {"in_library_only": true, "missing_only": true}});
    let (err, summary, _) = call(&s, &owner, "plan_theme", both).await;
    assert!(err && summary.contains("exclude each other"), "{summary}");
    assert!(
        s.host
            .app
            .store()
            .changes_page(None, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // A good plan stores a change and saves nothing yet.
    let args = json!({"name": "Heist films for Friday", "description": "Crews, vaults, getaways.",
        "picks": chosen, "rules": {"genres": ["Crime"], "year_from": 1970}});
    let (err, summary, data) = call(&s, &owner, "plan_theme", args).await;
    assert!(!err, "{summary}");
    let change_id = data["change_id"].as_str().unwrap().to_string();
    let (_, summary, listed) = call(&s, &owner, "list_themes", json!({})).await;
    assert_eq!(listed["themes"], json!([]), "{summary}");

    // Applied: saved with the titles discovery resolved.
    let (err, summary, applied) = apply(&s, &change_id).await;
    assert!(!err, "{summary} {applied}");
    let (_, _, listed) = call(&s, &owner, "list_themes", json!({})).await;
    let theme = &listed["themes"][0];
    assert_eq!(theme["name"], "Heist films for Friday");
    assert_eq!(theme["picks"].as_array().unwrap().len(), 3);
    assert!(
        theme["picks"][0]["title"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("heat"),
        "{theme}"
    );
    assert_eq!(
        theme["rules"],
        json!({"genres": ["Crime"], "year_from": 1970})
    );
    let id = theme["theme_id"].as_i64().unwrap();
    let (err, _, shown) = call(&s, &owner, "get_theme", json!({"theme_id": id})).await;
    assert!(!err);
    assert_eq!(shown["picks"], theme["picks"]);

    // Replaced by a later plan; another theme's plan for a name taken meanwhile is stale.
    let replace = json!({"theme_id": id, "name": "Heists", "picks": [chosen[2]]});
    let (_, _, data) = call(&s, &owner, "plan_theme", replace).await;
    let replacing = data["change_id"].as_str().unwrap().to_string();
    let other = json!({"name": "Heists", "picks": [chosen[0]]});
    let (_, _, data) = call(&s, &owner, "plan_theme", other).await;
    let late = data["change_id"].as_str().unwrap().to_string();
    assert!(!apply(&s, &replacing).await.0);
    let (err, summary, _) = apply(&s, &late).await;
    assert!(err && summary.contains("stale"), "{summary}");
    let (_, _, shown) = call(&s, &owner, "get_theme", json!({"theme_id": id})).await;
    assert_eq!(
        (
            shown["name"].clone(),
            shown["picks"].as_array().unwrap().len()
        ),
        (json!("Heists"), 1)
    );
    let change = s.host.app.store().change(&late).await.unwrap().unwrap();
    assert_ne!(change.status, ChangeStatus::Applied);

    // An unknown theme is named; kids and readers cannot plan or read themes.
    let (err, summary, _) = call(&s, &owner, "get_theme", json!({"theme_id": 999})).await;
    assert!(err && summary.contains("no theme 999"), "{summary}");
    for (name, role, grant) in [("kid", Role::Kid, "reader"), ("rita", Role::User, "reader")] {
        let key = s.key_for(name, role, grant).await;
        let (err, _, data) = call(&s, &key, "list_themes", json!({})).await;
        assert!(err, "{name}: {data}");
    }
}
