//! The TMDB fake's answers in TMDB v3's documented JSON shapes.

use serde_json::{Value, json};

use super::data::{self, Title};

/// A list row: a movie or TV result, with `media_type` for trending and multi search.
pub(crate) fn list_item(t: &Title, with_media_type: bool) -> Value {
    let mut v = if t.tv {
        json!({
            "adult": false, "backdrop_path": null, "genre_ids": t.genres, "id": t.id,
            "origin_country": [t.country], "original_language": t.language, "original_name": t.title,
            "overview": t.overview, "popularity": 100.5, "poster_path": t.poster, "first_air_date": t.date,
            "name": t.title, "vote_average": t.vote_average, "vote_count": t.vote_count,
        })
    } else {
        json!({
            "adult": false, "backdrop_path": null, "genre_ids": t.genres, "id": t.id,
            "original_language": t.language, "original_title": t.title, "overview": t.overview,
            "popularity": 100.5, "poster_path": t.poster, "release_date": t.date, "title": t.title,
            "video": false, "vote_average": t.vote_average, "vote_count": t.vote_count,
        })
    };
    if with_media_type {
        v["media_type"] = json!(if t.tv { "tv" } else { "movie" });
    }
    v
}

/// `{page, results, total_pages, total_results}` with TMDB's 20 rows per page.
pub(crate) fn page(rows: Vec<Value>, page: u32) -> Value {
    let total = rows.len();
    let start = (page.max(1) as usize - 1) * 20;
    let results: Vec<Value> = rows.into_iter().skip(start).take(20).collect();
    json!({ "page": page.max(1), "results": results, "total_pages": total.div_ceil(20).max(1), "total_results": total })
}

fn genres(t: &Title) -> Value {
    t.genres
        .iter()
        .map(|g| json!({ "id": g, "name": data::genre_name(*g) }))
        .collect()
}

fn credits(t: &Title) -> Value {
    let cast: Vec<Value> = t
        .cast
        .iter()
        .enumerate()
        .map(|(i, n)| json!({ "adult": false, "id": 1000 + i, "name": n, "character": "", "order": i, "known_for_department": "Acting" }))
        .collect();
    let crew: Vec<Value> = t
        .directors
        .iter()
        .map(|n| json!({ "id": 2000, "name": n, "job": "Director", "department": "Directing" }))
        .chain(std::iter::once(json!({ "id": 3000, "name": "Someone Else", "job": "Producer", "department": "Production" })))
        .collect();
    json!({ "cast": cast, "crew": crew })
}

fn companies(t: &Title) -> Value {
    data::COMPANIES
        .iter()
        .filter(|(id, _, _)| t.companies.contains(id))
        .map(|(id, name, c)| json!({ "id": id, "logo_path": null, "name": name, "origin_country": c }))
        .collect()
}

/// `/movie/{id}` with `release_dates` and `credits` appended when asked.
pub(crate) fn movie(t: &Title, append: &[&str]) -> Value {
    let mut v = json!({
        "adult": false, "backdrop_path": data::backdrop(t.id), "belongs_to_collection": null, "budget": 0,
        "genres": genres(t), "homepage": "", "id": t.id, "imdb_id": t.imdb_id,
        "original_language": t.language, "original_title": t.title, "overview": t.overview, "popularity": 100.5,
        "poster_path": t.poster, "production_companies": companies(t),
        "production_countries": [{ "iso_3166_1": t.country, "name": t.country }],
        "release_date": t.date, "revenue": 0, "runtime": t.runtime,
        "spoken_languages": [{ "english_name": "English", "iso_639_1": t.language, "name": "English" }],
        "status": "Released", "tagline": "", "title": t.title, "video": false,
        "vote_average": t.vote_average, "vote_count": t.vote_count,
    });
    if append.contains(&"release_dates") {
        let results: Vec<Value> = t
            .ratings
            .iter()
            .map(|(region, cert)| {
                json!({ "iso_3166_1": region, "release_dates": [
                    { "certification": "", "descriptors": [], "iso_639_1": "", "note": "Premiere", "release_date": format!("{}T00:00:00.000Z", t.date), "type": 1 },
                    { "certification": cert, "descriptors": [], "iso_639_1": "", "note": "", "release_date": format!("{}T00:00:00.000Z", t.date), "type": 3 },
                ]})
            })
            .collect();
        v["release_dates"] = json!({ "results": results });
    }
    if append.contains(&"credits") {
        v["credits"] = credits(t);
    }
    v
}

