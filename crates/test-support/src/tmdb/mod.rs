//! A contract fake of TMDB's v3 API: search, trending, discover (with its filters), details with
//! appended release dates, content ratings and credits, recommendations, episodes, and TMDB's own lists.
//! Every request must carry the fake's `api_key` or its read-access token, as TMDB requires.

mod data;
mod render;

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use crate::server::{Incoming, RecordedRequest, Running};
use data::{TITLES, Title};

/// A running TMDB fake. Dropping it stops the server.
pub struct TmdbFake {
    running: Running,
}

impl TmdbFake {
    /// The v3 API key the fake accepts as `?api_key=`.
    pub const API_KEY: &'static str = "fake-tmdb-v3-key-0f1e2d3c";
    /// The read-access token the fake accepts as `Authorization: Bearer`.
    pub const READ_TOKEN: &'static str = "fake-tmdb-read-token-9a8b7c6d";

    pub async fn start() -> TmdbFake {
        TmdbFake {
            running: Running::start("/3", Box::new(answer)).await,
        }
    }

    /// The base URL to configure an adapter with, e.g. `http://127.0.0.1:41234/3`.
    pub fn base_url(&self) -> &str {
        &self.running.base_url
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.running.requests()
    }

    /// Requests to one path.
    pub fn requests_to(&self, path: &str) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    pub fn clear(&self) {
        self.running.clear();
    }
}

