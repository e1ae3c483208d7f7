//! One download instance as the tools see it, and the only way to its write-capable client:
//! [`Source::writer`], with the `policy::Write` proof decided for this instance (a read
//! decision gives none), hands out the adapter's `Writer`. Reads go through the catalogue or
//! [`Backend::reads`], which offers only reads. The fields are private to this file, so no
//! other module of the family can reach the client around the proof.

use std::sync::Arc;

use adapters_downloads::{
    ClientConfig, DownloadClient, Result as DlResult, TorrentCatalogue, TorrentDetail, TorrentFile,
    TrackerEntry, Writer,
};
use domain::{InfoHash, InstanceId, InstanceKind};

use super::refresher;
use governance::{
    error::{ErrorCode, ToolError},
    instances::InstanceSpec,
};

/// One download instance.
pub(crate) struct Source {
    pub id: String,
    pub kind: InstanceKind,
    /// The client and its catalogue, or why the instance's config could not make one.
    backend: Result<Backend, String>,
}

/// A working instance: its client (behind the proof) and its cached catalogue.
pub(crate) struct Backend {
    client: Arc<DownloadClient>,
    pub catalogue: Arc<TorrentCatalogue>,
}

/// The live reads of one instance; no write is reachable from here.
#[derive(Clone, Copy)]
pub(crate) struct Reads<'a>(&'a DownloadClient);

impl Reads<'_> {
    pub async fn torrent_detail(self, hash: InfoHash) -> DlResult<TorrentDetail> {
        self.0.torrent_detail(hash).await
    }

    pub async fn torrent_trackers(self, hash: InfoHash) -> DlResult<Vec<TrackerEntry>> {
        self.0.torrent_trackers(hash).await
    }

    pub async fn torrent_files(self, hash: InfoHash) -> DlResult<Vec<TorrentFile>> {
        self.0.torrent_files(hash).await
    }

    /// The folders the client saves into (its default folder, categories' own folders).
    pub async fn save_roots(self) -> DlResult<Vec<String>> {
        self.0.save_roots().await
    }

    /// The adapter's own health check: signs in and reads the versions.
    pub async fn check(self) -> DlResult<String> {
        self.0.check().await
    }

    pub fn is_transmission(self) -> bool {
        matches!(self.0, DownloadClient::Transmission(_))
    }
}

impl Backend {
    pub fn reads(&self) -> Reads<'_> {
        Reads(&self.client)
    }
}

impl Source {
    /// Builds the client and catalogue of a download instance from its config; `own_timeout`
    /// is the instance's `timeout_seconds` when the config sets one ([`refresher::TIMEOUTS`]
    /// otherwise).
    pub fn from_spec(spec: &InstanceSpec, own_timeout: Option<std::time::Duration>) -> Source {
        Source {
            id: spec.id.clone(),
            kind: spec.kind,
            backend: backend(spec, own_timeout),
        }
    }

    /// The backend, or a tool error naming why this instance cannot be used.
    pub fn backend(&self) -> Result<&Backend, ToolError> {
        self.backend
            .as_ref()
            .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e.clone()))
    }

    /// The backend, or why the instance's config could not make one.
    pub fn state(&self) -> Result<&Backend, &str> {
        self.backend.as_ref().map_err(String::as_str)
    }

    /// The backend when the instance's config made one.
    pub fn working(&self) -> Option<&Backend> {
        self.backend.as_ref().ok()
    }

    /// The write-capable client, for a call `policy::decide` allowed on this very instance.
    pub fn writer(&self, allowed: policy::Write<'_>) -> Result<Writer<'_>, ToolError> {
        if !allowed.covers(&self.id) {
            tracing::error!(instance = %self.id, decided_for = ?allowed.instance(), "a write was attempted with a proof for another instance");
            return Err(ToolError::new(
                ErrorCode::Internal,
                format!(
                    "the write to instance {} was stopped: it was not decided for that instance; the server log has the details",
                    self.id
                ),
            ));
        }
        Ok(self.backend()?.client.unchecked_writer())
    }

    /// Whether this instance's catalogue has `hash`.
    pub fn has(&self, hash: &InfoHash) -> bool {
        self.working().is_some_and(|b| b.catalogue.contains(hash))
    }
}

fn backend(
    spec: &InstanceSpec,
    own_timeout: Option<std::time::Duration>,
) -> Result<Backend, String> {
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
        timeouts: match own_timeout {
            Some(request) => httpx::Timeouts {
                connect: refresher::TIMEOUTS.connect.min(request),
                request,
            },
            None => refresher::TIMEOUTS,
        },
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
