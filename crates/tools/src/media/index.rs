//! Each media server's items, kept in memory and keyed by provider id (tmdb, imdb, tvdb), so
//! "is it in the library" and "what was added" are lookups, not round trips. The server's
//! job (`media.sync:<id>`, started by `serve` with the shutdown future) reads the whole
//! library page by page when the index is missing or older than [`FRESH`]; a caller that finds
//! no index yet reads it at once (one read at a time per server, shared with the job). A failed
//! read keeps the index read before it and is reported with the server's name.

use std::{collections::HashMap, sync::Arc, time::Duration};

use adapters_media::{ItemKind, MediaClient, MediaItem};
use domain::MediaSource;
use governance::{Job, JobFuture};
use parking_lot::Mutex;
use tokio::time::Instant;

/// How long a read library is used before the job reads it again.
pub(crate) const FRESH: Duration = Duration::from_secs(5 * 60);
/// How often a server's job looks whether its index is due.
const LOOK_EVERY: Duration = Duration::from_secs(5);
/// How soon a failed read is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(60);

/// The slot of a provider's ids in [`Snapshot`]'s maps.
fn provider(source: MediaSource) -> Option<usize> {
    match source {
        MediaSource::Tmdb => Some(0),
        MediaSource::Imdb => Some(1),
        MediaSource::Tvdb => Some(2),
        _ => None,
    }
}

/// One server's items, looked up by id, provider id and show.
#[derive(Default)]
pub(crate) struct Snapshot {
    items: Vec<MediaItem>,
    by_id: HashMap<String, usize>,
    /// Titles by provider id (lower-case), one map per provider ([`provider`]): a lookup of an
    /// id already in that form borrows it, with no key built per row of a page.
    by_provider: [HashMap<String, Vec<usize>>; 3],
    /// A show's episodes, by the show's id on the server.
    episodes: HashMap<String, Vec<usize>>,
    /// Every item's index, most recently added first (items without a date last).
    recent: Vec<usize>,
}

