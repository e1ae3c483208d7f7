//! Contract fakes of indexers: a Prowlarr (API v1, its answers checked against Prowlarr's own
//! OpenAPI document) and a Torznab feed (Jackett's XML shapes: caps, RSS with `torznab:attr`,
//! the `<error code=".." description=".."/>` answer). Both serve the same kind of seeded
//! releases, each with a .torrent or a magnet to hand out at their own download links, and can
//! be told to answer slowly or badly.

pub mod prowlarr;
mod torznab;

pub use prowlarr::ProwlarrFake;
pub use torznab::{FeedMode, TorznabFake};

use std::{net::SocketAddr, sync::Arc};

use axum::{
    Router,
    extract::{Query, State},
    http::{HeaderMap, Method, Uri},
    response::Response,
};
use parking_lot::Mutex;
use tokio::sync::oneshot;

use crate::RecordedRequest;

/// One release an indexer fake answers.
#[derive(Clone, Debug, Default)]
pub struct FakeRelease {
    pub title: String,
    pub size: u64,
    pub seeders: u32,
    pub peers: u32,
    /// 40 lowercase hex digits.
    pub info_hash: Option<String>,
    /// "tt0133093".
    pub imdb: Option<String>,
    pub tvdb: Option<u64>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    /// Served at the release's download link.
    pub torrent: Option<Vec<u8>>,
    /// Handed out as the release's magnet (and the download link redirects to it when there
    /// is no .torrent).
    pub magnet: Option<String>,
    /// A Newznab (usenet) row.
    pub usenet: bool,
    pub description: Option<String>,
    /// Days since it was published.
    pub age_days: i64,
}

impl FakeRelease {
    /// A torrent release with `seeders` seeders and a made-up hash from `n`.
    pub fn torrent(title: &str, size: u64, seeders: u32, n: u8) -> FakeRelease {
        FakeRelease {
            title: title.into(),
            size,
            seeders,
            peers: seeders + 3,
            info_hash: Some(format!("{:02x}", n).repeat(20)),
            ..FakeRelease::default()
        }
    }

    /// Does this release answer a search for `q` (words), `imdb`, `tvdb`/`season`/`episode`?
    pub(crate) fn answers(
        &self,
        q: Option<&str>,
        imdb: Option<&str>,
        tvdb: Option<u64>,
        season: Option<u32>,
        episode: Option<u32>,
    ) -> bool {
        let words_ok = q.is_none_or(|q| {
            let title = self.title.to_lowercase().replace(['.', '_', '-'], " ");
            q.to_lowercase()
                .split_whitespace()
                .all(|w| title.contains(w))
        });
        let imdb_ok = imdb.is_none_or(|i| {
            let want = i.trim_start_matches("tt").trim_start_matches('0');
            self.imdb
                .as_deref()
                .is_some_and(|m| m.trim_start_matches("tt").trim_start_matches('0') == want)
        });
        words_ok
            && imdb_ok
            && tvdb.is_none_or(|t| self.tvdb == Some(t))
            && season.is_none_or(|s| self.season == Some(s))
            && episode.is_none_or(|e| self.episode == Some(e))
    }
}

/// A fake's answer, given the request: async, so a fake can be slow.
pub(crate) type Answer = dyn Fn(RecordedRequest) -> futures_like::BoxAnswer + Send + Sync;

pub(crate) mod futures_like {
    use std::{future::Future, pin::Pin};

    use axum::response::Response;

    pub type BoxAnswer = Pin<Box<dyn Future<Output = Response> + Send>>;
}

struct Shared {
    log: Mutex<Vec<RecordedRequest>>,
    answer: Box<Answer>,
}

/// A running indexer fake's server.
pub(crate) struct Served {
    pub base: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl Served {
    pub(crate) async fn start(answer: Box<Answer>) -> Served {
        let shared = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            answer,
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr: SocketAddr = listener.local_addr().expect("local addr");
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await;
        });
        Served {
            base: format!("http://{addr}"),
            shared,
            stop: Some(tx),
        }
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log.lock().clone()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    Query(query): Query<Vec<(String, String)>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let request = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_string(),
        query,
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        at: std::time::Instant::now(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    shared.log.lock().push(request.clone());
    (shared.answer)(request).await
}
