//! A long external call as a protocol task (the tasks extension of 2026-07-28) through the whole
//! governed server: the everything server's long operation answers with a task at once, its
//! progress becomes the task's status message, `tasks/get` inlines the result, the task is its
//! caller's alone, and a cancelled one stays cancelled. A client that declares no tasks gets
//! the result in place.

use std::time::{Duration, Instant};

use axum::{body::Body, http::header};
use domain::Role;
use serde_json::{Value, json};

use crate::{
    federated::{everything, key, serving_everything},
    support::{self, Server, modern, post},
};

const LONG: &str = "ev__trigger-long-running-operation";

/// A 2026-07-28 request that declares the tasks extension (or not); its JSON-RPC answer.
async fn ask(s: &Server, key: &str, method: &str, params: Value, tasks: bool) -> Value {
    let (mut body, mut headers) = modern(method, 1, params);
    if tasks {
        body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    }
    if let Some(id) = body["params"]["taskId"].as_str() {
        headers.push(("mcp-name", id.to_string()));
    }
    let mut req = post("/mcp")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::ACCEPT, "application/json");
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let (_, bytes) = s
        .send(req.body(Body::from(body.to_string())).unwrap())
        .await;
    support::parse(&bytes)
}

async fn get(s: &Server, key: &str, id: &str) -> Value {
    ask(s, key, "tasks/get", json!({"taskId": id}), true).await
}

async fn wait_for_everything(s: &Server) {
    let started = Instant::now();
    loop {
        let list = ask(s, &s.owner_key, "tools/list", json!({}), false).await;
        let up = list["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == LONG));
        if up {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "ev never came up"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_external_call_becomes_a_task_its_caller_alone_polls_to_the_result() {
    let Some((node, entry)) = everything() else {
        return;
    };
    let s = serving_everything(&node, &entry).await;
    wait_for_everything(&s).await;
    let owner = s.owner_key.clone();

    let created = ask(
        &s,
        &owner,
        "tools/call",
        json!({"name": LONG, "arguments": {"duration": 4, "steps": 4}}),
        true,
    )
    .await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    let id = created["taskId"].as_str().unwrap().to_string();
    assert!(id.len() >= 32, "an unguessable id: {id}");

    // Another person, even one whose grant reaches the server, cannot read or cancel it.
    let other = key(&s, "alice", Role::Admin, None).await;
    let refused = get(&s, &other, &id).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let refused = ask(&s, &other, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // The server's progress becomes the status message; the result is inlined when done.
    let started = Instant::now();
    let mut messages = Vec::new();
    let done = loop {
        let task = get(&s, &owner, &id).await["result"].clone();
        assert_eq!(task["resultType"], "complete");
        if let Some(m) = task["statusMessage"].as_str() {
            messages.push(m.to_string());
        }
        if task["status"] != "working" {
            break task;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{task}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Long running operation completed"), "{text}");
    assert!(
        messages.iter().any(|m| m.ends_with("/4")),
        "progress seen while it worked: {messages:?}"
    );

    // A read may be stopped: cancelled, it stays cancelled.
    let created = ask(
        &s,
        &owner,
        "tools/call",
        json!({"name": LONG, "arguments": {"duration": 30, "steps": 3}}),
        true,
    )
    .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let ack = ask(&s, &owner, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(get(&s, &owner, &id).await["result"]["status"], "cancelled");

    // A quick call answers in place; a client that declares no tasks is never given one.
    let quick = ask(
        &s,
        &owner,
        "tools/call",
        json!({"name": "ev__echo", "arguments": {"message": "hi"}}),
        true,
    )
    .await;
    assert_eq!(quick["result"]["resultType"], "complete", "{quick}");
    let plain = ask(
        &s,
        &owner,
        "tools/call",
        json!({"name": LONG, "arguments": {"duration": 1.5, "steps": 1}}),
        false,
    )
    .await;
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    let refused = ask(&s, &owner, "tasks/get", json!({"taskId": id}), false).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}
