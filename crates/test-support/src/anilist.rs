//! A contract fake of AniList's GraphQL API (`POST /` with `{"query", "variables"}`), in AniList's
//! JSON shapes. It does not parse GraphQL: a query containing `Page(` is a search (variables
//! `search`, `page`, `perPage`, `format_in`, `seasonYear`, `isAdult`, `type`), one containing
//! `Media(` a lookup (`id` or `idMal`, optional `type`); every Media object carries all the fields
//! the fake knows, whatever the query selected. Like AniList it answers a lookup that finds nothing
//! with HTTP 404 and `{"errors":[…],"data":{"Media":null}}`, and a request without a query string
//! with 400 "Must provide query string.". `isAdult: false` leaves out the adult title, as AniList's
//! filter does. Descriptions carry AniList's HTML (`<br>`, `<i>`); they are written for the fake.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use crate::server::{Incoming, RecordedRequest, Running};

/// A running AniList fake. Dropping it stops the server.
pub struct AniListFake {
    running: Running,
}

impl AniListFake {
    pub async fn start() -> AniListFake {
        AniListFake {
            running: Running::start("", Box::new(answer)).await,
        }
    }

    /// The GraphQL endpoint, e.g. `http://127.0.0.1:41234` (POST to it, or to `/`).
    pub fn base_url(&self) -> &str {
        &self.running.base_url
    }

    /// Every request received so far, in arrival order; [`RecordedRequest::json_body`] gives each
    /// query and its variables.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.running.requests()
    }

    pub fn clear(&self) {
        self.running.clear();
    }
}

/// One anime.
struct Media {
    id: u64,
    id_mal: u64,
    format: &'static str,
    romaji: &'static str,
    english: Option<&'static str>,
    native: &'static str,
    description: &'static str,
    /// (year, month, day).
    start: (u32, u32, u32),
    episodes: u32,
    /// Minutes per episode.
    duration: u32,
    genres: &'static [&'static str],
    average_score: u32,
    popularity: u32,
    is_adult: bool,
    banner: bool,
    /// (role, full name).
    staff: &'static [(&'static str, &'static str)],
    recommendations: &'static [u64],
}

const MEDIA: &[Media] = &[
    Media {
        id: 1,
        id_mal: 1,
        format: "TV",
        romaji: "Cowboy Bebop",
        english: Some("Cowboy Bebop"),
        native: "カウボーイビバップ",
        description: "In 2071 a small crew of bounty hunters drifts between planets aboard an old fishing ship, chasing rewards and running from their pasts.<br><br><i>(Summary written for the test fake.)</i>",
        start: (1998, 4, 3),
        episodes: 26,
        duration: 24,
        genres: &["Action", "Adventure", "Drama", "Sci-Fi"],
        average_score: 86,
        popularity: 380_000,
        is_adult: false,
        banner: true,
        staff: &[
            ("Director", "Shinichirou Watanabe"),
            ("Music", "Yoko Kanno"),
        ],
        recommendations: &[5],
    },
    Media {
        id: 5,
        id_mal: 5,
        format: "MOVIE",
        romaji: "Cowboy Bebop: Tengoku no Tobira",
        english: Some("Cowboy Bebop: The Movie"),
        native: "カウボーイビバップ 天国の扉",
        description: "Days before Halloween, the bounty hunters go after a man behind an attack that has a whole city in danger.<br><br><i>(Summary written for the test fake.)</i>",
        start: (2001, 9, 1),
        episodes: 1,
        duration: 115,
        genres: &["Action", "Drama", "Mystery", "Sci-Fi"],
        average_score: 82,
        popularity: 90_000,
        is_adult: false,
        banner: true,
        staff: &[
            ("Director", "Shinichirou Watanabe"),
            ("Music", "Yoko Kanno"),
        ],
        recommendations: &[1],
    },
    Media {
        id: 199,
        id_mal: 199,
        format: "MOVIE",
        romaji: "Sen to Chihiro no Kamikakushi",
        english: Some("Spirited Away"),
        native: "千と千尋の神隠し",
        description: "A girl moving house wanders into a world of spirits and must work in a bathhouse to free her parents.<br><br><i>(Summary written for the test fake.)</i>",
        start: (2001, 7, 20),
        episodes: 1,
        duration: 125,
        genres: &["Adventure", "Drama", "Fantasy"],
        average_score: 86,
        popularity: 350_000,
        is_adult: false,
        banner: false,
        staff: &[("Director", "Hayao Miyazaki"), ("Music", "Joe Hisaishi")],
        recommendations: &[],
    },
    Media {
        id: 900_001,
        id_mal: 900_001,
        format: "TV",
        romaji: "Cowboy Nights",
        english: None,
        native: "カウボーイナイツ",
        description: "An invented adult title, there so that isAdult filters can be tested.<br><i>(Not a real anime.)</i>",
        start: (2003, 1, 10),
        episodes: 2,
        duration: 25,
        genres: &["Hentai"],
        average_score: 40,
        popularity: 150,
        is_adult: true,
        banner: false,
        staff: &[],
        recommendations: &[],
    },
];

fn errors(status: StatusCode, message: &str, data: Value) -> Response {
    let body =
        json!({ "errors": [{ "message": message, "status": status.as_u16() }], "data": data });
    (status, Json(body)).into_response()
}

fn no_query() -> Response {
    errors(
        StatusCode::BAD_REQUEST,
        "Must provide query string.",
        Value::Null,
    )
}

