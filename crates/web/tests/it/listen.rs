//! The listener on real sockets on 127.0.0.x: half-sent requests from one address or from
//! many do not stop `/healthz`, slow heads and slow bodies are cut at their timeouts, trusted
//! proxies are exempt from the per-address cap but not from the global one, and every
//! accepted socket has TCP_NODELAY.

use std::{net::SocketAddr, time::Duration};

use axum::{Extension, Router, routing::get};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpSocket, TcpStream},
    task::JoinSet,
};
use web::listen::{Limits, NoDelay};

use crate::support::server;

/// A request head that never ends.
const HALF: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n";

/// `router` served on 127.0.0.1 with these limits; its address.
async fn listening(router: Router, limits: Limits) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(web::listen::serve(
        listener,
        router,
        limits,
        std::future::pending(),
    ));
    address
}

/// A connection to `to` from the loopback address `from` (any of 127.0.0.0/8).
async fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(to).await.unwrap()
}

/// What became of a connection: refused with this status line, closed without an answer, or
/// still open and quiet after `wait`.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    Answered(String),
    Closed,
    Open,
}

async fn fate(mut stream: TcpStream, wait: Duration) -> Fate {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(wait, stream.read_to_end(&mut seen)).await;
    if !seen.is_empty() {
        let text = String::from_utf8_lossy(&seen);
        return Fate::Answered(text.lines().next().unwrap_or_default().to_string());
    }
    match read {
        Ok(_) => Fate::Closed,
        Err(_) => Fate::Open,
    }
}

/// The fates of many connections, read at once, in order.
async fn fates(streams: Vec<TcpStream>, wait: Duration) -> Vec<Fate> {
    let mut set = JoinSet::new();
    for (i, s) in streams.into_iter().enumerate() {
        set.spawn(async move { (i, fate(s, wait).await) });
    }
    let mut out: Vec<(usize, Fate)> = set.join_all().await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, f)| f).collect()
}

/// Opens `n` connections, each from `from(i)`, and sends each half a request.
async fn half_sent(to: SocketAddr, n: usize, from: impl Fn(usize) -> String) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(n);
    for i in 0..n {
        let mut s = connect_from(&from(i), to).await;
        // A refused connection may already be closed: its answer is read later.
        let _ = s.write_all(HALF).await;
        streams.push(s);
    }
    streams
}

/// GET /healthz from 127.0.0.1 answers 200 within two seconds.
async fn alive(to: SocketAddr) -> bool {
    let check = async {
        let mut s = connect_from("127.0.0.1", to).await;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200")
    };
    tokio::time::timeout(Duration::from_secs(2), check)
        .await
        .unwrap_or(false)
}

fn count(fates: &[Fate], f: &Fate) -> usize {
    fates.iter().filter(|x| *x == f).count()
}

#[tokio::test]
async fn liveness_answers_while_one_address_holds_hundreds_of_half_sent_requests() {
    let s = server().await;
    let to = listening(
        s.router.clone(),
        Limits {
            header_timeout: Duration::from_secs(60),
            max_connections_per_address: 16,
            ..Limits::default()
        },
    )
    .await;
    let streams = half_sent(to, 300, |_| "127.0.0.2".into()).await;
    assert!(alive(to).await, "/healthz answers from another address");
    let fates = fates(streams, Duration::from_millis(500)).await;
    let refused = Fate::Answered("HTTP/1.1 429 Too Many Requests".into());
    assert_eq!(
        (count(&fates, &Fate::Open), count(&fates, &refused)),
        (16, 284),
        "16 held, the rest refused at once: {:?}",
        &fates[..20]
    );
}

#[tokio::test]
async fn when_the_server_is_full_the_oldest_half_sent_request_makes_room() {
    let s = server().await;
    let to = listening(
        s.router.clone(),
        Limits {
            header_timeout: Duration::from_secs(60),
            max_connections: 50,
            ..Limits::default()
        },
    )
    .await;
    // One connection from each of 100 addresses: no per-address cap is reached.
    let streams = half_sent(to, 100, |i| format!("127.0.1.{}", i + 1)).await;
    assert!(
        alive(to).await,
        "/healthz answers while the server is full of half-sent requests"
    );
    let fates = fates(streams, Duration::from_millis(500)).await;
    assert_eq!(
        count(&fates, &Fate::Closed),
        51,
        "the oldest made room for the newer ones and for /healthz: {fates:?}"
    );
    assert!(fates[..51].iter().all(|f| *f == Fate::Closed), "{fates:?}");
    assert!(fates[51..].iter().all(|f| *f == Fate::Open), "{fates:?}");
}

