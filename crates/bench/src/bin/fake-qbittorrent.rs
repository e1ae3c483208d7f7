//! `fake-qbittorrent`: a loopback-only qBittorrent WebAPI v2 stand-in serving N synthetic torrents,
//! for `scripts/bench.sh`. It speaks what Marquee's adapter reads:
//!
//! - `POST auth/login` (form `username`, `password`): `Ok.` with a `SID` cookie, or `Fails.`;
//!   `auth/logout`. Every other call without that cookie is a 403, like the real client.
//! - `app/version`, `app/webapiVersion`.
//! - `sync/maindata?rid=N`: rid 0 is the full list (`full_update`, rid 1, built once at start);
//!   any later rid gets an empty incremental answer with the next rid.
//! - `torrents/info` (`hashes`, `category`, `sort=hash`, `reverse`, `limit`, `offset`),
//!   `torrents/categories`, `torrents/tags`, `torrents/trackers`, `torrents/properties`,
//!   `torrents/files` (`hash`).
//!
//! - `POST torrents/pause` / `torrents/stop` (form `hashes`): answered like the real client (200,
//!   empty), for the audited-write benchmark of `scripts/bench-changes.sh`; the synthetic data is
//!   not changed, so every run pauses the same torrents.
//!
//! Other writes are not implemented (404). Prints `listening on http://ADDR/` once it serves.

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Query, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{any, post},
};
use bench::qbit::Synthetic;
use clap::Parser;
use serde_json::Value;

#[derive(Parser, Debug)]
#[command(
    name = "fake-qbittorrent",
    about = "Loopback-only qBittorrent WebAPI v2 stand-in serving synthetic torrents (benchmarks)"
)]
struct Cli {
    /// Address to listen on; loopback only. Port 0 picks a free one (the bound address is printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// How many torrents to serve.
    #[arg(long, default_value_t = 50_000)]
    torrents: usize,
    /// Seed of the synthetic data: the same seed gives the same torrents.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "admin")]
    username: String,
    #[arg(long, default_value = "adminadmin")]
    password: String,
    /// What `app/version` answers.
    #[arg(long, default_value = "v4.6.7")]
    app_version: String,
    /// What `app/webapiVersion` answers (2.11 or later means qBittorrent 5).
    #[arg(long, default_value = "2.9.3")]
    api_version: String,
    /// Exit by itself after this many seconds (0: never), so it cannot outlive a killed script.
    #[arg(long, default_value_t = 0)]
    exit_after: u64,
}

struct Fake {
    data: Synthetic,
    /// The full maindata answer, built once.
    full: Bytes,
    /// Indices ordered by hash, for `torrents/info?sort=hash`.
    by_hash: Vec<usize>,
    sid: String,
    username: String,
    password: String,
    app_version: String,
    api_version: String,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if !cli.listen.ip().is_loopback() {
        eprintln!(
            "fake-qbittorrent: refusing to listen on {}: loopback addresses only",
            cli.listen
        );
        return std::process::ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fake-qbittorrent: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let listen = cli.listen;
    let exit_after = cli.exit_after;
    let started = std::time::Instant::now();
    let data = Synthetic::new(cli.torrents, cli.seed);
    let full = Bytes::from(data.full_maindata());
    let by_hash = data.by_hash_order();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let sid = format!(
        "{:032x}",
        (nanos ^ (u128::from(std::process::id()) << 64) ^ u128::from(cli.seed))
            .wrapping_mul(0x2545_F491_4F6C_DD1D_9E37_79B9_7F4A_7C15)
    );
    eprintln!(
        "fake-qbittorrent: {} torrents (seed {}), full maindata {:.1} MB, built in {:.2?}",
        data.len(),
        cli.seed,
        full.len() as f64 / 1e6,
        started.elapsed()
    );
    let fake = Arc::new(Fake {
        data,
        full,
        by_hash,
        sid,
        username: cli.username,
        password: cli.password,
        app_version: cli.app_version,
        api_version: cli.api_version,
    });
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        // scripts/bench.sh reads this line to learn the port.
        println!("listening on http://{}/", listener.local_addr()?);
        let server = axum::serve(listener, app(fake));
        if exit_after == 0 {
            server.await
        } else {
            match tokio::time::timeout(Duration::from_secs(exit_after), server).await {
                Ok(r) => r,
                Err(_) => {
                    eprintln!("fake-qbittorrent: exiting after {exit_after} s (--exit-after)");
                    Ok(())
                }
            }
        }
    });
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fake-qbittorrent: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn app(fake: Arc<Fake>) -> Router {
    Router::new()
        .route("/api/v2/auth/login", post(login))
        .route("/api/v2/auth/logout", post(logout))
        .route("/api/v2/app/version", any(app_version))
        .route("/api/v2/app/webapiVersion", any(webapi_version))
        .route("/api/v2/sync/maindata", any(maindata))
        .route("/api/v2/torrents/info", any(info))
        .route("/api/v2/torrents/categories", any(categories))
        .route("/api/v2/torrents/tags", any(tags))
        .route("/api/v2/torrents/trackers", any(trackers))
        .route("/api/v2/torrents/properties", any(properties))
        .route("/api/v2/torrents/files", any(files))
        .route("/api/v2/torrents/pause", post(pause))
        .route("/api/v2/torrents/stop", post(pause))
        .fallback(|| async { (StatusCode::NOT_FOUND, "Not Found") })
        .with_state(fake)
}

