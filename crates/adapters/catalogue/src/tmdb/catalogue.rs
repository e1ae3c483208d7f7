//! TMDB's answers to the [`Catalogue`] questions: search, collections, trending, discover, details,
//! recommendations and TMDB's lists.

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType};

use super::{Tmdb, map::kind_path, wire};
use crate::{
    BrowseFilters, Catalogue, CertificationInfo, CollectionSummary, EpisodeDetails, Error, Page,
    Result, TimeWindow, TitleDetails, TitleKind, TitleSearch, TitleSummary,
};

fn check_page(page: u32) -> Result<String> {
    match page {
        1..=500 => Ok(page.to_string()),
        _ => Err(Error::invalid(
            "page",
            format!("{page} is outside 1-500, the pages TMDB serves"),
        )),
    }
}

fn non_empty_query(query: &str) -> Result<String> {
    let q = query.trim();
    if q.is_empty() {
        return Err(Error::invalid("query", "it is empty"));
    }
    Ok(q.to_string())
}

#[async_trait]
impl Catalogue for Tmdb {
    fn source(&self) -> MediaSource {
        MediaSource::Tmdb
    }

    /// TMDB's own key check (`GET /authentication`): TMDB answers a refused key or token with
    /// 401, which `get` reports as `Unauthorized`.
    async fn check(&self) -> Result<String> {
        let answer: wire::WStatus = self.get("authentication", &[]).await?;
        if answer.success {
            Ok("TMDB accepts the credentials".into())
        } else {
            Err(Error::Backend {
                service: "tmdb",
                error: httpx::Error::Upstream {
                    status: 200,
                    detail: "the key check answered \"success\": false".into(),
                },
            })
        }
    }

    async fn search_titles(&self, search: &TitleSearch) -> Result<Page<TitleSummary>> {
        let mut query = vec![
            ("query", non_empty_query(&search.query)?),
            ("page", check_page(search.page)?),
        ];
        query.push(("include_adult", "false".into()));
        let (path, default) = match search.kind {
            TitleKind::Movie => ("search/movie", MediaType::Movie),
            TitleKind::Tv => ("search/tv", MediaType::Tv),
            TitleKind::Any => ("search/multi", MediaType::Movie),
        };
        // TMDB's multi search takes no year: the caller checks it on the rows.
        let year_param = match search.kind {
            TitleKind::Movie => Some("year"),
            TitleKind::Tv => Some("first_air_date_year"),
            TitleKind::Any => None,
        };
        let mut unapplied = Vec::new();
        match (search.year, year_param) {
            (Some(y), Some(param)) => query.push((param, y.to_string())),
            (Some(_), None) => unapplied.push("year"),
            (None, _) => {}
        }
        let page = self.get(path, &query).await?;
        let mut page = self.page_of(page, default).await?;
        page.unapplied_filters = unapplied;
        Ok(page)
    }

    async fn search_collections(&self, query: &str, page: u32) -> Result<Page<CollectionSummary>> {
        let params = [
            ("query", non_empty_query(query)?),
            ("page", check_page(page)?),
        ];
        let found: wire::WPage<wire::WCollection> = self.get("search/collection", &params).await?;
        let items = found
            .results
            .into_iter()
            .map(|c| CollectionSummary {
                id: MediaId::new(MediaSource::Tmdb, c.id.to_string()),
                name: c.name,
                overview: c.overview.filter(|o| !o.is_empty()),
                poster_url: c
                    .poster_path
                    .map(|p| format!("{}{p}", self.image_base.trim_end_matches('/'))),
            })
            .collect();
        Ok(Page {
            items,
            page: found.page,
            total_pages: found.total_pages,
            total_results: found.total_results,
            unapplied_filters: Vec::new(),
        })
    }

