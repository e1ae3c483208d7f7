//! Crash safety of change control with the real binary and a real qbittorrent-nox: the server
//! is SIGKILLed while an approved deletion's external call is under way (a proxy in front of
//! qBittorrent holds that one call), and after a restart the operation is `outcome_unknown`,
//! answered as such, and never run again.

#![allow(clippy::unwrap_used)]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::Bytes,
    extract::{Request, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use httpx::reqwest;
use serde_json::{Value, json};
use test_support::peers::Daemon;

const BIN: &str = env!("CARGO_BIN_EXE_marquee");

fn client() -> reqwest::Client {
    httpx::builder(httpx::Timeouts::default()).build().unwrap()
}

/// qBittorrent behind a proxy that forwards everything but holds every delete forever.
#[derive(Clone)]
struct Proxy {
    http: reqwest::Client,
    upstream: String,
    deletes: Arc<AtomicUsize>,
}

async fn forward(State(p): State<Proxy>, req: Request) -> Response {
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    if path.starts_with("/api/v2/torrents/delete") {
        p.deletes.fetch_add(1, Ordering::SeqCst);
        std::future::pending::<()>().await;
    }
    let method = req.method().clone();
    let mut headers = req.headers().clone();
    // qBittorrent matches Origin and Referer against its own address (CSRF protection).
    for name in ["host", "origin", "referer"] {
        headers.remove(name);
    }
    let body = axum::body::to_bytes(req.into_body(), 1 << 24)
        .await
        .unwrap_or_default();
    let sent = p
        .http
        .request(method, format!("{}{path}", p.upstream))
        .headers(headers)
        .body(body)
        .send()
        .await;
    let Ok(r) = sent else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let status = r.status();
    let headers: HeaderMap = r.headers().clone();
    let bytes: Bytes = r.bytes().await.unwrap_or_default();
    let mut out = (status, bytes).into_response();
    for (k, v) in headers.iter() {
        if k != "content-length" && k != "transfer-encoding" {
            out.headers_mut().append(k, v.clone());
        }
    }
    out
}

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

/// A running `marquee serve`; SIGKILLed on drop.
struct Marquee {
    child: Child,
}

impl Drop for Marquee {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary; with `first`, also reads the owner key it prints once.
async fn start(config: &Path, data: &Path, base: &str, first: bool) -> (Marquee, Option<String>) {
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .stdout(if first { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let key = child.stdout.take().map(|stdout| {
        // Read every line (the server must not write into a closed pipe); hand back the key.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(k) = line.trim().strip_prefix("mq_") {
                    let _ = tx.send(format!("mq_{k}"));
                }
            }
        });
        rx.recv_timeout(Duration::from_secs(30)).unwrap()
    });
    let http = client();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !http
        .get(format!("{base}/readyz"))
        .send()
        .await
        .is_ok_and(|r| r.status() == 200)
    {
        assert!(Instant::now() < deadline, "marquee did not become ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (Marquee { child }, key)
}

fn cli(config: &Path, data: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

async fn call(base: &str, key: &str, tool: &str, args: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}});
    let text = client()
        .post(format!("{base}/mcp"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    answer(&text)["result"].clone()
}

/// The JSON-RPC answer in a body: plain JSON, or the one message with an `id` on an SSE
/// stream (a long call such as `apply_change` streams its progress before it).
fn answer(body: &str) -> Value {
    if let Ok(plain) = serde_json::from_str(body) {
        return plain;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("id").is_some())
        .unwrap_or_else(|| panic!("no answer in the body: {body}"))
}

/// A fresh torrent file over random bytes, made by transmission-create; its info hash.
fn torrent(dir: &Path) -> (PathBuf, String) {
    let data = dir.join("crash.mkv");
    let bytes: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&data, bytes).unwrap();
    let file = dir.join("crash.torrent");
    let ok = Command::new("transmission-create")
        .arg("-o")
        .arg(&file)
        .arg(&data)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let show = Command::new("transmission-show")
        .arg(&file)
        .output()
        .unwrap();
    let hash = String::from_utf8_lossy(&show.stdout)
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Hash: ")
                .map(|h| h.trim().to_string())
        })
        .unwrap();
    (file, hash)
}

