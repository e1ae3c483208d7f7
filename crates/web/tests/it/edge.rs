//! The HTTP edge rules of `POST /mcp`, through the real router on a real in-memory store.

use axum::{
    body::Body,
    http::{Request, header},
};
use serde_json::{Value, json};

use crate::support::{self, modern, parse, post, send, server};

#[tokio::test]
async fn not_ready_answers_503_with_retry_after_everywhere_but_liveness() {
    let web = web::Web::new(web::EdgeConfig::default(), Default::default());
    let router = web::router(web);
    for (method, path) in [
        ("POST", "/mcp"),
        ("GET", "/readyz"),
        ("GET", "/metrics"),
        ("GET", "/api/v1/tools"),
        ("GET", "/api/v1/openapi.json"),
    ] {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, "localhost")
            .body(Body::empty())
            .unwrap();
        let (resp, _) = send(&router, req).await;
        assert_eq!(resp.status(), 503, "{method} {path}");
        assert_eq!(resp.headers()[header::RETRY_AFTER], "5", "{method} {path}");
    }
    let (resp, _) = send(
        &router,
        Request::get("/healthz").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn get_and_delete_are_405_with_allow_post() {
    let s = server().await;
    for method in ["GET", "DELETE"] {
        let req = Request::builder()
            .method(method)
            .uri("/mcp")
            .header(header::HOST, "localhost")
            .body(Body::empty())
            .unwrap();
        let (resp, _) = s.send(req).await;
        assert_eq!(resp.status(), 405);
        assert_eq!(resp.headers()[header::ALLOW], "POST");
    }
}

#[tokio::test]
async fn batch_parse_error_notification_and_body_limit() {
    let s = server().await;
    let auth = format!("Bearer {}", s.owner_key);
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}]);
    let (resp, body) = s
        .send(
            post("/mcp")
                .header(header::AUTHORIZATION, &auth)
                .body(Body::from(batch.to_string()))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 400);
    assert_eq!(parse(&body)["error"]["code"], -32600);
    // Nothing ran: a batch is refused whole, so no tool call was counted.
    assert!(
        !s.host
            .metrics()
            .render()
            .contains("marquee_tool_calls_total{")
    );

    let (resp, body) = s
        .send(
            post("/mcp")
                .header(header::AUTHORIZATION, &auth)
                .body(Body::from("{not json"))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 400);
    assert_eq!(parse(&body)["error"]["code"], -32700);

    let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    let (resp, body) = s
        .send(
            post("/mcp")
                .header(header::AUTHORIZATION, &auth)
                .body(Body::from(note.to_string()))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 202);
    assert!(body.is_empty());

    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
        "a".repeat(70 * 1024)
    );
    let (resp, _) = s
        .send(
            post("/mcp")
                .header(header::AUTHORIZATION, &auth)
                .body(Body::from(big))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 413);
}

#[tokio::test]
async fn host_and_origin_are_checked() {
    let s = server().await;
    let body = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();
    let req = Request::post("/mcp")
        .header(header::HOST, "evil.example.com")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::from(body.clone()))
        .unwrap();
    assert_eq!(s.send(req).await.0.status(), 403);
    let req = post("/mcp")
        .header(header::ORIGIN, "http://evil.example.com")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::from(body.clone()))
        .unwrap();
    assert_eq!(s.send(req).await.0.status(), 403);
    // Another port of this machine is another origin: a page there is refused like any site.
    let req = post("/mcp")
        .header(header::ORIGIN, "http://localhost:6274")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::from(body.clone()))
        .unwrap();
    assert_eq!(s.send(req).await.0.status(), 403);
    let req = post("/mcp")
        .header(header::ORIGIN, "http://127.0.0.1:8765")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::from(body.clone()))
        .unwrap();
    assert_eq!(s.send(req).await.0.status(), 200, "the same origin");
    // A call without Content-Type: application/json (a browser's simple request) is refused.
    let req = Request::post("/mcp")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::from(body))
        .unwrap();
    assert_eq!(s.send(req).await.0.status(), 415);
}