impl Snapshot {
    pub(crate) fn build(items: Vec<MediaItem>) -> Snapshot {
        let mut s = Snapshot {
            by_id: HashMap::with_capacity(items.len()),
            ..Snapshot::default()
        };
        for (i, item) in items.iter().enumerate() {
            s.by_id.insert(item.id.clone(), i);
            // Episodes carry their own provider ids (a TVDB episode id): kept out, so a title's
            // id finds the title only.
            if item.kind != ItemKind::Episode {
                for (source, id) in [
                    (MediaSource::Tmdb, &item.ids.tmdb),
                    (MediaSource::Imdb, &item.ids.imdb),
                    (MediaSource::Tvdb, &item.ids.tvdb),
                ] {
                    if let (Some(id), Some(p)) = (id, provider(source)) {
                        s.by_provider[p]
                            .entry(id.trim().to_ascii_lowercase())
                            .or_default()
                            .push(i);
                    }
                }
            }
            if let (ItemKind::Episode, Some(series)) = (item.kind, &item.series_id) {
                s.episodes.entry(series.clone()).or_default().push(i);
            }
        }
        let mut recent: Vec<usize> = (0..items.len()).collect();
        recent.sort_by(|&a, &b| items[b].added_at.cmp(&items[a].added_at));
        s.recent = recent;
        s.items = items;
        s
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The titles (movies, shows) the server knows by this provider id.
    pub(crate) fn lookup(&self, source: MediaSource, id: &str) -> impl Iterator<Item = &MediaItem> {
        let id = id.trim();
        provider(source)
            .and_then(|p| {
                let map = &self.by_provider[p];
                if id.bytes().any(|b| b.is_ascii_uppercase()) {
                    map.get(&id.to_ascii_lowercase())
                } else {
                    map.get(id)
                }
            })
            .into_iter()
            .flatten()
            .map(|&i| &self.items[i])
    }

    pub(crate) fn item(&self, id: &str) -> Option<&MediaItem> {
        self.by_id.get(id).map(|&i| &self.items[i])
    }

    /// A show's episodes on the server.
    pub(crate) fn episodes(&self, series_id: &str) -> impl Iterator<Item = &MediaItem> {
        self.episodes
            .get(series_id)
            .into_iter()
            .flatten()
            .map(|&i| &self.items[i])
    }

    /// A show's seasons on the server and each one's episode numbers, in order.
    pub(crate) fn seasons(&self, series_id: &str) -> Vec<(u32, Vec<u32>)> {
        let mut by: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for e in self.episodes(series_id) {
            by.entry(e.season.unwrap_or(0))
                .or_default()
                .extend(e.episode);
        }
        by.into_iter()
            .map(|(season, mut episodes)| {
                episodes.sort_unstable();
                episodes.dedup();
                (season, episodes)
            })
            .collect()
    }

    /// Items, most recently added first.
    pub(crate) fn recent(&self) -> impl Iterator<Item = &MediaItem> {
        self.recent.iter().map(|&i| &self.items[i])
    }
}

/// One server's index and its sync.
pub(crate) struct Index {
    inner: Arc<Inner>,
}

struct Inner {
    client: Option<Arc<MediaClient>>,
    state: Mutex<State>,
    /// One read at a time (the job's or a first caller's).
    reading: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    /// The last index read well, and when.
    good: Option<(Instant, Arc<Snapshot>)>,
    /// The last read's failure, and when (cleared by a good read).
    failed: Option<(Instant, String)>,
    /// Counts the reads that finished: what a kept answer built from this index is keyed by.
    generation: u64,
}

/// What a caller gets: the index (the last good one), and the last read's failure if it failed.
pub(crate) struct Found {
    pub snapshot: Option<Arc<Snapshot>>,
    pub failure: Option<String>,
    /// How many reads have finished (good or failed): changes whenever the answer may.
    pub generation: u64,
}

impl Index {
    pub(crate) fn new(client: Option<Arc<MediaClient>>) -> Index {
        Index {
            inner: Arc::new(Inner {
                client,
                state: Mutex::new(State::default()),
                reading: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The index; read now only when none was ever read (or tried).
    pub(crate) async fn get(&self, instance: &str) -> Found {
        let tried = {
            let s = self.inner.state.lock();
            s.good.is_some() || s.failed.is_some()
        };
        if !tried {
            self.inner.sync(instance, false).await;
        }
        self.inner.found()
    }

    /// The index without waiting on the server for longer than `wait`: when none was ever read,
    /// a read starts (on its own task, so it finishes for the next caller and the job even when
    /// this one stops waiting) and is waited for up to `wait`. Discovery asks this way: a slow
    /// server never holds up its answer.
    pub(crate) async fn get_within(&self, instance: &str, wait: Duration) -> Found {
        let tried = {
            let s = self.inner.state.lock();
            s.good.is_some() || s.failed.is_some()
        };
        if !tried && self.inner.client.is_some() {
            let inner = self.inner.clone();
            let id = instance.to_string();
            let read = tokio::spawn(async move { inner.sync(&id, false).await });
            let _ = tokio::time::timeout(wait, read).await;
        }
        self.inner.found()
    }

    /// Reads the library now (a read that finished within the last second is the answer).
    pub(crate) async fn refresh(&self, instance: &str) -> Found {
        self.inner.sync(instance, false).await;
        self.inner.found()
    }

    /// The job `media.sync:<instance>`: reads the library when it was never read, is older than
    /// [`FRESH`], or the last read failed more than [`RETRY_AFTER`] ago. Holds only a weak
    /// reference: once the servers are dropped, its passes do nothing.
    pub(crate) fn job(&self, instance: &str) -> Job {
        let inner = Arc::downgrade(&self.inner);
        let id = instance.to_string();
        let pass = move || -> JobFuture {
            let inner = inner.clone();
            let id = id.clone();
            Box::pin(async move {
                if let Some(inner) = inner.upgrade() {
                    inner.sync(&id, true).await;
                }
            })
        };
        Job {
            name: format!("media.sync:{instance}"),
            every: LOOK_EVERY,
            on_every_replica: true,
            pass: Arc::new(pass),
        }
    }
}

impl Inner {
    fn found(&self) -> Found {
        let s = self.state.lock();
        Found {
            snapshot: s.good.as_ref().map(|(_, snap)| snap.clone()),
            failure: s.failed.as_ref().map(|(_, why)| why.clone()),
            generation: s.generation,
        }
    }

    fn due(&self) -> bool {
        let s = self.state.lock();
        match (&s.good, &s.failed) {
            (_, Some((at, _))) => at.elapsed() >= RETRY_AFTER,
            (Some((at, _)), None) => at.elapsed() >= FRESH,
            (None, None) => true,
        }
    }

    /// One read of the library; `only_if_due` skips it when the index is fresh.
    async fn sync(&self, instance: &str, only_if_due: bool) {
        let Some(client) = &self.client else { return };
        let _one = self.reading.lock().await;
        if only_if_due && !self.due() {
            return;
        }
        if !only_if_due {
            // A read finished while this one waited: it is the answer (a failure too, so
            // callers queued behind a failing server do not each wait for it again).
            let s = self.state.lock();
            let just = |at: &Instant| at.elapsed() < Duration::from_secs(1);
            if s.good.as_ref().is_some_and(|(at, _)| just(at))
                || s.failed.as_ref().is_some_and(|(at, _)| just(at))
            {
                return;
            }
        }
        let read = client.all_items().await;
        let mut s = self.state.lock();
        s.generation += 1;
        match read {
            Ok(items) => {
                let snapshot = Arc::new(Snapshot::build(items));
                tracing::debug!(
                    instance,
                    items = snapshot.len(),
                    "media server library read"
                );
                s.good = Some((Instant::now(), snapshot));
                s.failed = None;
            }
            Err(e) => {
                let why = format!("media server {instance} could not be read: {e}");
                tracing::warn!(instance, error = %e, "the media server's library could not be read");
                s.failed = Some((Instant::now(), why));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use adapters_media::ProviderIds;

    use super::*;

    fn item(
        id: &str,
        kind: ItemKind,
        tmdb: Option<&str>,
        series: Option<&str>,
        added: &str,
    ) -> MediaItem {
        MediaItem {
            id: id.into(),
            kind,
            title: id.into(),
            year: None,
            series_id: series.map(Into::into),
            series_title: None,
            season: series.map(|_| 1),
            episode: series.map(|_| 1),
            ids: ProviderIds {
                tmdb: tmdb.map(Into::into),
                imdb: None,
                tvdb: None,
            },
            rating: None,
            genres: Vec::new(),
            added_at: Some(added.into()),
            runtime_seconds: None,
        }
    }

    #[test]
    fn titles_are_found_by_provider_id_and_shows_list_their_episodes() {
        let s = Snapshot::build(vec![
            item("m", ItemKind::Movie, Some("348"), None, "2026-01-01"),
            item("s", ItemKind::Series, Some("82728"), None, "2026-02-01"),
            item("e", ItemKind::Episode, Some("348"), Some("s"), "2026-03-01"),
        ]);
        let found: Vec<&str> = s
            .lookup(MediaSource::Tmdb, "348")
            .map(|i| i.id.as_str())
            .collect();
        assert_eq!(
            found,
            ["m"],
            "an episode's own id does not find it as a title"
        );
        assert_eq!(s.lookup(MediaSource::Imdb, "348").count(), 0);
        let eps: Vec<&str> = s.episodes("s").map(|i| i.id.as_str()).collect();
        assert_eq!(eps, ["e"]);
        let recent: Vec<&str> = s.recent().map(|i| i.id.as_str()).collect();
        assert_eq!(recent, ["e", "s", "m"]);
    }
}