fn answer(incoming: &Incoming<'_>, _before: &[RecordedRequest]) -> Response {
    let r = incoming.request;
    if !incoming.path.trim_matches('/').is_empty() {
        return errors(StatusCode::NOT_FOUND, "Not Found.", Value::Null);
    }
    if r.method != "POST" {
        return no_query();
    }
    let Some(body) = r.json_body() else {
        return no_query();
    };
    let Some(query) = body["query"].as_str().filter(|q| !q.trim().is_empty()) else {
        return no_query();
    };
    // Some clients send the variables as a JSON string.
    let variables = match &body["variables"] {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        v => v.clone(),
    };
    if query.contains("Page(") {
        search(&variables)
    } else if query.contains("Media(") {
        lookup(&variables)
    } else {
        errors(
            StatusCode::BAD_REQUEST,
            "this fake answers Page( searches and Media( lookups only",
            Value::Null,
        )
    }
}

fn matches_search(m: &Media, search: &str) -> bool {
    [m.romaji, m.english.unwrap_or(""), m.native]
        .iter()
        .any(|t| t.to_lowercase().contains(search))
}

/// `Page(page, perPage) { pageInfo, media(search, format_in, seasonYear, isAdult, type) }`.
fn search(vars: &Value) -> Response {
    let search = vars["search"].as_str().map(str::to_lowercase);
    let page = vars["page"].as_u64().unwrap_or(1).max(1);
    let per_page = vars["perPage"].as_u64().unwrap_or(20).clamp(1, 50);
    let formats: Option<Vec<&str>> = vars["format_in"]
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect());
    let season_year = vars["seasonYear"].as_u64();
    let is_adult = vars["isAdult"].as_bool();
    let kind = vars["type"].as_str();
    let hits: Vec<&Media> = MEDIA
        .iter()
        .filter(|m| search.as_deref().is_none_or(|s| matches_search(m, s)))
        .filter(|m| formats.as_ref().is_none_or(|f| f.contains(&m.format)))
        .filter(|m| season_year.is_none_or(|y| u64::from(m.start.0) == y))
        .filter(|m| is_adult.is_none_or(|a| m.is_adult == a))
        .filter(|_| kind.is_none_or(|k| k == "ANIME"))
        .collect();
    let total = hits.len() as u64;
    let last_page = total.div_ceil(per_page).max(1);
    let skip = usize::try_from((page - 1).saturating_mul(per_page)).unwrap_or(usize::MAX);
    let take = usize::try_from(per_page).unwrap_or(50);
    let media: Vec<Value> = hits
        .into_iter()
        .skip(skip)
        .take(take)
        .map(|m| render(m, true))
        .collect();
    let page_info = json!({
        "total": total, "perPage": per_page, "currentPage": page, "lastPage": last_page,
        "hasNextPage": page < last_page,
    });
    Json(json!({ "data": { "Page": { "pageInfo": page_info, "media": media } } })).into_response()
}

/// `Media(id | idMal, type)`: every given argument must match.
fn lookup(vars: &Value) -> Response {
    let id = vars["id"].as_u64();
    let id_mal = vars["idMal"].as_u64();
    let kind = vars["type"].as_str();
    let found = MEDIA.iter().find(|m| {
        (id.is_some() || id_mal.is_some())
            && id.is_none_or(|i| m.id == i)
            && id_mal.is_none_or(|i| m.id_mal == i)
            && kind.is_none_or(|k| k == "ANIME")
    });
    match found {
        Some(m) => Json(json!({ "data": { "Media": render(m, true) } })).into_response(),
        None => {
            let body = json!({
                "errors": [{ "message": "Not Found.", "status": 404, "locations": [{ "line": 2, "column": 3 }] }],
                "data": { "Media": null },
            });
            (StatusCode::NOT_FOUND, Json(body)).into_response()
        }
    }
}

/// A Media object; `full` adds `staff` and `recommendations` (whose media are short ones).
fn render(m: &Media, full: bool) -> Value {
    let (year, month, day) = m.start;
    let cover = |size: &str| {
        format!(
            "https://s4.anilist.co/file/anilistcdn/media/anime/cover/{size}/bx{}-fake.jpg",
            m.id
        )
    };
    let banner = m.banner.then(|| {
        format!(
            "https://s4.anilist.co/file/anilistcdn/media/anime/banner/{}-fake.jpg",
            m.id
        )
    });
    let mut v = json!({
        "id": m.id,
        "idMal": m.id_mal,
        "type": "ANIME",
        "format": m.format,
        "status": "FINISHED",
        "title": { "romaji": m.romaji, "english": m.english, "native": m.native },
        "description": m.description,
        "startDate": { "year": year, "month": month, "day": day },
        "seasonYear": year,
        "episodes": m.episodes,
        "duration": m.duration,
        "countryOfOrigin": "JP",
        "genres": m.genres,
        "averageScore": m.average_score,
        "popularity": m.popularity,
        "isAdult": m.is_adult,
        "coverImage": { "large": cover("large"), "extraLarge": cover("extraLarge") },
        "bannerImage": banner,
        "siteUrl": format!("https://anilist.co/anime/{}", m.id),
    });
    if full {
        let edges: Vec<Value> = m
            .staff
            .iter()
            .map(|(role, name)| json!({ "role": role, "node": { "name": { "full": name } } }))
            .collect();
        let nodes: Vec<Value> = m
            .recommendations
            .iter()
            .filter_map(|id| MEDIA.iter().find(|x| x.id == *id))
            .map(|x| json!({ "mediaRecommendation": render(x, false) }))
            .collect();
        v["staff"] = json!({ "edges": edges });
        v["recommendations"] = json!({ "nodes": nodes });
    }
    v
}
