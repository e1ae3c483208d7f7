//! Down, slow and garbage-answering instances: typed errors, kept rows, and a neighbour that still answers.

#![allow(clippy::unwrap_used)]

use std::{
    sync::{
        Arc,
        atomic::{AtomicU8, AtomicUsize, Ordering},
    },
    time::Duration,
};

use adapters_downloads::{
    ClientConfig, DownloadClient, ErrorClass, TorrentCatalogue, TorrentQuery, query_merged,
};
use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use domain::{InstanceId, InstanceKind, Secret};
use serde_json::{Value, json};

const GOOD: u8 = 0;
const GARBAGE: u8 = 1;
const SLOW: u8 = 2;
const ALWAYS_409: u8 = 3;

/// One fake that speaks just enough qBittorrent and Transmission, in a switchable mode.
struct Fake {
    mode: AtomicU8,
    hits: AtomicUsize,
    /// The session id Transmission requests must carry.
    sid: parking_lot::Mutex<String>,
}

struct Running {
    fake: Arc<Fake>,
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn start(hash: &'static str) -> Running {
        let fake = Arc::new(Fake {
            mode: AtomicU8::new(GOOD),
            hits: AtomicUsize::new(0),
            sid: parking_lot::Mutex::new("s1".into()),
        });
        let app = Router::new()
            .route(
                "/api/v2/auth/login",
                post(|| async { ([("set-cookie", "SID=fake; path=/")], "Ok.") }),
            )
            .route("/api/v2/app/webapiVersion", get(|| async { "2.8.19" }))
            .route(
                "/api/v2/sync/maindata",
                get(move |s: State<Arc<Fake>>| maindata(s, hash)),
            )
            .route(
                "/transmission/rpc",
                post(move |s: State<Arc<Fake>>, h: HeaderMap, b: Bytes| rpc(s, h, b, hash)),
            )
            .with_state(fake.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move { rx.await.unwrap_or(()) })
                .await
                .unwrap();
        });
        Running {
            fake,
            url,
            stop: Some(tx),
            task,
        }
    }

    fn set(&self, mode: u8) {
        self.fake.mode.store(mode, Ordering::SeqCst);
    }

    async fn shut_down(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap();
    }
}

async fn misbehave(fake: &Fake) -> Option<Response> {
    fake.hits.fetch_add(1, Ordering::SeqCst);
    match fake.mode.load(Ordering::SeqCst) {
        GARBAGE => Some("<html>502 from a confused proxy</html>".into_response()),
        SLOW => {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            None
        }
        _ => None,
    }
}

async fn maindata(State(fake): State<Arc<Fake>>, hash: &'static str) -> Response {
    if let Some(r) = misbehave(&fake).await {
        return r;
    }
    axum::Json(json!({"rid": 1, "full_update": true, "torrents": {hash: {"name": "qb-row", "state": "uploading", "size": 10}}}))
        .into_response()
}

async fn rpc(
    State(fake): State<Arc<Fake>>,
    headers: HeaderMap,
    body: Bytes,
    hash: &'static str,
) -> Response {
    if let Some(r) = misbehave(&fake).await {
        return r;
    }
    let sid = fake.sid.lock().clone();
    let sent = headers
        .get("x-transmission-session-id")
        .and_then(|v| v.to_str().ok());
    if fake.mode.load(Ordering::SeqCst) == ALWAYS_409 || sent != Some(sid.as_str()) {
        return (
            StatusCode::CONFLICT,
            [("X-Transmission-Session-Id", sid)],
            "409",
        )
            .into_response();
    }
    let req: Value = serde_json::from_slice(&body).unwrap();
    let args = match req["method"].as_str().unwrap() {
        "session-get" => {
            json!({"download-dir": "/dl", "version": "4.0.6 (fake)", "rpc-version": 17})
        }
        "torrent-get" => {
            json!({"torrents": [{"id": 1, "hashString": hash, "name": "tr-row", "status": 6, "downloadDir": "/dl/tv"}], "removed": []})
        }
        "session-stats" => json!({"downloadSpeed": 5, "uploadSpeed": 6}),
        "free-space" => json!({"path": "/dl", "size-bytes": 1234}),
        _ => json!({}),
    };
    axum::Json(json!({"result": "success", "arguments": args})).into_response()
}

