//! `torrent_detail`: one torrent read live from its instance: the row, its metadata and its
//! trackers (URLs redacted), falling back to the cached row when the instance does not answer.

use adapters_downloads::{Error, TrackerEntry, TrackerErrorClass, TrackerStatus};
use domain::{Capability, InfoHash};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{freshness, hashes, lookup, rows};
use governance::ErrorCode;
use governance::{Ctx, Meta, Output, Tool, ToolError};

/// `torrent_detail`, with its live reads (the torrent and its trackers) as built answers,
/// shared for a moment.
#[derive(Default)]
pub struct TorrentDetail {
    reads: super::live::LiveMemo<Output>,
}

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
}

impl Tool for TorrentDetail {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Detail<'static>>);
    const META: Meta = Meta {
        name: "torrent_detail",
        title: "Torrent detail",
        description: "Reads one torrent, named by info hash, live from its download instance: state, progress, sizes, ratio, category, tags, save path, the torrent's own metadata (comment, creator, pieces, private flag) and its trackers with their last messages (URLs redacted). One live read answers every caller for up to a second; observed_at says when it was made.",
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
        let source = lookup::instance_of(ctx, hash, input.instance_id.as_deref()).await?;
        let b = source.backend()?;
        let id = source.id.as_str();
        let version = Some(b.catalogue.rows_version());
        let read = self
            .reads
            .read(id, hash, version, || async {
                let (detail, trackers) = futures::join!(
                    b.reads().torrent_detail(hash),
                    b.reads().torrent_trackers(hash)
                );
                Ok(answer(id, hash, &detail?, trackers))
            })
            .await;
        match read.value {
            // Built once per live read: every caller it answers gets the same rendered bytes.
            Ok(out) => Ok((*out).clone()),
            Err(Error::NotFound { .. }) => Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "instance {id} has no torrent with info hash {hash}; find_torrents lists what there is"
                ),
            )),
            Err(e) => {
                // The cached row is better than nothing, said plainly.
                let Some(t) = b.catalogue.get(&hash) else {
                    return Err(ToolError::new(
                        ErrorCode::BackendUnavailable,
                        format!("instance {id} could not be asked about {hash}: {e}"),
                    ));
                };
                let out = crate::typed::output(
                    format!(
                        "{} on {id} (cached row: the instance did not answer live).",
                        t.name
                    ),
                    &Detail::Cached {
                        torrent: rows::full_row(id, &t),
                        live: false,
                    },
                )?
                .warn(format!(
                    "instance {id} could not be asked live ({e}); this is the cached row"
                ));
                Ok(freshness::stamp(out, &[source]))
            }
        }
    }
}

/// The answer to one live read of a torrent (its detail, and its trackers or why they could
/// not be read), observed now and marked to be handed out again.
fn answer(
    id: &str,
    hash: InfoHash,
    detail: &adapters_downloads::TorrentDetail,
    trackers: Result<Vec<TrackerEntry>, Error>,
) -> Output {
    let t = &detail.torrent;
    let tracker_list = match &trackers {
        Ok(list) => Some(list.iter().map(tracker).collect::<Vec<_>>()),
        Err(_) => None,
    };
    let data = Detail::Live {
        torrent: rows::full_row(id, t),
        comment: detail.comment.as_deref().map(httpx::redact),
        created_by: detail.created_by.as_deref(),
        created_at: detail.created_at.and_then(freshness::unix_rfc3339),
        piece_size: detail.piece_size,
        pieces: detail.pieces,
        private: detail.private,
        seeding_seconds: detail.seeding_time,
        file_count: detail.file_count,
        trackers: tracker_list,
        live: true,
    };
    let summary = format!(
        "{} on {id}: {}, {:.1}% of {} bytes, ratio {:.2}{}.",
        t.name,
        t.state.as_str(),
        t.progress * 100.0,
        t.size,
        t.ratio,
        t.tracker_error
            .map(|c| format!(", tracker error ({})", c.as_str()))
            .unwrap_or_default()
    );
    // Plain fields only: writing them cannot fail.
    let mut out = Output::new(summary, crate::typed::tree(&data)).next("torrent_files");
    if let Err(e) = trackers {
        out = out.warn(format!("the trackers of {hash} could not be read: {e}"));
    }
    out.observed_at = chrono::Utc::now();
    out.shared()
}

/// The answer's data: the torrent read live with its detail and trackers, or its cached row
/// when the instance did not answer.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Detail<'a> {
    Live {
        torrent: rows::FullRow<'a>,
        /// The torrent file's comment, with key-like parts of links redacted.
        comment: Option<String>,
        created_by: Option<&'a str>,
        created_at: Option<String>,
        piece_size: Option<u64>,
        pieces: Option<u64>,
        private: Option<bool>,
        seeding_seconds: Option<u64>,
        file_count: Option<u64>,
        /// `null` when they could not be read (a warning says why).
        trackers: Option<Vec<TrackerRow<'a>>>,
        /// Always true here.
        live: bool,
    },
    Cached {
        torrent: rows::FullRow<'a>,
        /// Always false here.
        live: bool,
    },
}

/// One tracker of a torrent.
#[derive(Serialize, JsonSchema)]
struct TrackerRow<'a> {
    /// Scheme, host, port and path with key-like parts replaced by `***`; no query.
    url: &'a str,
    host: Option<&'a str>,
    tier: i64,
    /// disabled, not_contacted, working, updating or not_working.
    #[schemars(with = "String")]
    status: TrackerStatus,
    message: Option<&'a str>,
    #[schemars(with = "Option<String>")]
    error_class: Option<TrackerErrorClass>,
    seeds: Option<i64>,
    leechers: Option<i64>,
}

fn tracker(t: &TrackerEntry) -> TrackerRow<'_> {
    TrackerRow {
        url: &t.url,
        host: t.host.as_deref(),
        tier: t.tier,
        status: t.status,
        message: t.message.as_deref(),
        error_class: t.error_class,
        seeds: t.seeds,
        leechers: t.leechers,
    }
}
