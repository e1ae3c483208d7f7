//! `torrent_files`: the files of one torrent, read live from its instance, in pages.

use std::time::SystemTime;

use adapters_downloads::{Error, TorrentFile};
use domain::{Capability, InfoHash};
use parking_lot::Mutex;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{hashes, lookup};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError};

/// `torrent_files`, with its live reads and the pages built from them, shared for a moment.
#[derive(Default)]
pub struct TorrentFiles {
    reads: super::live::LiveMemo<FilesRead>,
}

/// The largest page of files.
const MAX_FILES: u32 = 500;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrent's info hash: 40 hexadecimal characters, as find_torrents shows it.
    #[schemars(regex(pattern = crate::ids::INFO_HASH))]
    pub info_hash: String,
    /// The download instance holding it (default: the instance whose catalogue has it).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Files per page, 1 to 500 (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_FILES))]
    pub limit: Option<u32>,
    /// Where the page starts: 0, or the `next_offset` of the previous page.
    #[serde(default)]
    pub offset: u32,
}

impl Tool for TorrentFiles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Files<'static>>);
    const META: Meta = Meta {
        name: "torrent_files",
        title: "Torrent files",
        description: "Lists the files of one torrent, named by info hash, read live from its download instance: path inside the torrent, size, progress, whether it is wanted and its priority. Pages of at most 500 with next_offset. One live read answers every caller for up to a second; observed_at says when it was made.",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let hash = hashes::one(&input.info_hash)?;
        let limit = input.limit.unwrap_or(100);
        if !(1..=MAX_FILES).contains(&limit) {
            return Err(ToolError::invalid(format!(
                "limit {limit} is out of range; use 1 to {MAX_FILES}"
            )));
        }
        let source = lookup::instance_of(ctx, hash, input.instance_id.as_deref()).await?;
        let id = source.id.as_str();
        let b = source.backend()?;
        let read = self
            .reads
            .read(id, hash, Some(b.catalogue.rows_version()), || async {
                Ok(FilesRead {
                    files: b.reads().torrent_files(hash).await?,
                    pages: Mutex::new(Vec::new()),
                })
            })
            .await;
        let files = match read.value {
            Ok(f) => f,
            Err(Error::NotFound { .. }) => {
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "instance {id} has no torrent with info hash {hash}; find_torrents lists what there is"
                    ),
                ));
            }
            Err(e) => {
                return Err(ToolError::new(
                    ErrorCode::BackendUnavailable,
                    format!("instance {id} could not list the files of {hash}: {e}"),
                ));
            }
        };
        Ok(files.page(id, hash, limit, input.offset, read.observed_at))
    }
}

/// One live read of a torrent's files, and the pages built from it so far (by limit and
/// offset): every caller the read answers gets a page rendered once.
pub(crate) struct FilesRead {
    files: Vec<TorrentFile>,
    pages: Mutex<Vec<(u32, u32, Output)>>,
}

/// Pages kept per read: an assistant walks a few pages of one torrent, not hundreds.
const PAGES_KEPT: usize = 8;

impl FilesRead {
    /// The page at `offset`: built once per read, then handed out again.
    fn page(
        &self,
        id: &str,
        hash: InfoHash,
        limit: u32,
        offset: u32,
        observed_at: SystemTime,
    ) -> Output {
        let mut pages = self.pages.lock();
        if let Some((.., out)) = pages.iter().find(|(l, o, _)| (*l, *o) == (limit, offset)) {
            return out.clone();
        }
        let out = page(id, hash, &self.files, limit, offset, observed_at);
        if pages.len() >= PAGES_KEPT {
            pages.remove(0);
        }
        pages.push((limit, offset, out.clone()));
        out
    }
}

/// The page of `files` at `offset`, observed at `observed_at`, marked to be handed out again.
fn page(
    id: &str,
    hash: InfoHash,
    files: &[TorrentFile],
    limit: u32,
    offset: u32,
    observed_at: SystemTime,
) -> Output {
    let total = files.len();
    let start = (offset as usize).min(total);
    let end = start.saturating_add(limit as usize).min(total);
    let next_offset = (end < total).then_some(end);
    let page = &files[start..end];
    let summary = match (total, page.len()) {
        (0, _) => format!(
            "The torrent {hash} on {id} lists no files yet (its metadata may still be loading)."
        ),
        (_, 0) => format!("The torrent has {total} files; none at offset {start}."),
        (_, n) => format!(
            "Files {}-{} of {total} of the torrent {hash} on {id}{}.",
            start + 1,
            start + n,
            next_offset
                .map(|o| format!("; offset {o} gives the next page"))
                .unwrap_or_default()
        ),
    };
    let data = Files {
        instance_id: id,
        info_hash: hash,
        files: page.iter().map(FileRow::of).collect(),
        total,
        offset: start,
        next_offset,
    };
    // Plain fields only: writing them cannot fail.
    let mut out = Output::new(summary, crate::typed::tree(&data));
    out.observed_at = observed_at.into();
    out.shared()
}

/// The answer's data: a page of the torrent's files.
#[derive(Serialize, JsonSchema)]
struct Files<'a> {
    instance_id: &'a str,
    #[schemars(with = "String")]
    info_hash: InfoHash,
    files: Vec<FileRow<'a>>,
    total: usize,
    offset: usize,
    next_offset: Option<usize>,
}

/// One file of a torrent.
#[derive(Serialize, JsonSchema)]
struct FileRow<'a> {
    index: u32,
    /// Path inside the torrent.
    name: &'a str,
    size: u64,
    progress: f64,
    /// False when the file is deselected ("do not download").
    wanted: bool,
    /// skip, low, normal or high.
    #[schemars(with = "String")]
    priority: adapters_downloads::FilePriority,
}

impl<'a> FileRow<'a> {
    fn of(f: &'a TorrentFile) -> FileRow<'a> {
        FileRow {
            index: f.index,
            name: &f.name,
            size: f.size,
            progress: f.progress,
            wanted: f.wanted,
            priority: f.priority,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(sizes: &[u64]) -> FilesRead {
        let files = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| TorrentFile {
                index: i as u32,
                name: format!("f{i}"),
                size,
                progress: 0.0,
                wanted: true,
                priority: adapters_downloads::FilePriority::Normal,
            })
            .collect();
        FilesRead {
            files,
            pages: Mutex::new(Vec::new()),
        }
    }

    fn sizes(out: &Output) -> Vec<u64> {
        out.data()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["size"].as_u64().unwrap())
            .collect()
    }

    #[test]
    fn each_page_of_a_read_is_built_once_and_a_new_read_shows_what_changed() {
        let hash = InfoHash::from_bytes([7; 20]);
        let at = SystemTime::UNIX_EPOCH;
        let first = read(&[10, 20, 30]);
        let a = first.page("qb", hash, 2, 0, at);
        let b = first.page("qb", hash, 2, 2, at);
        assert_eq!((sizes(&a), sizes(&b)), (vec![10, 20], vec![30]));
        assert_eq!(a.data()["next_offset"], 2);
        let _ = first.page("qb", hash, 2, 0, at);
        assert_eq!(
            first.pages.lock().len(),
            2,
            "the same page is not built again"
        );
        // The daemon's next read (a file grew) builds its pages anew.
        let next = read(&[10, 25, 30]);
        assert_eq!(sizes(&next.page("qb", hash, 2, 0, at)), vec![10, 25]);
    }
}
