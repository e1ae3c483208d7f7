//! A fault-injecting TCP proxy: sits between Marquee and a backend (a fake or a real daemon) on
//! `127.0.0.1:0` and passes requests through or misbehaves as a broken network or service
//! would: added latency, a reset, a connection held half-open, a truncated answer, garbage, a
//! slow drip, 429 with `Retry-After`, or any answer of the test's choosing.
//!
//! Every request gets a connection of its own (the proxy asks the backend to close after each
//! answer), so the fault is chosen per request: for all of them, or only for one method's
//! (`set_for("POST", ...)`: the writes fail while the reads before them pass), or only for
//! requests that carry a word (`set_when("torrent-add", ...)`: a JSON-RPC method, where reads
//! and writes share one `POST`). It reads each request whole (its `Content-Length` body) and
//! records it, forwarded or not, so a test can assert how often Marquee tried: retries only
//! where a call is idempotent.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use parking_lot::Mutex;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::watch,
    task::JoinHandle,
};

/// How the proxy treats a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Passed through unchanged.
    None,
    /// Each piece of the answer is held this long before it is passed on.
    Latency(Duration),
    /// The request is read, then the connection is reset (RST), nothing answered.
    Reset,
    /// The request is read and never answered; the connection stays open until the proxy goes.
    HalfOpen,
    /// The answer is passed on up to this many bytes, then the connection is closed.
    Truncate(usize),
    /// Bytes that are not HTTP at all, then the connection is closed.
    Garbage,
    /// A well-formed `200 OK` whose JSON body is cut and mangled.
    GarbageBody,
    /// The answer is passed on one byte at a time, with this pause between bytes.
    SlowDrip(Duration),
    /// `429 Too Many Requests` with `Retry-After: seconds`.
    TooManyRequests { retry_after: u64 },
    /// This status and body (`application/json`), whatever was asked.
    Answer { status: u16, body: String },
}

/// Which requests get which fault.
#[derive(Clone, Debug)]
struct Rule {
    /// Only requests of this method; every request when `None`.
    method: Option<&'static str>,
    /// Only requests whose line or body holds this text; every request when `None`.
    word: Option<String>,
    fault: Fault,
}

/// One request as the proxy read it: its line, and its head and body as text.
#[derive(Clone, Debug)]
struct Seen {
    line: String,
    text: String,
}

/// A running proxy; it stops (and lets go of every connection it holds) when dropped.
pub struct FaultProxy {
    addr: SocketAddr,
    rule: Arc<Mutex<Rule>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: watch::Sender<bool>,
    accept: JoinHandle<()>,
}

