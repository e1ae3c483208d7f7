//! The index of media files on disk, per folder instance, kept in the store: a scan walks the
//! folder beneath its root (`adapters_folder`), recognises every video, audio and subtitle file
//! (names with the `recognize` crate, music from its tags), matches a catalogue identity the way
//! `recognize_media` does (ungated: the index is the household's; readers are filtered when they
//! read), and records what changed. Incremental: a file whose size and modification time are
//! unchanged is not read again; indexed files no longer on disk are removed once a walk saw the
//! whole folder. `scan_library` runs a scan on request, the job `files.scan:<id>` at start and
//! every [`SCAN_EVERY`] for each folder instance.

use std::{
    collections::HashMap,
    ops::ControlFlow,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use adapters_folder::{FolderError, Root};
use domain::{InstanceKind, KindFamily};
use futures::StreamExt;
use recognize::{Kind, Recognition};
use schemars::JsonSchema;
use serde::Serialize;
use store::Store;

use super::{
    index_read::{FileKind, Pending, Read, is_sample, read_batch, title_key},
    recognize_media::{best, search_for},
};
use crate::discover::Catalogues;
use governance::{ErrorCode, Instances, Job, JobFuture, Slots, ToolError};

/// How often each folder is scanned again while the server runs.
pub(crate) const SCAN_EVERY: Duration = Duration::from_secs(30 * 60);
/// Files recognised and written per store transaction (and between progress reports).
const BATCH: usize = 500;
/// Unrecognised names an answer shows at most.
const SAMPLE: usize = 5;

/// What one scan did: the answer of `scan_library` and the job's log line.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct ScanReport {
    pub instance_id: String,
    /// Video, audio and subtitle files found beneath the folder (samples excluded).
    pub media_files: u64,
    pub added: u64,
    pub changed: u64,
    pub removed: u64,
    /// Unchanged size and modification time: not read again.
    pub unchanged: u64,
    /// Media files (new or changed in this scan) whose name or tags said nothing recognisable.
    pub unrecognised: u64,
    /// A few of them (relative paths); left out for a content-limited caller.
    pub unrecognised_sample: Vec<String>,
    /// Sample clips, not indexed.
    pub samples: u64,
    /// Files that are no media (NFO, images, text...), not indexed.
    pub ignored: u64,
    /// Entries the walk left out: symlinks leading outside the folder, devices, FIFOs,
    /// sockets, names that are not UTF-8.
    pub skipped: u64,
    /// Folders beneath the root that could not be read: what is indexed beneath them stays.
    pub unreadable_folders: Vec<String>,
    /// Titles the catalogue could not be asked about in this scan (indexed without identity).
    pub catalogue_failures: u64,
    /// False when the scan was stopped before the end (nothing was removed then).
    pub complete: bool,
}

/// A catalogue identity, as the index keeps it.
#[derive(Clone, Debug)]
struct Identity {
    media_source: String,
    media_id: String,
    confidence: f64,
}

/// One folder instance as configured.
struct Folder {
    id: String,
    path: Option<String>,
}

/// The family's index state: the folders, the catalogues identities are matched with (built
/// from the same instances as discovery's, independent of any caller), one lock per folder so
/// that two scans of it never interleave.
pub(crate) struct LocalIndex {
    folders: Vec<Folder>,
    catalogues: Catalogues,
    movie_catalogue: Option<String>,
    tv_catalogue: Option<String>,
    locks: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
}

/// The catalogue a question of `kinds` goes to when no caller picks: the family default when
/// it fits, else the first default instance that does, else the first that does.
fn choose(instances: &Instances, kinds: &[InstanceKind]) -> Option<String> {
    let all = instances.all();
    let fits = |s: &&governance::InstanceSpec| kinds.contains(&s.kind);
    instances
        .resolve(KindFamily::Catalogue, None)
        .ok()
        .filter(fits)
        .or_else(|| all.iter().filter(fits).find(|s| s.default))
        .or_else(|| all.iter().find(fits))
        .map(|s| s.id.clone())
}

/// Why a scan could not run.
#[derive(Debug)]
pub(crate) enum ScanError {
    Tool(ToolError),
    Store(store::Error),
}

impl From<ToolError> for ScanError {
    fn from(e: ToolError) -> Self {
        ScanError::Tool(e)
    }
}

