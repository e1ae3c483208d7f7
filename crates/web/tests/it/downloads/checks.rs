//! The audit trail of the writes, what grants allow, and instances that are down, slow or
//! answer garbage beside a real one.

use std::collections::BTreeSet;

use domain::InstanceKind;
use serde_json::{Value, json};
use store::{AuditQuery, AuditStatus};

use super::{Scene, World, hashes, ok, refused, spec};
use crate::{
    peers::{self, Fixture},
    support::{Server, server_for},
};

pub(crate) async fn audit(s: &Server) {
    let query = AuditQuery {
        limit: 200,
        ..AuditQuery::default()
    };
    let entries = s.host.app.store().audit_page(&query).await.unwrap();
    let tools: BTreeSet<&str> = entries.iter().map(|e| e.tool.as_str()).collect();
    for t in [
        "add_torrent",
        "pause_torrents",
        "resume_torrents",
        "recheck_torrents",
        "reannounce_torrents",
        "set_category",
        "set_tags",
        "move_to_category",
        "delete_torrents",
    ] {
        assert!(tools.contains(t), "no audit entry for {t}: {tools:?}");
    }
    assert!(!tools.contains("find_torrents"), "reads are not audited");
    assert!(entries.iter().any(|e| e.tool == "pause_torrents"
        && e.instance.as_deref() == Some("tr")
        && e.status == AuditStatus::Applied));
    assert!(
        entries
            .iter()
            .any(|e| e.tool == "set_category" && e.status == AuditStatus::Failed)
    );
    assert!(entries.iter().all(|e| e.status != AuditStatus::Executing));
}

/// One call of every write tool, and of a read, as the owner on the scene: what the audit
/// trail is checked against. A category the instance does not have fails inside the call.
pub(crate) async fn one_call_of_each(s: &Server, scene: &Scene) {
    let Scene { q1, t1, t3, .. } = scene;
    let source = q1.torrent.to_str().unwrap();
    let add = json!({"source": source, "category": "movies", "tags": ["mcp"], "paused": true});
    ok(s, "add_torrent", add).await;
    let t1_on_tr = json!({"info_hashes": [t1.hash], "instance_id": "tr"});
    ok(s, "pause_torrents", t1_on_tr.clone()).await;
    ok(s, "resume_torrents", t1_on_tr.clone()).await;
    ok(s, "recheck_torrents", t1_on_tr.clone()).await;
    ok(s, "reannounce_torrents", t1_on_tr).await;
    let e = refused(
        s,
        "set_category",
        json!({"info_hashes": [t3.hash], "category": "nope"}),
    )
    .await;
    assert!(
        e.contains("unknown category \"nope\" on instance tr"),
        "{e}"
    );
    ok(
        s,
        "set_tags",
        json!({"info_hashes": [t3.hash], "tags": ["mcp"]}),
    )
    .await;
    ok(
        s,
        "move_to_category",
        json!({"info_hashes": [t3.hash], "category": "movies"}),
    )
    .await;
    ok(
        s,
        "delete_torrents",
        json!({"info_hashes": [t3.hash], "delete_data": false}),
    )
    .await;
    ok(s, "find_torrents", json!({})).await;
}

/// Reads need downloads.read, writes downloads.write, deletions the owner's direct authority.
pub(crate) async fn grants(s: &Server, q1: &Fixture) {
    let reader = s.key_for("rita", domain::Role::User, "reader").await;
    let r = s
        .call(&reader, "find_torrents", json!({"instance_id": "qb"}))
        .await;
    assert_eq!(r["isError"], false, "{r}");
    let r = s
        .call(&reader, "pause_torrents", json!({"info_hashes": [q1.hash]}))
        .await;
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("downloads.write"),
        "{r}"
    );
    let operator = s.key_for("otto", domain::Role::Admin, "operator").await;
    let r = s
        .call(
            &operator,
            "delete_torrents",
            json!({"info_hashes": [q1.hash], "delete_data": false}),
        )
        .await;
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("owner's approval"),
        "{r}"
    );
}

/// Down, garbage-answering and hung instances beside a real one: each is reported on its own,
/// the real one keeps answering, and a write to a dead one changes nothing.
pub(crate) async fn failures(w: &World, q1: &Fixture) {
    let mut specs = vec![w.specs[0].clone()];
    specs.push(spec(
        "dead",
        InstanceKind::Qbittorrent,
        &peers::dead_url(),
        "u",
        "p",
    ));
    specs.push(spec(
        "junk",
        InstanceKind::Transmission,
        &peers::garbage_server().await,
        "u",
        "p",
    ));
    specs.push(spec(
        "slow",
        InstanceKind::Qbittorrent,
        &peers::silent_server().await,
        "u",
        "p",
    ));
    let s = server_for(specs, false).await;
    let out = ok(&s, "find_torrents", json!({})).await;
    assert!(hashes(&out["data"]["rows"]).contains(&q1.hash));
    assert!(
        out["summary"]
            .as_str()
            .unwrap()
            .contains("instances dead, junk, slow could not be read"),
        "{out}"
    );
    let status: Vec<(Value, Value)> = out["data"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["instance_id"].clone(), i["ok"].clone()))
        .collect();
    assert_eq!(
        status,
        [
            ("qb", true),
            ("dead", false),
            ("junk", false),
            ("slow", false)
        ]
        .map(|(a, b)| (json!(a), json!(b)))
    );
    assert_eq!(out["data"]["instances"][1]["error"]["class"], "unreachable");
    let warnings = out["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 3, "{out}");
    assert!(
        warnings[2]
            .as_str()
            .unwrap()
            .contains("instance slow has not answered yet"),
        "{out}"
    );
    let o = ok(&s, "downloads_overview", json!({})).await;
    assert_eq!(o["data"]["instances"][0]["torrents"], 2, "{o}");

    let before = w.snapshot().await;
    let out = ok(
        &s,
        "pause_torrents",
        json!({"info_hashes": [q1.hash], "instance_id": "dead"}),
    )
    .await;
    let row = &out["data"]["results"][0];
    assert_eq!(
        (&row["ok"], &row["status"]),
        (&json!(false), &json!("unreachable")),
        "{out}"
    );
    assert!(
        row["message"]
            .as_str()
            .unwrap()
            .starts_with("instance dead: "),
        "{out}"
    );
    let e = refused(&s, "list_categories", json!({"instance_id": "junk"})).await;
    assert!(e.contains("instance junk could not be read"), "{e}");
    let e = refused(
        &s,
        "torrent_detail",
        json!({"info_hash": q1.hash, "instance_id": "junk"}),
    )
    .await;
    assert!(e.contains("instance junk could not be asked"), "{e}");
    assert_eq!(w.snapshot().await, before);
}
