//! The catalogue model every adapter maps its vendor answers into: searches, filters, rows, details.

mod music;

use domain::{MediaId, MediaType};
use serde::Serialize;

pub use music::{Lyrics, LyricsQuery, MusicItem, MusicKind, MusicSearch, ReleaseType};

/// Rows per page in the builtin catalogue (TMDB pages hold 20 as well).
pub const PAGE_SIZE: usize = 20;

/// Which titles a search or a trending list covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TitleKind {
    Movie,
    Tv,
    Any,
}

/// The window of a trending list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeWindow {
    Day,
    Week,
}

/// A title's certification (movies) or content rating (TV) as this answer knows it.
///
/// Content limits need three cases apart: a rating, a source that was read and holds none
/// ("unrated"), and an answer that simply does not carry ratings ("not fetched": TMDB listings,
/// or a region the builtin catalogue does not rate). Only the first two are facts about the title.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Certification {
    /// The source rates the title `rating` in `region` (ISO 3166-1, e.g. "US").
    Rated { region: String, rating: String },
    /// The source was read and holds no rating for the title (in `region`, where the source rates by region;
    /// MusicBrainz has no rating system at all and says `None`).
    Unrated { region: Option<String> },
    /// This answer does not say; read the title's details for its rating.
    NotFetched,
}

impl Certification {
    /// The rating, when the title is rated.
    pub fn rating(&self) -> Option<&str> {
        match self {
            Certification::Rated { rating, .. } => Some(rating),
            _ => None,
        }
    }

    /// True when the answer was read: rated or unrated, not "not fetched".
    pub fn is_known(&self) -> bool {
        !matches!(self, Certification::NotFetched)
    }
}

/// One title in a list: enough to show it, name it for later calls, and apply content limits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TitleSummary {
    /// The identity every later tool takes.
    pub id: MediaId,
    pub media_type: MediaType,
    pub title: String,
    pub year: Option<i32>,
    pub certification: Certification,
    /// Genre names as the source spells them ("Science Fiction", "Sci-Fi").
    pub genres: Vec<String>,
    pub overview: Option<String>,
    /// ISO 639-1 code (TMDB) or language names (builtin: the first listed language).
    pub original_language: Option<String>,
    pub vote_average: Option<f32>,
    pub vote_count: Option<u32>,
    pub poster_url: Option<String>,
    /// Other ids of the same title (the builtin catalogue's `imdb` id, say).
    pub external_ids: Vec<MediaId>,
}

/// A title's full record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TitleDetails {
    /// The row, with its certification for the region that was asked.
    pub summary: TitleSummary,
    /// Every region's rating the source knows (empty when it knows none).
    pub certifications: Vec<RegionalRating>,
    pub runtime_minutes: Option<u32>,
    /// Top-billed cast, in billing order.
    pub cast: Vec<String>,
    /// Directors (movies) or creators (TV).
    pub directors: Vec<String>,
    pub release_dates: Vec<ReleaseDate>,
    pub languages: Vec<String>,
    pub countries: Vec<String>,
    /// TV only: number of seasons.
    pub seasons: Option<u32>,
    /// A wide background image (fanart), when the source has one.
    pub backdrop_url: Option<String>,
}

/// One episode of a show, as far as the source knows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpisodeDetails {
    pub season: u32,
    pub episode: u32,
    pub name: Option<String>,
    pub overview: Option<String>,
    /// ISO 8601 date (YYYY-MM-DD).
    pub air_date: Option<String>,
}

/// One region's rating of a title.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegionalRating {
    pub region: String,
    pub rating: String,
}

/// One release of a title: `region` is None for the primary (worldwide) date.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReleaseDate {
    pub region: Option<String>,
    /// ISO 8601 date (YYYY-MM-DD).
    pub date: String,
    /// "theatrical", "digital", ... when the source says.
    pub kind: Option<String>,
}

/// A certification a region uses, with its rank (`order`, lower is milder) and meaning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CertificationInfo {
    pub region: String,
    pub certification: String,
    pub meaning: String,
    pub order: u32,
}

/// A collection (a film series).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectionSummary {
    pub id: MediaId,
    pub name: String,
    pub overview: Option<String>,
    pub poster_url: Option<String>,
}

/// One page of an answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// 1-based.
    pub page: u32,
    pub total_pages: u32,
    pub total_results: u64,
    /// Filters the source could not apply upstream: the caller must check them on the rows
    /// (TMDB's TV discovery cannot filter by certification, say).
    pub unapplied_filters: Vec<&'static str>,
}

impl<T> Page<T> {
    pub fn empty(page: u32) -> Page<T> {
        Page {
            items: Vec::new(),
            page,
            total_pages: 0,
            total_results: 0,
            unapplied_filters: Vec::new(),
        }
    }
}

/// A title search.
#[derive(Clone, Debug, PartialEq)]
pub struct TitleSearch {
    pub kind: TitleKind,
    pub query: String,
    /// Narrows to a release year when given.
    pub year: Option<i32>,
    /// 1-based.
    pub page: u32,
}

impl TitleSearch {
    pub fn new(kind: TitleKind, query: impl Into<String>) -> TitleSearch {
        TitleSearch {
            kind,
            query: query.into(),
            year: None,
            page: 1,
        }
    }
}

/// A ceiling on certifications: only titles rated `max` or milder in `region`.
/// Unrated titles do not pass a ceiling (nothing shows they are at most `max`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificationCeiling {
    pub region: String,
    pub max: String,
}

/// Browse (discover) filters. Names are resolved to ids by the adapter; an unknown name is an
/// [`crate::Error::UnknownName`] listing valid options; a filter the source cannot apply is
/// [`crate::Error::Unsupported`].
#[derive(Clone, Debug, PartialEq)]
pub struct BrowseFilters {
    /// Movie or Tv.
    pub media_type: MediaType,
    /// Genre names; a title must carry all of them.
    pub genres: Vec<String>,
    /// Genre names, spelled as the catalogue's genre list spells them; a title carrying any of them is
    /// left out. Content limits push blocked genres down through this.
    pub without_genres: Vec<String>,
    pub year_from: Option<i32>,
    pub year_to: Option<i32>,
    pub min_vote_average: Option<f32>,
    pub min_vote_count: Option<u32>,
    /// ISO 639-1 code ("en") or, for the builtin catalogue, a language name ("English").
    pub original_language: Option<String>,
    /// Country of origin: ISO 3166-1 code ("FR") or, for the builtin catalogue, a name.
    pub country: Option<String>,
    /// A streaming provider name ("Netflix"), resolved in `watch_region`.
    pub watch_provider: Option<String>,
    /// ISO 3166-1 region of `watch_provider`.
    pub watch_region: Option<String>,
    pub keyword: Option<String>,
    /// A production company or studio name.
    pub company: Option<String>,
    pub certification: Option<CertificationCeiling>,
    pub runtime_min: Option<u32>,
    pub runtime_max: Option<u32>,
    /// 1-based.
    pub page: u32,
}

impl BrowseFilters {
    pub fn new(media_type: MediaType) -> BrowseFilters {
        BrowseFilters {
            media_type,
            genres: Vec::new(),
            without_genres: Vec::new(),
            year_from: None,
            year_to: None,
            min_vote_average: None,
            min_vote_count: None,
            original_language: None,
            country: None,
            watch_provider: None,
            watch_region: None,
            keyword: None,
            company: None,
            certification: None,
            runtime_min: None,
            runtime_max: None,
            page: 1,
        }
    }
}