type Params = Query<HashMap<String, String>>;

fn text(body: impl Into<String>) -> Response {
    let mut r = Response::new(Body::from(body.into()));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    r
}

fn json_bytes(body: impl Into<Bytes>) -> Response {
    let mut r = Response::new(Body::from(body.into()));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn json(v: &Value) -> Response {
    json_bytes(serde_json::to_vec(v).unwrap_or_default())
}

fn forbidden() -> Response {
    (StatusCode::FORBIDDEN, "Forbidden").into_response()
}

/// Whether the request carries the session cookie.
fn signed_in(fake: &Fake, headers: &HeaderMap) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|c| c.trim().strip_prefix("SID=") == Some(fake.sid.as_str()))
}

async fn login(State(fake): State<Arc<Fake>>, body: Bytes) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let user = form.get("username").map(String::as_str);
    let pass = form.get("password").map(String::as_str);
    if user != Some(fake.username.as_str()) || pass != Some(fake.password.as_str()) {
        return text("Fails.");
    }
    let mut r = text("Ok.");
    if let Ok(v) = HeaderValue::from_str(&format!(
        "SID={}; HttpOnly; SameSite=Strict; path=/",
        fake.sid
    )) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

/// Pause (stop): accepted when signed in and `hashes` is given; nothing is stored.
async fn pause(State(fake): State<Arc<Fake>>, headers: HeaderMap, body: Bytes) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    let named = url::form_urlencoded::parse(&body).any(|(k, v)| k == "hashes" && !v.is_empty());
    if !named {
        return (StatusCode::BAD_REQUEST, "hashes is required").into_response();
    }
    text("")
}

async fn logout(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    text("")
}

async fn app_version(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    text(fake.app_version.clone())
}

async fn webapi_version(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    text(fake.api_version.clone())
}

async fn maindata(State(fake): State<Arc<Fake>>, headers: HeaderMap, q: Params) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    let rid: u64 = q.get("rid").and_then(|v| v.parse().ok()).unwrap_or(0);
    if rid == 0 {
        return json_bytes(fake.full.clone());
    }
    json_bytes(format!("{{\"rid\":{}}}", rid + 1))
}

async fn info(State(fake): State<Arc<Fake>>, headers: HeaderMap, q: Params) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    let mut picked: Vec<usize> = match q.get("hashes") {
        Some(h) if h != "all" => h.split('|').filter_map(|h| fake.data.find(h)).collect(),
        _ if q.get("sort").map(String::as_str) == Some("hash") => fake.by_hash.clone(),
        _ => (0..fake.data.len()).collect(),
    };
    if q.get("reverse").map(String::as_str) == Some("true") {
        picked.reverse();
    }
    let offset: usize = q.get("offset").and_then(|v| v.parse().ok()).unwrap_or(0);
    let limit: usize = q
        .get("limit")
        .and_then(|v| v.parse().ok())
        .filter(|&l| l > 0)
        .unwrap_or(usize::MAX);
    let category = q.get("category");
    let rows: Vec<Value> = picked
        .into_iter()
        .map(|i| fake.data.torrent(i))
        .filter(|t| category.is_none_or(|c| c == t.category))
        .skip(offset)
        .take(limit)
        .map(|t| t.info_entry())
        .collect();
    json(&Value::Array(rows))
}

async fn categories(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    json(&fake.data.categories_json())
}

async fn tags(State(fake): State<Arc<Fake>>, headers: HeaderMap) -> Response {
    if !signed_in(&fake, &headers) {
        return forbidden();
    }
    json(&fake.data.tags_json())
}

/// The torrent named by `?hash=`, or the answer to send instead (403, 404).
fn one(fake: &Fake, headers: &HeaderMap, q: &Params) -> Result<bench::qbit::Torrent, Response> {
    if !signed_in(fake, headers) {
        return Err(forbidden());
    }
    q.get("hash")
        .and_then(|h| fake.data.find(h))
        .map(|i| fake.data.torrent(i))
        .ok_or_else(|| (StatusCode::NOT_FOUND, "Not Found").into_response())
}

async fn trackers(State(fake): State<Arc<Fake>>, headers: HeaderMap, q: Params) -> Response {
    match one(&fake, &headers, &q) {
        Ok(t) => json(&t.trackers_json()),
        Err(r) => r,
    }
}

async fn properties(State(fake): State<Arc<Fake>>, headers: HeaderMap, q: Params) -> Response {
    match one(&fake, &headers, &q) {
        Ok(t) => json(&t.properties_json()),
        Err(r) => r,
    }
}

async fn files(State(fake): State<Arc<Fake>>, headers: HeaderMap, q: Params) -> Response {
    match one(&fake, &headers, &q) {
        Ok(t) => json(&t.files_json()),
        Err(r) => r,
    }
}