#[tokio::test]
async fn a_slow_head_is_closed_at_the_header_timeout() {
    let s = server().await;
    let to = listening(
        s.router.clone(),
        Limits {
            header_timeout: Duration::from_secs(1),
            ..Limits::default()
        },
    )
    .await;
    let streams = half_sent(to, 1, |_| "127.0.0.3".into()).await;
    assert_eq!(
        fates(streams, Duration::from_secs(10)).await,
        [Fate::Closed],
        "closed without an answer"
    );
    // An idle kept-alive connection is closed the same way.
    let mut idle = connect_from("127.0.0.3", to).await;
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the idle connection was closed");
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_slow_body_is_answered_408_and_the_connection_closed() {
    let s = server().await;
    let to = listening(
        s.router.clone(),
        Limits {
            body_timeout: Duration::from_secs(1),
            ..Limits::default()
        },
    )
    .await;
    let mut slow = connect_from("127.0.0.4", to).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nContent-Type: application/json\r\nAuthorization: Bearer {}\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\":",
        s.owner_key
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    assert_eq!(
        fate(slow, Duration::from_secs(10)).await,
        Fate::Answered("HTTP/1.1 408 Request Timeout".into()),
        "answered, then closed (read to its end)"
    );
    // A body that arrives in time is served.
    let mut quick = connect_from("127.0.0.4", to).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nContent-Type: application/json\r\nAuthorization: Bearer {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.owner_key,
        body.len()
    );
    quick.write_all(request.as_bytes()).await.unwrap();
    assert_eq!(
        fate(quick, Duration::from_secs(10)).await,
        Fate::Answered("HTTP/1.1 200 OK".into())
    );
}

#[tokio::test]
async fn a_trusted_proxy_is_exempt_from_the_per_address_cap_but_not_from_the_global_one() {
    let s = server().await;
    let to = listening(
        s.router.clone(),
        Limits {
            header_timeout: Duration::from_secs(60),
            max_connections: 12,
            max_connections_per_address: 4,
            trusted_proxies: mcp::forwarded::TrustedProxies::parse(&["127.0.0.5"]).unwrap(),
            ..Limits::default()
        },
    )
    .await;
    let proxy = half_sent(to, 20, |_| "127.0.0.5".into()).await;
    let other = half_sent(to, 6, |_| "127.0.0.6".into()).await;
    let proxy = fates(proxy, Duration::from_millis(500)).await;
    let other = fates(other, Duration::from_millis(500)).await;
    let refused = Fate::Answered("HTTP/1.1 429 Too Many Requests".into());
    assert_eq!(
        count(&proxy, &refused),
        0,
        "the proxy is never capped: {proxy:?}"
    );
    assert_eq!(
        (count(&other, &Fate::Open), count(&other, &refused)),
        (4, 2),
        "another address is: {other:?}"
    );
    assert_eq!(
        count(&proxy, &Fate::Open),
        8,
        "12 open at most, the proxy's oldest made room: {proxy:?}"
    );
}

#[tokio::test]
async fn every_accepted_socket_has_tcp_nodelay() {
    let router = Router::new().route(
        "/nodelay",
        get(|Extension(NoDelay(on)): Extension<NoDelay>| async move { on.to_string() }),
    );
    let to = listening(router, Limits::default()).await;
    for from in ["127.0.0.1", "127.0.0.7"] {
        let mut s = connect_from(from, to).await;
        s.write_all(b"GET /nodelay HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        assert!(answer.ends_with("\r\n\r\ntrue"), "{answer}");
    }
}

#[tokio::test]
async fn shutdown_lets_an_answer_under_way_finish_and_then_returns() {
    let router = Router::new().route(
        "/slow",
        get(|| async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            "done"
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let to = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(web::listen::serve(
        listener,
        router,
        Limits::default(),
        async move {
            let _ = stopped.await;
        },
    ));
    let idle = connect_from("127.0.0.8", to).await;
    let mut busy = connect_from("127.0.0.8", to).await;
    busy.write_all(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let mut answer = String::new();
    busy.read_to_string(&mut answer).await.unwrap();
    assert!(answer.ends_with("\r\n\r\ndone"), "{answer}");
    let returned = tokio::time::timeout(Duration::from_secs(10), server).await;
    assert!(
        returned.is_ok(),
        "serve returned once its connections closed"
    );
    assert_eq!(fate(idle, Duration::from_secs(1)).await, Fate::Closed);
}