#[tokio::test]
async fn credentials_missing_wrong_and_the_three_forms() {
    let s = server().await;
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();
    let (resp, body) = s
        .send(post("/mcp").body(Body::from(ping.clone())).unwrap())
        .await;
    assert_eq!(resp.status(), 401);
    let www = resp.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
    assert_eq!(
        www,
        "Bearer resource_metadata=\"http://127.0.0.1:8765/.well-known/oauth-protected-resource\""
    );
    assert!(parse(&body)["error"].is_string());

    // The last character changed (to another one: a key may end in `x` already).
    let last = if s.owner_key.ends_with('x') { 'y' } else { 'x' };
    let wrong = format!("{}{last}", &s.owner_key[..s.owner_key.len() - 1]);
    let (resp, body) = s
        .send(
            post("/mcp")
                .header(header::AUTHORIZATION, format!("Bearer {wrong}"))
                .body(Body::from(ping.clone()))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 401);
    assert!(!String::from_utf8_lossy(&body).contains(&wrong));

    let (resp, _) = s
        .send(
            post("/mcp")
                .header("x-api-key", &s.owner_key)
                .body(Body::from(ping.clone()))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let (resp, body) = s
        .send(
            post(&format!("/mcp?apikey={}", s.owner_key))
                .body(Body::from(ping))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(parse(&body)["result"], json!({}));

    // Revocation takes effect on the next request.
    let key_id = s.host.app.store().keys().await.unwrap()[0].key_id.clone();
    s.host.app.store().revoke_key(&key_id).await.unwrap();
    let (status, _) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
        )
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn legacy_handshake_negotiates_and_tools_list_needs_no_initialize() {
    let s = server().await;
    let init = |v: &str| json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":v,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let (status, body) = s.rpc(&s.owner_key, init(asked)).await;
        assert_eq!(status, 200);
        assert_eq!(body["result"]["protocolVersion"], answered, "{asked}");
        assert!(
            body["result"]["instructions"]
                .as_str()
                .unwrap()
                .contains("whoami")
        );
        assert!(body["result"].get("resultType").is_none());
    }
    let (status, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":"a","method":"tools/list"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], "a");
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // Every tool the owner has, in the stable (sorted) order; the server family among them.
    for server_tool in [
        "diagnose",
        "get_activity",
        "get_guide",
        "list_instances",
        "whoami",
    ] {
        assert!(names.contains(&server_tool), "{names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":2,"method":"nope/nope"}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32601);
}

async fn modern_rpc(
    s: &support::Server,
    method: &str,
    params: Value,
    tweak: impl FnOnce(&mut Vec<(&'static str, String)>, &mut Value),
) -> (u16, Value) {
    let (mut body, mut headers) = modern(method, 3, params);
    tweak(&mut headers, &mut body);
    let mut req = post("/mcp").header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key));
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let (resp, bytes) = s
        .send(req.body(Body::from(body.to_string())).unwrap())
        .await;
    (resp.status().as_u16(), parse(&bytes))
}

#[tokio::test]
async fn modern_era_discover_lists_and_header_rules() {
    let s = server().await;
    let (status, body) = modern_rpc(&s, "server/discover", json!({}), |_, _| {}).await;
    assert_eq!(status, 200, "{body}");
    let r = &body["result"];
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        r["supportedVersions"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    assert!(r["instructions"].as_str().unwrap().contains("get_guide"));
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "marquee"
    );

    let (status, body) = modern_rpc(&s, "tools/list", json!({}), |_, _| {}).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(body["result"]["cacheScope"], "private");
    assert!(body["result"]["ttlMs"].as_u64().is_some());

    let (status, body) = modern_rpc(
        &s,
        "tools/call",
        json!({"name":"whoami","arguments":{}}),
        |_, _| {},
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(body["result"]["isError"], false);

    // Header missing, mismatched, or naming another tool: 400 with -32020.
    let (status, body) = modern_rpc(&s, "tools/list", json!({}), |h, _| {
        h.retain(|(k, _)| *k != "mcp-protocol-version")
    })
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let (status, body) = modern_rpc(&s, "tools/list", json!({}), |h, _| {
        h.retain(|(k, _)| *k != "mcp-method")
    })
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let (status, body) = modern_rpc(&s, "tools/call", json!({"name":"whoami"}), |h, _| {
        h.iter_mut().for_each(|(k, v)| {
            if *k == "mcp-name" {
                *v = "diagnose".into()
            }
        })
    })
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020))
    );

    // Unknown version: 400 with -32022 and the supported list.
    let (status, body) = modern_rpc(&s, "tools/list", json!({}), |h, b| {
        b["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
        h.iter_mut().for_each(|(k, v)| {
            if *k == "mcp-protocol-version" {
                *v = "2027-01-01".into()
            }
        });
    })
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32022))
    );
    assert_eq!(body["error"]["data"]["supported"], json!(["2026-07-28"]));

    // Missing client capabilities: 400 with -32602.
    let (status, body) = modern_rpc(&s, "tools/list", json!({}), |_, b| {
        b["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientCapabilities");
    })
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32602))
    );

    // Removed methods and unknown ones: 404 with -32601, id kept.
    for method in ["initialize", "ping", "logging/setLevel", "nope"] {
        let (status, body) = modern_rpc(&s, method, json!({}), |_, _| {}).await;
        assert_eq!(
            (status, body["error"]["code"].clone(), body["id"].clone()),
            (404, json!(-32601), json!(3)),
            "{method}"
        );
    }
}

