//! Product tools stream progress and log messages to a real client: the official Python SDK
//! (scripts/mcp_features.py --long) calls `get_queue` over Radarr and Sonarr fakes and a dead
//! Lidarr, on the real binary over HTTP (`marquee serve`) and over stdio (`marquee stdio`).

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;
use test_support::arr::{ArrKind, FakeArr};

const BIN: &str = env!("CARGO_BIN_EXE_marquee");

/// A running `marquee serve`; killed on drop.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The project root (scripts/ lives there).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the client kit is installed: `$MCP_CLIENTS_HOME`, else a `shared-cache/mcp-clients`
/// beside one of the project's parent folders (worktrees sit deeper than the main checkout).
fn kit_home() -> PathBuf {
    if let Some(home) = std::env::var_os("MCP_CLIENTS_HOME") {
        return home.into();
    }
    let root = root().canonicalize().unwrap();
    root.ancestors()
        .map(|a| a.join("shared-cache/mcp-clients"))
        .find(|p| p.join("venv/bin/python").exists())
        .expect("the MCP client kit is installed (../shared/mcp-clients/install.sh)")
}

/// `mcp_features.py --long get_queue` against one server; its JSON report.
fn long_call(target: &[&str]) -> Value {
    let out = Command::new(kit_home().join("venv/bin/python"))
        .arg(root().join("scripts/mcp_features.py"))
        .args(target)
        .args(["--long", "get_queue"])
        .env("MCP_CLIENTS_HOME", kit_home())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mcp_features.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cli(config: &Path, data: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
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

    let child = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--data-dir")
        .arg(&data)
        .env("MARQUEE_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut serving = Serving(child);
    if let Some(stdout) = serving.0.stdout.take() {
        // Keep reading, so the server never writes into a closed pipe.
        std::thread::spawn(
            move || for _ in BufReader::new(stdout).lines().map_while(Result::ok) {},
        );
    }
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "marquee did not start listening");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
