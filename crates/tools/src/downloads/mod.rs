//! Downloads: the torrent tool family over qBittorrent and Transmission instances, answered
//! from each instance's cached catalogue.
//!
//! Every download instance gets one [`DownloadClient`] and one [`TorrentCatalogue`]. A background
//! task per instance refreshes the catalogue every few seconds, so listings, filters and pages
//! never wait on a backend; only the first read of a never-loaded catalogue waits, briefly, for
//! one refresh. Writes go to the client and then re-read the torrents they touched.

mod add_torrent;
pub(crate) mod delete_torrents;
mod downloads_overview;
mod find_torrents;
mod freshness;
mod hashes;
mod labels;
mod list_categories;
mod lookup;
mod memo;
mod move_to_category;
mod outcome;
mod pause_torrents;
mod reannounce_torrents;
mod recheck_torrents;
mod refresher;
mod resume_torrents;
mod rows;
mod set_category;
mod set_tags;
mod torrent_detail;
mod torrent_file;
mod torrent_files;
mod tracker_errors;
mod write;

use std::sync::{Arc, atomic::AtomicBool};

use adapters_downloads::{ClientConfig, DownloadClient, TorrentCatalogue};
use domain::{InfoHash, InstanceId, InstanceKind, KindFamily};

use crate::{
    context::Ctx,
    contract::{DynTool, ToolError},
    instances::{InstanceSpec, Instances},
};

/// The download instances' clients and catalogues, built once at start.
#[derive(Default)]
pub struct Downloads {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    sources: Vec<Source>,
    /// Set once the background refreshers run (at start, or at the first call when the
    /// downloads were built outside a tokio runtime).
    refreshing: AtomicBool,
    /// `find_torrents` answers, until a catalogue they read changes.
    find_memo: memo::Memo<adapters_downloads::TorrentQuery>,
}

/// One download instance as the tools see it.
pub(crate) struct Source {
    pub id: String,
    pub kind: InstanceKind,
    /// The client and its catalogue, or why the instance's config could not make one.
    pub backend: Result<Backend, String>,
}

pub(crate) struct Backend {
    pub client: Arc<DownloadClient>,
    pub catalogue: Arc<TorrentCatalogue>,
}

impl Downloads {
    pub fn from_instances(instances: &Instances) -> Downloads {
        let sources = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::Download)
            .map(|spec| Source {
                id: spec.id.clone(),
                kind: spec.kind,
                backend: backend(spec),
            })
            .collect();
        let downloads = Downloads {
            inner: Arc::new(Inner {
                sources,
                refreshing: AtomicBool::new(false),
                find_memo: memo::Memo::default(),
            }),
        };
        downloads.start_refreshers();
        downloads
    }

    /// Starts the background refreshers when a tokio runtime exists and they do not run yet.
    pub(crate) fn start_refreshers(&self) {
        refresher::start(&self.inner);
    }

    pub(crate) fn sources(&self) -> &[Source] {
        &self.inner.sources
    }

    pub(crate) fn find_memo(&self) -> &memo::Memo<adapters_downloads::TorrentQuery> {
        &self.inner.find_memo
    }

    fn by_id(&self, id: &str) -> Option<&Source> {
        self.inner.sources.iter().find(|s| s.id == id)
    }
}

fn backend(spec: &InstanceSpec) -> Result<Backend, String> {
    let url = spec.url.clone().ok_or_else(|| {
        format!(
            "instance {} has no url; set url in its [[instances]] entry",
            spec.id
        )
    })?;
    let config = ClientConfig {
        kind: spec.kind,
        url,
        username: spec.username.clone(),
        password: spec.password.clone(),
        timeouts: refresher::TIMEOUTS,
    };
    let client = Arc::new(
        DownloadClient::new(config)
            .map_err(|e| format!("instance {} cannot be set up: {e}", spec.id))?,
    );
    let catalogue = Arc::new(TorrentCatalogue::new(
        InstanceId(spec.id.clone()),
        client.clone(),
    ));
    Ok(Backend { client, catalogue })
}

impl Source {
    /// The backend, or a tool error naming why this instance cannot be used.
    pub fn backend(&self) -> Result<&Backend, ToolError> {
        self.backend
            .as_ref()
            .map_err(|e| ToolError::new("backend_unavailable", e.clone()))
    }

    /// The cached row of `hash`, when this instance's catalogue has it.
    pub fn has(&self, hash: &InfoHash) -> bool {
        self.backend
            .as_ref()
            .is_ok_and(|b| b.catalogue.get(hash).is_some())
    }
}

/// The named download instance, or the default one; refused when unknown or outside the grant.
pub(crate) fn one<'c>(ctx: &'c Ctx, id: Option<&str>) -> Result<&'c Source, ToolError> {
    let spec = ctx.instance(KindFamily::Download, id)?;
    ctx.downloads().start_refreshers();
    ctx.downloads().by_id(&spec.id).ok_or_else(|| {
        ToolError::new(
            "backend_unavailable",
            format!("instance {} is not a download client", spec.id),
        )
    })
}

/// The named download instance, or every download instance the caller's grant covers.
pub(crate) fn chosen<'c>(ctx: &'c Ctx, id: Option<&str>) -> Result<Vec<&'c Source>, ToolError> {
    if id.is_some() {
        return Ok(vec![one(ctx, id)?]);
    }
    ctx.downloads().start_refreshers();
    let grant = ctx.caller.authority.grant.instances.as_deref();
    let covered: Vec<&Source> = ctx
        .downloads()
        .sources()
        .iter()
        .filter(|s| grant.is_none_or(|g| g.iter().any(|i| i == &s.id)))
        .collect();
    if covered.is_empty() {
        // Same refusal as a single read: no instance, or none the grant covers.
        one(ctx, None)?;
        return Err(ToolError::new(
            "denied",
            "your grant covers no download instance",
        ));
    }
    Ok(covered)
}

/// This family's tools, for the one registry.
pub fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(downloads_overview::DownloadsOverview),
        Box::new(find_torrents::FindTorrents),
        Box::new(torrent_detail::TorrentDetail),
        Box::new(torrent_files::TorrentFiles),
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
