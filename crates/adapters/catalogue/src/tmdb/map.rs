//! TMDB JSON into the catalogue model: rows with genre names from TMDB's lists, details with the
//! certification of the asked region and every region's rating.

use domain::{MediaId, MediaSource, MediaType};

use super::{Tmdb, wire};
use crate::{
    Certification, EpisodeDetails, Page, RegionalRating, ReleaseDate, Result, TitleDetails,
    TitleSummary,
};

/// Release types in the order a certification is preferred from: theatrical first.
const RELEASE_PREFERENCE: [u8; 6] = [3, 2, 4, 5, 6, 1];

fn release_kind(kind: u8) -> Option<&'static str> {
    Some(match kind {
        1 => "premiere",
        2 => "theatrical (limited)",
        3 => "theatrical",
        4 => "digital",
        5 => "physical",
        6 => "tv",
        _ => return None,
    })
}

pub(crate) fn kind_path(media_type: MediaType) -> &'static str {
    if media_type == MediaType::Tv {
        "tv"
    } else {
        "movie"
    }
}

fn year(date: Option<&str>) -> Option<i32> {
    // `get`, not an index: an answer's date may hold a multi-byte character in its first bytes.
    date.and_then(|d| d.get(..4)).and_then(|y| y.parse().ok())
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

impl Tmdb {
    /// A poster's URL from TMDB's image path.
    fn poster(&self, path: Option<String>) -> Option<String> {
        non_empty(path).map(|p| format!("{}{p}", self.image_base.trim_end_matches('/')))
    }

    /// A backdrop's URL: the image base's size segment (a poster width such as `w342`) becomes
    /// `w1280`, one of TMDB's backdrop sizes; a base without a size segment is used as it is.
    fn backdrop(&self, path: Option<String>) -> Option<String> {
        let base = self.image_base.trim_end_matches('/');
        let base = match base.rsplit_once('/') {
            Some((head, size))
                if size == "original"
                    || (size.starts_with('w') && size[1..].bytes().all(|b| b.is_ascii_digit())) =>
            {
                format!("{head}/w1280")
            }
            _ => base.to_string(),
        };
        non_empty(path).map(|p| format!("{base}{p}"))
    }

    /// List rows; persons (multi search, trending "all") are left out. `default` is the media type of
    /// endpoints whose rows carry none.
    pub(crate) async fn page_of(
        &self,
        page: wire::WPage<wire::WListItem>,
        default: MediaType,
    ) -> Result<Page<TitleSummary>> {
        let mut items = Vec::with_capacity(page.results.len());
        for item in page.results {
            let media_type = match item.media_type.as_deref() {
                None => default,
                Some("movie") => MediaType::Movie,
                Some("tv") => MediaType::Tv,
                Some(_) => continue,
            };
            let genres = self
                .genre_names(kind_path(media_type), &item.genre_ids)
                .await?;
            let date = if media_type == MediaType::Tv {
                &item.first_air_date
            } else {
                &item.release_date
            };
            let title = if media_type == MediaType::Tv {
                item.name.or(item.title)
            } else {
                item.title.or(item.name)
            };
            items.push(TitleSummary {
                id: MediaId::new(MediaSource::Tmdb, item.id.to_string()),
                media_type,
                title: title.unwrap_or_default(),
                year: year(date.as_deref()),
                certification: Certification::NotFetched,
                genres,
                overview: non_empty(item.overview),
                original_language: non_empty(item.original_language),
                vote_average: item.vote_average,
                vote_count: item.vote_count,
                poster_url: self.poster(item.poster_path),
                external_ids: Vec::new(),
            });
        }
        Ok(Page {
            items,
            page: page.page,
            total_pages: page.total_pages,
            total_results: page.total_results,
            unapplied_filters: Vec::new(),
        })
    }

    pub(crate) fn movie_details(&self, m: wire::WMovie, region: &str) -> TitleDetails {
        let releases = m.release_dates.map(|r| r.results).unwrap_or_default();
        let preferred = |c: &wire::WCountryReleases| -> Option<String> {
            RELEASE_PREFERENCE
                .iter()
                .find_map(|kind| {
                    c.release_dates
                        .iter()
                        .find(|r| r.kind == *kind && !r.certification.trim().is_empty())
                })
                .map(|r| r.certification.trim().to_string())
        };
        let certifications: Vec<RegionalRating> = releases
            .iter()
            .filter_map(|c| {
                preferred(c).map(|rating| RegionalRating {
                    region: c.iso_3166_1.clone(),
                    rating,
                })
            })
            .collect();
        let mut release_dates: Vec<ReleaseDate> = non_empty(m.release_date.clone())
            .map(|date| ReleaseDate {
                region: None,
                date,
                kind: None,
            })
            .into_iter()
            .collect();
        for c in releases
            .iter()
            .filter(|c| c.iso_3166_1.eq_ignore_ascii_case(region))
        {
            for r in &c.release_dates {
                if let Some(date) = r.release_date.as_deref().filter(|d| d.len() >= 10) {
                    let kind = release_kind(r.kind).map(str::to_string);
                    release_dates.push(ReleaseDate {
                        region: Some(c.iso_3166_1.clone()),
                        date: date[..10].to_string(),
                        kind,
                    });
                }
            }
        }
        let credits = m.credits.unwrap_or_default();
        TitleDetails {
            summary: TitleSummary {
                id: MediaId::new(MediaSource::Tmdb, m.id.to_string()),
                media_type: MediaType::Movie,
                title: m.title,
                year: year(m.release_date.as_deref()),
                certification: regional(&certifications, region),
                genres: m.genres.into_iter().map(|g| g.name).collect(),
                overview: non_empty(m.overview),
                original_language: non_empty(m.original_language),
                vote_average: m.vote_average,
                vote_count: m.vote_count,
                poster_url: self.poster(m.poster_path),
                external_ids: non_empty(m.imdb_id)
                    .map(|i| MediaId::new(MediaSource::Imdb, i))
                    .into_iter()
                    .collect(),
            },
            certifications,
            runtime_minutes: m.runtime.filter(|r| *r > 0),
            cast: cast(&credits),
            directors: credits
                .crew
                .iter()
                .filter(|c| c.job == "Director")
                .map(|c| c.name.clone())
                .collect(),
            release_dates,
            languages: m
                .spoken_languages
                .into_iter()
                .map(|l| l.english_name.unwrap_or(l.iso_639_1))
                .collect(),
            countries: m
                .production_countries
                .into_iter()
                .map(|c| c.iso_3166_1)
                .collect(),
            seasons: None,
            backdrop_url: self.backdrop(m.backdrop_path),
        }
    }

    pub(crate) fn episode_details(e: wire::WEpisode) -> EpisodeDetails {
        EpisodeDetails {
            season: e.season_number,
            episode: e.episode_number,
            name: non_empty(e.name),
            overview: non_empty(e.overview),
            air_date: non_empty(e.air_date).and_then(|d| d.get(..10).map(str::to_string)),
        }
    }

    pub(crate) fn tv_details(&self, t: wire::WTv, region: &str) -> TitleDetails {
        let certifications: Vec<RegionalRating> = t
            .content_ratings
            .map(|c| c.results)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| !c.rating.trim().is_empty())
            .map(|c| RegionalRating {
                region: c.iso_3166_1,
                rating: c.rating.trim().to_string(),
            })
            .collect();
        let credits = t.credits.unwrap_or_default();
        TitleDetails {
            summary: TitleSummary {
                id: MediaId::new(MediaSource::Tmdb, t.id.to_string()),
                media_type: MediaType::Tv,
                title: t.name,
                year: year(t.first_air_date.as_deref()),
                certification: regional(&certifications, region),
                genres: t.genres.into_iter().map(|g| g.name).collect(),
                overview: non_empty(t.overview),
                original_language: non_empty(t.original_language),
                vote_average: t.vote_average,
                vote_count: t.vote_count,
                poster_url: self.poster(t.poster_path),
                external_ids: Vec::new(),
            },
            certifications,
            runtime_minutes: t.episode_run_time.first().copied(),
            cast: cast(&credits),
            directors: t.created_by.into_iter().map(|p| p.name).collect(),
            release_dates: non_empty(t.first_air_date)
                .map(|date| ReleaseDate {
                    region: None,
                    date,
                    kind: Some("first air date".into()),
                })
                .into_iter()
                .collect(),
            languages: t
                .spoken_languages
                .into_iter()
                .map(|l| l.english_name.unwrap_or(l.iso_639_1))
                .collect(),
            countries: t.origin_country,
            seasons: t.number_of_seasons,
            backdrop_url: self.backdrop(t.backdrop_path),
        }
    }
}

/// The asked region's rating; details were read, so a missing one is "unrated".
fn regional(ratings: &[RegionalRating], region: &str) -> Certification {
    match ratings
        .iter()
        .find(|r| r.region.eq_ignore_ascii_case(region))
    {
        Some(r) => Certification::Rated {
            region: r.region.clone(),
            rating: r.rating.clone(),
        },
        None => Certification::Unrated {
            region: Some(region.to_ascii_uppercase()),
        },
    }
}

fn cast(credits: &wire::WCredits) -> Vec<String> {
    let mut cast: Vec<&wire::WCast> = credits.cast.iter().collect();
    cast.sort_by_key(|c| c.order);
    cast.into_iter().take(10).map(|c| c.name.clone()).collect()
}
