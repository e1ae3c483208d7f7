//! Transmission RPC: a client with the 409 session-id handshake, reads, writes and the sync.
//!
//! Categories: Transmission has none. This crate uses the convention Radarr and Sonarr use
//! with Transmission: a torrent's category is the last component of its download folder when
//! that folder sits directly inside the session's `download-dir` (`/downloads/movies` ->
//! `movies`; `/downloads` or `/elsewhere/movies` -> no category). `list_categories` therefore
//! lists the sub-folders torrents use now and says so ([`CategoryModel::DownloadDirSubfolder`]);
//! setting a category moves the data (`torrent-set-location` with `move: true`) and adding with a
//! category sets the new torrent's `download-dir`.
//!
//! Tags are Transmission labels (RPC 16, Transmission 3.00 and later); `torrent-set` labels
//! replace the whole set, so adding or removing one tag reads the labels first.
//!
//! Versions: 3.x and 4.0 speak the same camelCase `torrent-get` fields; 4.0 dropped the session
//! field `download-dir-free-space` (so free space comes from the `free-space` method) and added
//! fields this crate does not need; 4.1's JSON-RPC 2.0 dialect uses snake_case names, which the
//! decoder accepts as aliases. Fields a version lacks (`labels` before 3.00) read as empty.
//!
//! [`CategoryModel::DownloadDirSubfolder`]: crate::CategoryModel::DownloadDirSubfolder

mod api;
mod fields;
mod rpc;
pub(crate) mod sync;
mod torrent;
mod write;

pub use fields::{TrTorrent, category_of, map_status};
pub use rpc::TrClient;
pub use sync::{FULL_EVERY, INCREMENTAL_WINDOW, TrDelta, delta_from_body};
pub(crate) use sync::{TrCursor, apply, fetch, fetch_full, fetch_hashes};