    async fn trending(
        &self,
        kind: TitleKind,
        window: TimeWindow,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        let (kind, default) = match kind {
            TitleKind::Movie => ("movie", MediaType::Movie),
            TitleKind::Tv => ("tv", MediaType::Tv),
            TitleKind::Any => ("all", MediaType::Movie),
        };
        let window = if window == TimeWindow::Day {
            "day"
        } else {
            "week"
        };
        let found = self
            .get(
                &format!("trending/{kind}/{window}"),
                &[("page", check_page(page)?)],
            )
            .await?;
        self.page_of(found, default).await
    }

    async fn browse(&self, filters: &BrowseFilters) -> Result<Page<TitleSummary>> {
        check_page(filters.page)?;
        let discover = self.discover_params(filters).await?;
        let found = self
            .get(
                &format!("discover/{}", kind_path(filters.media_type)),
                &discover.params,
            )
            .await?;
        let mut page = self.page_of(found, filters.media_type).await?;
        page.unapplied_filters = discover.unapplied;
        Ok(page)
    }

    async fn title_details(
        &self,
        id: &MediaId,
        media_type: MediaType,
        region: &str,
    ) -> Result<TitleDetails> {
        let kind = Tmdb::title_kind(media_type, "title details")?;
        let n = Tmdb::tmdb_id(id)?;
        let region = region.trim().to_ascii_uppercase();
        if kind == "tv" {
            let append = [("append_to_response", "content_ratings,credits".to_string())];
            let tv = self
                .get(&format!("tv/{n}"), &append)
                .await
                .map_err(Tmdb::not_found(id))?;
            Ok(self.tv_details(tv, &region))
        } else {
            let append = [("append_to_response", "release_dates,credits".to_string())];
            let movie = self
                .get(&format!("movie/{n}"), &append)
                .await
                .map_err(Tmdb::not_found(id))?;
            Ok(self.movie_details(movie, &region))
        }
    }

    async fn episode_details(
        &self,
        show: &MediaId,
        season: u32,
        episode: u32,
    ) -> Result<EpisodeDetails> {
        let n = Tmdb::tmdb_id(show)?;
        let found: wire::WEpisode = self
            .get(&format!("tv/{n}/season/{season}/episode/{episode}"), &[])
            .await
            .map_err(|e| match e.backend() {
                Some(httpx::Error::NotFound) => Error::NotFound {
                    what: "episode",
                    id: format!("{show} S{season:02}E{episode:02}"),
                    catalogue: MediaSource::Tmdb,
                },
                _ => e,
            })?;
        Ok(Tmdb::episode_details(found))
    }

    async fn recommendations(
        &self,
        id: &MediaId,
        media_type: MediaType,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        let kind = Tmdb::title_kind(media_type, "recommendations")?;
        let n = Tmdb::tmdb_id(id)?;
        let found = self
            .get(
                &format!("{kind}/{n}/recommendations"),
                &[("page", check_page(page)?)],
            )
            .await
            .map_err(Tmdb::not_found(id))?;
        self.page_of(found, media_type).await
    }

    async fn certifications(
        &self,
        media_type: MediaType,
        region: &str,
    ) -> Result<Vec<CertificationInfo>> {
        let kind = Tmdb::title_kind(media_type, "certification lists")?;
        let region = region.trim().to_ascii_uppercase();
        let lists = self.certification_lists(kind).await?;
        let Some(list) = lists.get(&region) else {
            let mut regions: Vec<String> = lists.keys().cloned().collect();
            regions.sort();
            let given = region.clone();
            return Err(Error::UnknownName {
                what: "certification region",
                given,
                options: regions,
                close_matches: false,
            });
        };
        let mut out: Vec<CertificationInfo> = list
            .iter()
            .map(|c| CertificationInfo {
                region: region.clone(),
                certification: c.certification.clone(),
                meaning: c.meaning.clone(),
                order: c.order,
            })
            .collect();
        out.sort_by_key(|c| c.order);
        Ok(out)
    }

    async fn genres(&self, media_type: MediaType) -> Result<Vec<String>> {
        let kind = Tmdb::title_kind(media_type, "genre lists")?;
        Ok(self
            .genre_list(kind)
            .await?
            .iter()
            .map(|g| g.name.clone())
            .collect())
    }
}
