//! Requests through the real MCP endpoint: quotas checked and charged atomically (50 concurrent
//! calls on a file-backed store with a pool of connections), structured refusals with the right
//! `earliest_fits_at` that create nothing (and 429 on the REST mirror), already-requested titles,
//! seasons, decisions by admins, and who may see which requests.

use axum::{Router, body::Body, http::header};
use chrono::{DateTime, Utc};
use domain::{InstanceKind, MediaType, Role};
use serde_json::{Value, json};
use store::{ContentLimits, QuotaScope, RequestQuery, Store};
use test_support::TmdbFake;

use crate::support::{
    self, builtin, instance, outcome, parse, post, send, server_on, server_with_instances,
};

const WEEK_MS: i64 = 7 * 86_400_000;

fn movie(id: &str) -> Value {
    json!({"media_source": "builtin", "media_id": id, "media_type": "movie"})
}

async fn rows(store: &Store) -> Vec<store::MediaRequest> {
    store
        .requests_page(&RequestQuery {
            limit: 200,
            ..RequestQuery::default()
        })
        .await
        .unwrap()
}

/// Builtin movie ids, newest first, from the owner's browsing.
async fn movie_ids(s: &support::Server, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut page = 1;
    while out.len() < n {
        let r = s
            .call(
                &s.owner_key,
                "browse_titles",
                json!({"media_type": "movie", "page": page}),
            )
            .await;
        for row in r["structuredContent"]["data"]["results"]
            .as_array()
            .unwrap()
        {
            out.push(row["media_id"].as_str().unwrap().to_string());
        }
        page += 1;
    }
    out.truncate(n);
    out
}

