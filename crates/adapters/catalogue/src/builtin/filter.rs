//! Browse filters of the builtin catalogue: names checked against the data, then applied film by film.

use domain::{MediaSource, MediaType};

use super::{Builtin, load::Film, tables};
use crate::{BrowseFilters, Error, Result, text::close_matches, text::fold};

/// Resolved filters: every name checked against the data.
#[derive(Default)]
pub(crate) struct FilmFilter {
    genres: Vec<u16>,
    year_from: Option<i32>,
    year_to: Option<i32>,
    /// Any of these language names, spelled as in the data.
    languages: Option<Vec<Box<str>>>,
    /// Any of these country names, spelled as in the data.
    countries: Option<Vec<Box<str>>>,
    /// Highest US certification rank allowed; unrated films do not pass.
    max_certification: Option<u32>,
    runtime_min: Option<u32>,
    runtime_max: Option<u32>,
}

impl FilmFilter {
    pub fn allows(&self, f: &Film) -> bool {
        self.genres.iter().all(|g| f.genres.contains(g))
            && self.year_from.is_none_or(|y| f.year >= y)
            && self.year_to.is_none_or(|y| f.year <= y)
            && self
                .languages
                .as_ref()
                .is_none_or(|ls| f.languages.iter().any(|l| ls.contains(l)))
            && self
                .countries
                .as_ref()
                .is_none_or(|cs| f.countries.iter().any(|c| cs.contains(c)))
            && self.max_certification.is_none_or(|max| {
                f.certification
                    .as_deref()
                    .and_then(tables::us_order)
                    .is_some_and(|o| o <= max)
            })
            && self
                .runtime_min
                .is_none_or(|m| f.runtime.is_some_and(|r| r >= m))
            && self
                .runtime_max
                .is_none_or(|m| f.runtime.is_some_and(|r| r <= m))
    }

    pub fn years(year: Option<i32>) -> FilmFilter {
        FilmFilter {
            year_from: year,
            year_to: year,
            ..FilmFilter::default()
        }
    }
}

impl Builtin {
    /// Checks `filters` against what the data holds. Filters the data cannot answer (votes, streaming
    /// providers, keywords, companies, TV) are refused, naming TMDB.
    pub(crate) fn resolve(&self, filters: &BrowseFilters) -> Result<FilmFilter> {
        let tmdb_only =
            |what: &str| Error::unsupported(what, MediaSource::Builtin, &[MediaSource::Tmdb]);
        if filters.media_type != MediaType::Movie {
            return Err(tmdb_only("browsing tv"));
        }
        let refused = [
            (
                filters.min_vote_average.is_some(),
                "filtering by vote average",
            ),
            (filters.min_vote_count.is_some(), "filtering by vote count"),
            (
                filters.watch_provider.is_some(),
                "filtering by streaming provider",
            ),
            (filters.keyword.is_some(), "filtering by keyword"),
            (filters.company.is_some(), "filtering by company"),
        ];
        if let Some((_, what)) = refused.iter().find(|(set, _)| *set) {
            return Err(tmdb_only(what));
        }
        if let (Some(a), Some(b)) = (filters.year_from, filters.year_to)
            && a > b
        {
            return Err(Error::invalid("year range", format!("{a} is after {b}")));
        }
        if let (Some(a), Some(b)) = (filters.runtime_min, filters.runtime_max)
            && a > b
        {
            return Err(Error::invalid(
                "runtime range",
                format!("{a} minutes is more than {b}"),
            ));
        }
        let genres = filters
            .genres
            .iter()
            .map(|g| self.genre_id(g))
            .collect::<Result<_>>()?;
        let languages = filters
            .original_language
            .as_deref()
            .map(|l| self.names("language", l, tables::language_names(l), |f| &f.languages))
            .transpose()?;
        let countries = filters
            .country
            .as_deref()
            .map(|c| self.names("country", c, tables::country_names(c), |f| &f.countries))
            .transpose()?;
        let max_certification = match &filters.certification {
            None => None,
            Some(ceiling) => {
                if !ceiling.region.eq_ignore_ascii_case("US") {
                    return Err(Error::UnknownName {
                        what: "certification region",
                        given: ceiling.region.clone(),
                        options: vec!["US".into()],
                        close_matches: false,
                    });
                }
                Some(
                    tables::us_order(&ceiling.max).ok_or_else(|| Error::UnknownName {
                        what: "US certification",
                        given: ceiling.max.clone(),
                        options: tables::us_current(),
                        close_matches: false,
                    })?,
                )
            }
        };
        Ok(FilmFilter {
            genres,
            year_from: filters.year_from,
            year_to: filters.year_to,
            languages,
            countries,
            max_certification,
            runtime_min: filters.runtime_min,
            runtime_max: filters.runtime_max,
        })
    }

    fn genre_id(&self, name: &str) -> Result<u16> {
        let folded = fold(name);
        self.genres
            .iter()
            .position(|g| fold(g) == folded)
            .map(|i| i as u16)
            .ok_or_else(|| Error::UnknownName {
                what: "genre",
                given: name.to_string(),
                options: self.genres.iter().map(|g| g.to_string()).collect(),
                close_matches: false,
            })
    }

    /// The names a language or country filter accepts, spelled as in the data: those of an ISO code,
    /// or the data's spellings of the given name (case and accents aside).
    fn names(
        &self,
        what: &'static str,
        given: &str,
        by_code: Option<&[&str]>,
        of: impl Fn(&Film) -> &Vec<Box<str>>,
    ) -> Result<Vec<Box<str>>> {
        if let Some(names) = by_code {
            return Ok(names.iter().map(|n| Box::from(*n)).collect());
        }
        let mut all: Vec<&str> = self
            .films
            .iter()
            .flat_map(|f| of(f).iter().map(|n| &**n))
            .collect();
        all.sort_unstable();
        all.dedup();
        let folded = fold(given);
        let spellings: Vec<Box<str>> = all
            .iter()
            .filter(|n| fold(n) == folded)
            .map(|n| Box::from(*n))
            .collect();
        if !spellings.is_empty() {
            return Ok(spellings);
        }
        Err(Error::UnknownName {
            what,
            given: given.to_string(),
            options: close_matches(given, all, 10),
            close_matches: true,
        })
    }
}