#[tokio::test]
async fn resources_guides_and_not_found_codes() {
    let s = server().await;
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"resources/list"}),
        )
        .await;
    let uris: Vec<&str> = body["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "marquee://guides/setup",
            "marquee://guides/permissions",
            "marquee://guides/troubleshooting",
            "ui://marquee/carousel"
        ]
    );
    let (_, body) = s.rpc(&s.owner_key, json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"marquee://guides/permissions"}})).await;
    assert!(
        body["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("# Who may do what")
    );
    let (_, body) = s.rpc(&s.owner_key, json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"marquee://guides/nope"}})).await;
    assert_eq!(body["error"]["code"], -32002);
    assert_eq!(body["error"]["data"]["uri"], "marquee://guides/nope");
    let (status, body) = modern_rpc(
        &s,
        "resources/read",
        json!({"uri":"marquee://guides/nope"}),
        |h, _| h.push(("mcp-name", "marquee://guides/nope".into())),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (200, json!(-32602))
    );
}

#[tokio::test]
async fn metrics_count_requests_and_tool_calls() {
    let s = server().await;
    s.call(&s.owner_key, "whoami", json!({})).await;
    let _ = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}),
        )
        .await;
    let (resp, body) = s
        .send(
            Request::get("/metrics")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains("marquee_mcp_requests_total{method=\"tools/call\",status=\"200\"} 2"),
        "{text}"
    );
    assert!(
        text.contains("marquee_tool_calls_total{tool=\"whoami\",outcome=\"ok\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("marquee_tool_calls_total{tool=\"-\",outcome=\"unknown_tool\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("marquee_mcp_request_duration_seconds_count 2"),
        "{text}"
    );
}

#[tokio::test]
async fn metrics_need_a_household_key_and_this_servers_host() {
    let s = support::server().await;
    let reader = s.key_for("ana", domain::Role::User, "reader").await;
    let metrics = |host: &str, key: Option<&str>| {
        let mut b = Request::get("/metrics").header(header::HOST, host);
        if let Some(k) = key {
            b = b.header(header::AUTHORIZATION, format!("Bearer {k}"));
        }
        b.body(Body::empty()).unwrap()
    };
    let (resp, _) = s.send(metrics("localhost", None)).await;
    assert_eq!(resp.status(), 401, "no key");
    let (resp, _) = s.send(metrics("localhost", Some(&reader))).await;
    assert_eq!(
        resp.status(),
        403,
        "a reader does not see the household's set-up"
    );
    let (resp, _) = s
        .send(metrics("rebound.example:8765", Some(&s.owner_key)))
        .await;
    assert_eq!(resp.status(), 403, "a foreign Host (DNS rebinding)");
    let (resp, body) = s.send(metrics("localhost", Some(&s.owner_key))).await;
    assert_eq!(resp.status(), 200);
    assert!(String::from_utf8(body).unwrap().contains("marquee_"));
}

#[tokio::test]
async fn metrics_fold_unknown_methods_into_one_label() {
    let s = server().await;
    for i in 0..3 {
        let (status, _) = s
            .rpc(
                &s.owner_key,
                json!({"jsonrpc":"2.0","id":1,"method":format!("made/up/{i}")}),
            )
            .await;
        assert_eq!(status, 200);
    }
    let (_, body) = s
        .send(
            Request::get("/metrics")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains("marquee_mcp_requests_total{method=\"other\",status=\"200\"} 3"),
        "{text}"
    );
    assert!(!text.contains("made/up"), "{text}");
}

#[tokio::test]
async fn the_query_key_is_percent_decoded() {
    let s = server().await;
    let encoded: String = s.owner_key.bytes().map(|b| format!("%{b:02X}")).collect();
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();
    let (resp, _) = s
        .send(
            post(&format!("/mcp?apikey={encoded}"))
                .body(Body::from(ping))
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status(), 200);
}

/// A request from `ip` (as the listener would report it) with this bearer key.
fn from(ip: &str, path: &str, key: &str) -> Request<Body> {
    let peer: std::net::SocketAddr = format!("{ip}:40000").parse().unwrap();
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();
    let builder = if path == "/mcp" {
        post(path).body(Body::from(ping))
    } else {
        Request::get(path)
            .header(header::HOST, "localhost")
            .body(Body::empty())
    };
    let mut req = builder.unwrap();
    req.headers_mut().insert(
        header::AUTHORIZATION,
        format!("Bearer {key}").parse().unwrap(),
    );
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(peer));
    req
}

