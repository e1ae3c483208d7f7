//! Download clients (qBittorrent WebAPI v2, Transmission RPC) behind one torrent model, and the
//! cached, incrementally refreshed catalogue that answers listings without a backend call.
//!
//! Knows nothing of MCP, permissions or audit: callers decide who may do what, this crate does it.
//! Writes name torrents by info hash only; hashes a client does not have are never sent to it.
//! No error, log line or `Debug` output carries a password, session cookie or tracker passkey.

mod catalogue;
mod client;
mod error;
mod intern;
mod metainfo;
mod model;
pub mod qbittorrent;
mod query;
mod tracker_class;
pub mod transmission;

pub use catalogue::{
    FULL_REFRESH_GAP, InstanceTorrent, MergedPage, OnRead, Overview, RefreshError, RefreshReport,
    ServerStats, SourceStatus, TorrentCatalogue, TrackerErrorGroup, query_merged, query_merged_map,
};
pub use client::{ClientConfig, DownloadClient, Writer};
pub use error::{Error, ErrorClass, Result};
pub use metainfo::{
    contact_urls_of_magnet, contact_urls_of_torrent, info_hash_of_magnet, info_hash_of_torrent,
    redact_url,
};
pub use model::{
    AddOutcome, AddSource, AddStatus, AddTorrent, BulkOutcome, Categories, Category, CategoryModel,
    ClientVersion, FilePriority, Torrent, TorrentDetail, TorrentFile, TorrentState, TrackerEntry,
    TrackerStatus,
};
pub use query::{CategoryFilter, MAX_LIMIT, Page, SortKey, TorrentQuery, TrackerErrorFilter};
pub use tracker_class::{TrackerErrorClass, classify as classify_tracker_message};
