//! qBittorrent 5 (WebAPI 2.11) renames, checked on a fake since the machine runs 4.5; and refresh pacing.

#![allow(clippy::unwrap_used)]

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use adapters_downloads::{
    AddSource, AddTorrent, DownloadClient, TorrentCatalogue, TorrentState, qbittorrent::QbClient,
};
use axum::{
    Router,
    body::Bytes,
    extract::{Path, State},
    routing::{get, post},
};
use domain::{InfoHash, InstanceId, Secret};
use serde_json::json;

const H: &str = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";

#[derive(Default)]
struct Seen {
    /// (action, body) of every POST to `torrents/{action}`.
    posts: parking_lot::Mutex<Vec<(String, String)>>,
    maindata: AtomicUsize,
}

async fn fake_v5() -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = Router::new()
        .route("/api/v2/auth/login", post(|| async { ([("set-cookie", "SID=x; path=/")], "Ok.") }))
        .route("/api/v2/app/webapiVersion", get(|| async { "2.11.2" }))
        .route(
            "/api/v2/torrents/info",
            get(|| async { axum::Json(json!([{"hash": H, "name": "x", "state": "stoppedUP"}])) }),
        )
        .route(
            "/api/v2/torrents/{action}",
            post(|State(s): State<Arc<Seen>>, Path(action): Path<String>, body: Bytes| async move {
                s.posts.lock().push((action, String::from_utf8_lossy(&body).into_owned()));
                "Ok."
            }),
        )
        .route(
            "/api/v2/sync/maindata",
            get(|State(s): State<Arc<Seen>>| async move {
                s.maindata.fetch_add(1, Ordering::SeqCst);
                axum::Json(json!({"rid": 1, "full_update": true, "torrents": {H: {"name": "x", "state": "stoppedDL"}}}))
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn client(url: &str) -> QbClient {
    QbClient::new(
        url.parse().unwrap(),
        "u",
        Secret::new("p"),
        httpx::Timeouts::default(),
    )
    .unwrap()
}

#[tokio::test]
async fn webapi_2_11_uses_stop_start_and_stopped() {
    let (url, seen) = fake_v5().await;
    let qb = client(&url);
    let h: InfoHash = H.parse().unwrap();
    assert!(qb.api_version().await.unwrap().uses_stop_start());
    qb.pause(&[h]).await.unwrap();
    qb.resume(&[h]).await.unwrap();
    let magnet = "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=y".to_string();
    let add = AddTorrent {
        source: AddSource::Url(magnet),
        category: Some("tv".into()),
        tags: vec![],
        paused: true,
        save_path: None,
    };
    qb.add(&add).await.unwrap();
    let posts = seen.posts.lock().clone();
    let actions: Vec<&str> = posts.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(actions, ["stop", "start", "add"]);
    let add_body = &posts[2].1;
    assert!(
        add_body.contains("name=\"stopped\"\r\n\r\ntrue"),
        "{add_body}"
    );
    assert!(!add_body.contains("name=\"paused\""), "{add_body}");
    assert!(!add_body.contains("skip_checking"), "{add_body}");
    assert_eq!(posts[0].1, format!("hashes={H}"));
}

#[tokio::test]
async fn refresh_if_older_than_spares_the_backend() {
    let (url, seen) = fake_v5().await;
    let cat = TorrentCatalogue::new(
        InstanceId("qb5".into()),
        Arc::new(DownloadClient::Qbittorrent(client(&url))),
    );
    assert!(
        cat.refresh_if_older_than(Duration::from_secs(60))
            .await
            .unwrap()
            .is_ok()
    );
    assert!(
        cat.refresh_if_older_than(Duration::from_secs(60))
            .await
            .is_none()
    );
    assert_eq!(seen.maindata.load(Ordering::SeqCst), 1);
    assert!(
        cat.refresh_if_older_than(Duration::ZERO)
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(seen.maindata.load(Ordering::SeqCst), 2);
    assert_eq!(
        cat.get(&H.parse().unwrap()).unwrap().state,
        TorrentState::Paused,
        "5.x stoppedDL is paused"
    );
}
