//! The HTTP edge in process: arbitrary requests (method, path, headers, body) into the real
//! router, and arbitrary JSON-RPC messages into `POST /mcp` with the owner's key. Every answer
//! is a valid HTTP answer, never a 5xx but 503; a JSON answer of `/mcp` is JSON-RPC.

use axum::{
    body::Body,
    http::{Method, Request, header},
};
use harness::{Gen, run_async};
use serde_json::{Value, json};

use crate::support::{marquee, send, status_allowed};

const PATHS: &[&str] = &[
    "/mcp",
    "/mcp/",
    "/healthz",
    "/readyz",
    "/metrics",
    "/api/v1/tools",
    "/api/v1/tools/call",
    "/api/v1/openapi.json",
    "/api/v1/tools/whoami",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/register",
    "/authorize",
    "/token",
    "/sign-in",
    "/sign-out",
    "/household",
    "/changes",
    "/changes/1",
    "/requests",
    "/",
    "/%2e%2e/%2e%2e/etc/passwd",
    "//evil.example/",
];

const METHODS: &[&str] = &[
    "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE",
];

const RPC_KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "name",
    "arguments",
    "_meta",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "cursor",
    "uri",
    "ref",
    "argument",
    "value",
    "level",
    "query",
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
];

/// JSON-RPC messages as clients send them, both eras.
fn rpc_seeds() -> Vec<Value> {
    let modern_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}),
        json!({"jsonrpc":"2.0","id":2,"method":"ping"}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x"}}),
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","arguments":{}}}),
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_titles","arguments":{"query":"alien","limit":5}}}),
        json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_title_details","arguments":{"media_source":"tmdb","media_id":"348"}}}),
        json!({"jsonrpc":"2.0","id":7,"method":"resources/list"}),
        json!({"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"marquee://guide"}}),
        json!({"jsonrpc":"2.0","id":9,"method":"prompts/list"}),
        json!({"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"x","arguments":{}}}),
        json!({"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}),
        json!({"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}),
        json!({"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta": modern_meta.clone()}}),
        json!({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"whoami","arguments":{},"_meta": modern_meta}}),
        json!({"jsonrpc":"2.0","id":14,"result":{}}),
        json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]),
    ]
}

fn rpc_body(g: &mut Gen, seeds: &[Value]) -> Vec<u8> {
    let mut seed = g.pick(seeds).clone();
    match g.below(8) {
        0 => g.mutate_bytes(
            seed.to_string().as_bytes(),
            &[b"{", b"}", b"\"", b",", b"\\u0000", b"[", b"1e999"],
        ),
        1 => g.json(4, RPC_KEYS).to_string().into_bytes(),
        2 => g.mutate_json(&seed, RPC_KEYS).to_string().into_bytes(),
        _ => {
            // The envelope kept, the method sometimes swapped, the params broken: past the
            // envelope's checks into each method's own decoding.
            if g.one_in(3) && seed.is_object() {
                let method = g.pick(&seeds[..seeds.len() - 1])["method"].clone();
                seed["method"] = method;
            }
            let params = seed.get("params").cloned().unwrap_or_else(|| json!({}));
            let broken = g.mutate_json(&params, RPC_KEYS);
            if let Some(m) = seed.as_object_mut() {
                m.insert("params".into(), broken);
            }
            seed.to_string().into_bytes()
        }
    }
}

/// A well-formed MCP answer: JSON-RPC with a result or an error (or an SSE stream, or empty).
fn rpc_answer_ok(content_type: &str, body: &[u8]) -> Result<(), String> {
    if body.is_empty() || !content_type.starts_with("application/json") {
        return Ok(());
    }
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("error").is_some() && v.get("jsonrpc").is_none() {
        return Ok(()); // an HTTP-level refusal (401's `invalid_token`) is plain JSON
    }
    if v["jsonrpc"] != "2.0" || (v.get("result").is_none() && v.get("error").is_none()) {
        return Err(format!(
            "not a JSON-RPC answer: {}",
            &v.to_string()[..v.to_string().len().min(300)]
        ));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_messages_into_mcp() {
    let m = marquee(Vec::new()).await;
    let seeds = rpc_seeds();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let report = run_async("json-rpc", 1500, |mut g| {
        let answered = answered.clone();
        let body = rpc_body(&mut g, &seeds);
        let mut req = Request::post("/mcp")
            .header(header::HOST, "127.0.0.1:8765")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, format!("Bearer {}", m.owner_key));
        if g.one_in(3) {
            req = req.header(header::ACCEPT, "application/json, text/event-stream");
        }
        if g.one_in(4) {
            req = req
                .header(
                    "mcp-protocol-version",
                    *g.pick(&["2026-07-28", "2025-06-18", "1999-01-01", ""]),
                )
                .header(
                    "mcp-method",
                    *g.pick(&["tools/call", "tools/list", "ping", "x"]),
                );
        }
        let router = m.router.clone();
        async move {
            let (resp, bytes) = send(&router, req.body(Body::from(body)).unwrap()).await;
            status_allowed(resp.status().as_u16())?;
            if resp.status() == 200 {
                answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let ct = resp
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            rpc_answer_ok(&ct, &bytes)
        }
    })
    .await;
    report.assert_clean();
    // Past the edge's refusals: a share of the inputs reaches the dispatcher and is answered.
    let answered = answered.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        answered * 10 > report.inputs,
        "{answered} of {} answered 200",
        report.inputs
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbitrary_requests_into_the_router() {
    let m = marquee(Vec::new()).await;
    let seeds = rpc_seeds();
    let report = run_async("http-requests", 1500, |mut g| {
        let path = if g.one_in(5) {
            let p = *g.pick(PATHS);
            String::from_utf8_lossy(&g.mutate_bytes(p.as_bytes(), &[b"/", b"%", b"?", b"#", b".."]))
                .into_owned()
        } else {
            let p = *g.pick(PATHS);
            if g.one_in(4) {
                format!("{p}?{}", g.string())
            } else {
                p.to_string()
            }
        };
        let method = if g.one_in(30) {
            "BREW"
        } else {
            *g.pick(METHODS)
        };
        let Ok(method) = Method::from_bytes(method.as_bytes()) else {
            return futures_ok();
        };
        let Ok(uri) = path.parse::<axum::http::Uri>() else {
            return futures_ok(); // not a request line a client could send
        };
        let mut req = Request::builder().method(method).uri(uri);
        let host = *g.pick(&[
            "127.0.0.1:8765",
            "localhost",
            "evil.example",
            "",
            "[::1]:1",
            "127.0.0.1:8765:9",
        ]);
        if !g.one_in(10) {
            req = req.header(header::HOST, host);
        }
        let headers: [(&str, String); 8] = [
            (
                "content-type",
                (*g.pick(&[
                    "application/json",
                    "text/plain",
                    "application/x-www-form-urlencoded",
                    "multipart/form-data; boundary=x",
                    "",
                ]))
                .to_string(),
            ),
            (
                "authorization",
                match g.below(4) {
                    0 => format!("Bearer {}", m.owner_key),
                    1 => format!("Bearer {}", g.string()),
                    2 => g.string(),
                    _ => "Basic Zm9vOmJhcg==".into(),
                },
            ),
            ("x-api-key", g.string()),
            (
                "origin",
                (*g.pick(&[
                    "http://127.0.0.1:8765",
                    "http://evil.example",
                    "null",
                    "http://127.0.0.1:1",
                ]))
                .to_string(),
            ),
            ("cookie", format!("marquee_session={}", g.string())),
            (
                "mcp-protocol-version",
                (*g.pick(&["2026-07-28", "2025-06-18", "x"])).to_string(),
            ),
            (
                "x-forwarded-for",
                (*g.pick(&["10.0.0.1", "1.2.3.4, 5.6.7.8", "garbage", "::1"])).to_string(),
            ),
            (
                "accept",
                (*g.pick(&["application/json", "text/event-stream", "text/html", "*/*"]))
                    .to_string(),
            ),
        ];
        for (name, value) in headers {
            if g.one_in(2)
                && let Ok(v) = axum::http::HeaderValue::from_str(&value)
            {
                req = req.header(name, v);
            }
        }
        let body = match g.below(4) {
            0 => Vec::new(),
            1 => g.string().into_bytes(),
            2 => format!(
                "csrf={}&name={}&password={}&next={}",
                g.string(),
                g.string(),
                g.string(),
                g.string()
            )
            .into_bytes(),
            _ => rpc_body(&mut g, &seeds),
        };
        let request = req.body(Body::from(body));
        let router = m.router.clone();
        Box::pin(async move {
            let Ok(request) = request else { return Ok(()) };
            let (resp, _) = send(&router, request).await;
            status_allowed(resp.status().as_u16())
        }) as std::pin::Pin<Box<dyn Future<Output = Result<(), String>> + Send>>
    })
    .await;
    report.assert_clean();
}

fn futures_ok() -> std::pin::Pin<Box<dyn Future<Output = Result<(), String>> + Send>> {
    Box::pin(async { Ok(()) })
}