/// `/tv/{id}` with `content_ratings` and `credits` appended when asked.
pub(crate) fn tv(t: &Title, append: &[&str]) -> Value {
    let created_by: Vec<Value> = t
        .directors
        .iter()
        .map(|n| json!({ "id": 1, "name": n, "gender": 0 }))
        .collect();
    let mut v = json!({
        "adult": false, "backdrop_path": data::backdrop(t.id), "created_by": created_by, "episode_run_time": [t.runtime],
        "first_air_date": t.date, "genres": genres(t), "homepage": "", "id": t.id, "in_production": false,
        "languages": [t.language], "name": t.title, "number_of_episodes": 10 * t.seasons,
        "number_of_seasons": t.seasons, "origin_country": [t.country], "original_language": t.language,
        "original_name": t.title, "overview": t.overview, "popularity": 100.5, "poster_path": t.poster,
        "production_companies": companies(t), "production_countries": [{ "iso_3166_1": t.country, "name": t.country }],
        "spoken_languages": [{ "english_name": "English", "iso_639_1": t.language, "name": "English" }],
        "status": "Ended", "type": "Scripted", "vote_average": t.vote_average, "vote_count": t.vote_count,
    });
    if append.contains(&"content_ratings") {
        let results: Vec<Value> = t
            .ratings
            .iter()
            .map(|(region, rating)| json!({ "descriptors": [], "iso_3166_1": region, "rating": rating }))
            .collect();
        v["content_ratings"] = json!({ "results": results });
    }
    if append.contains(&"credits") {
        v["credits"] = credits(t);
    }
    v
}

pub(crate) fn genre_list(tv: bool) -> Value {
    let list = if tv {
        data::TV_GENRES
    } else {
        data::MOVIE_GENRES
    };
    json!({ "genres": list.iter().map(|(id, name)| json!({ "id": id, "name": name })).collect::<Vec<_>>() })
}

pub(crate) fn certification_list(tv: bool) -> Value {
    let list = if tv {
        data::TV_CERTIFICATIONS
    } else {
        data::MOVIE_CERTIFICATIONS
    };
    let mut by_region = serde_json::Map::new();
    for (region, cert, meaning, order) in list {
        let entry = by_region
            .entry(region.to_string())
            .or_insert_with(|| json!([]));
        if let Some(a) = entry.as_array_mut() {
            a.push(json!({ "certification": cert, "meaning": meaning, "order": order }));
        }
    }
    json!({ "certifications": by_region })
}

pub(crate) fn providers(region: Option<&str>) -> Value {
    let results: Vec<Value> = data::PROVIDERS
        .iter()
        .enumerate()
        .filter(|(_, (_, _, regions))| region.is_none_or(|r| regions.contains(&r)))
        .map(|(i, (id, name, regions))| {
            let priorities: serde_json::Map<String, Value> = regions.iter().map(|r| (r.to_string(), json!(i))).collect();
            json!({ "display_priorities": priorities, "display_priority": i, "logo_path": "/x.jpg", "provider_name": name, "provider_id": id })
        })
        .collect();
    json!({ "results": results })
}

/// `/tv/{id}/season/{s}/episode/{e}`: TMDB's episode shape.
pub(crate) fn episode(show: &Title, e: &data::Episode) -> Value {
    json!({
        "air_date": e.air_date, "crew": [], "episode_number": e.episode, "guest_stars": [],
        "id": show.id * 1000 + u64::from(e.season) * 100 + u64::from(e.episode),
        "name": e.name, "overview": e.overview, "production_code": "", "runtime": show.runtime,
        "season_number": e.season, "still_path": null, "vote_average": 8.0, "vote_count": 100,
    })
}