impl From<store::Error> for ScanError {
    fn from(e: store::Error) -> Self {
        ScanError::Store(e)
    }
}

impl ScanError {
    pub(crate) fn into_tool_error(self) -> ToolError {
        match self {
            ScanError::Tool(e) => e,
            ScanError::Store(e) => e.into(),
        }
    }

    fn message(&self) -> String {
        match self {
            ScanError::Tool(e) => e.message.clone(),
            ScanError::Store(e) => e.to_string(),
        }
    }
}

/// Sets the flag when the scan's future is dropped (the call was cancelled), so the walk on
/// its blocking thread stops too.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Where a scan reports how far it is.
pub(crate) type Progress<'a> = &'a (dyn Fn(usize, Option<usize>, &str) + Sync);

impl LocalIndex {
    pub(crate) fn from_instances(instances: &Instances) -> LocalIndex {
        let folders: Vec<Folder> = instances
            .all()
            .iter()
            .filter(|s| s.kind == InstanceKind::Folder)
            .map(|s| Folder {
                id: s.id.clone(),
                path: s.path.clone(),
            })
            .collect();
        LocalIndex {
            locks: folders
                .iter()
                .map(|f| (f.id.clone(), Arc::default()))
                .collect(),
            folders,
            catalogues: Catalogues::from_instances(instances),
            movie_catalogue: choose(instances, &[InstanceKind::Builtin, InstanceKind::Tmdb]),
            tv_catalogue: choose(instances, &[InstanceKind::Tmdb]),
        }
    }

    /// Whether a catalogue that knows shows is configured (episodes get an identity).
    pub(crate) fn knows_shows(&self) -> bool {
        self.tv_catalogue.is_some()
    }

    /// Scans the folder instance `id` (a folder of this index) and updates the store.
    pub(crate) async fn scan(
        &self,
        store: &Store,
        id: &str,
        progress: Progress<'_>,
    ) -> Result<ScanReport, ScanError> {
        let folder = self.folders.iter().find(|f| f.id == id).ok_or_else(|| {
            ToolError::new(
                ErrorCode::UnknownInstance,
                format!("\"{id}\" is no folder instance"),
            )
        })?;
        let lock = self.locks.get(id).cloned().unwrap_or_default();
        let _held = lock.lock().await;
        let root = Arc::new(open_root(folder).await?);
        let mut report = ScanReport {
            instance_id: id.to_owned(),
            ..ScanReport::default()
        };

        // What the index holds, then the walk on a blocking thread that stops when this future
        // is dropped (or stops listening): it compares each media file's size and modification
        // time as it is found (nothing else is read of an unchanged one) and hands the new and
        // changed ones over a batch at a time, while the batches before are recognised (two at
        // once), matched and written.
        let known = store.local_media_known(id).await?;
        let mut writer = store.local_media_writer().await?;
        let stop = Arc::new(AtomicBool::new(false));
        let _guard = StopOnDrop(stop.clone());
        progress(0, None, &format!("walking the folder \"{id}\""));
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<Pending>>(4);
        let walker = {
            let root = root.clone();
            let stop = stop.clone();
            tokio::task::spawn_blocking(move || walk_folder(&root, known, &stop, &tx))
        };
        let reads = tokio_stream_of(rx)
            .map(|batch| {
                let root = root.clone();
                let id = id.to_owned();
                blocking(move || read_batch(&root, &id, batch))
            })
            .buffered(2);
        futures::pin_mut!(reads);
        let mut memo: HashMap<(bool, String, Option<u32>), Option<Identity>> = HashMap::new();
        let mut done = 0;
        while let Some(reads) = reads.next().await {
            let reads = reads?;
            let n = reads.len();
            let mut rows = Vec::with_capacity(n);
            for (read, new) in reads {
                let Read {
                    mut row,
                    recognition,
                } = read;
                if row.media_type.is_none() {
                    report.unrecognised += 1;
                    if report.unrecognised_sample.len() < SAMPLE {
                        report.unrecognised_sample.push(row.path.clone());
                    }
                } else if let (Some(r), Some(title)) = (&recognition, row.title.as_deref()) {
                    let key = (r.kind == Kind::Episode, title_key(title), r.year);
                    let identity = match memo.get(&key) {
                        Some(known) => known.clone(),
                        None => {
                            let found = match self.identify(r, title).await {
                                Ok(found) => found,
                                Err(()) => {
                                    report.catalogue_failures += 1;
                                    None
                                }
                            };
                            memo.insert(key, found.clone());
                            found
                        }
                    };
                    if let Some(i) = identity {
                        row.media_source = Some(i.media_source);
                        row.media_id = Some(i.media_id);
                        row.confidence = Some(i.confidence);
                    }
                }
                if new {
                    report.added += 1;
                } else {
                    report.changed += 1;
                }
                rows.push(row);
            }
            writer.put(rows).await?;
            done += n;
            progress(done, None, &format!("{done} new or changed files read"));
        }
        let walked = walker.await.map_err(|e| {
            tracing::error!(error = %e, "a folder task ended without its answer");
            ToolError::new(
                ErrorCode::Internal,
                "reading the folder failed unexpectedly; the server log has the details",
            )
        })?;
        let Walked {
            summary,
            counts,
            known,
        } = walked.map_err(|e| folder_error(id, e))?;
        if summary.stopped {
            return Err(ToolError::new(
                ErrorCode::Internal,
                "the walk of the folder stopped before its end; what was recorded stays",
            )
            .into());
        }
        report.media_files = counts.media_files;
        report.unchanged = counts.unchanged;
        report.samples = counts.samples;
        report.ignored = counts.ignored;
        report.skipped = summary.skipped + counts.skipped;
        report.unreadable_folders = summary.unreadable.clone();
        progress(
            done,
            Some(done),
            &format!("{done} new or changed files read"),
        );

        // Gone from disk: only known when the walk saw every folder.
        let gone: Vec<String> = known
            .into_keys()
            .filter(|p| {
                !summary.unreadable.iter().any(|u| {
                    p.strip_prefix(u.as_str())
                        .is_some_and(|r| r.starts_with('/'))
                })
            })
            .collect();
        report.removed = store.remove_local_media(id, &gone).await?;
        report.complete = true;
        Ok(report)
    }

