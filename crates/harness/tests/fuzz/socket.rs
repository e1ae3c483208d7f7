//! The HTTP edge over a real socket, as `marquee serve` runs it: arbitrary bytes (mostly
//! requests broken at the byte level) sent on a fresh connection; whatever comes back is
//! nothing, or HTTP/1.1 with a status that is not a 5xx but 503.

use std::{net::SocketAddr, time::Duration};

use harness::run_async;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

use crate::support::marquee;

const HTTP: &[&[u8]] = &[
    b"\r\n",
    b"\r\n\r\n",
    b": ",
    b"Content-Length: 5\r\n",
    b"Content-Length: 99999999999\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"0\r\n\r\n",
    b"ffffffff\r\n",
    b"Host: 127.0.0.1\r\n",
    b"Expect: 100-continue\r\n",
    b"Connection: upgrade\r\nUpgrade: websocket\r\n",
    b" HTTP/1.1",
    b" HTTP/2.0",
    b"\x00",
    b"\xff",
    b"GET ",
    b"POST /mcp",
    b"/../",
];

fn seeds(key: &str) -> Vec<Vec<u8>> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#;
    vec![
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_vec(),
        format!("GET /api/v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\n\r\n").into_bytes(),
        b"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nname=\r\n0\r\n\r\n".to_vec(),
        b"GET /authorize?response_type=code&client_id=x&redirect_uri=http://127.0.0.1/cb&code_challenge=a&code_challenge_method=S256 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_vec(),
    ]
}

/// The status of the first answer in `bytes`, when there is one.
fn first_status(bytes: &[u8]) -> Option<Result<u16, String>> {
    if bytes.is_empty() {
        return None;
    }
    let line_end = bytes
        .iter()
        .position(|b| *b == b'\n')
        .unwrap_or(bytes.len());
    let line = String::from_utf8_lossy(&bytes[..line_end]);
    let mut parts = line.split(' ');
    if !matches!(parts.next(), Some("HTTP/1.1" | "HTTP/1.0")) {
        return Some(Err(format!("not an HTTP/1.1 answer: {line:?}")));
    }
    Some(
        parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status: {line:?}")),
    )
}

async fn exchange(addr: SocketAddr, input: Vec<u8>) -> Result<Vec<u8>, String> {
    let mut s = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    // Closed with a reset: a million short connections leave no TIME_WAIT behind.
    // A zero linger never blocks the drop; it is the reset wanted here.
    #[allow(deprecated)]
    let _ = s.set_linger(Some(Duration::ZERO));
    let _ = s.write_all(&input).await;
    let _ = s.shutdown().await;
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    match read {
        Err(_) => Err("no end of the answer within 10 s".into()),
        Ok(_) => Ok(out),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbitrary_bytes_on_a_socket() {
    let m = marquee(Vec::new()).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = m
        .router
        .clone()
        .into_make_service_with_connect_info::<SocketAddr>();
    let server = tokio::spawn(async move { axum::serve(listener, service).await });
    let seeds = seeds(&m.owner_key);
    let report = run_async("http-bytes", 600, |mut g| {
        let seed = g.pick(&seeds).clone();
        let input = g.mutate_bytes(&seed, HTTP);
        async move {
            let sent = String::from_utf8_lossy(&input[..input.len().min(400)]).into_owned();
            let out = exchange(addr, input).await?;
            match first_status(&out) {
                None => Ok(()),
                Some(Err(e)) => Err(e),
                Some(Ok(status)) if status >= 500 && status != 503 => {
                    let answer = String::from_utf8_lossy(&out[..out.len().min(400)]).into_owned();
                    Err(format!("status {status} for {sent:?}: {answer:?}"))
                }
                Some(Ok(_)) => Ok(()),
            }
        }
    })
    .await;
    server.abort();
    report.assert_clean();
}
