//! A Marquee in process with the instances a test names, called over the real router, with
//! every log line kept for the canary checks.

use std::{
    io::Write,
    sync::{Arc, Mutex, OnceLock},
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::Body,
    http::{Request, header},
};
use domain::{InstanceKind, Secret};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tools::{InstanceSpec, Instances, Settings};
use tower::ServiceExt;
use web::{EdgeConfig, Host, Metrics, Web};

/// How long a backend call may take before Marquee gives up (httpx's request timeout), plus
/// room for a loaded machine.
pub const WITHIN: Duration = Duration::from_secs(15 + 8);

pub struct Marquee {
    pub router: Router,
    pub owner_key: String,
    _data: tempfile::TempDir,
}

pub fn spec(id: &str, kind: InstanceKind, url: &str, key: Option<&str>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(url.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: key.map(Secret::new),
        default: false,
    }
}

pub async fn marquee(instances: Vec<InstanceSpec>) -> Marquee {
    marquee_with(instances, &[]).await
}

/// A Marquee whose instances named in `timeouts` have that `timeout_seconds`.
pub async fn marquee_with(instances: Vec<InstanceSpec>, timeouts: &[(&str, Duration)]) -> Marquee {
    capture_logs();
    let data = tempfile::tempdir().unwrap();
    let store = store::Store::open(data.path()).await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(true, None)),
        Arc::new(
            Instances::new(instances)
                .unwrap()
                .with_timeouts(timeouts.iter().map(|(id, t)| (id.to_string(), *t))),
        ),
    );
    app.start_jobs(std::future::pending());
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(EdgeConfig::default(), metrics);
    web.set_ready(host);
    Marquee {
        router: web::router(web),
        owner_key: issued.secret.expose().to_string(),
        _data: data,
    }
}

/// What a tool call answered, and how long it took.
pub struct Called {
    pub error: bool,
    pub summary: String,
    pub result: Value,
    pub took: Duration,
}

impl Marquee {
    pub async fn get(&self, path: &str) -> (u16, String) {
        let req = Request::get(path)
            .header(header::HOST, "127.0.0.1:8765")
            .header(header::AUTHORIZATION, format!("Bearer {}", self.owner_key))
            .body(Body::empty())
            .unwrap();
        self.send(req).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, String) {
        let req = Request::post(path)
            .header(header::HOST, "127.0.0.1:8765")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, format!("Bearer {}", self.owner_key))
            .body(Body::from(body.to_string()))
            .unwrap();
        self.send(req).await
    }

    async fn send(&self, req: Request<Body>) -> (u16, String) {
        let resp = self.router.clone().oneshot(req).await.unwrap();
        let status = resp.status().as_u16();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `tools/call` over `POST /mcp`.
    pub async fn call(&self, tool: &str, arguments: Value) -> Called {
        let started = Instant::now();
        let (status, body) = self
            .post(
                "/mcp",
                json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":arguments}}),
            )
            .await;
        let took = started.elapsed();
        assert_eq!(status, 200, "{tool}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        let result = v["result"].clone();
        Called {
            error: result["isError"].as_bool().unwrap_or(true),
            summary: result["structuredContent"]["summary"]
                .as_str()
                .or_else(|| result["content"][0]["text"].as_str())
                .unwrap_or_default()
                .to_string(),
            result,
            took,
        }
    }
}

/// Every log line of this test binary, at debug for Marquee's own crates.
pub fn logs() -> String {
    let buf = LOGS.get_or_init(Default::default).lock().unwrap();
    String::from_utf8_lossy(&buf).into_owned()
}

static LOGS: OnceLock<Mutex<Vec<u8>>> = OnceLock::new();

struct Sink;

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        LOGS.get_or_init(Default::default)
            .lock()
            .unwrap()
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let filter = "info,web=debug,mcp=debug,tools=debug,governance=debug,store=debug,httpx=debug,\
                      adapters_library=debug,adapters_catalogue=debug,adapters_downloads=debug";
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_writer(|| Sink)
            .try_init();
    });
}
