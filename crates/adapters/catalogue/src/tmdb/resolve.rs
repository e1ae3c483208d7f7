//! Browse filters into TMDB discover parameters, resolving names to TMDB ids server-side through TMDB's
//! own lists and searches. A name that resolves to nothing is an `UnknownName` error with valid options
//! (genres, providers, certifications) or close matches (keywords, companies).

use domain::{MediaSource, MediaType};

use super::{Tmdb, map::kind_path, wire};
use crate::{BrowseFilters, Error, Result, text::close_matches, text::fold};

/// Discover query parameters, and the filters TMDB cannot apply for this media type.
pub(crate) struct Discover {
    pub params: Vec<(&'static str, String)>,
    pub unapplied: Vec<&'static str>,
}

impl Tmdb {
    pub(crate) async fn discover_params(&self, f: &BrowseFilters) -> Result<Discover> {
        let kind = match f.media_type {
            MediaType::Movie | MediaType::Tv => kind_path(f.media_type),
            other => {
                let what = format!("browsing {other:?}").to_lowercase();
                return Err(Error::unsupported(what, MediaSource::Tmdb, &[]));
            }
        };
        check_range(
            "year range",
            f.year_from.map(i64::from),
            f.year_to.map(i64::from),
        )?;
        check_range(
            "runtime range",
            f.runtime_min.map(i64::from),
            f.runtime_max.map(i64::from),
        )?;
        let mut params: Vec<(&'static str, String)> = vec![
            ("sort_by", "popularity.desc".into()),
            ("include_adult", "false".into()),
            ("page", f.page.max(1).to_string()),
        ];
        let mut unapplied = Vec::new();

        // with_genres: a title carries all of them; without_genres: a title carrying any of
        // them is left out. Both comma-separated.
        for (param, names) in [
            ("with_genres", &f.genres),
            ("without_genres", &f.without_genres),
        ] {
            if !names.is_empty() {
                let list = self.genre_list(kind).await?;
                let ids = names
                    .iter()
                    .map(|g| genre_id(&list, g))
                    .collect::<Result<Vec<_>>>()?;
                params.push((param, join(ids, ",")));
            }
        }
        let (gte, lte) = if kind == "tv" {
            ("first_air_date.gte", "first_air_date.lte")
        } else {
            ("primary_release_date.gte", "primary_release_date.lte")
        };
        if let Some(y) = f.year_from {
            params.push((gte, format!("{y:04}-01-01")));
        }
        if let Some(y) = f.year_to {
            params.push((lte, format!("{y:04}-12-31")));
        }
        if let Some(v) = f.min_vote_average {
            params.push(("vote_average.gte", v.to_string()));
        }
        if let Some(v) = f.min_vote_count {
            params.push(("vote_count.gte", v.to_string()));
        }
        if let Some(l) = &f.original_language {
            params.push(("with_original_language", l.trim().to_ascii_lowercase()));
        }
        if let Some(c) = &f.country {
            params.push(("with_origin_country", c.trim().to_ascii_uppercase()));
        }
        if let Some(name) = &f.watch_provider {
            let region = f
                .watch_region
                .as_deref()
                .ok_or_else(|| {
                    Error::invalid(
                        "watch_region",
                        "a streaming provider needs a region (e.g. US)",
                    )
                })?
                .trim()
                .to_ascii_uppercase();
            let list = self.provider_list(kind, &region).await?;
            params.push((
                "with_watch_providers",
                provider_id(&list, name)?.to_string(),
            ));
            params.push(("watch_region", region));
        }
        if let Some(name) = &f.keyword {
            params.push((
                "with_keywords",
                self.search_ids("search/keyword", "keyword", name).await?,
            ));
        }
        if let Some(name) = &f.company {
            params.push((
                "with_companies",
                self.search_ids("search/company", "company", name).await?,
            ));
        }
        if let Some(ceiling) = &f.certification {
            let region = ceiling.region.trim().to_ascii_uppercase();
            let lists = self.certification_lists(kind).await?;
            let Some(list) = lists.get(&region) else {
                let mut regions: Vec<String> = lists.keys().cloned().collect();
                regions.sort();
                return Err(unknown("certification region", &ceiling.region, regions));
            };
            let Some(cert) = list
                .iter()
                .find(|c| c.certification.eq_ignore_ascii_case(ceiling.max.trim()))
            else {
                let mut sorted = list.clone();
                sorted.sort_by_key(|c| c.order);
                return Err(unknown(
                    "certification",
                    &ceiling.max,
                    sorted.into_iter().map(|c| c.certification).collect(),
                ));
            };
            if kind == "tv" {
                // TMDB's TV discovery has no certification filter: the caller checks the rows.
                unapplied.push("certification");
            } else {
                params.push(("certification_country", region));
                params.push(("certification.lte", cert.certification.clone()));
            }
        }
        if let Some(m) = f.runtime_min {
            params.push(("with_runtime.gte", m.to_string()));
        }
        if let Some(m) = f.runtime_max {
            params.push(("with_runtime.lte", m.to_string()));
        }
        Ok(Discover { params, unapplied })
    }

    /// Ids of the keywords or companies named exactly `name` (case and accents aside), joined with "|"
    /// (TMDB's OR); none named so is an error listing TMDB's close matches.
    async fn search_ids(&self, path: &str, what: &'static str, name: &str) -> Result<String> {
        let found: wire::WPage<wire::WNamed> =
            self.get(path, &[("query", name.to_string())]).await?;
        let folded = fold(name);
        let exact: Vec<u64> = found
            .results
            .iter()
            .filter(|n| fold(&n.name) == folded)
            .map(|n| n.id)
            .collect();
        if exact.is_empty() {
            let options = found
                .results
                .iter()
                .take(10)
                .map(|n| n.name.clone())
                .collect();
            return Err(Error::UnknownName {
                what,
                given: name.to_string(),
                options,
                close_matches: true,
            });
        }
        Ok(join(exact, "|"))
    }
}

fn genre_id(list: &[wire::WGenre], name: &str) -> Result<u32> {
    let folded = fold(name);
    list.iter()
        .find(|g| fold(&g.name) == folded)
        .map(|g| g.id)
        .ok_or_else(|| unknown("genre", name, list.iter().map(|g| g.name.clone()).collect()))
}

fn provider_id(list: &[wire::WProvider], name: &str) -> Result<u64> {
    let folded = fold(name);
    if let Some(p) = list.iter().find(|p| fold(&p.provider_name) == folded) {
        return Ok(p.provider_id);
    }
    let close = close_matches(name, list.iter().map(|p| p.provider_name.as_str()), 10);
    let (options, close_matches) = if close.is_empty() {
        (
            list.iter()
                .take(20)
                .map(|p| p.provider_name.clone())
                .collect(),
            false,
        )
    } else {
        (close, true)
    };
    Err(Error::UnknownName {
        what: "streaming provider",
        given: name.to_string(),
        options,
        close_matches,
    })
}

fn unknown(what: &'static str, given: &str, options: Vec<String>) -> Error {
    Error::UnknownName {
        what,
        given: given.to_string(),
        options,
        close_matches: false,
    }
}

fn join<T: ToString>(ids: Vec<T>, sep: &str) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

fn check_range(what: &'static str, from: Option<i64>, to: Option<i64>) -> Result<()> {
    match (from, to) {
        (Some(a), Some(b)) if a > b => Err(Error::invalid(what, format!("{a} is more than {b}"))),
        _ => Ok(()),
    }
}
