//! What `marquee serve` logs, read from the real binary's stderr: one line per tool call (the
//! person, the tool, the outcome, the time taken; never the arguments), a line for a refused
//! credential, no colour codes when stderr is not a terminal, and one JSON object a line with
//! `MARQUEE_LOG_FORMAT=json`.

#![allow(clippy::unwrap_used)]

mod kit;

use std::{
    io::Read,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use kit::{BIN, free_port, person_key};
use serde_json::{Value, json};

/// Serves, makes one good call, one failing call and one with a bad key, stops; stderr.
async fn serve_and_call(format: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let config = dir.path().join("marquee.toml");
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    let data = dir.path().join("data");
    let key = person_key(&config, &data, "alice", "admin", "reader");
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--config"])
        .arg(&config)
        .arg("--data-dir")
        .arg(&data)
        .env("MARQUEE_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(f) = format {
        cmd.env("MARQUEE_LOG_FORMAT", f);
    }
    let mut child = cmd.spawn().unwrap();
    let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
    let base = format!("http://127.0.0.1:{port}");
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
    let call = |key: String, name: &'static str, args: Value| {
        let http = http.clone();
        let base = base.clone();
        async move {
            http.post(format!("{base}/mcp"))
                .header("Authorization", format!("Bearer {key}"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2025-06-18")
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": args}}))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(call(key.clone(), "whoami", json!({})).await, 200);
    // A failing call whose argument looks like a secret: the log names the failure, not it.
    call(
        key.clone(),
        "recognize_media",
        json!({"name": "", "secret": "s3cr3t-canary"}),
    )
    .await;
    assert_eq!(
        call("mq_not_a_real_key".into(), "whoami", json!({})).await,
        401
    );
    child.kill().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_tool_call_and_each_refused_credential_is_one_plain_line() {
    let err = serve_and_call(None).await;
    assert!(
        !err.contains('\u{1b}'),
        "no colour codes off a terminal:\n{err}"
    );
    let calls: Vec<&str> = err.lines().filter(|l| l.contains("tool call")).collect();
    assert_eq!(calls.len(), 2, "{err}");
    assert!(
        calls[0].contains("person=\"alice\"")
            && calls[0].contains("tool=\"whoami\"")
            && calls[0].contains("outcome=\"ok\"")
            && calls[0].contains("ms="),
        "{}",
        calls[0]
    );
    assert!(
        calls[1].contains("tool=\"recognize_media\"") && calls[1].contains("outcome=\"invalid"),
        "{}",
        calls[1]
    );
    assert!(
        !err.contains("s3cr3t-canary"),
        "arguments never reach the log"
    );
    assert!(
        err.lines()
            .any(|l| l.contains("credential refused") && l.contains("outcome=\"401\"")),
        "{err}"
    );
    assert!(
        !err.contains("mq_not_a_real_key"),
        "the presented key is not logged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_format_writes_one_object_a_line() {
    let err = serve_and_call(Some("json")).await;
    let mut calls = 0;
    for line in err.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if v["fields"]["message"] == "tool call" {
            calls += 1;
            assert!(
                v["fields"]["tool"].is_string() && v["fields"]["ms"].is_u64(),
                "{v}"
            );
        }
    }
    assert_eq!(calls, 2, "{err}");
}
