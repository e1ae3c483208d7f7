//! Product tools stream progress and log messages to a real client: the official Python SDK
//! (scripts/mcp_features.py --long) calls `get_queue` over Radarr and Sonarr fakes and a dead
//! Lidarr, on the real binary over HTTP (`marquee serve`), over stdio (`marquee stdio`) and
//! through `marquee bridge` to that server, which also forwards prompts and completions.
//! A full refresh of real qBittorrent and Transmission daemons (`downloads_overview` with
//! `refresh`) streams the torrents read so far of the total.

#![allow(clippy::unwrap_used)]

mod kit;

use kit::{BIN, features};
use serde_json::Value;
use test_support::{
    arr::{ArrKind, FakeArr},
    peers::Daemon,
};

/// `mcp_features.py --long get_queue` against one server; its JSON report.
fn long_call(target: &[&str]) -> Value {
    long_call_with(target, "get_queue", "{}")
}

/// `mcp_features.py --long TOOL --long-args ARGS` against one server; its JSON report.
fn long_call_with(target: &[&str], tool: &str, args: &str) -> Value {
    features(&[target, &["--long", tool, "--long-args", args]].concat())
}

/// Progress reached every instance, in order, and the logs named each one, the dead one as a
/// warning that carries no key.
fn check(report: &Value, keys: &[&str]) {
    assert_eq!(report["is_error"], false, "{report}");
    let progress: Vec<(f64, f64)> = report["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    assert_eq!(
        progress,
        [(0.0, 3.0), (1.0, 3.0), (2.0, 3.0), (3.0, 3.0)],
        "{report}"
    );
    let logs: Vec<String> = report["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    for read in [
        "read library instance radarr",
        "read library instance sonarr",
    ] {
        assert!(logs.iter().any(|l| l == read), "{logs:?}");
    }
    assert!(
        logs.iter().any(|l| l.contains("lidarr")),
        "the dead instance is logged: {logs:?}"
    );
    let text = report.to_string();
    for key in keys {
        assert!(!text.contains(key), "a key leaked: {text}");
    }
}

