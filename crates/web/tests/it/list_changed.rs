//! Over stdio the client is told when its tool list changes: the initialize answer says
//! `tools.listChanged`, and switching a tool off sends `notifications/tools/list_changed`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support;

#[tokio::test]
async fn a_stdio_client_hears_that_its_tool_list_changed() {
    let s = support::server().await;
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    tokio::spawn(mcp::stdio::serve_on(
        s.host.clone(),
        s.owner_key.clone(),
        server_in,
        server_out,
    ));
    let mut lines = BufReader::new(from_server).lines();
    let mut send = async |m: Value| {
        let mut line = m.to_string();
        line.push('\n');
        to_server.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}),
    )
    .await;
    let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    // Let the watcher read the list as it is, then change it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    s.host
        .app
        .store()
        .set_tool_switch("get_guide", false)
        .await
        .unwrap();
    let told = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let line = lines.next_line().await.unwrap().unwrap();
            let m: Value = serde_json::from_str(&line).unwrap();
            if m["method"] == "notifications/tools/list_changed" {
                return m;
            }
        }
    })
    .await
    .expect("the change is told within a few seconds");
    assert!(told.get("id").is_none(), "{told}");
}
