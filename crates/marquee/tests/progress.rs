//! Product tools stream progress and log messages to a real client: the official Python SDK
//! (scripts/mcp_features.py --long) calls `get_queue` over Radarr and Sonarr fakes and a dead
//! Lidarr, on the real binary over HTTP (`marquee serve`) and over stdio (`marquee stdio`); and
//! `marquee bridge` forwards prompts and completions from that server to the same client.

mod kit;

use kit::{BIN, cli, features};
use serde_json::Value;
use test_support::arr::{ArrKind, FakeArr};

/// `mcp_features.py --long get_queue` against one server; its JSON report.
fn long_call(target: &[&str]) -> Value {
    features(&[target, &["--long", "get_queue"]].concat())
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
    cli(&config, &data, &["people", "add", "ops", "--role", "admin"]);
    let key = cli(
        &config,
        &data,
        &["keys", "create", "--person", "ops", "--grant", "admin"],
    )
    .trim()
    .to_string();
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