#[tokio::test]
async fn get_queue_streams_progress_and_logs_to_the_python_sdk_over_http_and_stdio() {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let dir = tempfile::tempdir().unwrap();
    let (config, data) = (dir.path().join("marquee.toml"), dir.path().join("data"));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dead_key = "0123456789abcdef0123456789abcdef";
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\n\
             [[instances]]\nid = \"radarr\"\nkind = \"radarr\"\nurl = \"{}\"\napi_key = \"{}\"\n\
             [[instances]]\nid = \"sonarr\"\nkind = \"sonarr\"\nurl = \"{}\"\napi_key = \"{}\"\n\
             [[instances]]\nid = \"lidarr\"\nkind = \"lidarr\"\nurl = \"http://127.0.0.1:9\"\napi_key = \"{dead_key}\"\n",
            radarr.url(),
            radarr.api_key(),
            sonarr.url(),
            sonarr.api_key()
        ),
    )
    .unwrap();
    let key = kit::person_key(&config, &data, "ops", "admin", "admin");
    let keys = [key.as_str(), radarr.api_key(), sonarr.api_key(), dead_key];

    let serving = kit::serve(&config, &data, port).await;
    let base = format!("http://127.0.0.1:{port}");
    let http = tokio::task::spawn_blocking({
        let (url, header) = (
            format!("{base}/mcp"),
            format!("Authorization: Bearer {key}"),
        );
        move || long_call(&["--url", &url, "--header", &header])
    })
    .await
    .unwrap();
    check(&http, &keys);
    let bridge = format!("env MARQUEE_KEY={key} MARQUEE_LOG=error {BIN} bridge --url {base}/mcp");
    let bridged = tokio::task::spawn_blocking(move || features(&["--stdio", &bridge]))
        .await
        .unwrap();
    assert!(
        bridged["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "library-health"),
        "{bridged}"
    );
    assert!(
        bridged["prompt_text"]
            .as_str()
            .unwrap()
            .contains("search_titles"),
        "{bridged}"
    );
    assert_eq!(bridged["media_type_completion"], serde_json::json!(["tv"]));
    assert_eq!(bridged["topic_completion"], serde_json::json!(["setup"]));
    // The bridge relays the remote's progress (under the stdio client's own token) and log
    // messages (at the level the stdio client asked for) during a long call, then the answer.
    let relayed = tokio::task::spawn_blocking({
        let bridge =
            format!("env MARQUEE_KEY={key} MARQUEE_LOG=error {BIN} bridge --url {base}/mcp");
        move || long_call(&["--stdio", &bridge])
    })
    .await
    .unwrap();
    check(&relayed, &keys);
    let warned = tokio::task::spawn_blocking({
        let bridge =
            format!("env MARQUEE_KEY={key} MARQUEE_LOG=error {BIN} bridge --url {base}/mcp");
        move || {
            features(&[
                "--stdio",
                &bridge,
                "--long",
                "get_queue",
                "--long-level",
                "warning",
            ])
        }
    })
    .await
    .unwrap();
    let logs = warned["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 1, "only the warning is relayed: {warned}");
    assert!(logs[0].as_str().unwrap().contains("lidarr"), "{warned}");
    drop(serving);

    let command = format!(
        "env MARQUEE_KEY={key} MARQUEE_LOG=error {BIN} stdio --config {} --data-dir {}",
        config.display(),
        data.display()
    );
    let stdio = tokio::task::spawn_blocking(move || long_call(&["--stdio", &command]))
        .await
        .unwrap();
    check(&stdio, &keys);
}

/// A magnet of a made-up info hash: the daemons keep it (waiting for metadata) without any
/// network, which is all a count of torrents needs.
fn magnet(n: usize) -> (String, String) {
    let hash = format!("{:040x}", 0xfeed_0000_u64 + n as u64);
    (format!("magnet:?xt=urn:btih:{hash}&dn=full-{n}"), hash)
}

/// Adds `count` magnets to a real qBittorrent through its own WebAPI.
async fn qb_add(d: &Daemon, count: usize) {
    let http = httpx::builder(httpx::Timeouts::default())
        .cookie_store(true)
        .build()
        .unwrap();
    let base = format!("{}/api/v2", d.cred("QBITTORRENT_URL"));
    let login = [
        ("username", d.cred("QBITTORRENT_USER")),
        ("password", d.cred("QBITTORRENT_PASS")),
    ];
    let r = http.post(format!("{base}/auth/login")).form(&login).send();
    assert_eq!(r.await.unwrap().text().await.unwrap(), "Ok.");
    let urls: Vec<String> = (0..count).map(|n| magnet(n).0).collect();
    let form = [("urls", urls.join("\n")), ("paused", "true".into())];
    let r = http.post(format!("{base}/torrents/add")).form(&form).send();
    assert!(r.await.unwrap().status().is_success());
    for _ in 0..100 {
        let r = http
            .get(format!("{base}/torrents/info"))
            .send()
            .await
            .unwrap();
        let rows: Value = r.json().await.unwrap();
        if rows.as_array().unwrap().len() == count {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("qbittorrent did not list the {count} magnets");
}

/// Adds `count` magnets to a real Transmission through its RPC (409 session handshake).
async fn tr_add(d: &Daemon, count: usize) {
    let http = httpx::client(httpx::Timeouts::default()).unwrap();
    let mut sid = String::new();
    for n in 100..100 + count {
        let body = serde_json::json!({
            "method": "torrent-add",
            "arguments": { "filename": magnet(n).0, "paused": true },
        });
        loop {
            let r = http
                .post(d.cred("TRANSMISSION_RPC_URL"))
                .basic_auth(
                    d.cred("TRANSMISSION_USER"),
                    Some(d.cred("TRANSMISSION_PASS")),
                )
                .header("X-Transmission-Session-Id", &sid)
                .json(&body)
                .send()
                .await
                .unwrap();
            if r.status() == 409 {
                sid = r.headers()["X-Transmission-Session-Id"]
                    .to_str()
                    .unwrap()
                    .to_string();
                continue;
            }
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["result"], "success", "{v}");
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_refresh_streams_torrents_read_of_the_total_per_instance_to_the_python_sdk() {
    let (qb, tr) = std::thread::scope(|s| {
        let q = s.spawn(|| Daemon::start("qbittorrent.sh"));
        let t = s.spawn(|| Daemon::start("transmission.sh"));
        (q.join().unwrap(), t.join().unwrap())
    });
    qb_add(&qb, 3).await;
    tr_add(&tr, 2).await;
    let dir = tempfile::tempdir().unwrap();
    let (config, data) = (dir.path().join("marquee.toml"), dir.path().join("data"));
    let port = kit::free_port();
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\n\
             [[instances]]\nid = \"qb\"\nkind = \"qbittorrent\"\nurl = \"{}\"\nusername = \"{}\"\npassword = \"{}\"\n\
             [[instances]]\nid = \"tr\"\nkind = \"transmission\"\nurl = \"{}\"\nusername = \"{}\"\npassword = \"{}\"\n",
            qb.cred("QBITTORRENT_URL"),
            qb.cred("QBITTORRENT_USER"),
            qb.cred("QBITTORRENT_PASS"),
            tr.cred("TRANSMISSION_URL"),
            tr.cred("TRANSMISSION_USER"),
            tr.cred("TRANSMISSION_PASS"),
        ),
    )
    .unwrap();
    let key = kit::person_key(&config, &data, "ops", "admin", "admin");
    let _serving = kit::serve(&config, &data, port).await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    let report = tokio::task::spawn_blocking({
        let (url, header) = (url.clone(), format!("Authorization: Bearer {key}"));
        move || {
            long_call_with(
                &["--url", &url, "--header", &header],
                "downloads_overview",
                r#"{"refresh": true}"#,
            )
        }
    })
    .await
    .unwrap();
    assert_eq!(report["is_error"], false, "{report}");
    let progress = report["progress"].as_array().unwrap();
    let done: Vec<f64> = progress.iter().map(|p| p[0].as_f64().unwrap()).collect();
    assert!(
        done.windows(2).all(|w| w[0] < w[1]),
        "progress only grows: {report}"
    );
    let last = progress.last().unwrap();
    assert_eq!(
        (last[0].as_f64(), last[1].as_f64()),
        (Some(5.0), Some(5.0)),
        "{report}"
    );
    assert_eq!(
        last[2], "qb: 3 of 3 torrents read; tr: 2 of 2 torrents read",
        "{report}"
    );
    let logs = report["logs"].to_string();
    for read in [
        "read download instance qb in full: 3 torrents",
        "read download instance tr in full: 2 torrents",
    ] {
        assert!(logs.contains(read), "{logs}");
    }
    assert!(
        report["summary"]
            .as_str()
            .unwrap()
            .starts_with("Read qb in full (3 torrents); read tr in full (2 torrents)."),
        "{report}"
    );
    let text = report.to_string();
    for secret in [
        qb.cred("QBITTORRENT_PASS"),
        tr.cred("TRANSMISSION_PASS"),
        key.clone(),
    ] {
        assert!(!text.contains(&secret), "a secret leaked: {text}");
    }

    // Without a progress token the same call is plain JSON, and a full read seconds old stands.
    let http = httpx::client(httpx::Timeouts::default()).unwrap();
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "downloads_overview", "arguments": { "refresh": true } },
    });
    let r = http
        .post(&url)
        .bearer_auth(&key)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/json");
    let body: Value = r.json().await.unwrap();
    let rows = &body["result"]["structuredContent"]["data"]["full_refresh"];
    assert_eq!(rows[0]["outcome"], "recent", "{body}");
    assert_eq!(rows[1]["outcome"], "recent", "{body}");
}
