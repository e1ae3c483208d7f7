//! TMDB v3 JSON as TMDB sends it: only the fields the adapter reads. Nullable and often-missing fields
//! are `Option` or defaulted, as TMDB leaves them out or sends `null` and `""` freely.

use std::collections::HashMap;

use serde::Deserialize;

/// `{page, results, total_pages, total_results}`.
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub(crate) struct WPage<T> {
    #[serde(default = "one")]
    pub page: u32,
    #[serde(default)]
    pub results: Vec<T>,
    #[serde(default)]
    pub total_pages: u32,
    #[serde(default)]
    pub total_results: u64,
}

fn one() -> u32 {
    1
}

/// A movie, TV or (multi search, trending) person row.
#[derive(Debug, Deserialize)]
pub(crate) struct WListItem {
    pub id: u64,
    pub media_type: Option<String>,
    pub title: Option<String>,
    pub name: Option<String>,
    pub release_date: Option<String>,
    pub first_air_date: Option<String>,
    #[serde(default)]
    pub genre_ids: Vec<u32>,
    pub overview: Option<String>,
    pub original_language: Option<String>,
    pub vote_average: Option<f32>,
    pub vote_count: Option<u32>,
    pub poster_path: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCollection {
    pub id: u64,
    pub name: String,
    pub overview: Option<String>,
    pub poster_path: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct WGenre {
    pub id: u32,
    pub name: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WGenres {
    #[serde(default)]
    pub genres: Vec<WGenre>,
}

/// A keyword or company from `/search/keyword`, `/search/company`.
#[derive(Debug, Deserialize)]
pub(crate) struct WNamed {
    pub id: u64,
    pub name: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct WProvider {
    pub provider_id: u64,
    pub provider_name: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WProviders {
    #[serde(default)]
    pub results: Vec<WProvider>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct WCertification {
    pub certification: String,
    #[serde(default)]
    pub meaning: String,
    #[serde(default)]
    pub order: u32,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCertifications {
    #[serde(default)]
    pub certifications: HashMap<String, Vec<WCertification>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WLanguage {
    pub iso_639_1: String,
    pub english_name: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCountry {
    pub iso_3166_1: String,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WCredits {
    #[serde(default)]
    pub cast: Vec<WCast>,
    #[serde(default)]
    pub crew: Vec<WCrew>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCast {
    pub name: String,
    #[serde(default)]
    pub order: u32,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCrew {
    pub name: String,
    #[serde(default)]
    pub job: String,
}

/// `/movie/{id}?append_to_response=release_dates,credits`.
#[derive(Debug, Deserialize)]
pub(crate) struct WMovie {
    pub id: u64,
    pub title: String,
    pub release_date: Option<String>,
    #[serde(default)]
    pub genres: Vec<WGenre>,
    pub overview: Option<String>,
    pub original_language: Option<String>,
    pub vote_average: Option<f32>,
    pub vote_count: Option<u32>,
    pub poster_path: Option<String>,
    pub backdrop_path: Option<String>,
    pub runtime: Option<u32>,
    pub imdb_id: Option<String>,
    #[serde(default)]
    pub spoken_languages: Vec<WLanguage>,
    #[serde(default)]
    pub production_countries: Vec<WCountry>,
    pub release_dates: Option<WReleaseDates>,
    pub credits: Option<WCredits>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WReleaseDates {
    #[serde(default)]
    pub results: Vec<WCountryReleases>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCountryReleases {
    pub iso_3166_1: String,
    #[serde(default)]
    pub release_dates: Vec<WRelease>,
}

/// One release: `type` 1 premiere, 2 limited theatrical, 3 theatrical, 4 digital, 5 physical, 6 TV.
#[derive(Debug, Deserialize)]
pub(crate) struct WRelease {
    #[serde(default)]
    pub certification: String,
    pub release_date: Option<String>,
    #[serde(rename = "type", default)]
    pub kind: u8,
}

/// `/tv/{id}?append_to_response=content_ratings,credits`.
#[derive(Debug, Deserialize)]
pub(crate) struct WTv {
    pub id: u64,
    pub name: String,
    pub first_air_date: Option<String>,
    #[serde(default)]
    pub genres: Vec<WGenre>,
    pub overview: Option<String>,
    pub original_language: Option<String>,
    pub vote_average: Option<f32>,
    pub vote_count: Option<u32>,
    pub poster_path: Option<String>,
    pub backdrop_path: Option<String>,
    #[serde(default)]
    pub episode_run_time: Vec<u32>,
    pub number_of_seasons: Option<u32>,
    #[serde(default)]
    pub created_by: Vec<WNamedPerson>,
    #[serde(default)]
    pub spoken_languages: Vec<WLanguage>,
    #[serde(default)]
    pub origin_country: Vec<String>,
    pub content_ratings: Option<WContentRatings>,
    pub credits: Option<WCredits>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WNamedPerson {
    pub name: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WContentRatings {
    #[serde(default)]
    pub results: Vec<WContentRating>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WContentRating {
    pub iso_3166_1: String,
    #[serde(default)]
    pub rating: String,
}

/// TMDB's status answer (`GET /authentication`: `{"success": true, "status_code": 1, ...}`).
#[derive(Debug, Deserialize)]
pub(crate) struct WStatus {
    #[serde(default)]
    pub success: bool,
}

/// `/tv/{id}/season/{s}/episode/{e}`.
#[derive(Debug, Deserialize)]
pub(crate) struct WEpisode {
    pub season_number: u32,
    pub episode_number: u32,
    pub name: Option<String>,
    pub overview: Option<String>,
    pub air_date: Option<String>,
}