fn at(text: &Value) -> i64 {
    DateTime::parse_from_rfc3339(text.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
        .timestamp_millis()
}

#[tokio::test]
async fn a_second_movie_over_a_weekly_quota_of_one_is_refused_with_when_it_fits() {
    let s = server_with_instances(vec![builtin()]).await;
    let store = s.host.app.store().clone();
    store
        .set_quota(
            &QuotaScope::Role { role: Role::User },
            MediaType::Movie,
            1,
            7,
        )
        .await
        .unwrap();
    let ana = s.key_for("ana", Role::User, "requester").await;

    // The preview prices it and reserves nothing.
    let (err, summary, data) = outcome(
        &s.call(&ana, "get_request_options", movie("tt0113277"))
            .await,
    );
    assert!(!err, "{data}");
    assert!(
        summary.contains("Heat (1995) can be requested"),
        "{summary}"
    );
    assert_eq!(data["cost_units"], 1);
    assert_eq!(data["quota"]["allowances"][0]["remaining"], 1);
    assert_eq!(data["library"]["configured"], false);
    assert!(rows(&store).await.is_empty());
    // whoami shows what is left.
    let (_, summary, data) = outcome(&s.call(&ana, "whoami", json!({})).await);
    assert_eq!(data["request_quotas"]["exempt"], false);
    assert_eq!(data["request_quotas"]["allowances"][0]["remaining"], 1);
    assert!(
        summary.contains("request quota: 1 of 1 movie per 7 days left"),
        "{summary}"
    );

    let (err, summary, data) = outcome(&s.call(&ana, "request_media", movie("tt0113277")).await);
    assert!(!err, "{data}");
    assert!(summary.contains("pending an admin's decision"), "{summary}");
    assert_eq!(data["request"]["status"], "pending");
    let first = at(&data["request"]["created_at"]);
    let (_, summary, data) = outcome(&s.call(&ana, "whoami", json!({})).await);
    assert_eq!(data["request_quotas"]["allowances"][0]["used"], 1);
    assert_eq!(data["request_quotas"]["allowances"][0]["remaining"], 0);
    assert!(
        summary.contains("0 of 1 movie per 7 days left"),
        "{summary}"
    );
    let (_, summary, data) = outcome(&s.call(&s.owner_key, "whoami", json!({})).await);
    assert_eq!(data["request_quotas"]["exempt"], true);
    assert!(summary.contains("no request quota"), "{summary}");

    let r = s.call(&ana, "request_media", movie("tt0114709")).await;
    let (err, summary, data) = outcome(&r);
    assert!(err);
    assert_eq!(data["code"], "request_quota_exceeded");
    assert_eq!(data["requested_units"], 1);
    assert_eq!(at(&data["earliest_fits_at"]), first + WEEK_MS);
    assert_eq!(data["max_units_now"], 0);
    let allowance = &data["allowances"][0];
    assert_eq!(
        (
            allowance["units"].clone(),
            allowance["window_days"].clone(),
            allowance["used"].clone()
        ),
        (json!(1), json!(7), json!(1))
    );
    assert!(
        data["how_to_reduce"]
            .as_str()
            .unwrap()
            .contains("ask again from"),
        "{data}"
    );
    assert!(summary.contains("Nothing was created"), "{summary}");
    assert_eq!(rows(&store).await.len(), 1, "exactly one request row");

    // The REST mirror answers the same refusal with 429.
    let req = post("/api/v1/tools/call")
        .header(header::AUTHORIZATION, format!("Bearer {ana}"))
        .body(Body::from(
            json!({"tool_name": "request_media", "arguments": movie("tt0114709")}).to_string(),
        ))
        .unwrap();
    let (resp, body) = s.send(req).await;
    assert_eq!(resp.status(), 429);
    let body = parse(&body);
    assert_eq!(body["success"], false);
    assert_eq!(body["data"]["data"]["code"], "request_quota_exceeded");
    assert_eq!(rows(&store).await.len(), 1);

    // The refused calls are audited as failed, the created one as applied.
    let audit = store
        .audit_page(&store::AuditQuery::default())
        .await
        .unwrap();
    let statuses: Vec<&str> = audit.iter().map(|a| a.status.as_str()).collect();
    assert_eq!(statuses, ["failed", "failed", "applied"]);
}

async fn call_on(router: Router, key: String, tool: &'static str, args: Value) -> Value {
    let req = post("/mcp")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::from(
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}})
                .to_string(),
        ))
        .unwrap();
    let (_, bytes) = send(&router, req).await;
    parse(&bytes)["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_requests_against_a_quota_of_ten_create_exactly_ten() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let s = server_on(store.clone(), vec![builtin()]).await;
    store
        .set_quota(
            &QuotaScope::Role { role: Role::User },
            MediaType::Movie,
            10,
            30,
        )
        .await
        .unwrap();
    let key = s.key_for("ana", Role::User, "requester").await;
    let ids = movie_ids(&s, 50).await;
    let mut tasks = tokio::task::JoinSet::new();
    for id in ids {
        tasks.spawn(call_on(
            s.router.clone(),
            key.clone(),
            "request_media",
            movie(&id),
        ));
    }
    let (mut created, mut refused) = (0, 0);
    while let Some(r) = tasks.join_next().await {
        let (err, summary, data) = outcome(&r.unwrap());
        if err {
            assert_eq!(data["code"], "request_quota_exceeded", "{summary}");
            refused += 1;
        } else {
            created += 1;
        }
    }
    assert_eq!((created, refused), (10, 40));
    assert_eq!(rows(&store).await.len(), 10);
}