    /// The best catalogue identity for a recognised title, as `recognize_media` matches it;
    /// `Err` when the catalogue could not be asked.
    async fn identify(&self, r: &Recognition, title: &str) -> Result<Option<Identity>, ()> {
        let which = if r.kind == Kind::Episode {
            &self.tv_catalogue
        } else {
            &self.movie_catalogue
        };
        let Some(entry) = which.as_deref().and_then(|id| self.catalogues.entry(id)) else {
            return Ok(None);
        };
        let catalogue = entry.catalogue().await.map_err(|_| ())?;
        let page = catalogue
            .search_titles(&search_for(r, title))
            .await
            .map_err(|_| ())?;
        let m = best(r, title, &page.items);
        Ok(match (m["media_source"].as_str(), m["media_id"].as_str()) {
            (Some(source), Some(id)) => Some(Identity {
                media_source: source.to_owned(),
                media_id: id.to_owned(),
                confidence: m["confidence"].as_f64().unwrap_or_default(),
            }),
            _ => None,
        })
    }

    /// One job per folder instance: `files.scan:<id>`, at start and every [`SCAN_EVERY`]. A
    /// folder that is gone logs a warning; the others go on.
    pub(crate) fn jobs(self: &Arc<Self>, store: &Store) -> Vec<Job> {
        self.folders
            .iter()
            .map(|f| {
                let index = self.clone();
                let store = store.clone();
                let id = f.id.clone();
                let pass = move || -> JobFuture {
                    let index = index.clone();
                    let store = store.clone();
                    let id = id.clone();
                    Box::pin(async move {
                        match index.scan(&store, &id, &|_, _, _| {}).await {
                            Ok(r) => tracing::info!(
                                instance = %id,
                                added = r.added,
                                changed = r.changed,
                                removed = r.removed,
                                unchanged = r.unchanged,
                                unrecognised = r.unrecognised,
                                "files.scan: folder indexed"
                            ),
                            Err(e) => tracing::warn!(
                                instance = %id,
                                error = %e.message(),
                                "files.scan: the folder could not be scanned"
                            ),
                        }
                    })
                };
                Job {
                    name: format!("files.scan:{}", f.id),
                    every: SCAN_EVERY,
                    on_every_replica: false,
                    pass: Arc::new(pass),
                }
            })
            .collect()
    }
}

