//! A fault-injecting TCP proxy: sits between Marquee and a backend (a fake or a real daemon) on
//! `127.0.0.1:0` and, per connection, passes bytes through or misbehaves as a broken network or
//! service would: added latency, a reset, a connection held half-open, a truncated answer,
//! garbage, a slow drip, 429 with `Retry-After`, or any answer of the test's choosing.
//!
//! It counts the HTTP requests it saw (request lines from the client, forwarded or not), so a
//! test can assert how often Marquee tried: retries only where a call is idempotent.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::watch,
    task::JoinHandle,
};

/// How the proxy treats the next connections (a connection keeps the fault it was accepted with).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Bytes pass through unchanged.
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

/// A running proxy; it stops (and lets go of every connection it holds) when dropped.
pub struct FaultProxy {
    addr: SocketAddr,
    fault: Arc<Mutex<Fault>>,
    requests: Arc<AtomicU64>,
    stop: watch::Sender<bool>,
    accept: JoinHandle<()>,
}

impl FaultProxy {
    /// A proxy in front of `upstream` (`127.0.0.1:port`), passing bytes through until told otherwise.
    pub async fn start(upstream: SocketAddr) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let fault = Arc::new(Mutex::new(Fault::None));
        let requests = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = watch::channel(false);
        let accept = tokio::spawn({
            let fault = fault.clone();
            let requests = requests.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let _ = client.set_nodelay(true);
                    let f = fault.lock().clone();
                    let conn = Conn {
                        upstream,
                        requests: requests.clone(),
                        stopped: stopped.clone(),
                    };
                    tokio::spawn(conn.serve(client, f));
                }
            }
        });
        FaultProxy {
            addr,
            fault,
            requests,
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

    /// The URL to give Marquee instead of the backend's: the same path below a new origin.
    pub fn url_for(&self, backend_url: &str) -> String {
        let rest = backend_url.split("://").nth(1).unwrap_or(backend_url);
        let path = rest.find('/').map(|i| &rest[i..]).unwrap_or("");
        format!("http://{}{path}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The fault for connections accepted from now on.
    pub fn set(&self, fault: Fault) {
        *self.fault.lock() = fault;
    }

    /// HTTP requests seen so far (request lines from clients, forwarded or not).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Requests seen since the last call of this.
    pub fn take_requests(&self) -> u64 {
        self.requests.swap(0, Ordering::SeqCst)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        self.accept.abort();
    }
}

/// One client connection.
struct Conn {
    upstream: SocketAddr,
    requests: Arc<AtomicU64>,
    stopped: watch::Receiver<bool>,
}

impl Conn {
    async fn serve(mut self, mut client: TcpStream, fault: Fault) {
        let mut stopped = self.stopped.clone();
        tokio::select! {
            _ = self.handle(&mut client, fault) => {}
            _ = stopped.wait_for(|s| *s) => {}
        }
    }

    async fn handle(&mut self, client: &mut TcpStream, fault: Fault) {
        match fault {
            Fault::None | Fault::Latency(_) | Fault::Truncate(_) | Fault::SlowDrip(_) => {
                self.forward(client, fault).await
            }
            Fault::Reset => {
                if self.read_request(client).await {
                    // A zero linger closes with RST at once (it blocks on drop only for a
                    // non-zero linger, which this never sets).
                    #[allow(deprecated)]
                    let _ = client.set_linger(Some(Duration::ZERO));
                }
            }
            Fault::HalfOpen => {
                self.read_request(client).await;
                let _ = self.stopped.wait_for(|s| *s).await;
            }
            Fault::Garbage => {
                if self.read_request(client).await {
                    let _ = client
                        .write_all(b"\x00\xffSSH-2.0-not-http\r\n\x1b[2J{{{{\"\r\n\r\n")
                        .await;
                }
            }
            Fault::GarbageBody => {
                let body = "[{\"id\": 1, \"title\": \"cut\u{0}\", \"records\": [nul";
                self.answer(client, 200, &[], body).await;
            }
            Fault::TooManyRequests { retry_after } => {
                let header = format!("Retry-After: {retry_after}");
                let body = "{\"message\": \"too many requests\"}";
                self.answer(client, 429, &[&header], body).await;
            }
            Fault::Answer { status, body } => self.answer(client, status, &[], &body).await,
        }
    }

    /// Reads one request (its head, and what of its body came with it) and counts it.
    async fn read_request(&self, client: &mut TcpStream) -> bool {
        let mut seen = Vec::new();
        let mut buf = [0u8; 8192];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") && seen.len() < 1 << 20 {
            match client.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
        self.requests.fetch_add(1, Ordering::SeqCst);
        true
    }

    /// Answers one request without asking the backend, and closes.
    async fn answer(&self, client: &mut TcpStream, status: u16, headers: &[&str], body: &str) {
        if !self.read_request(client).await {
            return;
        }
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

    /// Passes bytes both ways, counting request lines and shaping the answer by `fault`.
    async fn forward(&self, client: &mut TcpStream, fault: Fault) {
        let Ok(mut upstream) = TcpStream::connect(self.upstream).await else {
            return;
        };
        let _ = upstream.set_nodelay(true);
        let (mut cr, mut cw) = client.split();
        let (mut ur, mut uw) = upstream.split();
        let requests = self.requests.clone();
        let up = async move {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                match cr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let lines = count_request_lines(&buf[..n]);
                        requests.fetch_add(lines, Ordering::SeqCst);
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
            loop {
                let n = match ur.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let piece = &buf[..n];
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
            let _ = cw.shutdown().await;
        };
        tokio::join!(up, down);
    }
}

/// Request lines in a piece of what a client sent (`METHOD /path HTTP/1.1`).
fn count_request_lines(piece: &[u8]) -> u64 {
    const METHODS: &[&[u8]] = &[b"GET ", b"POST ", b"PUT ", b"DELETE ", b"HEAD ", b"PATCH "];
    let mut n = 0;
    for (i, _) in piece.iter().enumerate() {
        let at_line_start = i == 0 || piece[i - 1] == b'\n';
        if at_line_start && METHODS.iter().any(|m| piece[i..].starts_with(m)) {
            let line_end = piece[i..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(piece.len(), |p| i + p);
            if piece[i..line_end].windows(6).any(|w| w == b" HTTP/") {
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_counted_not_bodies() {
        assert_eq!(
            count_request_lines(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"),
            1
        );
        assert_eq!(
            count_request_lines(b"POST /a HTTP/1.1\r\n\r\n{\"GET \":1}\nGET /b HTTP/1.1\r\n\r\n"),
            2
        );
        assert_eq!(count_request_lines(b"{\"title\": \"GET out\"}"), 0);
    }
}
