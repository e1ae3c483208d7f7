//! Cancelling an operation under way, through the real MCP router against a real
//! transmission-daemon slowed by a proxy: an approved deletion of 20 torrents runs one checkpointed
//! step per torrent; `cancel_operation` after a few steps stops it before its next one, and the
//! operation reports what was deleted and what was left untouched (the daemon still has those).

use std::{sync::Arc, time::Duration};

use domain::Role;
use serde_json::{Value, json};
use store::{ChangeStatus, OperationStatus};
use test_support::fault::Fault;

use crate::peers::{Daemon, Fixture, TrRaw, poll, transmission_behind_proxy};
use crate::support::server_for;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deletion_cancelled_part_way_reports_what_was_done_and_leaves_the_rest() {
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"))
        .join()
        .unwrap();
    let traw = TrRaw::new(&tr);
    let (proxy, spec) = transmission_behind_proxy(&tr).await;
    let s = Arc::new(server_for(vec![spec], true).await);
    let operator = s.key_for("ops", Role::Admin, "operator").await;
    let fix = tr.dir.path().join("fixtures");
    let held = async || -> Vec<String> {
        let v = traw
            .rpc("torrent-get", json!({"fields": ["hashString"]}))
            .await;
        let mut all: Vec<String> = v["torrents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["hashString"].as_str().unwrap().to_string())
            .collect();
        all.sort();
        all
    };
    let mut hashes = Vec::new();
    for n in 0..20 {
        let f = Fixture::new(&fix, &format!("step-{n:02}.mkv"), 16_000, None);
        traw.add(&f, &tr.downloads(), &[]).await;
        hashes.push(f.hash);
    }
    // The operator plans the deletion (once Marquee's catalogue has all 20), the owner approves.
    let planned = poll(20, "a plan of all 20 torrents", async || {
        let r = s
            .call(
                &operator,
                "delete_torrents",
                json!({"info_hashes": hashes, "delete_data": false}),
            )
            .await;
        if r["isError"] != false {
            eprintln!("not planned yet: {}", r["content"][0]["text"]);
        }
        (r["isError"] == false).then(|| r["structuredContent"]["data"].clone())
    })
    .await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    let store = s.host.app.store();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let change = store.change(&change_id).await.unwrap().unwrap();
    store
        .decide_change(&change_id, owner.id, true, &change.content_hash)
        .await
        .unwrap();

    // Every call to the daemon now takes a while: the steps can be watched.
    proxy.set(Fault::Latency(Duration::from_millis(250)));
    let applying = {
        let (s, operator, change_id) = (s.clone(), operator.clone(), change_id.clone());
        tokio::spawn(async move {
            s.call(
                &operator,
                "apply_change",
                json!({"change_id": change_id, "idempotency_key": "cancel-steps-1"}),
            )
            .await
        })
    };
    poll(30, "three torrents deleted", async || {
        (held().await.len() <= 17).then_some(())
    })
    .await;
    let op = store
        .operation_for_change(&change_id)
        .await
        .unwrap()
        .unwrap();
    let cancel = s
        .call(
            &s.owner_key,
            "cancel_operation",
            json!({"operation_id": op.id}),
        )
        .await;
    assert_eq!(cancel["isError"], false, "{cancel}");
    let answer: Value = applying.await.unwrap();
    assert_eq!(answer["isError"], false, "{answer}");

    let op = store.operation(&op.id).await.unwrap().unwrap();
    assert_eq!(op.status, OperationStatus::Cancelled, "{op:?}");
    let result: Value = serde_json::from_str(op.result.as_deref().unwrap()).unwrap();
    let deleted: Vec<&str> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ok"] == true)
        .map(|r| r["info_hash"].as_str().unwrap())
        .collect();
    let not_done: Vec<&str> = result["not_done"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["info_hash"].as_str().unwrap())
        .collect();
    assert_eq!(result["cancelled"], true, "{result}");
    assert_eq!(result["failed"], 0, "{result}");
    assert!(deleted.len() >= 3, "{result}");
    assert!(!not_done.is_empty(), "cancelled before the end: {result}");
    assert_eq!(deleted.len() + not_done.len(), 20, "{result}");
    // The daemon holds exactly the torrents not done.
    let left = held().await;
    let mut expected: Vec<String> = not_done.iter().map(|h| h.to_string()).collect();
    expected.sort();
    assert_eq!(left, expected);
    assert!(
        op.message
            .as_deref()
            .unwrap()
            .starts_with("cancelled by owner"),
        "{op:?}"
    );
    let change = store.change(&change_id).await.unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Cancelled);
}
