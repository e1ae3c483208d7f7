//! TVDB's records in the catalogue model. TVDB names countries and languages by three-letter
//! codes ("usa", "eng"); the model, like TMDB, uses ISO 3166-1 alpha-2 regions and ISO 639-1
//! languages, so the common ones are translated and the rest kept as TVDB spells them.

use domain::{MediaId, MediaSource, MediaType};

use super::wire;
use crate::{
    Certification, CertificationInfo, RegionalRating, ReleaseDate, TitleDetails, TitleSummary,
};

/// (alpha-3, alpha-2) for the countries whose ratings households ask for most.
const COUNTRIES: &[(&str, &str)] = &[
    ("usa", "US"),
    ("gbr", "GB"),
    ("can", "CA"),
    ("aus", "AU"),
    ("nzl", "NZ"),
    ("irl", "IE"),
    ("deu", "DE"),
    ("aut", "AT"),
    ("che", "CH"),
    ("fra", "FR"),
    ("bel", "BE"),
    ("nld", "NL"),
    ("esp", "ES"),
    ("prt", "PT"),
    ("ita", "IT"),
    ("swe", "SE"),
    ("nor", "NO"),
    ("dnk", "DK"),
    ("fin", "FI"),
    ("pol", "PL"),
    ("bra", "BR"),
    ("mex", "MX"),
    ("jpn", "JP"),
    ("kor", "KR"),
    ("ind", "IN"),
    ("chn", "CN"),
];

/// (ISO 639-2, ISO 639-1).
const LANGUAGES: &[(&str, &str)] = &[
    ("eng", "en"),
    ("fra", "fr"),
    ("deu", "de"),
    ("spa", "es"),
    ("ita", "it"),
    ("por", "pt"),
    ("nld", "nl"),
    ("swe", "sv"),
    ("nor", "no"),
    ("dan", "da"),
    ("fin", "fi"),
    ("pol", "pl"),
    ("rus", "ru"),
    ("jpn", "ja"),
    ("kor", "ko"),
    ("zho", "zh"),
    ("hin", "hi"),
];

/// A TVDB country as the model names regions: alpha-2 when known, else TVDB's code upper-cased.
fn region(alpha3: &str) -> String {
    let code = alpha3.trim().to_ascii_lowercase();
    COUNTRIES
        .iter()
        .find(|(a3, _)| *a3 == code)
        .map_or_else(|| code.to_ascii_uppercase(), |(_, a2)| (*a2).to_string())
}

/// The TVDB country code of an alpha-2 region, when the table knows it.
pub(super) fn alpha3(region: &str) -> Option<&'static str> {
    COUNTRIES
        .iter()
        .find(|(_, a2)| a2.eq_ignore_ascii_case(region.trim()))
        .map(|(a3, _)| *a3)
}

/// The regions the table knows, for a refusal.
pub(super) fn regions() -> Vec<String> {
    COUNTRIES.iter().map(|(_, a2)| (*a2).to_string()).collect()
}

/// TVDB's ratings of `region` for movies ("movie") or shows ("episode"), mildest first.
pub(super) fn ladder(
    all: Vec<wire::ContentRating>,
    alpha3: &str,
    movies: bool,
    region: &str,
) -> Vec<CertificationInfo> {
    let mut list: Vec<wire::ContentRating> = all
        .into_iter()
        .filter(|c| {
            c.country
                .as_deref()
                .is_some_and(|k| k.eq_ignore_ascii_case(alpha3))
        })
        .filter(|c| (c.content_type.as_deref() == Some("movie")) == movies)
        .collect();
    list.sort_by_key(|c| c.order.unwrap_or(u32::MAX));
    list.into_iter()
        .enumerate()
        .map(|(i, c)| CertificationInfo {
            region: region.trim().to_ascii_uppercase(),
            meaning: c.description.unwrap_or_default(),
            order: c.order.unwrap_or(i as u32),
            certification: c.name,
        })
        .collect()
}

fn language(code: &str) -> String {
    let code = code.trim().to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(long, _)| *long == code)
        .map_or(code.clone(), |(_, short)| (*short).to_string())
}

fn year(text: Option<&str>) -> Option<i32> {
    text.and_then(|y| y.get(..4)).and_then(|y| y.parse().ok())
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty())
}

/// The IMDb and TMDB ids TVDB maps a record to.
fn external(remote: &[wire::RemoteId]) -> Vec<MediaId> {
    remote
        .iter()
        .filter_map(|r| {
            let source = match r.source_name.as_deref()? {
                "IMDB" => MediaSource::Imdb,
                "TheMovieDB.com" => MediaSource::Tmdb,
                _ => return None,
            };
            let id = r.id.trim();
            (!id.is_empty()).then(|| MediaId::new(source, id))
        })
        .collect()
}

