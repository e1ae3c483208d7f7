//! Title catalogues behind one trait: the builtin offline catalogue, TMDB v3, TVDB v4, AniList,
//! MusicBrainz WS/2 and LRCLIB's lyrics.
//!
//! Every catalogue answers with the same model (`model`): rows named by `media_source` + `media_id`,
//! with a media type, title, year, genre names and a [`Certification`] that tells "rated X",
//! "read and unrated" and "not fetched" apart, so the tools layer can enforce content limits.
//! A question a source cannot answer is refused with [`Error::Unsupported`], naming the sources that can.
//!
//! Architecture invariant: this crate knows nothing of MCP, policy or permissions. It reads catalogues
//! and maps their vendor JSON into the model; every outbound client is built through `httpx`.

pub mod anilist;
pub mod builtin;
mod catalogue;
mod error;
mod http;
pub mod lrclib;
mod model;
pub mod musicbrainz;
mod text;
pub mod tmdb;
pub mod tvdb;

pub use anilist::{AniList, AniListConfig};
pub use builtin::Builtin;
pub use catalogue::Catalogue;
pub use error::{Error, Result};
pub use lrclib::{Lrclib, LrclibConfig};
pub use model::{
    BrowseFilters, Certification, CertificationCeiling, CertificationInfo, CollectionSummary,
    EpisodeDetails, Lyrics, LyricsQuery, MusicItem, MusicKind, MusicSearch, PAGE_SIZE, Page,
    RegionalRating, ReleaseDate, ReleaseType, TimeWindow, TitleDetails, TitleKind, TitleSearch,
    TitleSummary,
};
pub use musicbrainz::{MusicBrainz, MusicBrainzConfig};
pub use tmdb::{Tmdb, TmdbAuth, TmdbConfig};
pub use tvdb::{Tvdb, TvdbConfig};
