//! Contract fakes of backends that cannot run on these machines, for tests only.
//!
//! Each fake is an axum server on `127.0.0.1:0` answering a small fixed data set in the vendor's
//! documented JSON shapes, recording every request (path, query, headers, body, arrival instant) so tests
//! assert what an adapter sent on the fake's side. A fake's handle gives its base URL and the recorded
//! requests, and shuts the server down on drop.

// Test code: a failed unwrap is a failed test (clippy.toml allows it in tests; this crate is one).
#![allow(clippy::unwrap_used)]

mod anilist;
pub mod arr;
pub mod fault;
pub mod indexers;
mod lrclib;
pub mod media;
mod musicbrainz;
pub mod peers;
mod server;
pub mod subtitles;
mod tmdb;
mod tvdb;

pub use anilist::AniListFake;
pub use arr::{ArrKind, FakeArr};
pub use fault::{Fault, FaultProxy};
pub use lrclib::LrclibFake;
pub use media::{FakeMedia, MediaKind, Shelf};

use std::path::{Path, PathBuf};

/// The folder beside the repository (`../shared`), found from the running test's own package:
/// `cargo test` names it in `CARGO_MANIFEST_DIR` at run time, and the repository root is the
/// nearest folder above it with a `Cargo.lock`. Read at run time, not baked in at build time,
/// so a test binary built in another checkout (a shared target folder) still finds this one's.
pub fn beside_checkout(name: &str) -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let root = start
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    root.join("..").join(name)
}
pub use musicbrainz::{MusicBrainzFake, RATE_LIMIT_MESSAGE as MUSICBRAINZ_RATE_LIMIT_MESSAGE};
pub use server::RecordedRequest;
pub use tmdb::TmdbFake;
pub use tvdb::TvdbFake;
