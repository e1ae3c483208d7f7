//! The builtin catalogue's answers to the [`Catalogue`] questions it can answer offline.

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType};

use super::{
    Builtin,
    films::{Film, List},
    filter::FilmFilter,
    tables,
};
use crate::{
    BrowseFilters, Catalogue, CertificationInfo, Error, PAGE_SIZE, Page, RegionalRating,
    ReleaseDate, Result, TimeWindow, TitleDetails, TitleKind, TitleSearch, TitleSummary,
};

fn movies_only(what: &str, media_type: MediaType) -> Result<()> {
    match media_type {
        MediaType::Movie => Ok(()),
        MediaType::Tv => Err(Error::unsupported(
            format!("{what} for tv"),
            MediaSource::Builtin,
            &[MediaSource::Tmdb],
        )),
        other => Err(Error::unsupported(
            format!("{what} for {other:?}").to_lowercase(),
            MediaSource::Builtin,
            &[],
        )),
    }
}

#[async_trait]
impl Catalogue for Builtin {
    fn source(&self) -> MediaSource {
        MediaSource::Builtin
    }

    async fn check(&self) -> Result<String> {
        Ok(format!("built in; {} films loaded", self.len()))
    }

    async fn search_titles(&self, search: &TitleSearch) -> Result<Page<TitleSummary>> {
        if search.kind == TitleKind::Tv {
            return Err(Error::unsupported(
                "searching tv",
                MediaSource::Builtin,
                &[MediaSource::Tmdb],
            ));
        }
        if crate::text::tokens(&search.query).is_empty() {
            return Err(Error::invalid("query", "it has no words to search for"));
        }
        let filter = FilmFilter::years(search.year);
        let keep = |f: Film<'_>| filter.allows(f);
        let want = (search.page as usize).saturating_mul(PAGE_SIZE);
        let keep: Option<&dyn Fn(Film<'_>) -> bool> = search.year.map(|_| &keep as _);
        let (docs, total) = self.rank(&search.query, keep, want);
        self.page(&docs, total, search.page)
    }

    async fn trending(&self, _: TitleKind, _: TimeWindow, _: u32) -> Result<Page<TitleSummary>> {
        Err(Error::unsupported(
            "trending (not knowable offline)",
            MediaSource::Builtin,
            &[MediaSource::Tmdb],
        ))
    }

    /// Films passing the filters, newest first, then by title: read from the precomputed order of
    /// the rarest required genre (or of the whole catalogue), within the year range.
    async fn browse(&self, filters: &BrowseFilters) -> Result<Page<TitleSummary>> {
        let filter = self.resolve(filters)?;
        let (from, to) = filter.year_range();
        let candidates = self
            .orders
            .browse_candidates(&self.films, filter.genres(), from, to);
        let want = (filters.page as usize).saturating_mul(PAGE_SIZE);
        if filter.answered_by_candidates() {
            let docs: Vec<u32> = candidates.iter().take(want).map(|&i| i.into()).collect();
            return self.page(&docs, candidates.len(), filters.page);
        }
        let mut docs = Vec::with_capacity(want.min(candidates.len()));
        let mut total = 0;
        let packed = self.orders.facets.as_deref().zip(filter.genre_bits());
        for i in candidates.iter().map(|&i| u32::from(i)) {
            let film = || self.films.get(i);
            let allowed = match packed {
                Some((facets, bits)) => filter.allows_packed(&facets[i as usize], bits, film),
                None => filter.allows(film()),
            };
            if allowed {
                if total < want {
                    docs.push(i);
                }
                total += 1;
            }
        }
        self.page(&docs, total, filters.page)
    }

    async fn title_details(
        &self,
        id: &MediaId,
        media_type: MediaType,
        region: &str,
    ) -> Result<TitleDetails> {
        movies_only("title details", media_type)?;
        let i = self.find(id)?;
        let f = self.films.get(i);
        Ok(TitleDetails {
            summary: self.summary(i, region),
            certifications: f
                .certification()
                .iter()
                .map(|c| RegionalRating {
                    region: "US".into(),
                    rating: c.to_string(),
                })
                .collect(),
            runtime_minutes: f.runtime(),
            cast: f.names(List::Cast).map(str::to_string).collect(),
            directors: f.names(List::Directors).map(str::to_string).collect(),
            release_dates: f
                .released()
                .iter()
                .map(|d| ReleaseDate {
                    region: None,
                    date: d.to_string(),
                    kind: None,
                })
                .collect(),
            languages: f.names(List::Languages).map(str::to_string).collect(),
            countries: f.names(List::Countries).map(str::to_string).collect(),
            seasons: None,
            backdrop_url: None,
        })
    }

    /// Films sharing directors, cast and genres with this one (see `Builtin::similar`): computed from the
    /// data alone, not from what people watched.
    async fn recommendations(
        &self,
        id: &MediaId,
        media_type: MediaType,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        movies_only("recommendations", media_type)?;
        let i = self.find(id)?;
        let (similar, total) = self.similar(i, (page as usize).saturating_mul(PAGE_SIZE));
        self.page(&similar, total, page)
    }

    async fn certifications(
        &self,
        media_type: MediaType,
        region: &str,
    ) -> Result<Vec<CertificationInfo>> {
        movies_only("certification lists", media_type)?;
        if !region.eq_ignore_ascii_case("US") {
            return Err(Error::UnknownName {
                what: "certification region",
                given: region.to_string(),
                options: vec!["US".into()],
                close_matches: false,
            });
        }
        Ok(tables::us_list())
    }

    async fn genres(&self, media_type: MediaType) -> Result<Vec<String>> {
        movies_only("genre lists", media_type)?;
        let mut names: Vec<String> = self.genres.iter().map(|g| g.to_string()).collect();
        names.sort();
        Ok(names)
    }
}
