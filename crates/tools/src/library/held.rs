//! What each library instance holds, as a set of catalogue ids kept in memory, so discovery rows
//! can say `in_library` without asking a service per row: the set is read once (one or two
//! requests), used for [`FRESH`], then handed out stale while one background read replaces it:
//! the instance's job (`library.held:<id>`, started by `serve` with the shutdown future) reads
//! it again once a caller found it stale. A failed read is kept as "unknown" for the same time,
//! so a down instance costs discovery one timeout per period, not one per call.

use std::{
    collections::HashSet,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use adapters_library::LibraryClient;
use domain::{Capability, MediaId, MediaSource};
use governance::{Job, JobFuture};
use parking_lot::Mutex;
use tokio::time::Instant;

use super::source::Source;
use governance::context::Ctx;

/// How long a read set is used before it is read again (in the background).
pub(crate) const FRESH: Duration = Duration::from_secs(60);

/// How often an instance's job looks whether a caller found its set stale.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// One instance's set of held ids, shared with its background refresh.
#[derive(Default)]
pub(crate) struct HeldCache {
    inner: Arc<Inner>,
}

/// One instance's held ids.
pub(super) type Set = Arc<HashSet<MediaId>>;

#[derive(Default)]
struct Inner {
    /// When it was read, and what: `None` when the read failed.
    state: Mutex<Option<(Instant, Option<Set>)>>,
    /// Bumped whenever the set read differs from the one before (keys kept answers).
    generation: AtomicU64,
    /// Set by a caller that found the set older than [`FRESH`]; the job reads it again.
    wanted: AtomicBool,
    /// The client and instance the first read was made with, for the job's reads.
    source: OnceLock<(Arc<LibraryClient>, String)>,
}

impl Inner {
    async fn read(&self, client: &LibraryClient, instance: &str) {
        let set = match client.held_ids().await {
            Ok(ids) => Some(Arc::new(
                ids.into_iter()
                    .map(|(source, id)| MediaId::new(source, id))
                    .collect::<HashSet<_>>(),
            )),
            Err(e) => {
                tracing::warn!(instance, error = %e, "the library could not be read for in_library");
                None
            }
        };
        let mut state = self.state.lock();
        let changed = state.as_ref().map(|(_, old)| old) != Some(&set);
        if changed {
            self.generation.fetch_add(1, Ordering::Relaxed);
        }
        *state = Some((Instant::now(), set));
    }
}

impl HeldCache {
    /// The set (`None`: unknown) and its generation; read now only the first time. A stale
    /// set is handed out and left to the instance's job to read again.
    pub(super) async fn get(
        &self,
        client: &Arc<LibraryClient>,
        instance: &str,
    ) -> (Option<Set>, u64) {
        let current = self.inner.state.lock().clone();
        match current {
            None => {
                let _ = self
                    .inner
                    .source
                    .set((client.clone(), instance.to_string()));
                self.inner.read(client, instance).await;
            }
            Some((at, _)) if at.elapsed() >= FRESH => {
                self.inner.wanted.store(true, Ordering::Release);
            }
            Some(_) => {}
        }
        let set = self
            .inner
            .state
            .lock()
            .as_ref()
            .and_then(|(_, s)| s.clone());
        (set, self.inner.generation.load(Ordering::Relaxed))
    }

    /// The job `library.held:<instance>`: every [`LOOK_EVERY`], reads the set again when a
    /// caller found it stale since the last read. It holds only a weak reference: once the
    /// libraries are dropped, its passes do nothing.
    pub(super) fn job(&self, instance: &str) -> Job {
        let inner = Arc::downgrade(&self.inner);
        let pass = move || -> JobFuture {
            let inner = inner.clone();
            Box::pin(async move {
                let Some(inner) = inner.upgrade() else {
                    return;
                };
                if !inner.wanted.swap(false, Ordering::AcqRel) {
                    return;
                }
                if let Some((client, instance)) = inner.source.get() {
                    inner.read(client, instance).await;
                }
            })
        };
        Job {
            name: format!("library.held:{instance}"),
            every: LOOK_EVERY,
            on_every_replica: true,
            pass: Arc::new(pass),
        }
    }
}

/// The held sets of every library instance the caller may read, for one discovery answer.
#[derive(Default)]
pub(crate) struct Held {
    sets: Vec<Set>,
    /// Whether any library instance is readable by the caller: without one, rows carry no flag.
    shown: bool,
    /// Each readable instance and its set's generation: part of a kept answer's key.
    key: String,
}

impl Held {
    /// `Some(held)` when the caller may read a library; `None` leaves the flag out.
    pub fn of<'a>(&self, mut ids: impl Iterator<Item = &'a MediaId>) -> Option<bool> {
        if !self.shown {
            return None;
        }
        Some(ids.any(|id| {
            let imdb;
            let id = if id.media_source == MediaSource::Builtin {
                imdb = MediaId::new(MediaSource::Imdb, id.media_id.clone());
                &imdb
            } else {
                id
            };
            self.sets.iter().any(|s| s.contains(id))
        }))
    }

    /// What distinguishes this view of the libraries from another (empty when none is shown).
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// The held sets the caller may see: library instances its grant covers, with `library.read`.
pub(crate) async fn for_caller(ctx: &Ctx) -> Held {
    if !ctx.caller.can(Capability::LibraryRead) {
        return Held::default();
    }
    let readable: Vec<&Source> = super::libraries(ctx)
        .sources()
        .filter(|s| ctx.covers(&s.id))
        .collect();
    if readable.is_empty() {
        return Held::default();
    }
    let reads = readable
        .iter()
        .map(|s| async move { (s.id.as_str(), s.held_ids().await) });
    let mut held = Held {
        shown: true,
        ..Held::default()
    };
    for (id, read) in futures::future::join_all(reads).await {
        let Some((set, generation)) = read else {
            continue;
        };
        held.key.push_str(&format!(" {id}#{generation}"));
        held.sets.extend(set);
    }
    held
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use adapters_library::Service;
    use domain::Secret;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A library on 127.0.0.1 that answers every request with an empty list; counts them.
    async fn empty_library() -> (Arc<LibraryClient>, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = url::Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
        let served = Arc::new(AtomicUsize::new(0));
        let count = served.clone();
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf).await;
                let _ = conn
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]")
                    .await;
            }
        });
        let client = LibraryClient::new(Service::Radarr, url, Secret::new("k")).unwrap();
        (Arc::new(client), served)
    }

    #[tokio::test]
    async fn a_stale_set_is_handed_out_and_read_again_by_the_instances_job_not_the_caller() {
        let (client, served) = empty_library().await;
        let held = HeldCache::default();
        let job = held.job("radarr");
        assert_eq!(job.name, "library.held:radarr");
        let (set, _) = held.get(&client, "radarr").await;
        assert!(
            set.is_some_and(|s| s.is_empty()),
            "read at once the first time"
        );
        let first = served.load(Ordering::SeqCst);
        assert!(first >= 1);
        (job.pass)().await;
        assert_eq!(
            served.load(Ordering::SeqCst),
            first,
            "fresh: the job reads nothing"
        );
        // The set grows stale.
        if let Some((at, _)) = held.inner.state.lock().as_mut() {
            *at -= FRESH;
        }
        let (set, _) = held.get(&client, "radarr").await;
        assert!(set.is_some(), "the stale set is handed out");
        assert_eq!(
            served.load(Ordering::SeqCst),
            first,
            "the caller reads nothing"
        );
        (job.pass)().await;
        let second = served.load(Ordering::SeqCst);
        assert!(second > first, "the job read it again");
        let (at, _) = held.inner.state.lock().clone().unwrap();
        assert!(at.elapsed() < FRESH);
        (job.pass)().await;
        assert_eq!(served.load(Ordering::SeqCst), second, "once per stale set");
    }
}
