//! A minimal qBittorrent WebAPI v2 stand-in for the Import Doctor benchmark: it holds one torrent
//! per given hash (stalled or downloading) and answers what the catalogue refresh reads
//! (`auth/login`, `app/version`, `app/webapiVersion`, a full `sync/maindata` at rid 0 and empty
//! increments after, `torrents/trackers`). Loopback only.

use std::sync::Arc;

use axum::{
    Router,
    extract::{Query, State},
    http::header,
    response::{IntoResponse, Response},
    routing::{any, post},
};
use serde_json::{Map, json};

/// Starts the stand-in with `torrents` (hash, stalled); returns its base URL.
pub async fn start(torrents: &[(String, bool)]) -> String {
    let mut map = Map::new();
    for (i, (hash, stalled)) in torrents.iter().enumerate() {
        map.insert(
            hash.to_lowercase(),
            json!({
                "name": format!("Release.{i}.1080p"), "state": if *stalled { "stalledDL" } else { "downloading" },
                "progress": 0.5, "size": 1_000_000_000_i64, "downloaded": 500_000_000_i64, "uploaded": 0,
                "ratio": 0.0, "dlspeed": if *stalled { 0 } else { 2_000_000 }, "upspeed": 0, "eta": 250,
                "category": "movies", "tags": "", "save_path": "/data/torrents/movies/",
                "added_on": 1_735_000_000_i64, "completion_on": -1,
                "tracker": "udp://tracker.example:1337/announce", "trackers_count": 1,
                "num_seeds": if *stalled { 0 } else { 12 }, "num_leechs": 3,
            }),
        );
    }
    let full = Arc::new(
        json!({ "rid": 1, "full_update": true, "torrents": map, "categories": {}, "tags": [], "server_state": {} })
            .to_string(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new()
        .route("/api/v2/auth/login", post(login))
        .route("/api/v2/app/version", any(|| async { "v4.6.7" }))
        .route("/api/v2/app/webapiVersion", any(|| async { "2.9.3" }))
        .route("/api/v2/sync/maindata", any(maindata))
        .route(
            "/api/v2/torrents/trackers",
            any(|| async { json_text("[]".into()) }),
        )
        .with_state(full);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

async fn login() -> Response {
    ([(header::SET_COOKIE, "SID=bench; HttpOnly; path=/")], "Ok.").into_response()
}

async fn maindata(
    State(full): State<Arc<String>>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let rid: u64 = q.get("rid").and_then(|r| r.parse().ok()).unwrap_or(0);
    if rid == 0 {
        json_text(full.as_str().to_owned())
    } else {
        json_text(json!({ "rid": rid + 1 }).to_string())
    }
}

fn json_text(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