fn answer(incoming: &Incoming<'_>, _before: &[RecordedRequest]) -> Response {
    let r = incoming.request;
    let key_ok = r.param("api_key") == Some(TmdbFake::API_KEY);
    let token_ok = r.header("authorization") == Some(&format!("Bearer {}", TmdbFake::READ_TOKEN));
    if !key_ok && !token_ok {
        let body = json!({ "status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false });
        return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
    }
    let segments: Vec<&str> = incoming.path.trim_matches('/').split('/').collect();
    let page: u32 = r.param("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let query = r.param("query").unwrap_or("").to_lowercase();
    let matches = |name: &str| !query.is_empty() && name.to_lowercase().contains(&query);
    let body = match segments.as_slice() {
        ["authentication"] => {
            json!({ "success": true, "status_code": 1, "status_message": "Success." })
        }
        ["search", kind @ ("movie" | "tv" | "multi")] => {
            let mut rows: Vec<Value> = TITLES
                .iter()
                .filter(|t| matches(t.title))
                .filter(|t| match *kind {
                    "movie" => !t.tv,
                    "tv" => t.tv,
                    _ => true,
                })
                .map(|t| render::list_item(t, *kind == "multi"))
                .collect();
            if *kind == "multi" && matches("Tom Hanks") {
                rows.push(json!({ "adult": false, "id": 31, "media_type": "person", "name": "Tom Hanks", "known_for_department": "Acting" }));
            }
            render::page(rows, page)
        }
        ["search", "collection"] => {
            let rows = data::COLLECTIONS
                .iter()
                .filter(|(_, n, _)| matches(n))
                .map(|(id, n, o)| json!({ "adult": false, "backdrop_path": null, "id": id, "name": n, "original_language": "en", "original_name": n, "overview": o, "poster_path": "/c.jpg" }))
                .collect();
            render::page(rows, page)
        }
        ["search", "keyword"] => {
            let rows = data::KEYWORDS
                .iter()
                .filter(|(_, n)| matches(n))
                .map(|(id, n)| json!({ "id": id, "name": n }))
                .collect();
            render::page(rows, page)
        }
        ["search", "company"] => {
            let rows = data::COMPANIES
                .iter()
                .filter(|(_, n, _)| matches(n))
                .map(|(id, n, c)| json!({ "id": id, "logo_path": null, "name": n, "origin_country": c }))
                .collect();
            render::page(rows, page)
        }
        ["trending", kind @ ("movie" | "tv" | "all"), "day" | "week"] => {
            let rows = TITLES
                .iter()
                .filter(|t| *kind == "all" || t.tv == (*kind == "tv"))
                .map(|t| render::list_item(t, true))
                .collect();
            render::page(rows, page)
        }
        ["discover", kind @ ("movie" | "tv")] => {
            let tv = *kind == "tv";
            let rows = TITLES
                .iter()
                .filter(|t| t.tv == tv && discover_keeps(t, r))
                .map(|t| render::list_item(t, false))
                .collect();
            render::page(rows, page)
        }
        ["genre", kind @ ("movie" | "tv"), "list"] => render::genre_list(*kind == "tv"),
        ["certification", kind @ ("movie" | "tv"), "list"] => {
            render::certification_list(*kind == "tv")
        }
        ["watch", "providers", "movie" | "tv"] => render::providers(r.param("watch_region")),
        [kind @ ("movie" | "tv"), id] => match find(kind, id) {
            Some(t) => {
                let append: Vec<&str> = r
                    .param("append_to_response")
                    .unwrap_or("")
                    .split(',')
                    .collect();
                if t.tv {
                    render::tv(t, &append)
                } else {
                    render::movie(t, &append)
                }
            }
            None => return not_found(),
        },
        ["tv", id, "season", season, "episode", episode] => {
            let found = find("tv", id).and_then(|t| {
                data::EPISODES
                    .iter()
                    .find(|e| {
                        e.show == t.id
                            && e.season.to_string() == *season
                            && e.episode.to_string() == *episode
                    })
                    .map(|e| render::episode(t, e))
            });
            match found {
                Some(v) => v,
                None => return not_found(),
            }
        }
        [kind @ ("movie" | "tv"), id, "recommendations"] => match find(kind, id) {
            Some(t) => {
                let rows = t
                    .recommendations
                    .iter()
                    .filter_map(|id| TITLES.iter().find(|x| x.id == *id))
                    .map(|x| render::list_item(x, true))
                    .collect();
                render::page(rows, page)
            }
            None => return not_found(),
        },
        _ => return not_found(),
    };
    Json(body).into_response()
}

fn find(kind: &str, id: &str) -> Option<&'static Title> {
    TITLES
        .iter()
        .find(|t| t.id.to_string() == id && t.tv == (kind == "tv"))
}

fn not_found() -> Response {
    let body = json!({ "status_code": 34, "status_message": "The resource you requested could not be found.", "success": false });
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

/// TMDB's discover filters, as far as the fixed data can answer them.
fn discover_keeps(t: &Title, r: &RecordedRequest) -> bool {
    let ids = |name: &str| -> Option<Vec<u32>> {
        r.param(name).map(|v| {
            v.split([',', '|'])
                .filter_map(|x| x.trim().parse().ok())
                .collect()
        })
    };
    let num = |name: &str| r.param(name).and_then(|v| v.parse::<f64>().ok());
    let date_prefix = if t.tv {
        "first_air_date"
    } else {
        "primary_release_date"
    };
    let gte = r.param(&format!("{date_prefix}.gte"));
    let lte = r.param(&format!("{date_prefix}.lte"));
    let cert_ok = match (
        r.param("certification_country"),
        r.param("certification.lte"),
    ) {
        (Some(region), Some(max)) => {
            let order = |c: &str| {
                data::MOVIE_CERTIFICATIONS
                    .iter()
                    .find(|(rg, x, _, _)| *rg == region && *x == c)
                    .map(|x| x.3)
            };
            let mine = t
                .ratings
                .iter()
                .find(|(rg, _)| *rg == region)
                .and_then(|(_, c)| order(c));
            matches!((mine, order(max)), (Some(m), Some(x)) if m <= x && m > 0)
        }
        _ => true,
    };
    let provider_ok = match (ids("with_watch_providers"), r.param("watch_region")) {
        (Some(p), Some(region)) => t
            .providers
            .iter()
            .any(|(rg, id)| *rg == region && p.contains(id)),
        (Some(_), None) => false,
        _ => true,
    };
    ids("with_genres").is_none_or(|g| g.iter().all(|x| t.genres.contains(x)))
        && ids("without_genres").is_none_or(|g| !g.iter().any(|x| t.genres.contains(x)))
        && ids("with_keywords").is_none_or(|k| k.iter().any(|x| t.keywords.contains(x)))
        && ids("with_companies").is_none_or(|c| c.iter().any(|x| t.companies.contains(x)))
        && gte.is_none_or(|d| t.date >= d)
        && lte.is_none_or(|d| t.date <= d)
        && num("vote_average.gte").is_none_or(|v| f64::from(t.vote_average) >= v)
        && num("vote_count.gte").is_none_or(|v| f64::from(t.vote_count) >= v)
        && num("with_runtime.gte").is_none_or(|v| f64::from(t.runtime) >= v)
        && num("with_runtime.lte").is_none_or(|v| f64::from(t.runtime) <= v)
        && r.param("with_original_language")
            .is_none_or(|l| t.language == l)
        && r.param("with_origin_country")
            .is_none_or(|c| t.country == c)
        && cert_ok
        && provider_ok
}
