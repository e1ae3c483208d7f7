//! qBittorrent WebAPI v2: a cookie-session client, reads, writes and the maindata sync.
//!
//! - Login is `POST auth/login` with Referer/Origin set to the WebUI address; an HTTP 200
//!   `Fails.` is a refusal. On a 403 the client logs in once more and repeats the request
//!   only when it is a read; a write is never sent twice.
//! - WebAPI 2.11 (qBittorrent 5) renamed `pause`/`resume` to `stop`/`start` and the add field
//!   `paused` to `stopped`; the version is read from `app/webapiVersion` at first use.
//! - The catalogue follows `sync/maindata?rid=N`; tracker messages are not part of maindata, so
//!   torrents without a working tracker get their `torrents/trackers` fetched a few per refresh.

mod add;
mod api;
mod client;
mod stream;
pub(crate) mod sync;
mod torrent;
mod write;

pub use client::{ApiVersion, QbClient};
pub use sync::{MainData, QbState, QbTorrent};
pub(crate) use sync::{QbCursor, apply_maindata, apply_tracker_probe};
pub(crate) use write::{check_tags, dedup};
