//! The listener: accepts connections and serves the router on each over HTTP/1.1, with the
//! limits that keep the server answering while clients misbehave. A request head must arrive
//! within `header_timeout` (also the longest idle wait on a kept-alive connection), a body
//! within `body_timeout` of its head; at most `max_connections` are open, and at most
//! `max_connections_per_address` from one address (trusted proxies excepted: they carry every
//! client's connections). When the server is full, the oldest connection that has not yet sent
//! a whole request head makes room for the new one, so clients that send their requests keep
//! being answered however many half-sent requests are held open. Every accepted socket has
//! `TCP_NODELAY` set: answers are written whole, and waiting for an ACK only delays them.

use std::{
    collections::{BTreeMap, HashMap},
    future::Future,
    io,
    net::{IpAddr, SocketAddr},
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::ConnectInfo,
};
use http_body::{Frame, SizeHint};
use hyper::{body::Incoming, server::conn::http1};
use hyper_util::rt::{TokioIo, TokioTimer};
use mcp::{forwarded::TrustedProxies, throttle};
use parking_lot::Mutex;
use tokio::{
    net::{TcpListener, TcpStream},
    sync::{Notify, oneshot, watch},
    time::{Instant, Sleep},
};
use tower::Service;

/// The connection limits and read timeouts.
#[derive(Clone, Debug)]
pub struct Limits {
    /// A request head must arrive whole within this; it is also the longest a kept-alive
    /// connection waits idle for its next request.
    pub header_timeout: Duration,
    /// A request body must arrive whole within this, counted from its head.
    pub body_timeout: Duration,
    /// Connections open at once, at most.
    pub max_connections: usize,
    /// Connections open at once from one address (an IPv6 /64), at most.
    pub max_connections_per_address: usize,
    /// Peers exempt from the per-address limit (the global one still holds).
    pub trusted_proxies: TrustedProxies,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(60),
            max_connections: 1024,
            max_connections_per_address: 64,
            trusted_proxies: TrustedProxies::default(),
        }
    }
}

/// Whether the listener set `TCP_NODELAY` on the connection a request came by, as read back
/// from the socket: in every request's extensions, so a test can see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoDelay(pub bool);

/// Serves `router` on `listener` until `shutdown` completes, then lets open requests finish.
/// Requests carry `ConnectInfo<SocketAddr>` (the peer) and [`NoDelay`] in their extensions.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let shared = Arc::new(Shared {
        limits,
        state: Mutex::new(State::default()),
        all_closed: Notify::new(),
    });
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, say: wait a little rather than spin.
                    tracing::warn!(error = %e, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        match shared.admit(peer.ip()) {
            Ok(slot) => {
                let conn = Connection {
                    shared: shared.clone(),
                    router: router.clone(),
                    peer,
                    stopping: stopping.clone(),
                };
                tokio::spawn(conn.run(stream, slot));
            }
            Err(refusal) => {
                // One try each, never waiting: the answer fits an empty send buffer, and what
                // the client sent already is read so that closing ends with a FIN the client
                // reads the answer before, not a reset.
                let _ = stream.try_write(&refusal.answer());
                let mut sent = [0u8; 4096];
                let _ = stream.try_read(&mut sent);
                tracing::debug!(peer = %peer.ip(), ?refusal, "a connection was refused");
            }
        }
    }
    let _ = stop.send(true);
    loop {
        let closed = shared.all_closed.notified();
        if shared.state.lock().open == 0 {
            return Ok(());
        }
        closed.await;
    }
}

struct Shared {
    limits: Limits,
    state: Mutex<State>,
    /// Woken when the last connection closes.
    all_closed: Notify,
}

#[derive(Default)]
struct State {
    open: usize,
    by_address: HashMap<IpAddr, usize>,
    /// Connections that have not yet sent a whole request head, oldest first, with the signal
    /// that closes each.
    waiting: BTreeMap<u64, oneshot::Sender<()>>,
    next_id: u64,
}

/// Why a connection is refused.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    AddressFull,
    ServerFull,
}

