//! The tool contract through MCP and the REST mirror: envelopes, strict inputs, visibility
//! by grant and switches, activity scoping, and the checked-in snapshot of the tool list.

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::Role;
use serde_json::{Value, json};

use crate::support::{self, parse, post, server};

pub(crate) fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn whoami_answers_the_envelope_as_structured_content_and_text() {
    let s = server().await;
    let r = s.call(&s.owner_key, "whoami", json!({})).await;
    assert_eq!(r["isError"], false);
    let sc = &r["structuredContent"];
    for key in ["summary", "data", "warnings", "next_action", "observed_at"] {
        assert!(sc.get(key).is_some(), "missing {key}: {sc}");
    }
    assert_eq!(
        sc["data"]["person"],
        json!({"name": "owner", "role": "owner"})
    );
    assert_eq!(sc["data"]["grant"]["name"], "owner");
    assert_eq!(r["content"][0]["text"], sc["summary"]);
    let second: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&second, sc);
    assert!(
        !r.to_string().contains(&s.owner_key),
        "the key must never be echoed"
    );
}

#[tokio::test]
async fn inputs_are_strict_and_errors_name_the_field() {
    let s = server().await;
    let r = s
        .call(&s.owner_key, "whoami", json!({"verbose": true}))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("verbose"),
        "{r}"
    );
    let r = s
        .call(&s.owner_key, "get_activity", json!({"limit": "5"}))
        .await;
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"limit\""), "{text}");
    let r = s
        .call(&s.owner_key, "get_guide", json!({"topic": "cooking"}))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("topic"),
        "{r}"
    );
    assert_eq!(r["structuredContent"]["data"]["code"], "invalid_argument");
    let r = s.call(&s.owner_key, "get_guide", json!({})).await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("topic"),
        "{r}"
    );
    let (_, body) = s.rpc(&s.owner_key, json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":[1]}})).await;
    assert_eq!(body["error"]["code"], -32602);
    let (_, body) = s.rpc(&s.owner_key, json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"launch_rockets"}})).await;
    assert_eq!(body["error"]["code"], -32602);
}

#[tokio::test]
async fn schemas_are_strict_objects_without_root_combinators() {
    let s = server().await;
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    for t in body["result"]["tools"].as_array().unwrap() {
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{t}");
        assert_eq!(schema["additionalProperties"], false, "{t}");
        for k in ["oneOf", "anyOf", "allOf"] {
            assert!(schema.get(k).is_none(), "{} has root {k}", t["name"]);
        }
        assert!(t["title"].is_string(), "{t}");
        assert!(t["annotations"]["readOnlyHint"].is_boolean(), "{t}");
    }
}

#[tokio::test]
async fn the_grant_decides_what_is_listed_and_callable() {
    let s = server().await;
    let kid = s.key_for("kid", Role::Kid, "requester").await;
    let (_, body) = s
        .rpc(&kid, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    assert_eq!(
        names(&body),
        [
            "browse_titles",
            "check_request_status",
            "display_media",
            "find_tools",
            "get_activity",
            "get_guide",
            "get_recommendations",
            "get_request_options",
            "get_title_details",
            "get_trending",
            "list_instances",
            "list_requests",
            "request_media",
            "search_collections",
            "search_music",
            "search_titles",
            "whoami"
        ]
    );
    let r = s.call(&kid, "diagnose", json!({})).await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("settings.read"),
        "{r}"
    );

    // The owner switches a tool off: gone from the list and refused, for everyone.
    s.host
        .app
        .store()
        .set_tool_switch("get_guide", false)
        .await
        .unwrap();
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    assert!(!names(&body).contains(&"get_guide".to_string()));
    let r = s
        .call(&s.owner_key, "get_guide", json!({"topic":"setup"}))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("switched off"),
        "{r}"
    );
}

#[tokio::test]
async fn activity_is_scoped_to_the_caller() {
    let s = server().await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s.call(&alice, "get_activity", json!({})).await;
    assert_eq!(r["isError"], false);
    assert_eq!(r["structuredContent"]["data"]["entries"], json!([]));
    let r = s
        .call(&alice, "get_activity", json!({"person": "owner"}))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("audit.read")
    );
    let r = s
        .call(&s.owner_key, "get_activity", json!({"person": "nobody"}))
        .await;
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("alice"),
        "{r}"
    );
    let r = s
        .call(&s.owner_key, "get_activity", json!({"limit": 0}))
        .await;
    assert_eq!(r["isError"], true);
}

