//! The HTTP surface: mounts the MCP edge, the REST mirror, health, readiness and metrics on
//! one axum router. Handlers parse, call one core function, render; the guards every route
//! beside `/mcp` needs are layers (`guard.rs`).

mod failures;
mod guard;
mod host;
pub mod listen;
mod metrics;
mod oauth;
mod pages;
mod protocol_tasks;
mod rest;
mod rest_openapi;

use std::sync::{Arc, OnceLock};

use axum::{
    Router,
    extract::State,
    http::{StatusCode, header},
    middleware,
    response::{IntoResponse, Response},
    routing::get,
};
pub use host::{Host, render};
pub use mcp::edge::EdgeConfig;
use mcp::{
    edge::{Edge, Readiness},
    throttle::Throttle,
};
pub use metrics::Metrics;
use serde_json::json;

/// Everything the router needs; the host arrives once the store is open.
#[derive(Clone)]
pub struct Web {
    pub ready: Readiness<Host>,
    pub edge: EdgeConfig,
    pub metrics: Arc<Metrics>,
    /// Failed authentications by source, for `/mcp` and the REST mirror alike.
    pub throttle: Arc<Throttle>,
    /// OAuth client registrations by source: each counts, and a source that registered
    /// [`REGISTRATIONS`] clients waits out the window before registering more.
    pub registrations: Arc<Throttle>,
}

/// Client registrations one address may make within ten minutes: a connector registers once
/// when it is set up, a few times if it is set up again.
pub const REGISTRATIONS: u32 = 20;

impl Web {
    pub fn new(edge: EdgeConfig, metrics: Arc<Metrics>) -> Web {
        Web {
            ready: Arc::new(OnceLock::new()),
            edge,
            metrics,
            throttle: Arc::new(Throttle::default()),
            registrations: Arc::new(Throttle::new(
                REGISTRATIONS,
                std::time::Duration::from_secs(600),
                std::time::Duration::from_secs(600),
                10_000,
            )),
        }
    }

    /// Marks the server ready: from now on requests reach the host, and failed
    /// authentications are counted in its store too (shared by every replica on it).
    pub fn set_ready(&self, host: Arc<Host>) {
        let failures = failures::StoreFailures(host.app.store().clone());
        self.throttle.share(Arc::new(failures));
        let _ = self.ready.set(host);
    }
}

/// The whole router. Every route but `/healthz` answers 503 until the store is ready.
pub fn router(web: Web) -> Router {
    let mcp = mcp::edge::router(Arc::new(Edge {
        ready: web.ready.clone(),
        config: web.edge.clone(),
        throttle: web.throttle.clone(),
        peers: Arc::default(),
    }));
    // The OAuth endpoints and the owner pages refuse a foreign Host or Origin before anything
    // else (the REST mirror's router does the same for its tools).
    // So do the metrics, which also need the key of someone who sees the household's set-up.
    let metrics = Router::new().route("/metrics", get(metrics_text));
    let guarded =
        guard::host_and_origin_checked(oauth::router().merge(pages::router()).merge(metrics), &web);
    let gated = Router::new()
        .route(
            "/readyz",
            get(|| async { (StatusCode::OK, axum::Json(json!({"status": "ready"}))) }),
        )
        .merge(guarded)
        .nest("/api/v1", rest::router(&web))
        .with_state(web.clone())
        .layer(middleware::from_fn_with_state(web.clone(), guard::ready));
    Router::new()
        .route(
            "/healthz",
            get(|| async { (StatusCode::OK, axum::Json(json!({"status": "alive"}))) }),
        )
        // The MCP edge answers 503 itself until the host is ready, so the busiest route
        // skips the gate's extra layer.
        .merge(mcp)
        .merge(gated)
}

async fn metrics_text(State(web): State<Web>, request: axum::extract::Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Err(refused) = rest::authorize_household(&web, &parts).await {
        return refused;
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        web.metrics.render(),
    )
        .into_response()
}
