//! What each library instance holds, as a set of catalogue ids kept in memory, so discovery rows
//! can say `in_library` without asking a service per row: the set is read once (one or two
//! requests), used for [`FRESH`], then handed out stale while one background read replaces it.
//! A failed read is kept as "unknown" for the same time, so a down instance costs discovery
//! one timeout per period, not one per call.

use std::{
    collections::HashSet,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use adapters_library::LibraryClient;
use domain::{Capability, MediaId, MediaSource};
use parking_lot::Mutex;
use tokio::time::Instant;

use super::source::Source;
use governance::context::Ctx;

/// How long a read set is used before it is read again (in the background).
pub(crate) const FRESH: Duration = Duration::from_secs(60);

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
    refreshing: AtomicBool,
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
    /// The set (`None`: unknown) and its generation; read now only the first time.
    pub(super) async fn get(
        &self,
        client: &Arc<LibraryClient>,
        instance: &str,
    ) -> (Option<Set>, u64) {
        let current = self.inner.state.lock().clone();
        match current {
            None => {
                self.inner.read(client, instance).await;
            }
            Some((at, _)) if at.elapsed() >= FRESH => {
                if !self.inner.refreshing.swap(true, Ordering::AcqRel) {
                    let inner = self.inner.clone();
                    let client = client.clone();
                    let instance = instance.to_string();
                    tokio::spawn(async move {
                        inner.read(&client, &instance).await;
                        inner.refreshing.store(false, Ordering::Release);
                    });
                }
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
