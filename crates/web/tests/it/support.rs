//! An in-process Marquee on a real in-memory SQLite, driven through the real router.

use std::sync::Arc;

use axum::{
    Router,
    body::Body,
    http::{Request, Response, header},
};
use http_body_util::BodyExt;
use serde_json::Value;
use tools::{Instances, Settings};
use tower::ServiceExt;
use web::{EdgeConfig, Host, Metrics, Web};

pub struct Server {
    pub router: Router,
    pub host: Arc<Host>,
    pub owner_key: String,
}

pub async fn server() -> Server {
    server_with(false).await
}

/// The embedded default (the builtin catalogue, no torrent client, no library) on an
/// in-memory store, with destructive tools on or off.
pub async fn server_with(allow_destructive: bool) -> Server {
    let s = server_with_instances(vec![builtin()]).await;
    s.host
        .app
        .settings()
        .set_allow_destructive(allow_destructive);
    s
}

impl Server {
    /// Serves the router on a loopback port for a browser, with the public URL set to it:
    /// answers `http://127.0.0.1:PORT`.
    pub async fn on_loopback(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let router = self.router.clone();
        tokio::spawn(async move {
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .await
        });
        self.host.app.settings().set_public_url(&base);
        base
    }

    /// A key for a new person with the given role and grant.
    pub async fn key_for(&self, name: &str, role: domain::Role, grant: &str) -> String {
        let store = self.host.app.store();
        let p = store.add_person(name, role).await.unwrap();
        store
            .create_key(p.id, grant, None, None)
            .await
            .unwrap()
            .secret
            .expose()
            .to_string()
    }

    pub async fn send(&self, request: Request<Body>) -> (Response<()>, Vec<u8>) {
        send(&self.router, request).await
    }

    /// POST /mcp with a bearer key; returns status and parsed JSON (Null when empty).
    pub async fn rpc(&self, key: &str, body: Value) -> (u16, Value) {
        let req = post("/mcp")
            .header(header::AUTHORIZATION, format!("Bearer {key}"))
            .body(Body::from(body.to_string()))
            .unwrap();
        let (resp, bytes) = self.send(req).await;
        (resp.status().as_u16(), parse(&bytes))
    }

    /// A legacy tools/call; returns the result object.
    pub async fn call(&self, key: &str, tool: &str, arguments: Value) -> Value {
        let (status, body) = self.rpc(key, serde_json::json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":tool,"arguments":arguments}})).await;
        assert_eq!(status, 200, "{body}");
        let result = body["result"].clone();
        self.conforms(tool, &result);
        result
    }

    /// Every successful answer's structured content conforms to the output schema its tool
    /// declares in `tools/list` (checked on every call the tests make through [`Server::call`]).
    pub fn conforms(&self, tool: &str, result: &Value) {
        if result["isError"] != Value::Bool(false) {
            return;
        }
        let Some(def) = self.host.definition(tool) else {
            return;
        };
        let schema = serde_json::to_value(def).unwrap()["outputSchema"].clone();
        if let Err(e) = tools::contract::conform::conforms(&schema, &result["structuredContent"]) {
            panic!("{tool}'s answer does not conform to its outputSchema: {e}\n{result}");
        }
    }
}

pub fn post(path: &str) -> axum::http::request::Builder {
    Request::post(path)
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/json")
}

pub async fn send(router: &Router, request: Request<Body>) -> (Response<()>, Vec<u8>) {
    let resp = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes().to_vec();
    (Response::from_parts(parts, ()), bytes)
}

pub fn parse(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into()))
    }
}

/// The `_meta` and headers of a 2026-07-28 request.
pub fn modern(method: &str, id: u64, mut params: Value) -> (Value, Vec<(&'static str, String)>) {
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28".to_string()),
        ("mcp-method", method.to_string()),
    ];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(("mcp-name", name.to_string()));
    }
    (
        serde_json::json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}),
        headers,
    )
}

/// A server over these instances (e.g. real download daemons), with destructive tools on or off.
pub async fn server_for(instances: Vec<tools::InstanceSpec>, allow_destructive: bool) -> Server {
    let s = server_with_instances(instances).await;
    s.host
        .app
        .settings()
        .set_allow_destructive(allow_destructive);
    s
}

// Discover and requests: servers with catalogue instances, on any store.

/// An instance as the config would declare it.
pub fn instance(
    id: &str,
    kind: domain::InstanceKind,
    url: Option<&str>,
    api_key: Option<&str>,
) -> tools::InstanceSpec {
    tools::InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| u.parse().unwrap()),
        path: None,
        username: Some("tests@marquee.invalid".into()),
        password: None,
        api_key: api_key.map(domain::Secret::new),
        default: false,
    }
}

/// The builtin catalogue, as the embedded default declares it.
pub fn builtin() -> tools::InstanceSpec {
    instance("builtin", domain::InstanceKind::Builtin, None, None)
}

/// A Marquee on `store` (in memory, or a file with a pool of connections) with these instances.
pub async fn server_on(store: store::Store, instances: Vec<tools::InstanceSpec>) -> Server {
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let settings = Settings::new(false, None);
    // The tests serve their .torrent files from 127.0.0.1, which an owner would allow as
    // `[outbound] allowed_hosts = ["127.0.0.1"]`; `outbound.rs` checks the default refusal.
    settings.set_outbound_hosts(vec!["127.0.0.1".into()]);
    let instances = Instances::new(instances).unwrap();
    let app = tools::app(store, Arc::new(settings), Arc::new(instances));
    app.start_jobs(std::future::pending());
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(
        EdgeConfig {
            body_limit: 64 * 1024,
            ..EdgeConfig::default()
        },
        metrics,
    );
    web.set_ready(host.clone());
    Server {
        router: web::router(web),
        host,
        owner_key: issued.secret.expose().to_string(),
    }
}

/// A Marquee on an in-memory store with these instances.
pub async fn server_with_instances(instances: Vec<tools::InstanceSpec>) -> Server {
    server_on(store::Store::open_in_memory().await.unwrap(), instances).await
}

impl Server {
    /// A key for a new person with content limits.
    pub async fn key_with_limits(
        &self,
        name: &str,
        role: domain::Role,
        grant: &str,
        limits: store::ContentLimits,
    ) -> String {
        let key = self.key_for(name, role, grant).await;
        let store = self.host.app.store();
        let p = store.person_by_name(name).await.unwrap().unwrap();
        store.set_limits(p.id, &limits).await.unwrap();
        key
    }
}

/// A tool result's parts: is it an error, its summary, its data.
pub fn outcome(result: &Value) -> (bool, String, Value) {
    (
        result["isError"].as_bool().unwrap(),
        result["structuredContent"]["summary"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        result["structuredContent"]["data"].clone(),
    )
}
