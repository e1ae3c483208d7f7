//! Downloads: the torrent tool family over qBittorrent and Transmission instances, answered
//! from each instance's cached catalogue.
//!
//! Every download instance gets one [`DownloadClient`] and one [`TorrentCatalogue`]. A background
//! task per instance refreshes the catalogue every few seconds, so listings, filters and pages
//! never wait on a backend; only the first read of a never-loaded catalogue waits, briefly, for
//! one refresh. Writes go to the client and then re-read the torrents they touched.

mod add_torrent;
pub(crate) mod add_torrent_url;
mod delete_torrents;
mod downloads_overview;
mod find_torrents;
mod freshness;
mod hashes;
pub(crate) mod labels;
mod list_categories;
mod live;
mod lookup;
mod memo;
mod move_to_category;
mod outcome;
mod pause_torrents;
mod reannounce_torrents;
mod recheck_torrents;
pub(crate) mod refresher;
mod resume_torrents;
mod rows;
mod set_category;
mod set_tags;
mod source;
mod torrent_detail;
mod torrent_file;
mod torrent_files;
mod tracker_errors;
mod write;

use std::sync::Arc;

use domain::{InstanceKind, KindFamily};
use governance::{CheckFuture, Family, InstanceSpec, Job, Slots};
use policy::Allowed;
pub(crate) use source::{Backend, Source};

use governance::{
    context::Ctx,
    contract::DynTool,
    error::{ErrorCode, ToolError},
    instances::Instances,
};

/// The download instances' clients and catalogues, built once at start.
#[derive(Default)]
pub struct Downloads {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    sources: Vec<Source>,
    /// The answers of the reads that count every torrent (`downloads_overview`,
    /// `list_categories`, `tracker_errors`), by tool and instance asked, likewise.
    count_memo: memo::Memo<(&'static str, Option<String>)>,
}

impl Downloads {
    pub fn from_instances(instances: &Instances) -> Downloads {
        let sources = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::Download)
            .map(|spec| Source::from_spec(spec, instances.own_timeout(&spec.id)))
            .collect();
        Downloads {
            inner: Arc::new(Inner {
                sources,
                count_memo: memo::Memo::default(),
            }),
        }
    }

    pub(crate) fn sources(&self) -> &[Source] {
        &self.inner.sources
    }

    pub(crate) fn count_memo(&self) -> &memo::Memo<(&'static str, Option<String>)> {
        &self.inner.count_memo
    }

    /// The download client's own check of the instance `id` (for diagnose): `None` when `id`
    /// is no download instance, else what it found or a sentence saying what to fix.
    pub async fn check(&self, id: &str) -> Option<Result<String, String>> {
        let source = self.by_id(id)?;
        let backend = match source.state() {
            Ok(b) => b,
            Err(why) => return Some(Err(why.to_owned())),
        };
        Some(backend.reads().check().await.map_err(|e| {
            let fix = match e.class() {
                adapters_downloads::ErrorClass::Unauthorized => {
                    "check the instance's username and password in marquee.toml"
                }
                // The error itself says what to do (restart the daemon, or wait).
                adapters_downloads::ErrorClass::LockedOut => "then run diagnose again",
                _ => "check that the daemon runs and the instance's url in marquee.toml",
            };
            format!("{id}: {e}; {fix}")
        }))
    }

    fn by_id(&self, id: &str) -> Option<&Source> {
        self.inner.sources.iter().find(|s| s.id == id)
    }
}

/// The named download instance, or the default one, with the decision for this call on it;
/// refused when unknown or when `policy::decide` refuses it.
pub(crate) fn granted<'c>(
    ctx: &'c Ctx,
    id: Option<&str>,
) -> Result<(&'c Source, Allowed), ToolError> {
    let (spec, allowed) = ctx.instance(KindFamily::Download, id)?;
    let source = downloads(ctx).by_id(&spec.id).ok_or_else(|| {
        ToolError::new(
            ErrorCode::BackendUnavailable,
            format!("instance {} is not a download client", spec.id),
        )
    })?;
    Ok((source, allowed))
}

