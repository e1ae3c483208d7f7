//! The outbound rule against real sockets, all on loopback: a loopback target is refused
//! unless the owner allows it, before any connection is made, at every hop of a redirect.

#![allow(clippy::unwrap_used)]

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use httpx::{
    Timeouts,
    outbound::{FetchError, Fetched, Outbound, REFUSAL},
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// A one-route HTTP server on 127.0.0.1 answering every request with `answer(path)`, and how
/// many connections it accepted.
async fn server(
    answer: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let _ = sock.write_all(&answer(&path)).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (addr, accepted)
}

fn ok(body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn redirect(to: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )
    .into_bytes()
}

fn timeouts() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
    }
}

#[tokio::test]
async fn an_allowed_loopback_host_is_fetched() {
    let (addr, _) = server(|_| ok(b"d4:infod4:name1:xee")).await;
    let rule = Outbound::new(&["127.0.0.1".into()]);
    let got = rule
        .fetch(&format!("http://{addr}/a.torrent"), 1024, timeouts())
        .await
        .unwrap();
    assert_eq!(got, Fetched::Body(b"d4:infod4:name1:xee".to_vec()));
}

#[tokio::test]
async fn loopback_is_refused_by_default_before_any_connection_whatever_the_port_does() {
    let (addr, accepted) = server(|_| ok(b"secret")).await;
    let rule = Outbound::default();
    let open = rule
        .fetch(&format!("http://{addr}/a.torrent"), 1024, timeouts())
        .await
        .unwrap_err();
    // A port where nothing listens answers the same sentence.
    let closed = rule
        .fetch("http://127.0.0.1:9/a.torrent", 1024, timeouts())
        .await
        .unwrap_err();
    assert!(matches!(open, FetchError::Refused(_)), "{open:?}");
    assert_eq!(open.to_string(), REFUSAL);
    assert_eq!(closed.to_string(), REFUSAL);
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "no connection was made");
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_refused_in_the_resolver() {
    let (addr, accepted) = server(|_| ok(b"secret")).await;
    let rule = Outbound::default();
    let e = rule
        .fetch(
            &format!("http://localhost:{}/a.torrent", addr.port()),
            1024,
            timeouts(),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, FetchError::Refused(_)), "{e:?}");
    assert_eq!(e.to_string(), REFUSAL);
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn every_redirect_hop_is_checked() {
    // The allowed host redirects to another loopback address the owner did not allow.
    let (inner, inner_hits) = server(|_| ok(b"secret")).await;
    let to = format!("http://127.0.0.2:{}/x", inner.port());
    let (outer, _) = server(move |_| redirect(&to)).await;
    let rule = Outbound::new(&["127.0.0.1".into()]);
    let e = rule
        .fetch(&format!("http://{outer}/a.torrent"), 1024, timeouts())
        .await
        .unwrap_err();
    assert!(matches!(e, FetchError::Refused(_)), "{e:?}");
    assert_eq!(inner_hits.load(Ordering::SeqCst), 0);
    // A redirect with credentials in it is refused too.
    let (creds, _) = server(move |_| redirect("http://user:pw@example.invalid/x")).await;
    let e = rule
        .fetch(&format!("http://{creds}/a.torrent"), 1024, timeouts())
        .await
        .unwrap_err();
    assert!(matches!(e, FetchError::Refused(_)), "{e:?}");
}

#[tokio::test]
async fn a_redirect_within_allowed_hosts_is_followed_and_a_magnet_ends_the_fetch() {
    let (addr, _) = server(|path| match path {
        "/a.torrent" => redirect("/b.torrent"),
        "/b.torrent" => ok(b"d4:infod4:name1:xee"),
        _ => redirect("magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567"),
    })
    .await;
    let rule = Outbound::new(&["127.0.0.1".into()]);
    let got = rule
        .fetch(&format!("http://{addr}/a.torrent"), 1024, timeouts())
        .await
        .unwrap();
    assert_eq!(got, Fetched::Body(b"d4:infod4:name1:xee".to_vec()));
    let got = rule
        .fetch(&format!("http://{addr}/m"), 1024, timeouts())
        .await
        .unwrap();
    assert!(matches!(got, Fetched::Magnet(m) if m.starts_with("magnet:?xt=urn:btih:")));
}

#[tokio::test]
async fn a_body_over_the_cap_is_refused() {
    let (addr, _) = server(|_| ok(&[b'x'; 4096])).await;
    let rule = Outbound::new(&["127.0.0.1".into()]);
    let e = rule
        .fetch(&format!("http://{addr}/big"), 1024, timeouts())
        .await
        .unwrap_err();
    assert!(matches!(e, FetchError::TooLarge { max: 1024 }), "{e:?}");
}

#[tokio::test]
async fn an_instance_client_follows_redirects_only_within_its_own_origin() {
    let (other, other_hits) = server(|_| ok(b"elsewhere")).await;
    let to = format!("http://{other}/x");
    let (instance, _) = server(move |path| match path {
        "/moved" => redirect("/api"),
        "/api" => ok(b"home"),
        _ => redirect(&to),
    })
    .await;
    let client = httpx::client(timeouts()).unwrap();
    let home = client
        .get(format!("http://{instance}/moved"))
        .send()
        .await
        .unwrap();
    assert_eq!(home.text().await.unwrap(), "home");
    let away = client
        .get(format!("http://{instance}/away"))
        .send()
        .await
        .unwrap();
    assert_eq!(away.status(), 302, "the redirect is the answer");
    assert_eq!(other_hits.load(Ordering::SeqCst), 0, "never followed");
}
