//! A write whose caller goes away mid-call, over a real socket against a real
//! transmission-daemon slowed by a proxy: the client closes its connection while `add_torrent`
//! is under way; the torrent is still added, and the call's audit entry ends `applied`, not
//! `executing`.

use std::time::Duration;

use serde_json::json;
use store::{AuditQuery, AuditStatus};
use test_support::fault::Fault;
use tokio::io::AsyncWriteExt;

use crate::peers::{Daemon, Fixture, TrRaw, poll, transmission_behind_proxy};
use crate::support::server_for;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_client_hung_up_still_finishes_and_is_audited_applied() {
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"))
        .join()
        .unwrap();
    let traw = TrRaw::new(&tr);
    let (proxy, spec) = transmission_behind_proxy(&tr).await;
    let s = server_for(vec![spec], false).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    let f = Fixture::new(&tr.dir.path().join("fixtures"), "hung-up.mkv", 16_000, None);

    // Every answer of the daemon now takes a while.
    proxy.set(Fault::Latency(Duration::from_millis(1500)));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add_torrent", "arguments": {"source": f.magnet(), "paused": true}}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8765\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer {}\r\ncontent-length: {}\r\n\r\n{body}",
        s.owner_key,
        body.len()
    );
    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    client.write_all(request.as_bytes()).await.unwrap();
    let store = s.host.app.store();
    let entry = async || {
        let page = store.audit_page(&AuditQuery::default()).await.unwrap();
        page.into_iter().find(|e| e.tool == "add_torrent")
    };
    poll(10, "the add under way", async || {
        entry()
            .await
            .filter(|e| e.status == AuditStatus::Executing)
            .map(|_| ())
    })
    .await;
    // The client hangs up mid-call.
    drop(client);

    let done = poll(30, "the add's audit entry finished", async || {
        entry().await.filter(|e| e.status != AuditStatus::Executing)
    })
    .await;
    assert_eq!(done.status, AuditStatus::Applied, "{done:?}");
    assert!(traw.one(&f.hash).await.is_some(), "the daemon has it");
}