#[tokio::test]
async fn titles_already_requested_seasons_and_decisions() {
    let fake = TmdbFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tmdb",
            InstanceKind::Tmdb,
            Some(fake.base_url()),
            Some(TmdbFake::API_KEY),
        ),
    ])
    .await;
    let store = s.host.app.store().clone();
    store
        .set_quota(&QuotaScope::Role { role: Role::User }, MediaType::Tv, 2, 30)
        .await
        .unwrap();
    let ana = s.key_for("ana", Role::User, "requester").await;
    let ben = s.key_for("ben", Role::User, "requester").await;
    let boss = s.key_for("boss", Role::Admin, "admin").await;
    let got = |extra: Value| {
        let mut v = json!({"media_source": "tmdb", "media_id": "1399", "media_type": "tv"});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };

    // A show needs seasons; wrong selections are refused before anything is read or created.
    for (args, words) in [
        (
            got(json!({})),
            "Which seasons of Game of Thrones (2011) should be requested? (this client cannot ask the person)",
        ),
        (
            got(json!({"seasons": [1], "season_scope": "all"})),
            "not both",
        ),
        (got(json!({"seasons": [9]})), "seasons 1 to 8"),
        (
            json!({"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie", "seasons": [1]}),
            "a movie is requested whole",
        ),
    ] {
        let (err, summary, _) = outcome(&s.call(&ana, "request_media", args).await);
        assert!(err && summary.contains(words), "{summary}");
    }
    // All eight seasons are more than the quota of two will ever allow.
    let (err, _, data) = outcome(
        &s.call(&ana, "request_media", got(json!({"season_scope": "all"})))
            .await,
    );
    assert!(err);
    assert_eq!(
        (data["requested_units"].clone(), data["never_fits"].clone()),
        (json!(8), json!(true))
    );
    assert!(
        data["how_to_reduce"]
            .as_str()
            .unwrap()
            .contains("at most 2 seasons"),
        "{data}"
    );

    let (err, summary, data) = outcome(
        &s.call(&ana, "request_media", got(json!({"seasons": [1, 2]})))
            .await,
    );
    assert!(!err, "{data}");
    assert!(
        summary.contains("Game of Thrones (2011) seasons 1, 2"),
        "{summary}"
    );
    assert_eq!(data["request"]["units"], 2);
    let ana_request = data["request"]["request_id"].as_i64().unwrap();

    // Options show which seasons are taken; ben's request leaves them out and is charged for the rest.
    let (_, _, data) = outcome(&s.call(&ben, "get_request_options", got(json!({}))).await);
    assert_eq!(
        data["seasons"][0],
        json!({"season": 1, "requested": "pending"})
    );
    assert_eq!(data["seasons"][2], json!({"season": 3, "requested": null}));
    assert_eq!(data["cost_units"], 6);
    assert!(
        data["open_requests"][0].get("requested_by").is_none(),
        "other people's names stay private"
    );
    let (err, summary, data) = outcome(
        &s.call(&ben, "request_media", got(json!({"seasons": [2, 3]})))
            .await,
    );
    assert!(!err, "{data}");
    assert!(
        summary.contains("Season 2 was already requested"),
        "{summary}"
    );
    assert_eq!(data["request"]["seasons"], json!([3]));
    let (err, summary, data) = outcome(
        &s.call(&ben, "request_media", got(json!({"seasons": [1, 3]})))
            .await,
    );
    assert!(!err, "{data}");
    assert!(summary.contains("already requested"), "{summary}");
    assert_eq!(data["already_requested"], true);
    assert_eq!(rows(&store).await.len(), 2);

    // Who sees what.
    let (_, _, mine) = outcome(&s.call(&ana, "list_requests", json!({})).await);
    assert_eq!(mine["requests"].as_array().unwrap().len(), 1);
    let (err, _, _) = outcome(
        &s.call(&ana, "list_requests", json!({"person": "ben"}))
            .await,
    );
    assert!(err);
    let (_, _, all) = outcome(
        &s.call(&boss, "list_requests", json!({"status": "pending"}))
            .await,
    );
    assert_eq!(all["requests"].as_array().unwrap().len(), 2);
    let (err, _, data) = outcome(
        &s.call(
            &ben,
            "check_request_status",
            json!({"request_id": ana_request}),
        )
        .await,
    );
    assert!(err && data["code"] == "not_found");
    let (err, summary, _) = outcome(
        &s.call(
            &ana,
            "check_request_status",
            json!({"media_source": "tmdb", "media_id": "1399"}),
        )
        .await,
    );
    assert!(!err && summary.contains("is pending"), "{summary}");
    let (err, summary, _) = outcome(
        &s.call(
            &ana,
            "check_request_status",
            json!({"media_source": "tmdb"}),
        )
        .await,
    );
    assert!(err && summary.contains("media_id"), "{summary}");

    // Only admins decide; a rejection gives the units back, an approval waits for a library.
    let (err, summary, _) = outcome(
        &s.call(
            &ana,
            "decide_request",
            json!({"request_id": ana_request, "decision": "approve"}),
        )
        .await,
    );
    assert!(err && summary.contains("requests.manage"), "{summary}");
    let (err, summary, data) = outcome(
        &s.call(
            &boss,
            "decide_request",
            json!({"request_id": ana_request, "decision": "reject", "note": "finish the first"}),
        )
        .await,
    );
    assert!(!err, "{data}");
    assert!(
        summary.contains("rejected") && summary.contains("2 quota units were returned"),
        "{summary}"
    );
    let (err, _, data) = outcome(
        &s.call(
            &boss,
            "decide_request",
            json!({"request_id": ana_request, "decision": "approve"}),
        )
        .await,
    );
    assert!(err && data["code"] == "conflict");
    let (err, _, data) = outcome(
        &s.call(&ana, "request_media", got(json!({"seasons": [1, 2]})))
            .await,
    );
    assert!(!err, "{data}");
    let again = data["request"]["request_id"].as_i64().unwrap();
    let (err, summary, data) = outcome(
        &s.call(
            &boss,
            "decide_request",
            json!({"request_id": again, "decision": "approve"}),
        )
        .await,
    );
    assert!(!err, "{data}");
    assert!(
        summary.contains("no library backend is configured"),
        "{summary}"
    );
    let (_, summary, data) = outcome(
        &s.call(&ana, "check_request_status", json!({"request_id": again}))
            .await,
    );
    assert_eq!(data["requests"][0]["status"], "approved");
    assert!(summary.contains("wait"), "{summary}");
    let (_, _, data) = outcome(&s.call(&s.owner_key, "diagnose", json!({})).await);
    assert!(
        data["notes"]
            .to_string()
            .contains("1 approved request waiting"),
        "{data}"
    );
}

