//! What every fake shares: a server on an ephemeral port that records each request before answering it,
//! and a handle that stops the server when dropped.

use std::{net::SocketAddr, sync::Arc, time::Instant};

use axum::{
    Router,
    body::Bytes,
    extract::{Query, State},
    http::{HeaderMap, Method, Uri},
    response::Response,
};
use parking_lot::Mutex;
use tokio::sync::oneshot;

/// One request as the fake received it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    /// The path below the fake's base URL, e.g. "/search/movie".
    pub path: String,
    /// Query parameters in arrival order, decoded.
    pub query: Vec<(String, String)>,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// When the request arrived (monotonic).
    pub at: Instant,
    /// The request body as UTF-8 (lossy); empty when there was none.
    pub body: String,
}

impl RecordedRequest {
    /// The first value of a query parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON; `None` when it is empty or not JSON.
    pub fn json_body(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.body).ok()
    }
}

/// A request handed to a fake's answer function.
pub(crate) struct Incoming<'a> {
    pub path: &'a str,
    pub request: &'a RecordedRequest,
}

/// Answers one request given every request recorded before it.
pub(crate) type Answer = dyn Fn(&Incoming<'_>, &[RecordedRequest]) -> Response + Send + Sync;

struct Shared {
    prefix: &'static str,
    log: Mutex<Vec<RecordedRequest>>,
    answer: Box<Answer>,
}

/// A running fake: its base URL and its request log. Dropping it stops the server.
pub(crate) struct Running {
    pub base_url: String,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
}

impl Running {
    /// Starts a fake whose base URL ends in `prefix` (e.g. "/3").
    pub async fn start(prefix: &'static str, answer: Box<Answer>) -> Running {
        let shared = Arc::new(Shared {
            prefix,
            log: Mutex::new(Vec::new()),
            answer,
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr: SocketAddr = listener.local_addr().expect("local addr");
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await;
        });
        Running {
            base_url: format!("http://{addr}{prefix}"),
            shared,
            shutdown: Some(tx),
        }
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log.lock().clone()
    }

    pub fn clear(&self) {
        self.shared.log.lock().clear();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    Query(query): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let at = Instant::now();
    let path = uri
        .path()
        .strip_prefix(shared.prefix)
        .unwrap_or(uri.path())
        .to_string();
    let request = RecordedRequest {
        method: method.to_string(),
        path: path.clone(),
        query,
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        at,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let before = {
        let mut log = shared.log.lock();
        let before = log.clone();
        log.push(request.clone());
        before
    };
    (shared.answer)(
        &Incoming {
            path: &path,
            request: &request,
        },
        &before,
    )
}
