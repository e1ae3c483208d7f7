//! Scheduled tasks through the real MCP endpoint: created, run at once (the answer carries the
//! run id before the run ends), followed to its result, listed with its last run; background
//! jobs listed; and the tools absent from a kid's and a requester's tools/list.

use std::time::Duration;

use domain::Role;
use serde_json::{Value, json};

use crate::support::{outcome, server};

async fn names(s: &crate::support::Server, key: &str) -> Vec<String> {
    let (_, body) = s
        .rpc(key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_task_is_created_run_and_followed_over_mcp() {
    let s = server().await;
    let created = s
        .call(
            &s.owner_key,
            "create_task",
            json!({
                "name": "evening check",
                "calls": [{"tool": "whoami", "arguments": {}}],
                "trigger_type": "cron",
                "trigger": "0 18 * * *",
                "notify": "on_change"
            }),
        )
        .await;
    let (failed, summary, data) = outcome(&created);
    assert!(!failed, "{summary}");
    let task_id = data["task_id"].as_i64().unwrap();
    assert!(data["next_run"].as_str().is_some(), "{data}");

    let started = s
        .call(&s.owner_key, "run_task", json!({"task_id": task_id}))
        .await;
    let (failed, summary, data) = outcome(&started);
    assert!(!failed, "{summary}");
    let run_id = data["run_id"].as_i64().unwrap();

    let mut run = Value::Null;
    for _ in 0..500 {
        run = outcome(
            &s.call(&s.owner_key, "get_task_run", json!({"run_id": run_id}))
                .await,
        )
        .2;
        if run["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["results"][0]["tool"], "whoami");
    assert_eq!(run["cause"], "manual");

    let listed = outcome(&s.call(&s.owner_key, "list_tasks", json!({})).await).2;
    assert_eq!(listed["tasks"][0]["last_run"]["run_id"], run_id);
    assert_eq!(listed["tasks"][0]["last_run"]["status"], "succeeded");

    let jobs = outcome(&s.call(&s.owner_key, "list_schedulers", json!({})).await).2;
    let ids: Vec<&str> = jobs["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["job_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"tasks.schedule"), "{jobs}");
    assert!(ids.contains(&"discover.builtin"), "{jobs}");

    let refused = s
        .call(
            &s.owner_key,
            "create_task",
            json!({"name": "bad", "calls": [{"tool": "whoami"}], "trigger_type": "cron", "trigger": "* * *"}),
        )
        .await;
    let (failed, summary, _) = outcome(&refused);
    assert!(failed && summary.contains("has 3 fields"), "{summary}");
}

#[tokio::test]
async fn kids_and_requesters_are_not_offered_task_tools() {
    let s = server().await;
    let kid = s.key_for("kim", Role::Kid, "requester").await;
    let member = s.key_for("bob", Role::User, "requester").await;
    let admin = s.key_for("ann", Role::Admin, "admin").await;
    for key in [&kid, &member] {
        let listed = names(&s, key).await;
        assert!(
            !listed
                .iter()
                .any(|n| n.contains("task") || n.contains("scheduler")),
            "{listed:?}"
        );
    }
    let listed = names(&s, &admin).await;
    for tool in [
        "create_task",
        "list_tasks",
        "run_scheduler",
        "list_schedulers",
    ] {
        assert!(listed.iter().any(|n| n == tool), "{tool}: {listed:?}");
    }
}
