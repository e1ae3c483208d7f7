//! An in-process Marquee as the binary wires it (store, core, host, the real router), and the
//! answer rule every HTTP target checks.

use std::sync::Arc;

use axum::{
    Router,
    body::Body,
    http::{Request, Response},
};
use http_body_util::BodyExt;
use tools::{InstanceSpec, Instances, Settings};
use tower::ServiceExt;
use web::{EdgeConfig, Host, Metrics, Web};

pub struct Marquee {
    pub router: Router,
    pub owner_key: String,
    /// The data folder, removed on drop.
    _data: tempfile::TempDir,
}

/// The embedded default (the builtin catalogue) plus `more` instances, on a store in a file as
/// `marquee serve` opens it. (Not the in-memory store of other tests: its one connection is
/// replaced by an empty database when a cancelled request drops it, and cancelled requests are
/// what a fuzzer sends.)
pub async fn marquee(more: Vec<InstanceSpec>) -> Marquee {
    let data = tempfile::tempdir().unwrap();
    let store = store::Store::open(data.path()).await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let mut instances = vec![InstanceSpec {
        id: "builtin".into(),
        kind: domain::InstanceKind::Builtin,
        url: None,
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }];
    instances.extend(more);
    // No per-person call rate: a fuzzer is not a household, and the rate has tests of its own.
    let settings = Settings::new(false, None);
    settings.call_rate.set_per_minute(0);
    let app = tools::app(
        store,
        Arc::new(settings),
        Arc::new(Instances::new(instances).unwrap()),
    );
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(
        EdgeConfig {
            body_limit: 64 * 1024,
            ..EdgeConfig::default()
        },
        metrics,
    );
    web.set_ready(host);
    Marquee {
        router: web::router(web),
        owner_key: issued.secret.expose().to_string(),
        _data: data,
    }
}

/// One request through the router, its whole answer read.
pub async fn send(router: &Router, request: Request<Body>) -> (Response<()>, Vec<u8>) {
    let resp = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = body.collect().await.map(|b| b.to_bytes().to_vec());
    (Response::from_parts(parts, ()), bytes.unwrap_or_default())
}

/// The rule of every answer: never a 5xx but 503 (the server is not ready or a backend is down:
/// a 500 means Marquee itself broke).
pub fn status_allowed(status: u16) -> Result<(), String> {
    if status >= 500 && status != 503 {
        Err(format!("status {status}"))
    } else {
        Ok(())
    }
}
