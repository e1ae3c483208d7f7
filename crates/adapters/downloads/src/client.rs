//! One handle over both download clients, so callers need not care which one an instance runs.

use domain::{InfoHash, InstanceKind, Secret};
use url::Url;

use crate::{
    error::{Error, Result},
    model::{
        AddOutcome, AddTorrent, BulkOutcome, Categories, ClientVersion, Torrent, TorrentDetail,
        TorrentFile, TrackerEntry,
    },
    qbittorrent::QbClient,
    transmission::TrClient,
};

/// How to reach one instance, as the config describes it.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub kind: InstanceKind,
    pub url: Url,
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub timeouts: httpx::Timeouts,
}

/// A qBittorrent or Transmission client. Every write takes info hashes, never a filter.
#[derive(Debug)]
pub enum DownloadClient {
    Qbittorrent(QbClient),
    Transmission(TrClient),
}

macro_rules! both {
    ($client:expr, $c:ident => $e:expr) => {
        match $client {
            DownloadClient::Qbittorrent($c) => $e,
            DownloadClient::Transmission($c) => $e,
        }
    };
}

impl DownloadClient {
    pub fn new(config: ClientConfig) -> Result<DownloadClient> {
        let ClientConfig {
            kind,
            url,
            username,
            password,
            timeouts,
        } = config;
        match kind {
            InstanceKind::Qbittorrent => Ok(DownloadClient::Qbittorrent(QbClient::new(
                url,
                username.unwrap_or_default(),
                password.unwrap_or_default(),
                timeouts,
            )?)),
            InstanceKind::Transmission => Ok(DownloadClient::Transmission(TrClient::new(
                url, username, password, timeouts,
            )?)),
            other => Err(Error::invalid(format!(
                "instance kind \"{other}\" is not a download client; valid kinds: qbittorrent, transmission"
            ))),
        }
    }

    pub fn kind(&self) -> InstanceKind {
        match self {
            DownloadClient::Qbittorrent(_) => InstanceKind::Qbittorrent,
            DownloadClient::Transmission(_) => InstanceKind::Transmission,
        }
    }

    pub async fn version(&self) -> Result<ClientVersion> {
        both!(self, c => c.version().await)
    }

    /// Asks the daemon whether it answers and accepts Marquee's credentials (for diagnose): it
    /// signs in as a real call would and reads the versions, described in a short sentence.
    pub async fn check(&self) -> Result<String> {
        let v = self.version().await?;
        let (name, api) = match self {
            DownloadClient::Qbittorrent(_) => ("qBittorrent", "WebAPI"),
            DownloadClient::Transmission(_) => ("Transmission", "RPC"),
        };
        Ok(format!("{name} {}, {api} {}, signed in", v.app, v.api))
    }

    /// Every torrent, read live (the catalogue is the cheap way to page through them).
    pub async fn list_torrents(&self) -> Result<Vec<Torrent>> {
        both!(self, c => c.list_torrents().await)
    }

    /// The live rows of these torrents; the ones the client lacks are simply absent.
    pub async fn torrents(&self, hashes: &[InfoHash]) -> Result<Vec<Torrent>> {
        both!(self, c => c.torrents(hashes).await)
    }

    /// Which of `hashes` the client has, in the order given, without duplicates.
    pub async fn existing(&self, hashes: &[InfoHash]) -> Result<Vec<InfoHash>> {
        both!(self, c => c.existing(hashes).await)
    }

    /// `NotFound` when the client lacks the torrent.
    pub async fn torrent_detail(&self, hash: InfoHash) -> Result<TorrentDetail> {
        both!(self, c => c.torrent_detail(hash).await)
    }

    pub async fn torrent_files(&self, hash: InfoHash) -> Result<Vec<TorrentFile>> {
        both!(self, c => c.torrent_files(hash).await)
    }

    /// Real trackers only (no DHT/PeX/LSD pseudo-entries), URLs redacted.
    pub async fn torrent_trackers(&self, hash: InfoHash) -> Result<Vec<TrackerEntry>> {
        both!(self, c => c.torrent_trackers(hash).await)
    }

