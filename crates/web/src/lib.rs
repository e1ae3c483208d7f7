//! The HTTP surface: mounts the MCP edge, the REST mirror, health, readiness and metrics on
//! one axum router. Handlers parse, call one core function, render.

mod host;
mod metrics;
mod pages;
mod rest;
mod rest_openapi;

use std::sync::{Arc, OnceLock};

use axum::{
    Router,
    extract::State,
    http::{StatusCode, header},
    middleware::{self, Next},
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
}

impl Web {
    pub fn new(edge: EdgeConfig, metrics: Arc<Metrics>) -> Web {
        Web {
            ready: Arc::new(OnceLock::new()),
            edge,
            metrics,
            throttle: Arc::new(Throttle::default()),
        }
    }

    /// Marks the server ready: from now on requests reach the host.
    pub fn set_ready(&self, host: Arc<Host>) {
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
    let gated = Router::new()
        .route(
            "/readyz",
            get(|| async { (StatusCode::OK, axum::Json(json!({"status": "ready"}))) }),
        )
        .route("/metrics", get(metrics_text))
        .route(
            "/.well-known/oauth-protected-resource",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .nest("/api/v1", rest::router())
        .merge(pages::router())
        .with_state(web.clone())
        .merge(mcp)
        .layer(middleware::from_fn_with_state(web.clone(), gate));
    Router::new()
        .route(
            "/healthz",
            get(|| async { (StatusCode::OK, axum::Json(json!({"status": "alive"}))) }),
        )
        .merge(gated)
}

async fn gate(State(web): State<Web>, request: axum::extract::Request, next: Next) -> Response {
    if web.ready.get().is_none() {
        return mcp::edge::not_ready();
    }
    next.run(request).await
}

async fn metrics_text(State(web): State<Web>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        web.metrics.render(),
    )
        .into_response()
}

/// RFC 9728 protected-resource metadata. The authorization server arrives with OAuth support;
/// until then keys are the only credentials and the list of authorization servers is empty.
async fn resource_metadata(headers: axum::http::HeaderMap) -> Response {
    let authority = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    axum::Json(json!({
        "resource": format!("http://{authority}/mcp"),
        "authorization_servers": [],
        "bearer_methods_supported": ["header"],
        "resource_name": "Marquee",
        "resource_documentation": format!("http://{authority}/api/v1/openapi.json"),
    }))
    .into_response()
}
