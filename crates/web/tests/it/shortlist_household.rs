//! The household side of shortlists through the real MCP endpoint, against the Jellyfin and
//! TMDB fakes: people listed with their limits and media-server users, and linked by an
//! approved plan (a user the server does not have refused, naming its users); a show's
//! seasons on the server and in its catalogue, a missing one requested by an approved plan
//! (one the server has refused); requests rejected, archived out of list_requests and
//! restored by approved plans, each refused when its status does not fit.

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::{
    TmdbFake,
    media::{FakeMedia, MEDIA_TOKEN, MediaKind},
};

use crate::support::{Server, builtin, instance, outcome, server_with_instances};

async fn call(s: &Server, key: &str, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(key, tool, args).await)
}

/// The owner plans and applies at once.
async fn planned(s: &Server, tool: &str, args: Value) -> Value {
    let (err, summary, data) = call(s, &s.owner_key, tool, args).await;
    assert!(!err, "{tool}: {summary} {data}");
    let change = data["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = call(s, &s.owner_key, "apply_change", apply).await;
    assert!(!err, "apply {tool}: {summary} {data}");
    data
}

async fn refused(s: &Server, tool: &str, args: Value, says: &str) {
    let (err, summary, _) = call(s, &s.owner_key, tool, args).await;
    assert!(err && summary.contains(says), "{says}: {summary}");
}

#[tokio::test]
async fn people_seasons_and_requests_are_planned_and_applied() {
    let media = FakeMedia::start(MediaKind::Jellyfin).await;
    let tmdb = TmdbFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tmdb",
            InstanceKind::Tmdb,
            Some(tmdb.base_url()),
            Some(TmdbFake::API_KEY),
        ),
        instance(
            "jf",
            InstanceKind::Jellyfin,
            Some(&media.url()),
            Some(MEDIA_TOKEN),
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..ContentLimits::default()
    };
    s.key_with_limits("kid", Role::Kid, "reader", limits).await;

    // People: roles, limits, no media-server users yet.
    let (err, _, people) = call(&s, &s.owner_key, "list_people", json!({})).await;
    assert!(!err, "{people}");
    let kid = people["people"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "kid")
        .unwrap();
    assert_eq!(kid["limits"], json!(["movies up to PG"]));
    assert_eq!(kid["media_users"], json!([]));
    let (err, _, _) = call(&s, &alice, "list_people", json!({})).await;
    assert!(err, "a requester has no shortlists");

    refused(
        &s,
        "plan_people",
        json!({"links": [{"person": "kid", "instance_id": "jf", "user": "nobody"}]}),
        "has no user \"nobody\"; its users: alice-jf, kid-jf, admin",
    )
    .await;
    refused(
        &s,
        "plan_people",
        json!({"links": [{"person": "zed", "instance_id": "jf", "user": "kid-jf"}]}),
        "no person named \"zed\"",
    )
    .await;
    refused(
        &s,
        "plan_people",
        json!({"links": [{"person": "kid", "instance_id": "tmdb", "user": "kid-jf"}]}),
        "tmdb is not a media server",
    )
    .await;
    let links = json!({"links": [{"person": "kid", "instance_id": "jf", "user": "kid-jf"},
        {"person": "alice", "instance_id": "jf", "user": "alice-jf"}]});
    let done = planned(&s, "plan_people", links).await;
    assert_eq!(done["result"]["linked"], 2, "{done}");
    let (_, _, people) = call(&s, &s.owner_key, "list_people", json!({})).await;
    let kid = people["people"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "kid")
        .unwrap();
    assert_eq!(
        kid["media_users"],
        json!([{"instance_id": "jf", "user": "kid-jf"}])
    );

    // Seasons: Bluey has 1 and 2 on the server, the catalogue knows 3.
    let bluey = json!({"media_source": "tmdb", "media_id": "82728"});
    let (err, summary, seasons) = call(&s, &s.owner_key, "list_seasons", bluey.clone()).await;
    assert!(!err, "{summary}");
    assert_eq!(seasons["catalogue_seasons"], 3, "{seasons}");
    assert_eq!(seasons["missing"], json!([3]), "{seasons}");
    assert_eq!(
        seasons["seasons"][0]["on"],
        json!([{"instance_id": "jf", "episodes": [1, 2]}])
    );
    let with = |n: Value| {
        let mut a = bluey.clone();
        a["seasons"] = n;
        a
    };
    refused(
        &s,
        "plan_season",
        with(json!([2])),
        "season 2 of Bluey (2018) is on jf already",
    )
    .await;
    refused(&s, "plan_season", with(json!([7])), "has no season 7").await;
    refused(&s, "plan_season", with(json!([3, 3])), "named twice").await;
    let done = planned(&s, "plan_season", with(json!([3]))).await;
    assert_eq!(done["result"]["outcome"], "requested", "{done}");
    let store = s.host.app.store();
    let query = store::RequestQuery {
        limit: 50,
        ..Default::default()
    };
    let all = store.requests_page(&query).await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].seasons, [3]);

    // Requests: alice's pending request is rejected with a note, then archived out of
    // list_requests and restored.
    let (err, summary, _) = call(
        &s,
        &alice,
        "request_media",
        json!({"media_source": "tmdb", "media_id": "862", "media_type": "movie"}),
    )
    .await;
    assert!(!err, "{summary}");
    let pending = store.requests_page(&query).await.unwrap()[0].id;
    refused(
        &s,
        "plan_requests",
        json!({"action": "archive", "request_ids": [pending]}),
        "archive needs a finished request",
    )
    .await;
    refused(
        &s,
        "plan_requests",
        json!({"action": "reject", "request_ids": [999]}),
        "no request 999",
    )
    .await;
    let reject = json!({"action": "reject", "request_ids": [pending], "note": "not tonight"});
    let done = planned(&s, "plan_requests", reject).await;
    assert_eq!(done["result"]["requests"][0]["outcome"], "done", "{done}");
    let rejected = store.request(pending).await.unwrap().unwrap();
    assert_eq!(rejected.status, store::RequestStatus::Rejected);
    assert_eq!(rejected.decision_note.as_deref(), Some("not tonight"));
    refused(
        &s,
        "plan_requests",
        json!({"action": "send", "request_ids": [pending]}),
        "send needs a pending request",
    )
    .await;

    let listed = |archived: bool| {
        let s = &s;
        async move {
            let (_, _, page) = call(
                s,
                &s.owner_key,
                "list_requests",
                json!({"archived": archived}),
            )
            .await;
            page["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["request_id"].as_i64().unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert!(listed(false).await.contains(&pending));
    planned(
        &s,
        "plan_requests",
        json!({"action": "archive", "request_ids": [pending]}),
    )
    .await;
    assert!(!listed(false).await.contains(&pending));
    assert_eq!(listed(true).await, [pending]);
    planned(
        &s,
        "plan_requests",
        json!({"action": "restore", "request_ids": [pending]}),
    )
    .await;
    assert!(listed(false).await.contains(&pending));
    assert!(listed(true).await.is_empty());
}
