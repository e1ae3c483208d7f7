//! The fake's HTTP side: binds `127.0.0.1:0`, checks the API key, records each request with its
//! body and the answer, and can answer 503 or stop listening (and listen again on the same port).

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use crate::RecordedRequest;
use axum::{
    Router,
    body::Bytes,
    extract::{Query, State as AxumState},
    http::{HeaderMap, Method, StatusCode, Uri, header},
    response::{IntoResponse, Response},
};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::{sync::oneshot, task::JoinHandle};

use super::{ArrKind, routes, state::State, v5};

/// How the fake answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Up,
    /// Every request is answered 503 Service Unavailable.
    Unavailable,
    /// The port is closed: connections are refused.
    Refusing,
}

/// One request as the fake received it (method, path below the API prefix, query, headers,
/// as every fake of this crate records them), and what it answered.
#[derive(Clone, Debug)]
pub struct ArrRequest {
    pub request: RecordedRequest,
    /// The request body parsed as JSON (`Null` when empty or not JSON).
    pub body: Value,
    pub status: u16,
    /// The answer's body (`Null` when empty).
    pub answer: Value,
}

impl std::ops::Deref for ArrRequest {
    type Target = RecordedRequest;

    fn deref(&self) -> &RecordedRequest {
        &self.request
    }
}

pub(crate) struct Shared {
    pub kind: ArrKind,
    /// Sonarr v5's dialect: `/api/v5`, answered through `v5.rs`.
    pub v5: bool,
    pub api_key: String,
    pub state: Mutex<State>,
    pub log: Mutex<Vec<ArrRequest>>,
    unavailable: AtomicBool,
}

impl Shared {
    pub fn prefix(&self) -> &'static str {
        if self.v5 {
            "/api/v5"
        } else {
            self.kind.api_prefix()
        }
    }

    pub fn spec_file(&self) -> &'static str {
        if self.v5 {
            "sonarr-v5-prerelease.openapi.json"
        } else {
            self.kind.spec_file()
        }
    }
}

pub(crate) struct Server {
    pub shared: Arc<Shared>,
    addr: SocketAddr,
    running: tokio::sync::Mutex<Option<(oneshot::Sender<()>, JoinHandle<()>)>>,
}

impl Server {
    pub async fn start(kind: ArrKind, v5: bool) -> Server {
        let mut state = State::new(kind);
        state.v5 = v5;
        let shared = Arc::new(Shared {
            kind,
            v5,
            api_key: format!("fake-{}-key-5e4d3c2b1a", kind.name().to_lowercase()),
            state: Mutex::new(state),
            log: Mutex::new(Vec::new()),
            unavailable: AtomicBool::new(false),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let running = serve(listener, shared.clone());
        Server {
            shared,
            addr,
            running: tokio::sync::Mutex::new(Some(running)),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn set_mode(&self, mode: Mode) {
        self.shared
            .unavailable
            .store(mode == Mode::Unavailable, Ordering::SeqCst);
        let mut running = self.running.lock().await;
        match (mode, running.is_some()) {
            (Mode::Refusing, true) => {
                if let Some((stop, task)) = running.take() {
                    let _ = stop.send(());
                    let _ = task.await;
                }
            }
            (Mode::Up | Mode::Unavailable, false) => {
                let listener = tokio::net::TcpListener::bind(self.addr)
                    .await
                    .expect("bind the fake's port again");
                *running = Some(serve(listener, self.shared.clone()));
            }
            _ => {}
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some((stop, _)) = self.running.get_mut().take() {
            let _ = stop.send(());
        }
    }
}

fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let app = Router::new().fallback(handle).with_state(shared);
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
    });
    (tx, task)
}

async fn handle(
    AxumState(shared): AxumState<Arc<Shared>>,
    method: Method,
    uri: Uri,
    Query(query): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let prefix = shared.prefix();
    let path = uri
        .path()
        .strip_prefix(prefix)
        .unwrap_or(uri.path())
        .to_string();
    let mut request = ArrRequest {
        request: RecordedRequest {
            method: method.to_string(),
            path,
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
            at: std::time::Instant::now(),
            body: String::from_utf8_lossy(&body).into_owned(),
        },
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        status: 0,
        answer: Value::Null,
    };
    let key_ok = request.header("x-api-key") == Some(&shared.api_key)
        || request.param("apikey") == Some(&shared.api_key);
    let (status, answer) = if shared.unavailable.load(Ordering::SeqCst) {
        (StatusCode::SERVICE_UNAVAILABLE, Value::Null)
    } else if !key_ok {
        (StatusCode::UNAUTHORIZED, Value::Null)
    } else if !uri.path().starts_with(prefix) {
        (StatusCode::NOT_FOUND, Value::Null)
    } else {
        let mut state = shared.state.lock();
        if shared.v5 {
            v5::answer(&mut state, &request)
        } else {
            routes::answer(&mut state, &request)
        }
    };
    request.status = status.as_u16();
    let body = (!answer.is_null()).then(|| answer.to_string());
    request.answer = answer;
    shared.log.lock().push(request);
    match body {
        None => status.into_response(),
        Some(body) => (
            status,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            body,
        )
            .into_response(),
    }
}