    pub async fn categories(&self) -> Result<Categories> {
        both!(self, c => c.categories().await)
    }

    /// The folders this client saves into: its default download folder, then each category's
    /// own folder (qBittorrent) when it names one. What a save path may be beneath.
    pub async fn save_roots(&self) -> Result<Vec<String>> {
        match self {
            DownloadClient::Qbittorrent(c) => {
                let mut roots = vec![c.default_save_path().await?];
                for cat in c.categories().await?.items {
                    if let Some(p) = cat.save_path
                        && !roots.contains(&p)
                    {
                        roots.push(p);
                    }
                }
                Ok(roots)
            }
            DownloadClient::Transmission(c) => Ok(vec![c.download_dir().await?.to_string()]),
        }
    }

    /// Free bytes in the default download folder. On qBittorrent this reads a whole maindata
    /// answer; [`crate::TorrentCatalogue::overview`] has the same figure for free.
    pub async fn free_space(&self) -> Result<Option<u64>> {
        both!(self, c => c.free_space().await)
    }

    /// The writing half, unchecked: this crate knows no policy. Marquee's tools hand it out
    /// only through their own gate, with the write proof `policy::decide` gave for this
    /// instance; reads never need it.
    pub fn unchecked_writer(&self) -> Writer<'_> {
        Writer { client: self }
    }
}

/// What changes a download client: adding, pausing, resuming, rechecking, reannouncing,
/// filing, tagging and deleting torrents, each named by info hash.
#[derive(Debug, Clone, Copy)]
pub struct Writer<'a> {
    client: &'a DownloadClient,
}

impl Writer<'_> {
    /// Adds a torrent; an already present one comes back as `AlreadyPresent`, untouched.
    pub async fn add(&self, req: &AddTorrent) -> Result<AddOutcome> {
        both!(self.client, c => c.add(req).await)
    }

    pub async fn pause(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        both!(self.client, c => c.pause(hashes).await)
    }

    pub async fn resume(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        both!(self.client, c => c.resume(hashes).await)
    }

    pub async fn recheck(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        both!(self.client, c => c.recheck(hashes).await)
    }

    pub async fn reannounce(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        both!(self.client, c => c.reannounce(hashes).await)
    }

    /// qBittorrent: sets the category (which must exist). Transmission: moves the data into
    /// that sub-folder of the download folder (see the `transmission` module doc).
    pub async fn set_category(
        &self,
        hashes: &[InfoHash],
        category: Option<&str>,
    ) -> Result<BulkOutcome> {
        both!(self.client, c => c.set_category(hashes, category).await)
    }

    /// Files the torrents under `category` (which must exist) and moves their data into its
    /// folder. qBittorrent: sets the category, then turns on Automatic Torrent Management so
    /// qBittorrent moves the data (asynchronously). Transmission: same as [`Self::set_category`].
    pub async fn move_to_category(
        &self,
        hashes: &[InfoHash],
        category: &str,
    ) -> Result<BulkOutcome> {
        match self.client {
            DownloadClient::Qbittorrent(c) => c.move_to_category(hashes, category).await,
            DownloadClient::Transmission(c) => c.set_category(hashes, Some(category)).await,
        }
    }

    /// Replaces the tags (Transmission: labels) with exactly `tags`.
    pub async fn set_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        both!(self.client, c => c.set_tags(hashes, tags).await)
    }

    pub async fn add_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        both!(self.client, c => c.add_tags(hashes, tags).await)
    }

    pub async fn remove_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        both!(self.client, c => c.remove_tags(hashes, tags).await)
    }

    /// Removes torrents; `delete_files` also deletes their downloaded data.
    pub async fn delete(&self, hashes: &[InfoHash], delete_files: bool) -> Result<BulkOutcome> {
        both!(self.client, c => c.delete(hashes, delete_files).await)
    }
}