/// What the walk counted beside the files it handed over.
#[derive(Default)]
struct Counts {
    media_files: u64,
    unchanged: u64,
    samples: u64,
    ignored: u64,
    /// Names that were no regular file beneath the root when looked at.
    skipped: u64,
}

/// The walk's answer: its summary, its counts, and the indexed paths it did not see.
struct Walked {
    summary: adapters_folder::WalkSummary,
    counts: Counts,
    known: HashMap<String, (i64, i64)>,
}

/// Walks the folder (blocking): a name that is no video, audio or subtitle, or a sample, is
/// counted without being looked at; a media file's size and modification time are read and
/// compared with the index; the new and changed ones go out in batches of [`BATCH`]. Stops
/// when `stop` is set or nobody listens any more.
fn walk_folder(
    root: &Root,
    mut known: HashMap<String, (i64, i64)>,
    stop: &AtomicBool,
    tx: &tokio::sync::mpsc::Sender<Vec<Pending>>,
) -> Result<Walked, FolderError> {
    let mut counts = Counts::default();
    let mut batch = Vec::with_capacity(BATCH);
    let summary = root.walk_names(|c| {
        if stop.load(Ordering::Relaxed) {
            return ControlFlow::Break(());
        }
        let Some(kind) = FileKind::of(c.path) else {
            counts.ignored += 1;
            return ControlFlow::Continue(());
        };
        if is_sample(c.path, None) {
            counts.samples += 1;
            return ControlFlow::Continue(());
        }
        let Some(facts) = c.facts() else {
            counts.skipped += 1;
            return ControlFlow::Continue(());
        };
        counts.media_files += 1;
        let size = i64::try_from(facts.size).unwrap_or(i64::MAX);
        let new = match known.remove(c.path) {
            Some((s, m)) if s == size && m == facts.mtime_ns => {
                counts.unchanged += 1;
                return ControlFlow::Continue(());
            }
            Some(_) => false,
            None => true,
        };
        batch.push(Pending {
            entry: adapters_folder::WalkEntry {
                path: c.path.to_owned(),
                facts,
            },
            kind,
            new,
        });
        if batch.len() >= BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if tx.blocking_send(full).is_err() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    if !batch.is_empty() && !summary.stopped && tx.blocking_send(batch).is_err() {
        return Ok(Walked {
            summary: adapters_folder::WalkSummary {
                stopped: true,
                ..summary
            },
            counts,
            known,
        });
    }
    Ok(Walked {
        summary,
        counts,
        known,
    })
}

/// The batches the walk sends, as a stream.
fn tokio_stream_of<T: Send + 'static>(
    mut rx: tokio::sync::mpsc::Receiver<T>,
) -> impl futures::Stream<Item = T> {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// The index state the files family installed.
pub(crate) fn install(instances: &Arc<Instances>, slots: &mut Slots) {
    slots.insert(Arc::new(LocalIndex::from_instances(instances)));
}

/// The scan jobs, when the store and the index are installed.
pub(crate) fn jobs(slots: &Slots) -> Vec<Job> {
    match (slots.get::<Arc<LocalIndex>>(), slots.get::<Store>()) {
        (Some(index), Some(store)) => index.jobs(store),
        _ => Vec::new(),
    }
}

/// Runs blocking file-system work off the runtime's workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        tracing::error!(error = %e, "a folder task ended without its answer");
        ToolError::new(
            ErrorCode::Internal,
            "reading the folder failed unexpectedly; the server log has the details",
        )
    })
}

async fn open_root(folder: &Folder) -> Result<Root, ToolError> {
    let id = folder.id.clone();
    let Some(path) = folder.path.clone() else {
        return Err(ToolError::new(
            ErrorCode::BackendMisconfigured,
            format!(
                "the folder instance \"{id}\" has no path; set path under its [[instances]] entry in marquee.toml"
            ),
        ));
    };
    blocking(move || Root::open(&path))
        .await?
        .map_err(|e| folder_error(&folder.id, e))
}

/// A folder failure as the tools answer it, naming the instance.
pub(crate) fn folder_error(id: &str, e: FolderError) -> ToolError {
    match e {
        FolderError::RootUnavailable { .. } => ToolError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "the folder instance \"{id}\" cannot be read: {e}; check that the folder exists and its path in marquee.toml"
            ),
        ),
        other => ToolError::new(
            ErrorCode::BackendUnavailable,
            format!("the folder instance \"{id}\": {other}"),
        ),
    }
}
