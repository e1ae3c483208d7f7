//! A tool surface a model can use: each preset's `tools/list` shows a few tool groups, at most
//! 40 tools with every family configured; the rest stay callable by name and `find_tools`
//! finds them with their schemas; a grant chooses its groups.

use domain::Role;
use serde_json::json;

use crate::{annotations::every_family, support, tools::names};

#[tokio::test]
async fn each_preset_lists_at_most_40_tools_and_finds_the_rest() {
    let s = support::server_for(every_family(), true).await;
    let mut sizes = Vec::new();
    for (preset, role) in [
        ("reader", Role::User),
        ("requester", Role::User),
        ("operator", Role::User),
        ("admin", Role::Admin),
    ] {
        let key = s.key_for(preset, role, preset).await;
        let (_, body) = s
            .rpc(&key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
            .await;
        let listed = names(&body);
        let bytes = body["result"]["tools"].to_string().len();
        let without_output: usize = body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.as_object_mut().unwrap().remove("outputSchema");
                t.to_string().len()
            })
            .sum();
        sizes.push(format!(
            "{preset}: {} tools, {bytes} bytes ({without_output} without output schemas)",
            listed.len()
        ));
        assert!(
            listed.len() <= 40,
            "{preset} lists {}: {listed:?}",
            listed.len()
        );
        assert!(
            listed.contains(&"find_tools".to_string()),
            "{preset}: {listed:?}"
        );
    }
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    sizes.push(format!(
        "owner (every group): {} tools, {} bytes",
        names(&body).len(),
        body["result"]["tools"].to_string().len()
    ));
    // The figures BENCHMARKS.md reports (tokens are estimated as bytes / 4).
    eprintln!("tools/list sizes: {}", sizes.join("; "));

    // An operator's list leaves the files group out; its tools are found and called by name.
    let operator = s.key_for("op2", Role::User, "operator").await;
    let (_, body) = s
        .rpc(
            &operator,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let listed = names(&body);
    assert!(
        !listed.contains(&"find_local_media".to_string()),
        "{listed:?}"
    );
    assert!(listed.contains(&"add_torrent".to_string()), "{listed:?}");
    let r = s
        .call(&operator, "find_tools", json!({"query": "local media"}))
        .await;
    assert_eq!(r["isError"], false, "{r}");
    let found = &r["structuredContent"]["data"]["tools"];
    let local = found
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "find_local_media")
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(local["group"], "files", "{r}");
    assert_eq!(local["input_schema"]["type"], "object", "{r}");
    assert!(
        found
            .as_array()
            .unwrap()
            .iter()
            .all(|t| !listed.contains(&t["name"].as_str().unwrap().to_string())),
        "only tools beyond the list: {r}"
    );
    let r = s.call(&operator, "find_local_media", json!({})).await;
    assert_eq!(
        r["isError"], false,
        "an unlisted tool is callable by name: {r}"
    );
    // Nothing the grant does not allow is found.
    let r = s
        .call(&operator, "find_tools", json!({"query": "task"}))
        .await;
    let found = r["structuredContent"]["data"]["tools"].to_string();
    assert!(
        !found.contains("create_task"),
        "operators have no automation: {r}"
    );
    let r = s
        .call(
            &operator,
            "find_tools",
            json!({"query": "profile", "group": "library"}),
        )
        .await;
    assert!(
        r["structuredContent"]["data"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["group"] == "library"),
        "{r}"
    );
}

#[tokio::test]
async fn a_grant_chooses_the_groups_its_list_shows() {
    let s = support::server_for(every_family(), true).await;
    let store = s.host.app.store();
    let mut spec = store::GrantSpec::of(&store.grant_by_name("operator").await.unwrap().unwrap());
    spec.groups = Some(vec!["files".into()]);
    store.create_grant("sorter", &spec).await.unwrap();
    let key = s.key_for("sam", Role::User, "sorter").await;
    let (_, body) = s
        .rpc(&key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    let listed = names(&body);
    assert!(listed.contains(&"plan_organize".to_string()), "{listed:?}");
    assert!(
        listed.contains(&"whoami".to_string()),
        "core tools are always listed: {listed:?}"
    );
    assert!(!listed.contains(&"add_torrent".to_string()), "{listed:?}");
    // A grant naming a tool lists it whatever its group.
    spec.tools = Some(vec!["add_torrent".into(), "plan_organize".into()]);
    store.update_grant("sorter", &spec).await.unwrap();
    let (_, body) = s
        .rpc(&key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    assert!(names(&body).contains(&"add_torrent".to_string()), "{body}");
}
