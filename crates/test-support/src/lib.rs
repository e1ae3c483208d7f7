//! Contract fakes of backends that cannot run on these machines, for tests only.
//!
//! Each fake is an axum server on `127.0.0.1:0` answering a small fixed data set in the vendor's
//! documented JSON shapes, recording every request (path, query, headers, arrival instant) so tests
//! assert what an adapter sent on the fake's side. A fake's handle gives its base URL and the recorded
//! requests, and shuts the server down on drop.

pub mod arr;
mod musicbrainz;
pub mod peers;
mod server;
mod tmdb;

pub use arr::{ArrKind, FakeArr};
pub use musicbrainz::{MusicBrainzFake, RATE_LIMIT_MESSAGE as MUSICBRAINZ_RATE_LIMIT_MESSAGE};
pub use server::RecordedRequest;
pub use tmdb::TmdbFake;
