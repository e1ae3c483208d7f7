//! TVDB v4's JSON, as much of it as Marquee reads (the `SearchResult`, `SeriesExtendedRecord`,
//! `MovieExtendedRecord` and `EpisodeBaseRecord` schemas of its OpenAPI document). Fields TVDB
//! may leave out or null are optional; unknown fields are ignored.

use serde::Deserialize;

/// `{"status": "success", "data": …}`.
#[derive(Deserialize)]
pub(crate) struct Envelope<T> {
    pub data: T,
}

#[derive(Deserialize)]
pub(crate) struct Login {
    pub token: String,
}

/// A search answer: rows and the paging links.
#[derive(Deserialize)]
pub(crate) struct SearchPage {
    #[serde(default)]
    pub data: Vec<SearchResult>,
    pub links: Option<Links>,
}

#[derive(Deserialize)]
pub(crate) struct Links {
    pub total_items: Option<u64>,
}

#[derive(Deserialize)]
pub(crate) struct SearchResult {
    /// "series", "movie", "person", "company".
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub tvdb_id: Option<String>,
    pub name: Option<String>,
    pub year: Option<String>,
    pub overview: Option<String>,
    pub image_url: Option<String>,
    pub primary_language: Option<String>,
    #[serde(default)]
    pub genres: Vec<String>,
    #[serde(default)]
    pub remote_ids: Vec<RemoteId>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemoteId {
    pub id: String,
    pub source_name: Option<String>,
}

/// One element of `GET /search/remoteid/{id}`: the record the id names, under its entity.
#[derive(Deserialize)]
pub(crate) struct RemoteHit {
    pub series: Option<Base>,
    pub movie: Option<Base>,
}

#[derive(Deserialize)]
pub(crate) struct Base {
    pub id: u64,
}

/// A series' or a movie's extended record (the fields both share, and each one's own).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Extended {
    pub id: u64,
    pub name: Option<String>,
    pub year: Option<String>,
    /// Series only; a movie's overview is in its translations.
    pub overview: Option<String>,
    pub image: Option<String>,
    pub original_language: Option<String>,
    pub original_country: Option<String>,
    #[serde(default)]
    pub genres: Vec<Named>,
    #[serde(default)]
    pub content_ratings: Vec<ContentRating>,
    #[serde(default)]
    pub remote_ids: Vec<RemoteId>,
    #[serde(default)]
    pub characters: Vec<Character>,
    #[serde(default)]
    pub artworks: Vec<Artwork>,
    #[serde(default)]
    pub seasons: Vec<Season>,
    /// Movies.
    pub runtime: Option<u32>,
    /// Series.
    pub average_runtime: Option<u32>,
    /// Series: the first episode's air date.
    pub first_aired: Option<String>,
    /// Movies.
    #[serde(default)]
    pub releases: Vec<Release>,
    pub translations: Option<Translations>,
}

#[derive(Deserialize)]
pub(crate) struct Named {
    pub name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContentRating {
    pub name: String,
    /// ISO 3166-1 alpha-3, lower case ("usa").
    pub country: Option<String>,
    /// "movie" or "episode" (`GET /content/ratings`).
    pub content_type: Option<String>,
    /// Rank in its country's system, mildest first (`GET /content/ratings`).
    pub order: Option<u32>,
    pub description: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Character {
    pub person_name: Option<String>,
    /// "Actor", "Director", "Creator", "Writer", ...
    pub people_type: Option<String>,
    pub sort: Option<i64>,
}

#[derive(Deserialize)]
pub(crate) struct Artwork {
    pub image: Option<String>,
    /// 3 is a series background, 15 a movie background.
    #[serde(rename = "type")]
    pub kind: Option<u32>,
}

#[derive(Deserialize)]
pub(crate) struct Season {
    pub number: Option<u32>,
    #[serde(rename = "type")]
    pub kind: Option<SeasonType>,
}

#[derive(Deserialize)]
pub(crate) struct SeasonType {
    /// "official", "dvd", "absolute", ...
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct Release {
    pub country: Option<String>,
    pub date: Option<String>,
    pub detail: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Translations {
    #[serde(default)]
    pub overview_translations: Vec<Translation>,
}

#[derive(Deserialize)]
pub(crate) struct Translation {
    pub language: Option<String>,
    pub overview: Option<String>,
}

/// `GET /series/{id}/episodes/{season-type}`'s data.
#[derive(Deserialize)]
pub(crate) struct Episodes {
    #[serde(default)]
    pub episodes: Vec<Episode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Episode {
    pub season_number: Option<u32>,
    pub number: Option<u32>,
    pub name: Option<String>,
    pub overview: Option<String>,
    pub aired: Option<String>,
}