fn catalogue(id: &str, kind: InstanceKind, url: &str) -> TorrentCatalogue {
    let timeouts = httpx::Timeouts {
        connect: Duration::from_millis(300),
        request: Duration::from_millis(400),
    };
    let config = ClientConfig {
        kind,
        url: url.parse().unwrap(),
        username: Some("u".into()),
        password: Some(Secret::new("p")),
        timeouts,
    };
    TorrentCatalogue::new(
        InstanceId(id.into()),
        Arc::new(DownloadClient::new(config).unwrap()),
    )
}

const H1: &str = "1111111111111111111111111111111111111111";
const H2: &str = "2222222222222222222222222222222222222222";

#[tokio::test]
async fn failing_instances_keep_their_rows_and_name_the_error() {
    for kind in [InstanceKind::Qbittorrent, InstanceKind::Transmission] {
        let healthy = Running::start(H1).await;
        let flaky = Running::start(H2).await;
        let good = catalogue("good", InstanceKind::Transmission, &healthy.url);
        let bad = catalogue("flaky", kind, &flaky.url);
        good.refresh().await.unwrap();
        bad.refresh().await.unwrap();
        let first_seen = bad.status().observed_at.unwrap();
        let both = TorrentQuery::default();
        assert_eq!(query_merged(&[&good, &bad], &both).page.total, 2);

        for (mode, want) in [(GARBAGE, ErrorClass::Decode), (SLOW, ErrorClass::Timeout)] {
            flaky.set(mode);
            let e = bad.refresh().await.unwrap_err();
            assert_eq!(e.class(), want, "{kind}: {e}");
            good.refresh().await.unwrap();
            let status = bad.status();
            assert_eq!(
                (status.rows, status.observed_at),
                (1, Some(first_seen)),
                "{kind}: last good rows are kept"
            );
            assert_eq!(status.last_error.as_ref().map(|e| e.class), Some(want));
            let merged = query_merged(&[&good, &bad], &both);
            assert_eq!(merged.page.total, 2);
            let mut from: Vec<&str> = merged
                .page
                .rows
                .iter()
                .map(|r| r.instance.as_str())
                .collect();
            from.sort();
            assert_eq!(from, ["flaky", "good"]);
            assert!(
                merged.sources[0].last_error.is_none() && merged.sources[1].last_error.is_some()
            );
        }

        flaky.shut_down().await;
        let e = bad.refresh().await.unwrap_err();
        assert_eq!(e.class(), ErrorClass::Unreachable, "{kind}: {e}");
        assert_eq!(bad.len(), 1);
        assert_eq!(
            bad.overview().status.last_error.unwrap().class,
            ErrorClass::Unreachable
        );
        good.refresh().await.unwrap();
        assert!(good.status().last_error.is_none());
        healthy.shut_down().await;
    }
}

#[tokio::test]
async fn errors_never_carry_the_password() {
    let flaky = Running::start(H2).await;
    flaky.set(GARBAGE);
    let timeouts = httpx::Timeouts {
        connect: Duration::from_millis(300),
        request: Duration::from_millis(400),
    };
    for kind in [InstanceKind::Qbittorrent, InstanceKind::Transmission] {
        let url = flaky.url.replace("http://", "http://u:hunter2-secret@");
        let config = ClientConfig {
            kind,
            url: url.parse().unwrap(),
            username: Some("u".into()),
            password: Some(Secret::new("hunter2-secret")),
            timeouts,
        };
        let client = DownloadClient::new(config).unwrap();
        let e = client.version().await.unwrap_err();
        assert!(
            !format!("{e} {e:?} {client:?}").contains("hunter2"),
            "{e:?}"
        );
    }
}

#[tokio::test]
async fn transmission_session_id_handshake() {
    let fake = Running::start(H1).await;
    let cat = catalogue("tr", InstanceKind::Transmission, &fake.url);
    let DownloadClient::Transmission(tr) = &**cat.unchecked_client() else {
        unreachable!()
    };
    let hits = || fake.fake.hits.swap(0, Ordering::SeqCst);

    tr.version().await.unwrap();
    assert_eq!(hits(), 2, "409 then the call with the new id");
    tr.version().await.unwrap();
    assert_eq!(hits(), 1, "the id is remembered");
    *fake.fake.sid.lock() = "s2".into(); // as after a daemon restart
    tr.version().await.unwrap();
    assert_eq!(hits(), 2, "a new 409 is followed once more");

    fake.set(ALWAYS_409);
    let e = tr.version().await.unwrap_err();
    assert_eq!(e.class(), ErrorClass::Upstream, "{e}");
    assert_eq!(hits(), 2, "exactly one retry");
    fake.shut_down().await;
}
