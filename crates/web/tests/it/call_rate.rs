//! The per-person call rate: past it a call is refused before anything is done or audited,
//! as a tool error with the seconds to wait on MCP and 429 with `Retry-After` on REST; other
//! people are not slowed down.

use axum::{body::Body, http::header};
use domain::Role;
use serde_json::{Value, json};
use store::AuditQuery;

use crate::support::{outcome, parse, post, server};

fn movie(id: &str) -> Value {
    json!({"media_source": "builtin", "media_id": id, "media_type": "movie"})
}

#[tokio::test]
async fn a_caller_past_the_rate_is_refused_unaudited_and_told_when_to_come_back() {
    let s = server().await;
    s.host.app.settings().call_rate.set_per_minute(3);
    let kid = s.key_for("kim", Role::Kid, "requester").await;
    let ids = ["tt0114709", "tt0113277", "tt0112384"];
    for id in ids {
        let (_, _, data) = outcome(&s.call(&kid, "request_media", movie(id)).await);
        assert_ne!(data["code"], "rate_limited", "{data}");
    }
    let (err, summary, data) = outcome(&s.call(&kid, "request_media", movie("tt0110912")).await);
    assert!(err);
    assert_eq!(data["code"], "rate_limited");
    assert_eq!(data["kind"], "quota");
    let wait = data["retry_after_seconds"].as_u64().unwrap();
    assert!(
        (1..=20).contains(&wait),
        "one call comes back every 20 s: {wait}"
    );
    assert!(
        summary.contains("at most 3 a minute per person"),
        "{summary}"
    );
    let store = s.host.app.store();
    let kim = store.person_by_name("kim").await.unwrap().unwrap();
    let audited = store
        .audit_page(&AuditQuery {
            person: Some(kim.id),
            before_id: None,
            limit: 100,
        })
        .await
        .unwrap();
    assert_eq!(
        audited.len(),
        ids.len(),
        "the refused call left no audit entry"
    );

    // The REST mirror: 429 with Retry-After, the same code.
    let req = post("/api/v1/tools/call")
        .header(header::AUTHORIZATION, format!("Bearer {kid}"))
        .body(Body::from(
            json!({"tool_name": "whoami", "arguments": {}}).to_string(),
        ))
        .unwrap();
    let (resp, body) = s.send(req).await;
    assert_eq!(resp.status(), 429);
    let wait: u64 = resp.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
    assert_eq!(parse(&body)["data"]["data"]["code"], "rate_limited");

    // Another person is not slowed down.
    let (err, _, data) = outcome(&s.call(&s.owner_key, "whoami", json!({})).await);
    assert!(!err, "{data}");
}

#[tokio::test]
async fn the_default_rate_lets_a_household_work() {
    let s = server().await;
    assert_eq!(s.host.app.settings().call_rate.per_minute(), 600);
    let key = s.key_for("ana", Role::User, "requester").await;
    for _ in 0..100 {
        let (err, _, data) = outcome(&s.call(&key, "whoami", json!({})).await);
        assert!(!err, "{data}");
    }
}