/// A search row; people and companies (which searches without a type return) are left out.
pub(super) fn search_row(r: wire::SearchResult) -> Option<TitleSummary> {
    let media_type = match r.kind.as_deref()? {
        "series" => MediaType::Tv,
        "movie" => MediaType::Movie,
        _ => return None,
    };
    let id = r.tvdb_id.filter(|i| !i.is_empty())?;
    Some(TitleSummary {
        id: MediaId::new(MediaSource::Tvdb, id),
        media_type,
        title: r.name.unwrap_or_default(),
        year: year(r.year.as_deref()),
        certification: Certification::NotFetched,
        genres: r.genres,
        overview: non_empty(r.overview),
        original_language: r.primary_language.as_deref().map(language),
        vote_average: None,
        vote_count: None,
        poster_url: non_empty(r.image_url),
        external_ids: external(&r.remote_ids),
    })
}

/// An extended record; its certification is the one for `wanted` (alpha-2), `Unrated` there
/// when TVDB rates it elsewhere only.
pub(super) fn details(r: wire::Extended, media_type: MediaType, wanted: &str) -> TitleDetails {
    let certifications: Vec<RegionalRating> = r
        .content_ratings
        .iter()
        .filter_map(|c| {
            Some(RegionalRating {
                region: region(c.country.as_deref()?),
                rating: c.name.clone(),
            })
        })
        .collect();
    let certification = certifications
        .iter()
        .find(|c| c.region.eq_ignore_ascii_case(wanted))
        .map_or_else(
            || Certification::Unrated {
                region: Some(wanted.to_ascii_uppercase()),
            },
            |c| Certification::Rated {
                region: c.region.clone(),
                rating: c.rating.clone(),
            },
        );
    let mut people: Vec<&wire::Character> = r.characters.iter().collect();
    people.sort_by_key(|c| c.sort.unwrap_or(i64::MAX));
    let named = |kinds: &[&str]| -> Vec<String> {
        people
            .iter()
            .filter(|c| c.people_type.as_deref().is_some_and(|t| kinds.contains(&t)))
            .filter_map(|c| non_empty(c.person_name.clone()))
            .collect()
    };
    let cast: Vec<String> = named(&["Actor"]).into_iter().take(10).collect();
    let directors = match media_type {
        MediaType::Movie => named(&["Director"]),
        _ => named(&["Creator"]),
    };
    let mut seasons: Vec<u32> = r
        .seasons
        .iter()
        .filter(|s| {
            s.kind
                .as_ref()
                .and_then(|k| k.kind.as_deref())
                .is_some_and(|k| k == "official")
        })
        .filter_map(|s| s.number.filter(|n| *n > 0))
        .collect();
    seasons.sort_unstable();
    seasons.dedup();
    let overview = non_empty(r.overview).or_else(|| {
        r.translations.and_then(|t| {
            t.overview_translations
                .into_iter()
                .find(|o| o.language.as_deref() == Some("eng"))
                .and_then(|o| non_empty(o.overview))
        })
    });
    let mut release_dates: Vec<ReleaseDate> = Vec::new();
    if let Some(date) = non_empty(r.first_aired) {
        release_dates.push(ReleaseDate {
            region: None,
            date,
            kind: Some("first aired".into()),
        });
    }
    release_dates.extend(r.releases.into_iter().filter_map(|x| {
        Some(ReleaseDate {
            region: x.country.as_deref().map(region),
            date: non_empty(x.date)?,
            kind: non_empty(x.detail),
        })
    }));
    let backdrop_url = r
        .artworks
        .iter()
        .find(|a| matches!(a.kind, Some(3 | 15)))
        .and_then(|a| non_empty(a.image.clone()));
    TitleDetails {
        summary: TitleSummary {
            id: MediaId::new(MediaSource::Tvdb, r.id.to_string()),
            media_type,
            title: r.name.unwrap_or_default(),
            year: year(r.year.as_deref()),
            certification,
            genres: r.genres.into_iter().map(|g| g.name).collect(),
            overview,
            original_language: r.original_language.as_deref().map(language),
            vote_average: None,
            vote_count: None,
            poster_url: non_empty(r.image),
            external_ids: external(&r.remote_ids),
        },
        certifications,
        runtime_minutes: r.runtime.or(r.average_runtime).filter(|m| *m > 0),
        cast,
        directors,
        release_dates,
        languages: r
            .original_language
            .as_deref()
            .map(language)
            .into_iter()
            .collect(),
        countries: r
            .original_country
            .as_deref()
            .map(region)
            .into_iter()
            .collect(),
        seasons: (media_type == MediaType::Tv).then_some(seasons.len() as u32),
        backdrop_url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_become_the_models() {
        assert_eq!(region("usa"), "US");
        assert_eq!(region("GBR"), "GB");
        assert_eq!(region("xkx"), "XKX");
        assert_eq!(language("jpn"), "ja");
        assert_eq!(language("tlh"), "tlh");
        assert_eq!(year(Some("2015")), Some(2015));
        assert_eq!(year(Some("")), None);
    }
}
