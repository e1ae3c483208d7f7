//! Instance scope against the real daemons: a grant scoped to one download instance cannot
//! touch another. `policy::decide` refuses it, and the daemon's own state shows nothing happened.

use std::collections::{BTreeMap, BTreeSet};

use domain::{Capability, Role};
use serde_json::json;
use store::GrantSpec;

use axum::{body::Body, http::header};

use super::{UNKNOWN, World, hashes};
use crate::{
    peers::Fixture,
    support::{Server, parse, post},
};

/// A key whose grant may read, write and delete directly, but only on the instance "qb".
async fn qb_only_key(s: &Server) -> String {
    let spec = GrantSpec {
        capabilities: BTreeSet::from([
            Capability::DownloadsRead,
            Capability::DownloadsWrite,
            Capability::Destructive,
            Capability::DestructiveDirect,
        ]),
        instances: Some(vec!["qb".into()]),
        allowances: BTreeMap::new(),
        ..GrantSpec::default()
    };
    s.host
        .app
        .store()
        .create_grant("qb-only", &spec)
        .await
        .unwrap();
    s.key_for("quinn", Role::User, "qb-only").await
}

pub(crate) async fn scope(s: &Server, w: &World, t1: &Fixture) {
    let key = qb_only_key(s).await;
    let before = w.snapshot().await;
    assert!(
        before.1.iter().any(|row| row.contains(&t1.hash)),
        "{before:?}"
    );
    let not_covered = "your grant does not cover the instance \"tr\"; it covers: qb";
    let on_tr = json!({"info_hashes": [t1.hash], "instance_id": "tr"});
    for (tool, args) in [
        ("pause_torrents", on_tr.clone()),
        (
            "set_tags",
            json!({"info_hashes": [t1.hash], "instance_id": "tr", "tags": []}),
        ),
        (
            "delete_torrents",
            json!({"info_hashes": [t1.hash], "instance_id": "tr", "delete_data": true}),
        ),
        (
            "add_torrent",
            json!({"source": format!("magnet:?xt=urn:btih:{}", "ab".repeat(20)), "instance_id": "tr"}),
        ),
        ("find_torrents", json!({"instance_id": "tr"})),
        (
            "torrent_detail",
            json!({"info_hash": t1.hash, "instance_id": "tr"}),
        ),
    ] {
        let r = s.call(&key, tool, args).await;
        assert_eq!(r["isError"], true, "{tool}: {r}");
        assert_eq!(r["content"][0]["text"], not_covered, "{tool}: {r}");
        assert_eq!(r["structuredContent"]["data"]["code"], "denied", "{tool}");
        assert_eq!(r["structuredContent"]["data"]["kind"], "denied", "{tool}");
    }
    // Without instance_id only the covered instance is searched: the torrent on "tr" is not found.
    let r = s
        .call(&key, "pause_torrents", json!({"info_hashes": [t1.hash]}))
        .await;
    let row = &r["structuredContent"]["data"]["results"][0];
    assert_eq!(
        (&row["status"], &row["message"]),
        (
            &json!("not_found"),
            &json!("not found on any instance (searched qb)")
        ),
        "{r}"
    );
    let r = s.call(&key, "find_torrents", json!({})).await;
    assert!(
        !hashes(&r["structuredContent"]["data"]["rows"]).contains(&t1.hash),
        "{r}"
    );
    assert_eq!(
        w.snapshot().await,
        before,
        "the daemons' state is as it was: nothing touched \"tr\""
    );
    // On the REST mirror a missing torrent is 404; a refused instance is 403.
    for (instance, status) in [("qb", 404), ("tr", 403)] {
        let body = json!({"tool_name": "torrent_detail", "arguments": {"info_hash": UNKNOWN, "instance_id": instance}});
        let req = post("/api/v1/tools/call")
            .header(header::AUTHORIZATION, format!("Bearer {key}"))
            .body(Body::from(body.to_string()))
            .unwrap();
        let (resp, bytes) = s.send(req).await;
        assert_eq!(resp.status().as_u16(), status, "{}", parse(&bytes));
    }
}