#[tokio::test]
async fn kids_request_only_what_they_may_see_and_admins_skip_quotas() {
    let s = server_with_instances(vec![builtin()]).await;
    let store = s.host.app.store().clone();
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                max_movie_cert: Some("PG".into()),
                ..ContentLimits::default()
            },
        )
        .await;
    let (err, summary, data) = outcome(&s.call(&kid, "request_media", movie("tt0113277")).await);
    assert!(err);
    assert_eq!(summary, "That title is not available for this account.");
    assert_eq!(data["code"], "not_available");
    let (err, summary, _) = outcome(
        &s.call(&kid, "get_request_options", movie("tt0113277"))
            .await,
    );
    assert!(err && summary == "That title is not available for this account.");
    // Half identities and unknown fields create nothing.
    let (err, summary, _) = outcome(
        &s.call(
            &kid,
            "request_media",
            json!({"media_id": "tt0114709", "media_type": "movie"}),
        )
        .await,
    );
    assert!(
        err && summary.contains("media_source") && summary.contains("media_id"),
        "{summary}"
    );
    let (err, summary, _) = outcome(
        &s.call(&kid, "request_media", json!({"media_source": "builtin", "media_id": "tt0114709", "media_type": "movie", "priority": "high"}))
            .await,
    );
    assert!(err && summary.contains("priority"), "{summary}");
    assert!(rows(&store).await.is_empty());
    let (err, _, data) = outcome(&s.call(&kid, "request_media", movie("tt0114709")).await);
    assert!(!err, "{data}");
    assert_eq!(data["request"]["title"], "Toy Story");

    // A personal quota replaces the role's; admins are exempt and approved at once.
    store
        .set_quota(
            &QuotaScope::Role { role: Role::Admin },
            MediaType::Movie,
            1,
            1,
        )
        .await
        .unwrap();
    let boss = s.key_for("boss", Role::Admin, "admin").await;
    for id in ["tt0113277", "tt0133093"] {
        let (err, summary, data) = outcome(&s.call(&boss, "request_media", movie(id)).await);
        assert!(!err, "{data}");
        assert!(
            summary.contains("approved; no library backend is configured"),
            "{summary}"
        );
        assert_eq!(data["quota"]["exempt"], true);
    }
    let kid_person = store.person_by_name("kid").await.unwrap().unwrap();
    store
        .set_quota(
            &QuotaScope::Role { role: Role::Kid },
            MediaType::Movie,
            5,
            7,
        )
        .await
        .unwrap();
    store
        .set_quota(
            &QuotaScope::Person {
                person: kid_person.id,
                name: "kid".into(),
            },
            MediaType::Movie,
            1,
            30,
        )
        .await
        .unwrap();
    let (err, _, data) = outcome(&s.call(&kid, "request_media", movie("tt0266543")).await);
    assert!(err, "{data}");
    assert_eq!(data["allowances"].as_array().unwrap().len(), 1);
    assert_eq!(data["allowances"][0]["scope"], "person kid");
    assert_eq!(data["allowances"][0]["window_days"], 30);
}