/// The named download instance, or the default one, for a read.
pub(crate) fn one<'c>(ctx: &'c Ctx, id: Option<&str>) -> Result<&'c Source, ToolError> {
    granted(ctx, id).map(|(source, _)| source)
}

/// The named download instance, or every download instance `policy::decide` allows this call
/// on, each with its decision.
pub(crate) fn chosen_granted<'c>(
    ctx: &'c Ctx,
    id: Option<&str>,
) -> Result<Vec<(&'c Source, Allowed)>, ToolError> {
    if id.is_some() {
        return Ok(vec![granted(ctx, id)?]);
    }
    let covered: Vec<(&Source, Allowed)> = downloads(ctx)
        .sources()
        .iter()
        .filter_map(|s| ctx.authorize(&s.id).ok().map(|a| (s, a)))
        .collect();
    if covered.is_empty() {
        // Same refusal as a single read: no instance, or none the grant covers.
        granted(ctx, None)?;
        return Err(ToolError::denied("your grant covers no download instance"));
    }
    Ok(covered)
}

/// The named download instance, or every download instance this call is allowed on, for a read.
pub(crate) fn chosen<'c>(ctx: &'c Ctx, id: Option<&str>) -> Result<Vec<&'c Source>, ToolError> {
    Ok(chosen_granted(ctx, id)?
        .into_iter()
        .map(|(source, _)| source)
        .collect())
}
/// The download instances whose torrents the caller may read, for a tool of another family that
/// shows a torrent's state: each decided as a `find_torrents` call on that instance (the one
/// authority path), their catalogues loaded (one bounded wait for all), and how many configured
/// download instances were left out because the caller may not read them.
pub(crate) async fn readable(ctx: &Ctx) -> (Vec<&Source>, usize) {
    use governance::contract::Tool;
    let meta = <find_torrents::FindTorrents as Tool>::META;
    let all = downloads(ctx).sources();
    let allowed: Vec<&Source> = all
        .iter()
        .filter(|s| {
            governance::authority::decide(
                &ctx.caller,
                &meta,
                ctx.settings().allow_destructive(),
                Some(&s.id),
            )
            .is_ok()
        })
        .collect();
    refresher::ensure_loaded(&allowed).await;
    let withheld = all.len() - allowed.len();
    (allowed, withheld)
}

/// The torrent tools over the qBittorrent and Transmission instances.
pub struct DownloadsFamily;

impl Family for DownloadsFamily {
    fn name(&self) -> &'static str {
        "downloads"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Qbittorrent, InstanceKind::Transmission]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        tools()
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Downloads::from_instances(instances));
    }

    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        slots
            .get::<Downloads>()
            .map_or_else(Vec::new, |d| refresher::jobs(d.sources()))
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<Downloads>()?.check(&spec.id).await })
    }
}

/// The download instances, as the family installed them (none in a core without it).
pub(crate) fn downloads(ctx: &Ctx) -> &Downloads {
    static NONE: std::sync::OnceLock<Downloads> = std::sync::OnceLock::new();
    ctx.family::<Downloads>()
        .unwrap_or_else(|_| NONE.get_or_init(Downloads::default))
}

fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(downloads_overview::DownloadsOverview),
        Box::new(find_torrents::FindTorrents::default()),
        Box::new(torrent_detail::TorrentDetail::default()),
        Box::new(torrent_files::TorrentFiles::default()),
        Box::new(tracker_errors::TrackerErrors),
        Box::new(list_categories::ListCategories),
        Box::new(add_torrent::AddTorrent),
        Box::new(pause_torrents::PauseTorrents),
        Box::new(resume_torrents::ResumeTorrents),
        Box::new(recheck_torrents::RecheckTorrents),
        Box::new(reannounce_torrents::ReannounceTorrents),
        Box::new(set_category::SetCategory),
        Box::new(set_tags::SetTags),
        Box::new(move_to_category::MoveToCategory),
        Box::new(delete_torrents::DeleteTorrents),
    ]
}