impl Refusal {
    fn answer(self) -> Vec<u8> {
        let (status, text) = match self {
            Refusal::AddressFull => (
                "429 Too Many Requests",
                "too many connections from this address\n",
            ),
            Refusal::ServerFull => ("503 Service Unavailable", "too many connections\n"),
        };
        format!(
            "HTTP/1.1 {status}\r\nRetry-After: 5\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        )
        .into_bytes()
    }
}

/// A place among the open connections, given back when dropped.
struct Slot {
    shared: Arc<Shared>,
    id: u64,
    address: IpAddr,
    /// Fires when the connection must close to make room.
    evicted: oneshot::Receiver<()>,
}

impl Shared {
    fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Slot, Refusal> {
        let address = throttle::source(peer);
        let exempt = self.limits.trusted_proxies.contains(peer);
        let mut state = self.state.lock();
        let from_address = state.by_address.get(&address).copied().unwrap_or(0);
        if !exempt && from_address >= self.limits.max_connections_per_address {
            return Err(Refusal::AddressFull);
        }
        if state.open >= self.limits.max_connections {
            // The oldest connection still sending its head goes; it leaves when it sees this.
            let Some((_, evict)) = state.waiting.pop_first() else {
                return Err(Refusal::ServerFull);
            };
            let _ = evict.send(());
        }
        state.open += 1;
        *state.by_address.entry(address).or_default() += 1;
        let id = state.next_id;
        state.next_id += 1;
        let (tx, evicted) = oneshot::channel();
        state.waiting.insert(id, tx);
        Ok(Slot {
            shared: self.clone(),
            id,
            address,
            evicted,
        })
    }

    /// The connection sent a whole request head: it is no longer evicted to make room.
    fn served(&self, id: u64) {
        self.state.lock().waiting.remove(&id);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock();
        state.open -= 1;
        state.waiting.remove(&self.id);
        if let Some(n) = state.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                state.by_address.remove(&self.address);
            }
        }
        if state.open == 0 {
            self.shared.all_closed.notify_waiters();
        }
    }
}

struct Connection {
    shared: Arc<Shared>,
    router: Router,
    peer: SocketAddr,
    stopping: watch::Receiver<bool>,
}

impl Connection {
    async fn run(mut self, stream: TcpStream, mut slot: Slot) {
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY could not be set");
        }
        let nodelay = NoDelay(stream.nodelay().unwrap_or(false));
        let (shared, id, peer, router) = (self.shared.clone(), slot.id, self.peer, self.router);
        let body_timeout = self.shared.limits.body_timeout;
        // Whether no request head has arrived yet: only the first one takes the lock.
        let waiting = AtomicBool::new(true);
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            if waiting.swap(false, Ordering::Relaxed) {
                shared.served(id);
            }
            let deadline = Instant::now() + body_timeout;
            let mut request = request.map(|body| {
                Body::new(Deadline {
                    inner: body,
                    deadline,
                    sleep: None,
                })
            });
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(nodelay);
            router.clone().call(request)
        });
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.shared.limits.header_timeout);
        let conn = builder.serve_connection(TokioIo::new(stream), service);
        tokio::pin!(conn);
        // `listening`: shutdown has not begun; a connection accepted as it began ends at once.
        let (mut evictable, mut listening) = (true, !*self.stopping.borrow());
        if !listening {
            conn.as_mut().graceful_shutdown();
        }
        loop {
            tokio::select! {
                done = conn.as_mut() => {
                    if let Err(e) = done {
                        tracing::debug!(error = %e, peer = %peer.ip(), "a connection ended");
                    }
                    break;
                }
                evicted = &mut slot.evicted, if evictable => {
                    if evicted.is_ok() {
                        tracing::debug!(peer = %peer.ip(), "a connection still sending its request was closed to make room");
                        break;
                    }
                    evictable = false;
                }
                _ = self.stopping.changed(), if listening => {
                    conn.as_mut().graceful_shutdown();
                    listening = false;
                }
            }
        }
    }
}

/// A request body that must arrive whole by `deadline`; after it, reading fails (and the MCP
/// edge answers 408), and the connection is not kept.
struct Deadline {
    inner: Incoming,
    deadline: Instant,
    /// Made at the first read that has to wait: most bodies never do.
    sleep: Option<Pin<Box<Sleep>>>,
}

/// The error a body that missed its deadline reads as.
#[derive(Debug)]
struct BodyTimeout;

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for BodyTimeout {}

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