#[tokio::test]
async fn repeated_failed_keys_from_one_address_are_throttled_and_others_are_not() {
    let s = server().await;
    let (attacker, other) = ("203.0.113.5", "198.51.100.7");
    for i in 1..10 {
        let (resp, _) = s
            .send(from(attacker, "/mcp", &format!("mq_guess{i}")))
            .await;
        assert_eq!(resp.status(), 401, "failure {i}");
    }
    let (resp, body) = s.send(from(attacker, "/mcp", "mq_guess10")).await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()[header::RETRY_AFTER], "300");
    assert_eq!(parse(&body)["error"], "too_many_failed_authentications");
    // The blocked address waits with any wrong key, on /mcp and the REST mirror alike; a
    // valid key (long and random: nothing to guess) goes through.
    let (resp, body) = s.send(from(attacker, "/api/v1/tools", "mq_guess11")).await;
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().contains_key(header::RETRY_AFTER));
    assert_eq!(parse(&body)["success"], false);
    let (resp, _) = s.send(from(attacker, "/mcp", &s.owner_key)).await;
    assert_eq!(resp.status(), 200);
    // Another address is answered as usual: a valid key at once, a wrong one with 401.
    let (resp, _) = s.send(from(other, "/mcp", &s.owner_key)).await;
    assert_eq!(resp.status(), 200);
    let (resp, _) = s.send(from(other, "/api/v1/tools", &s.owner_key)).await;
    assert_eq!(resp.status(), 200);
    let (resp, _) = s.send(from(other, "/mcp", "mq_wrong")).await;
    assert_eq!(resp.status(), 401);
}
