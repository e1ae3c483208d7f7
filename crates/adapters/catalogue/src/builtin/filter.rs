//! Browse filters of the builtin catalogue: names checked against the data, then applied film by film.

use domain::{MediaSource, MediaType};

use super::{
    Builtin,
    films::{Film, List, NO_RANK},
    orders::{FACET_GENRES, Facet},
    tables,
};
use crate::{BrowseFilters, Error, Result, text::close_matches, text::fold};

/// Resolved filters: every name checked against the data.
#[derive(Default)]
pub(crate) struct FilmFilter {
    genres: Vec<u32>,
    /// None of these.
    without_genres: Vec<u32>,
    year_from: Option<i32>,
    year_to: Option<i32>,
    /// Any of these language names (ids of names spelled as in the data).
    languages: Option<Vec<u32>>,
    /// Any of these country names (ids of names spelled as in the data).
    countries: Option<Vec<u32>>,
    /// Highest US certification rank allowed; unrated films do not pass.
    max_certification: Option<u32>,
    runtime_min: Option<u32>,
    runtime_max: Option<u32>,
}

impl FilmFilter {
    pub fn allows(&self, f: Film<'_>) -> bool {
        let any_of = |ids: &Option<Vec<u32>>, which| {
            ids.as_ref()
                .is_none_or(|ids| f.list(which).iter().any(|x| ids.contains(x)))
        };
        self.genres.iter().all(|g| f.genres().contains(g))
            && !f.genres().iter().any(|g| self.without_genres.contains(g))
            && self.year_from.is_none_or(|y| f.year() >= y)
            && self.year_to.is_none_or(|y| f.year() <= y)
            && any_of(&self.languages, List::Languages)
            && any_of(&self.countries, List::Countries)
            && self
                .max_certification
                .is_none_or(|max| f.cert_rank().is_some_and(|o| o <= max))
            && self
                .runtime_min
                .is_none_or(|m| f.runtime().is_some_and(|r| r >= m))
            && self
                .runtime_max
                .is_none_or(|m| f.runtime().is_some_and(|r| r <= m))
    }

    /// The required and the refused genres as [`Facet`] bits, or `None` when one of them has no
    /// bit (a catalogue of more than [`FACET_GENRES`] genres).
    pub fn genre_bits(&self) -> Option<(u64, u64)> {
        let bits = |ids: &[u32]| {
            ids.iter().try_fold(0u64, |bits, &g| {
                (g < FACET_GENRES as u32).then_some(bits | 1 << g)
            })
        };
        Some((bits(&self.genres)?, bits(&self.without_genres)?))
    }

    /// [`FilmFilter::allows`] read from the film's facet (genres as `bits`, from
    /// [`FilmFilter::genre_bits`]; year; certification); the film itself is read only for a
    /// language, country or runtime filter.
    pub fn allows_packed<'a>(
        &self,
        facet: &Facet,
        (need, refuse): (u64, u64),
        film: impl FnOnce() -> Film<'a>,
    ) -> bool {
        facet.genres & need == need
            && facet.genres & refuse == 0
            && self.year_from.is_none_or(|y| facet.year >= y)
            && self.year_to.is_none_or(|y| facet.year <= y)
            && self
                .max_certification
                .is_none_or(|max| facet.cert_rank != NO_RANK && u32::from(facet.cert_rank) <= max)
            && (self.languages.is_none()
                && self.countries.is_none()
                && self.runtime_min.is_none()
                && self.runtime_max.is_none()
                || self.allows(film()))
    }

    /// Whether every film of [`Orders::browse_candidates`](super::orders::Orders::browse_candidates)
    /// for this filter passes it: at most one required genre (whose order the candidates are) and
    /// a year range (which cuts that order), nothing else. Then a page needs no film checked.
    pub fn answered_by_candidates(&self) -> bool {
        let FilmFilter {
            genres,
            without_genres,
            year_from: _,
            year_to: _,
            languages,
            countries,
            max_certification,
            runtime_min,
            runtime_max,
        } = self;
        genres.len() <= 1
            && without_genres.is_empty()
            && languages.is_none()
            && countries.is_none()
            && max_certification.is_none()
            && runtime_min.is_none()
            && runtime_max.is_none()
    }

    /// Genres a film must all carry.
    pub fn genres(&self) -> &[u32] {
        &self.genres
    }

    /// The year range, each end optional.
    pub fn year_range(&self) -> (Option<i32>, Option<i32>) {
        (self.year_from, self.year_to)
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
        let without_genres = filters
            .without_genres
            .iter()
            .map(|g| self.genre_id(g))
            .collect::<Result<_>>()?;
        let languages = filters
            .original_language
            .as_deref()
            .map(|l| self.names("language", l, tables::language_names(l), List::Languages))
            .transpose()?;
        let countries = filters
            .country
            .as_deref()
            .map(|c| self.names("country", c, tables::country_names(c), List::Countries))
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
            without_genres,
            year_from: filters.year_from,
            year_to: filters.year_to,
            languages,
            countries,
            max_certification,
            runtime_min: filters.runtime_min,
            runtime_max: filters.runtime_max,
        })
    }

    fn genre_id(&self, name: &str) -> Result<u32> {
        let folded = fold(name);
        self.folded_genres
            .iter()
            .position(|g| *g == folded)
            .map(|i| i as u32)
            .ok_or_else(|| Error::UnknownName {
                what: "genre",
                given: name.to_string(),
                options: self.genres.iter().map(|g| g.to_string()).collect(),
                close_matches: false,
            })
    }

    /// The names a language or country filter accepts, spelled as in the data: those of an ISO code,
    /// or the data's spellings of the given name (case and accents aside). As ids of the data's names.
    fn names(
        &self,
        what: &'static str,
        given: &str,
        by_code: Option<&[&str]>,
        which: List,
    ) -> Result<Vec<u32>> {
        let mut ids: Vec<u32> = self
            .films
            .iter()
            .flat_map(|f| f.list(which).iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let name = |id: &u32| self.films.name(*id);
        if let Some(names) = by_code {
            ids.retain(|id| names.contains(&name(id)));
            return Ok(ids);
        }
        let folded = fold(given);
        let spellings: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|id| fold(name(id)) == folded)
            .collect();
        if !spellings.is_empty() {
            return Ok(spellings);
        }
        let mut all: Vec<&str> = ids.iter().map(name).collect();
        all.sort_unstable();
        Err(Error::UnknownName {
            what,
            given: given.to_string(),
            options: close_matches(given, all, 10),
            close_matches: true,
        })
    }
}
