//! stdio is served by the same dispatcher as HTTP: one JSON-RPC message per line, progress
//! and log messages on the way, and a question the client answers on a later line.

#![allow(clippy::unwrap_used)]

mod host;

use std::sync::Arc;

use host::TestHost;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

struct Client {
    to_server: DuplexStream,
    from_server: Lines<BufReader<DuplexStream>>,
}

impl Client {
    fn start(credential: &str) -> Client {
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let host = Arc::new(TestHost::new(false));
        tokio::spawn(mcp::stdio::serve_on(
            host,
            credential.into(),
            server_in,
            server_out,
        ));
        Client {
            to_server,
            from_server: BufReader::new(from_server).lines(),
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.to_server.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = self.from_server.next_line().await.unwrap().unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

fn initialize(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "test", "version": "0"}}})
}

#[tokio::test(start_paused = true)]
async fn a_call_sends_progress_then_its_result() {
    let mut c = Client::start("good");
    c.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "_meta": {"progressToken": "p"}}}),
    )
    .await;
    let mut progress = Vec::new();
    let result = loop {
        let m = c.next().await;
        if m["method"] == "notifications/progress" {
            progress.push(m["params"]["progress"].as_f64().unwrap());
        } else {
            break m;
        }
    };
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["isError"], false);
}

#[tokio::test]
async fn a_question_is_answered_on_a_later_line() {
    let mut c = Client::start("good");
    c.send(initialize(json!({"elicitation": {}}))).await;
    assert_eq!(
        c.next().await["result"]["capabilities"]["prompts"],
        json!({"listChanged": false})
    );
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "test_elicitation", "arguments": {"message": "Which one?"}}}),
    )
    .await;
    let question = c.next().await;
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Which one?");
    c.send(json!({"jsonrpc": "2.0", "id": question["id"], "result": {
        "action": "accept", "content": {"username": "ann", "email": "a@b.c"}}}))
        .await;
    let answer = c.next().await;
    assert_eq!(answer["id"], 2);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("User response: action=accept"), "{text}");
}

#[tokio::test]
async fn a_client_that_declared_no_elicitation_gets_a_tool_error() {
    let mut c = Client::start("good");
    c.send(initialize(json!({}))).await;
    c.next().await;
    c.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "test_elicitation", "arguments": {"message": "Which one?"}}}),
    )
    .await;
    let answer = c.next().await;
    assert_eq!(answer["result"]["isError"], true);
}

#[tokio::test]
async fn a_revoked_credential_is_refused_per_request() {
    let mut c = Client::start("revoked");
    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        .await;
    let answer = c.next().await;
    assert_eq!(answer["id"], 4);
    assert_eq!(answer["error"]["code"], -32600);
}

#[tokio::test]
async fn a_modern_request_over_stdio_needs_no_headers() {
    let mut c = Client::start("good");
    c.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .await;
    let answer = c.next().await;
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(answer["result"]["prompts"][0]["name"], "test_simple_prompt");
}

#[tokio::test]
async fn an_unknown_log_level_lists_the_valid_ones() {
    let mut c = Client::start("good");
    c.send(json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "loud"}}))
        .await;
    let answer = c.next().await;
    assert_eq!(
        answer["error"]["message"],
        "invalid params: unknown log level; valid levels: debug, info, notice, warning, error, critical, alert, emergency"
    );
}