async fn poll(what: &str, mut f: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_after_the_checkpoint_leaves_outcome_unknown_and_nothing_runs_twice() {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"))
        .join()
        .unwrap();
    let deletes = Arc::new(AtomicUsize::new(0));
    let proxy = Proxy {
        http: client(),
        upstream: qb.cred("QBITTORRENT_URL"),
        deletes: deletes.clone(),
    };
    let qb_url = serve(Router::new().fallback(forward).with_state(proxy)).await;
    let dir = tempfile::tempdir().unwrap();
    let (file, hash) = torrent(dir.path());
    let folder = dir.path().display();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let config = dir.path().join("marquee.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\n[mcp]\nallow_destructive = true\n[downloads]\ntorrent_folders = [\"{folder}\"]\n\
             [[instances]]\nid = \"qb\"\nkind = \"qbittorrent\"\nurl = \"{qb_url}\"\nusername = \"{}\"\npassword = \"{}\"\ndefault = true\n",
            qb.cred("QBITTORRENT_USER"),
            qb.cred("QBITTORRENT_PASS")
        ),
    )
    .unwrap();
    let data = dir.path().join("data");
    let (first, owner) = start(&config, &data, &base, true).await;
    let owner = owner.expect("the first start prints the owner key");
    cli(&config, &data, &["people", "add", "ops", "--role", "admin"]);
    let created = cli(
        &config,
        &data,
        &["keys", "create", "--person", "ops", "--grant", "operator"],
    );
    let operator = created
        .split_whitespace()
        .find(|w| w.starts_with("mq_"))
        .expect("keys create prints the key")
        .to_string();

    let r = call(
        &base,
        &owner,
        "add_torrent",
        json!({"source": file, "paused": true}),
    )
    .await;
    assert_eq!(r["structuredContent"]["data"]["ok"], 1, "{r}");
    poll("the torrent in marquee's catalogue", async || {
        let r = call(&base, &owner, "torrent_detail", json!({"info_hash": hash})).await;
        r["isError"] == false
    })
    .await;
    let plan = call(
        &base,
        &operator,
        "delete_torrents",
        json!({"info_hashes": [hash], "delete_data": true}),
    )
    .await;
    let change_id = plan["structuredContent"]["data"]["change_id"]
        .as_str()
        .unwrap()
        .to_string();
    {
        // The owner's approval, as the owner pages record it.
        let store = store::Store::open(&data).await.unwrap();
        let olga = store.person_by_name("owner").await.unwrap().unwrap();
        let change = store.change(&change_id).await.unwrap().unwrap();
        store
            .decide_change(&change_id, olga.id, true, &change.content_hash)
            .await
            .unwrap();
    }
    let apply = {
        let (base, operator, change_id) = (base.clone(), operator.clone(), change_id.clone());
        tokio::spawn(async move {
            call(
                &base,
                &operator,
                "apply_change",
                json!({"change_id": change_id, "idempotency_key": "crash-key-0001"}),
            )
            .await
        })
    };
    poll("the operation past its checkpoint", async || {
        let op = call(
            &base,
            &operator,
            "get_operation",
            json!({"change_id": change_id}),
        )
        .await;
        op["structuredContent"]["data"]["status"] == "in_flight"
    })
    .await;
    poll("the delete reaching the proxy", async || {
        deletes.load(Ordering::SeqCst) == 1
    })
    .await;
    drop(first); // SIGKILL
    let _ = apply.await;

    let (_second, _) = start(&config, &data, &base, false).await;
    let op = call(
        &base,
        &operator,
        "get_operation",
        json!({"change_id": change_id}),
    )
    .await;
    let shown = &op["structuredContent"]["data"];
    assert_eq!(shown["status"], "outcome_unknown", "{op}");
    assert!(
        shown["message"].as_str().unwrap().contains("not retried"),
        "{op}"
    );
    assert_eq!(
        shown["checkpoint"]["info_hashes"][0],
        hash.to_lowercase(),
        "{op}"
    );
    let again = call(
        &base,
        &operator,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "crash-key-0001"}),
    )
    .await;
    assert_eq!(
        again["structuredContent"]["data"]["operation_id"], shown["operation_id"],
        "{again}"
    );
    assert_eq!(
        again["structuredContent"]["data"]["status"], "outcome_unknown",
        "{again}"
    );
    let other = call(
        &base,
        &operator,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "crash-key-0002"}),
    )
    .await;
    assert_eq!(other["isError"], true, "{other}");
    // The restart retried nothing: still the one delete, which the proxy never passed on.
    assert_eq!(deletes.load(Ordering::SeqCst), 1);
    let detail = call(&base, &owner, "torrent_detail", json!({"info_hash": hash})).await;
    assert_eq!(detail["isError"], false, "{detail}");
}