#[tokio::test]
async fn diagnose_and_list_instances_report_honestly() {
    use domain::InstanceKind as K;
    use test_support::arr::{ArrKind, FakeArr};
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    let tmdb = test_support::TmdbFake::start().await;
    let mb = test_support::MusicBrainzFake::start().await;
    // Lidarr is down: nothing listens at its address any more.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let lidarr_url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let lidarr_key = "lidarr-key";
    let arr = |id: &str, kind, fake: &FakeArr| {
        support::instance(id, kind, Some(&fake.url()), Some(fake.api_key()))
    };
    let s = support::server_with_instances(vec![
        support::builtin(),
        arr("radarr", K::Radarr, &radarr),
        arr("sonarr", K::Sonarr, &sonarr),
        support::instance("lidarr", K::Lidarr, Some(&lidarr_url), Some(lidarr_key)),
        arr("readarr", K::Readarr, &readarr),
        support::instance(
            "tmdb",
            K::Tmdb,
            Some(tmdb.base_url()),
            Some(test_support::TmdbFake::API_KEY),
        ),
        support::instance("mb", K::Musicbrainz, Some(mb.base_url()), None),
    ])
    .await;
    let r = s.call(&s.owner_key, "diagnose", json!({})).await;
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["data"]["store"]["ok"], true);
    let checked = r["structuredContent"]["data"]["instances"]
        .as_array()
        .unwrap()
        .clone();
    let verdicts: Vec<(String, Value)> = checked
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), c["ok"].clone()))
        .collect();
    let expected: Vec<(String, Value)> = [
        ("builtin", true),
        ("radarr", true),
        ("sonarr", true),
        ("lidarr", false),
        ("readarr", true),
        ("tmdb", true),
        ("mb", true),
    ]
    .iter()
    .map(|(id, ok)| (id.to_string(), json!(ok)))
    .collect();
    assert_eq!(verdicts, expected, "{checked:#?}");
    let lidarr = &checked[3];
    let why = lidarr["detail"].as_str().unwrap();
    assert!(
        why.contains("lidarr") && why.contains("could not be reached"),
        "{why}"
    );
    // Each healthy one was asked: the services answered their own status.
    for (i, said) in [
        (1, "Radarr"),
        (2, "Sonarr"),
        (4, "Readarr"),
        (5, "TMDB"),
        (6, "MusicBrainz"),
    ] {
        let detail = checked[i]["detail"].as_str().unwrap();
        assert!(detail.contains(said), "{detail}");
    }
    for fake in [&radarr, &sonarr, &readarr] {
        assert!(
            fake.requests()
                .iter()
                .any(|q| q.path.ends_with("/system/status")),
            "the status endpoint was not asked"
        );
    }
    assert!(!mb.requests().is_empty(), "musicbrainz was not asked");
    assert!(
        !tmdb.requests_to("/authentication").is_empty(),
        "tmdb was not asked"
    );
    let summary = r["structuredContent"]["summary"].as_str().unwrap();
    assert!(summary.contains("1 with problems (lidarr)"), "{summary}");
    let r = s
        .call(&s.owner_key, "diagnose", json!({"instance_id": "nope"}))
        .await;
    assert_eq!(r["isError"], true);
    let r = s.call(&s.owner_key, "list_instances", json!({})).await;
    let listed = &r["structuredContent"]["data"]["instances"];
    assert_eq!(
        (
            listed[0]["id"].clone(),
            listed[0]["kind"].clone(),
            listed[0]["family"].clone()
        ),
        (json!("builtin"), json!("builtin"), json!("catalogue"))
    );
    assert_eq!(listed.as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn list_instances_shows_addresses_to_admins_only() {
    let url = "http://127.0.0.1:9/secret-path/";
    let s = support::server_with_instances(vec![support::instance(
        "tmdb",
        domain::InstanceKind::Tmdb,
        Some(url),
        Some("k"),
    )])
    .await;
    let admin = s.key_for("ada", domain::Role::Admin, "reader").await;
    let kid = s.key_for("kim", domain::Role::Kid, "reader").await;
    let user = s.key_for("ulf", domain::Role::User, "operator").await;
    for (key, shown) in [
        (&s.owner_key, true),
        (&admin, true),
        (&kid, false),
        (&user, false),
    ] {
        let r = s.call(key, "list_instances", json!({})).await;
        assert_eq!(r["isError"], false, "{r}");
        let listed = &r["structuredContent"]["data"]["instances"];
        assert_eq!(listed[0]["id"], "tmdb", "{listed}");
        let text = r.to_string();
        assert_eq!(text.contains("secret-path"), shown, "{text}");
        assert_eq!(listed[0]["url"].is_string(), shown, "{listed}");
    }
}

#[tokio::test]
async fn rest_mirror_uses_the_same_rules_and_envelope() {
    let s = server().await;
    let auth = format!("Bearer {}", s.owner_key);
    let get = |path: &str, auth: Option<&str>| {
        let mut b = Request::get(path).header(header::HOST, "localhost");
        if let Some(a) = auth {
            b = b.header(header::AUTHORIZATION, a);
        }
        b.body(Body::empty()).unwrap()
    };
    let (resp, body) = s.send(get("/api/v1/tools", Some(&auth))).await;
    assert_eq!(resp.status(), 200);
    let body = parse(&body);
    assert_eq!(body["success"], true);
    // The mirror lists exactly what tools/list shows the same caller.
    let (_, listed) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    assert_eq!(
        body["data"]["tools"].as_array().unwrap().len(),
        names(&listed).len()
    );
    let (resp, body) = s.send(get("/api/v1/tools", None)).await;
    assert_eq!(resp.status(), 401);
    assert_eq!(parse(&body)["success"], false);
    let (resp, body) = s
        .send(get("/api/v1/tools/whoami/schema", Some(&auth)))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(parse(&body)["data"]["type"], "object");
    let (resp, _) = s.send(get("/api/v1/tools/nope", Some(&auth))).await;
    assert_eq!(resp.status(), 404);

    let call = |body: Value| {
        post("/api/v1/tools/call")
            .header(header::AUTHORIZATION, &auth)
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let (resp, body) = s
        .send(call(json!({"tool_name":"whoami","arguments":{}})))
        .await;
    assert_eq!(resp.status(), 200);
    let body = parse(&body);
    assert_eq!(
        (
            body["success"].clone(),
            body["data"]["data"]["person"]["name"].clone()
        ),
        (json!(true), json!("owner"))
    );
    let (resp, body) = s
        .send(call(
            json!({"tool_name":"get_activity","arguments":{"limit":"x"}}),
        ))
        .await;
    assert_eq!(resp.status(), 400);
    assert_eq!(parse(&body)["success"], false);
    let (resp, _) = s.send(call(json!({"tool_name":"nope"}))).await;
    assert_eq!(resp.status(), 404);
    // A body over the limit (64 KiB here) is too large, not malformed.
    let huge = json!({"tool_name":"whoami","arguments":{"pad": "x".repeat(70 * 1024)}});
    let (resp, body) = s.send(call(huge)).await;
    assert_eq!(resp.status(), 413);
    assert_eq!(parse(&body)["success"], false);

    let (resp, body) = s.send(get("/api/v1/openapi.json", None)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(parse(&body)["openapi"], "3.1.0");
}

/// The full tool list (names, schemas, annotations): every tool this build has, as MCP
/// definitions, whatever is configured. A change here is a contract change: review it, then
/// `UPDATE_EXPECT=1`.
#[tokio::test]
async fn tool_list_snapshot() {
    let s = support::server_with(true).await;
    let all: Vec<Value> = s
        .host
        .app
        .all_tools()
        .iter()
        .map(|t| serde_json::to_value(s.host.definition(t.meta.name).unwrap()).unwrap())
        .collect();
    let text = serde_json::to_string_pretty(&all).unwrap() + "\n";
    expect_test::expect_file!["../../../../tools.json"].assert_eq(&text);
}

/// A family's tools are listed only while one of its instances is configured: the embedded
/// default has the builtin catalogue but no torrent client.
#[tokio::test]
async fn tools_of_unconfigured_families_are_not_listed() {
    let s = server().await;
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let listed = names(&body);
    assert!(
        !listed
            .iter()
            .any(|n| n == "find_torrents" || n == "pause_torrents"),
        "{listed:?}"
    );
    assert!(listed.iter().any(|n| n == "whoami") && listed.iter().any(|n| n == "search_titles"));
    let r = s.call(&s.owner_key, "find_torrents", json!({})).await;
    assert_eq!(r["isError"], true, "{r}");
}

/// The owner's switch: a tool switched off is neither listed nor callable on MCP and the REST
/// mirror, for everyone or only for the person it was switched off for.
#[tokio::test]
async fn a_disabled_tool_is_neither_listed_nor_callable_on_mcp_and_rest() {
    let s = server().await;
    let ann = s.key_for("ann", domain::Role::User, "requester").await;
    let bob = s.key_for("bob", domain::Role::User, "requester").await;
    let store = s.host.app.store();
    store.set_tool_switch("get_trending", false).await.unwrap();
    let ann_id = store.person_by_name("ann").await.unwrap().unwrap().id;
    store
        .set_person_tool_switch(ann_id, "search_titles", false)
        .await
        .unwrap();
    let rest = |key: &str, req: Request<Body>| {
        let (mut parts, body) = req.into_parts();
        parts.headers.insert(
            header::AUTHORIZATION,
            format!("Bearer {key}").parse().unwrap(),
        );
        parts
            .headers
            .insert(header::HOST, "localhost".parse().unwrap());
        Request::from_parts(parts, body)
    };
    for (key, off) in [
        (&ann, vec!["get_trending", "search_titles"]),
        (&bob, vec!["get_trending"]),
    ] {
        let (_, listed) = s
            .rpc(key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
            .await;
        let listed = names(&listed);
        let (_, body) = s
            .send(rest(
                key,
                Request::get("/api/v1/tools").body(Body::empty()).unwrap(),
            ))
            .await;
        let mirrored: Vec<String> = parse(&body)["data"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, mirrored);
        for tool in ["get_trending", "search_titles"] {
            let is_off = off.contains(&tool);
            assert_eq!(listed.iter().any(|n| n == tool), !is_off, "{tool}");
            let args = json!({"query": "alien"});
            let r = s.call(key, tool, args.clone()).await;
            assert_eq!(r["isError"], is_off, "{tool}: {r}");
            let (resp, body) = s
                .send(rest(
                    key,
                    post("/api/v1/tools/call")
                        .body(Body::from(
                            json!({"tool_name": tool, "arguments": args}).to_string(),
                        ))
                        .unwrap(),
                ))
                .await;
            if is_off {
                assert_eq!(
                    (resp.status().as_u16(), &parse(&body)["message"]),
                    (
                        403,
                        &json!(format!("the tool {tool} is switched off by the owner"))
                    )
                );
            } else {
                assert_eq!(resp.status(), 200, "{}", parse(&body));
            }
        }
    }
}

/// The REST mirror's status follows the error's code: a missing title is 404.
#[tokio::test]
async fn rest_statuses_follow_the_error_code() {
    let s = server().await;
    let call = |body: Value| {
        post("/api/v1/tools/call")
            .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let (resp, body) = s
        .send(call(json!({"tool_name": "get_title_details", "arguments": {"media_source": "builtin", "media_id": "999999999", "media_type": "movie"}})))
        .await;
    let body = parse(&body);
    assert_eq!(
        (
            resp.status().as_u16(),
            &body["data"]["data"]["code"],
            &body["data"]["data"]["kind"]
        ),
        (404, &json!("not_found"), &json!("not_found")),
        "{body}"
    );
}

/// `whoami` shows each allowance of the caller's grant with what is left.
#[tokio::test]
async fn whoami_shows_the_allowances_left() {
    let s = server().await;
    let spec = store::GrantSpec {
        capabilities: [domain::Capability::Discover].into(),
        allowances: [(
            domain::AllowanceKind::Adds,
            domain::AllowanceRule { count: 10, days: 1 },
        )]
        .into(),
        ..store::GrantSpec::default()
    };
    s.host
        .app
        .store()
        .create_grant("fetcher", &spec)
        .await
        .unwrap();
    let key = s.key_for("ann", domain::Role::User, "fetcher").await;
    let r = s.call(&key, "whoami", json!({})).await;
    let out = &r["structuredContent"];
    assert_eq!(
        out["data"]["grant"]["allowances"],
        json!([{"allowance": "adds", "count": 10, "days": 1, "used": 0, "left": 10, "refills_at": null}])
    );
    assert!(
        out["summary"]
            .as_str()
            .unwrap()
            .contains("allowances: 10 of 10 adds per day left"),
        "{out}"
    );
}