impl FaultProxy {
    /// A proxy in front of `upstream` (`127.0.0.1:port`), passing requests through until told
    /// otherwise.
    pub async fn start(upstream: SocketAddr) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let rule = Arc::new(Mutex::new(Rule {
            method: None,
            word: None,
            fault: Fault::None,
        }));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (stop, stopped) = watch::channel(false);
        let accept = tokio::spawn({
            let rule = rule.clone();
            let seen = seen.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let _ = client.set_nodelay(true);
                    let conn = Conn {
                        own: addr,
                        upstream,
                        rule: rule.clone(),
                        seen: seen.clone(),
                        stopped: stopped.clone(),
                    };
                    tokio::spawn(conn.serve(client));
                }
            }
        });
        FaultProxy {
            addr,
            rule,
            seen,
            stop,
            accept,
        }
    }

    /// A proxy in front of the server at `url` (`http://127.0.0.1:port/...`).
    pub async fn in_front_of(url: &str) -> FaultProxy {
        let rest = url.split("://").nth(1).unwrap_or(url);
        let host_port = rest.split('/').next().unwrap_or(rest);
        FaultProxy::start(host_port.parse().unwrap()).await
    }

    /// The URL to give Marquee instead of the backend's: the same path below the proxy.
    pub fn url_for(&self, backend_url: &str) -> String {
        let rest = backend_url.split("://").nth(1).unwrap_or(backend_url);
        let path = rest.find('/').map(|i| &rest[i..]).unwrap_or("/");
        format!("http://{}{path}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The fault for every request from now on.
    pub fn set(&self, fault: Fault) {
        *self.rule.lock() = Rule {
            method: None,
            word: None,
            fault,
        };
    }

    /// The fault for requests whose line or body holds `word` from now on (a JSON-RPC method
    /// such as `"torrent-add"`); the others pass.
    pub fn set_when(&self, word: &str, fault: Fault) {
        *self.rule.lock() = Rule {
            method: None,
            word: Some(word.to_string()),
            fault,
        };
    }

    /// The fault for requests of one method (`"POST"`) from now on; the others pass.
    pub fn set_for(&self, method: &'static str, fault: Fault) {
        *self.rule.lock() = Rule {
            method: Some(method),
            word: None,
            fault,
        };
    }

    /// HTTP requests seen so far (forwarded or not).
    pub fn requests(&self) -> usize {
        self.seen.lock().len()
    }

    /// Requests of one method seen so far.
    pub fn requests_of(&self, method: &str) -> usize {
        let prefix = format!("{method} ");
        self.seen
            .lock()
            .iter()
            .filter(|s| s.line.starts_with(&prefix))
            .count()
    }

    /// Requests seen so far whose line or body holds `word` (`"torrent-add"`, `"/torrents/delete"`).
    pub fn requests_with(&self, word: &str) -> usize {
        self.seen
            .lock()
            .iter()
            .filter(|s| s.text.contains(word))
            .count()
    }

    /// The request lines seen so far (`POST /api/v3/command HTTP/1.1`), forwarded or not.
    pub fn request_lines(&self) -> Vec<String> {
        self.seen.lock().iter().map(|s| s.line.clone()).collect()
    }

    /// Forgets the requests seen.
    pub fn clear(&self) {
        self.seen.lock().clear();
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        self.accept.abort();
    }
}

/// One client connection: one request.
struct Conn {
    /// The proxy's own address, which the backend is told is its own.
    own: SocketAddr,
    upstream: SocketAddr,
    rule: Arc<Mutex<Rule>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    stopped: watch::Receiver<bool>,
}

impl Conn {
    async fn serve(mut self, mut client: TcpStream) {
        let mut stopped = self.stopped.clone();
        tokio::select! {
            _ = self.handle(&mut client) => {}
            _ = stopped.wait_for(|s| *s) => {}
        }
    }

    async fn handle(&mut self, client: &mut TcpStream) {
        let Some((line, head)) = self.read_request(client).await else {
            return;
        };
        let rule = self.rule.lock().clone();
        let text = String::from_utf8_lossy(&head);
        let fault = match (rule.method, &rule.word) {
            (Some(m), _) if !line.starts_with(&format!("{m} ")) => Fault::None,
            (_, Some(w)) if !text.contains(w.as_str()) => Fault::None,
            _ => rule.fault,
        };
        match fault {
            Fault::None | Fault::Latency(_) | Fault::Truncate(_) | Fault::SlowDrip(_) => {
                self.forward(client, head, fault).await
            }
            Fault::Reset => {
                // A zero linger closes with RST at once (it blocks on drop only for a
                // non-zero linger, which this never sets).
                #[allow(deprecated)]
                let _ = client.set_linger(Some(Duration::ZERO));
            }
            Fault::HalfOpen => {
                let _ = self.stopped.wait_for(|s| *s).await;
            }
            Fault::Garbage => {
                let _ = client
                    .write_all(b"\x00\xffSSH-2.0-not-http\r\n\x1b[2J{{{{\"\r\n\r\n")
                    .await;
            }
            Fault::GarbageBody => {
                let body = "[{\"id\": 1, \"title\": \"cut\u{0}\", \"records\": [nul";
                answer(client, 200, &[], body).await;
            }
            Fault::TooManyRequests { retry_after } => {
                let header = format!("Retry-After: {retry_after}");
                let body = "{\"message\": \"too many requests\"}";
                answer(client, 429, &[&header], body).await;
            }
            Fault::Answer { status, body } => answer(client, status, &[], &body).await,
        }
    }

    /// Reads one request's head and its `Content-Length` body (a chunked body: what of it came
    /// with the head; the rest is passed on as it comes) and records it.
    async fn read_request(&self, client: &mut TcpStream) -> Option<(String, Vec<u8>)> {
        let mut seen = Vec::new();
        let mut buf = [0u8; 8192];
        let head_end = loop {
            if let Some(i) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            if seen.len() >= 1 << 20 {
                break seen.len();
            }
            match client.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        };
        let length = content_length(&seen[..head_end]).min(16 << 20);
        while seen.len() < head_end + length {
            match client.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
        let line_end = seen.iter().position(|b| *b == b'\r').unwrap_or(seen.len());
        let line = String::from_utf8_lossy(&seen[..line_end]).into_owned();
        self.seen.lock().push(Seen {
            line: line.clone(),
            text: String::from_utf8_lossy(&seen).into_owned(),
        });
        Some((line, seen))
    }

    /// Passes the request on (asking the backend to close after its answer, so the next request
    /// comes on a connection of its own) and the answer back, shaped by `fault`.
    async fn forward(&self, client: &mut TcpStream, head: Vec<u8>, fault: Fault) {
        let Ok(mut upstream) = TcpStream::connect(self.upstream).await else {
            return;
        };
        let _ = upstream.set_nodelay(true);
        let head = closing(&head, &self.own.to_string(), &self.upstream.to_string());
        if upstream.write_all(&head).await.is_err() {
            return;
        }
        let (mut cr, mut cw) = client.split();
        let (mut ur, mut uw) = upstream.split();
        let up = async move {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                match cr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if uw.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = uw.shutdown().await;
        };
        let down = async move {
            let mut buf = vec![0u8; 16 * 1024];
            let mut passed = 0usize;
            // The answer's head, gathered until whole, then passed on saying `Connection:
            // close` (a backend that keeps the connection open anyway, as qBittorrent does,
            // would have the client send its next request down this one, unseen).
            let mut head = Some(Vec::new());
            loop {
                let n = match ur.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let gathered;
                let piece = match head.as_mut() {
                    Some(h) => {
                        h.extend_from_slice(&buf[..n]);
                        if !h.windows(4).any(|w| w == b"\r\n\r\n") && h.len() < 64 << 10 {
                            continue;
                        }
                        gathered = closing(h, "", "");
                        head = None;
                        &gathered[..]
                    }
                    None => &buf[..n],
                };
                let ok = match &fault {
                    Fault::Latency(d) => {
                        tokio::time::sleep(*d).await;
                        cw.write_all(piece).await.is_ok()
                    }
                    Fault::Truncate(limit) => {
                        let room = limit.saturating_sub(passed);
                        let part = &piece[..room.min(piece.len())];
                        passed += part.len();
                        let _ = cw.write_all(part).await;
                        passed < *limit
                    }
                    Fault::SlowDrip(d) => {
                        let mut ok = true;
                        for b in piece {
                            if cw.write_all(&[*b]).await.is_err() {
                                ok = false;
                                break;
                            }
                            tokio::time::sleep(*d).await;
                        }
                        ok
                    }
                    _ => cw.write_all(piece).await.is_ok(),
                };
                if !ok {
                    break;
                }
            }
            if let Some(h) = head.filter(|h| !h.is_empty()) {
                let _ = cw.write_all(&h).await;
            }
            let _ = cw.shutdown().await;
        };
        tokio::join!(up, down);
    }
}

/// Answers a request without asking the backend, and closes.
async fn answer(client: &mut TcpStream, status: u16, headers: &[&str], body: &str) {
    let mut head = format!(
        "HTTP/1.1 {status} Fault\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let _ = client.write_all(head.as_bytes()).await;
    let _ = client.write_all(body.as_bytes()).await;
    let _ = client.shutdown().await;
}

/// The `Content-Length` of a request head, 0 when it has none.
fn content_length(head: &[u8]) -> usize {
    String::from_utf8_lossy(head)
        .split("\r\n")
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

/// A request or answer head (and what of its body followed it) with `Connection: close` in
/// place of any `Connection` header of its own, and the proxy's address (`own`, unless empty) in
/// `Host`, `Origin` and `Referer` replaced by the backend's (`upstream`), as a reverse proxy
/// passes a request on: a backend that checks them against its own address (qBittorrent's
/// host-header and cross-site checks) sees itself addressed.
fn closing(head: &[u8], own: &str, upstream: &str) -> Vec<u8> {
    let end = head
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(head.len());
    let text = String::from_utf8_lossy(&head[..end]);
    let mut out = String::new();
    for (i, line) in text.split("\r\n").enumerate() {
        let lower = line.to_ascii_lowercase();
        if i > 0 && lower.starts_with("connection:") {
            continue;
        }
        let addressed = ["host:", "origin:", "referer:"]
            .iter()
            .any(|h| lower.starts_with(h));
        if i > 0 && addressed && !own.is_empty() {
            out.push_str(&line.replace(own, upstream));
        } else {
            out.push_str(line);
        }
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(head.get(end + 4..).unwrap_or_default());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarded_request_asks_the_backend_to_close() {
        let head = b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\nbody";
        assert_eq!(
            String::from_utf8(closing(head, "p:1", "b:2")).unwrap(),
            "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nbody"
        );
    }

    #[test]
    fn the_backend_is_told_its_own_address() {
        let head = b"POST /p:1/x HTTP/1.1\r\nHost: p:1\r\nOrigin: http://p:1\r\nReferer: http://p:1/\r\nX-Other: p:1\r\n\r\n";
        assert_eq!(
            String::from_utf8(closing(head, "p:1", "b:2")).unwrap(),
            "POST /p:1/x HTTP/1.1\r\nHost: b:2\r\nOrigin: http://b:2\r\nReferer: http://b:2/\r\nX-Other: p:1\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn a_body_is_read_to_its_length() {
        let head = b"POST /rpc HTTP/1.1\r\ncontent-length: 27\r\n\r\n";
        assert_eq!(content_length(head), 27);
        assert_eq!(content_length(b"GET / HTTP/1.1\r\n\r\n"), 0);
    }
}
