//! The TVDB fake's answers in the shapes of TVDB's v4 document (`../shared/specs/tvdb-v4.openapi.yaml`):
//! SearchResult, SeriesBaseRecord, SeriesExtendedRecord, MovieBaseRecord, MovieExtendedRecord,
//! EpisodeBaseRecord and their parts.

use serde_json::{Value, json};

use super::data::{Art, Credit, Episode, Record, Season};

const UPDATED: &str = "2024-05-01 08:00:00";

fn aliases(r: &Record) -> Value {
    r.aliases
        .iter()
        .map(|a| json!({ "language": r.language, "name": a }))
        .collect()
}

fn status(r: &Record) -> Value {
    let record_type = if r.movie { "movie" } else { "series" };
    json!({ "id": r.status.0, "name": r.status.1, "recordType": record_type, "keepUpdated": r.status.0 == 1 })
}

/// RemoteID objects: `type` 2 is IMDB, 12 TheMovieDB.com.
pub(crate) fn remote_ids(r: &Record) -> Value {
    json!([
        { "id": r.imdb, "type": 2, "sourceName": "IMDB" },
        { "id": r.tmdb, "type": 12, "sourceName": "TheMovieDB.com" },
    ])
}

fn genres(r: &Record) -> Value {
    r.genres
        .iter()
        .map(|(id, name, slug)| json!({ "id": id, "name": name, "slug": slug }))
        .collect()
}

fn content_ratings(r: &Record) -> Value {
    let content_type = if r.movie { "movie" } else { "episode" };
    r.ratings
        .iter()
        .map(|(id, name, country, order)| {
            json!({ "id": id, "name": name, "country": country, "contentType": content_type, "order": order, "description": "" })
        })
        .collect()
}

/// `GET /content/ratings`: every country's system, each rating with its rank (`order`).
pub(crate) fn all_content_ratings() -> Value {
    let systems: [(&str, &str, &[&str]); 4] = [
        (
            "usa",
            "episode",
            &["TV-Y", "TV-Y7", "TV-G", "TV-PG", "TV-14", "TV-MA"],
        ),
        ("usa", "movie", &["G", "PG", "PG-13", "R", "NC-17"]),
        ("gbr", "episode", &["U", "PG", "12", "15", "18"]),
        ("gbr", "movie", &["U", "PG", "12A", "15", "18"]),
    ];
    let mut id = 9000;
    let mut all = Vec::new();
    for (country, content_type, names) in systems {
        for (order, name) in names.iter().enumerate() {
            id += 1;
            all.push(json!({
                "id": id, "name": name, "country": country, "contentType": content_type,
                "order": order + 1, "description": format!("{name} ({country})"),
                "fullName": name,
            }));
        }
    }
    Value::Array(all)
}

fn company(r: &Record) -> Value {
    let (id, name, slug, country, kind) = r.company;
    json!({
        "id": id, "name": name, "slug": slug, "country": country, "primaryCompanyType": kind,
        "activeDate": "", "inactiveDate": "", "aliases": [], "nameTranslations": ["eng"],
        "overviewTranslations": [], "tagOptions": [],
    })
}

fn translations(r: &Record) -> Value {
    json!({
        "nameTranslations": [{ "language": "eng", "name": r.name, "isPrimary": true, "isAlias": false }],
        "overviewTranslations": [{ "language": "eng", "overview": r.overview, "isPrimary": true }],
        "alias": r.aliases,
    })
}

fn character(r: &Record, c: &Credit) -> Value {
    let mut v = json!({
        "id": c.id, "name": c.character, "peopleId": c.people_id, "personName": c.person,
        "peopleType": c.people_type, "type": c.type_id, "sort": c.sort, "isFeatured": c.type_id == 3,
        "url": format!("https://thetvdb.com/people/{}", c.people_id),
        "personImgURL": format!("https://artworks.thetvdb.com/banners/person/{}/primary.jpg", c.people_id),
        "image": "", "aliases": [], "nameTranslations": [], "overviewTranslations": [], "tagOptions": [],
        "episodeId": null, "seriesId": null, "movieId": null,
    });
    if r.movie {
        v["movieId"] = json!(r.id);
    } else {
        v["seriesId"] = json!(r.id);
    }
    v
}

fn season_name(number: u32) -> String {
    if number == 0 {
        "Specials".into()
    } else {
        format!("Season {number}")
    }
}

fn season(r: &Record, s: &Season) -> Value {
    let (type_id, type_name, type_slug) = s.season_type;
    json!({
        "id": s.id, "seriesId": r.id, "number": s.number, "name": season_name(s.number),
        "type": { "id": type_id, "name": type_name, "type": type_slug, "alternateName": type_name },
        "image": format!("https://artworks.thetvdb.com/banners/seasons/{}-{}.jpg", r.id, s.number),
        "imageType": 7, "lastUpdated": UPDATED, "nameTranslations": [], "overviewTranslations": [],
        "year": r.year,
    })
}

/// The season types a series has, once each.
fn season_types(r: &Record) -> Value {
    let mut seen: Vec<(u32, &str, &str)> = Vec::new();
    for s in r.seasons {
        if !seen.contains(&s.season_type) {
            seen.push(s.season_type);
        }
    }
    seen.iter()
        .map(|(id, name, slug)| json!({ "id": id, "name": name, "type": slug, "alternateName": name }))
        .collect()
}

fn artwork_base(a: &Art) -> Value {
    json!({
        "id": a.id, "image": a.image, "thumbnail": a.image.replace(".jpg", "_t.jpg"), "language": "eng",
        "type": a.kind, "score": 100_000, "width": a.width, "height": a.height, "includesText": false,
    })
}

fn artwork_extended(r: &Record, a: &Art) -> Value {
    let mut v = artwork_base(a);
    v["seriesId"] = json!(r.id);
    v["thumbnailWidth"] = json!(a.width / 4);
    v["thumbnailHeight"] = json!(a.height / 4);
    v["updatedAt"] = json!(1_714_550_400);
    v["status"] = json!({ "id": 1, "name": "Approved" });
    v["tagOptions"] = json!([]);
    v
}

/// An EpisodeBaseRecord.
pub(crate) fn episode(r: &Record, e: &Episode) -> Value {
    json!({
        "id": e.id, "seriesId": r.id, "name": e.name, "aired": e.aired, "runtime": e.runtime,
        "nameTranslations": ["eng"], "overview": e.overview, "overviewTranslations": ["eng"],
        "image": format!("https://artworks.thetvdb.com/banners/episodes/{}/{}.jpg", r.id, e.id),
        "imageType": 11, "isMovie": 0, "number": e.number, "absoluteNumber": e.absolute,
        "seasonNumber": e.season, "seasonName": season_name(e.season), "lastUpdated": UPDATED,
        "year": &e.aired[..4],
    })
}

/// A SeriesBaseRecord (the document gives it no `overview`).
pub(crate) fn series_base(r: &Record) -> Value {
    json!({
        "id": r.id, "name": r.name, "slug": r.slug, "image": r.image, "nameTranslations": ["eng"],
        "overviewTranslations": ["eng"], "aliases": aliases(r), "firstAired": r.first_aired,
        "lastAired": r.last_aired, "nextAired": "", "score": r.score, "status": status(r),
        "originalCountry": r.country, "originalLanguage": r.language, "defaultSeasonType": 1,
        "isOrderRandomized": false, "lastUpdated": UPDATED, "averageRuntime": r.runtime,
        "year": r.year, "country": r.country,
    })
}

/// A SeriesExtendedRecord: the base record with genres, ratings, remote ids, seasons (every
/// season type), characters, artworks, companies and translations; no episodes.
pub(crate) fn series_extended(r: &Record) -> Value {
    let mut v = series_base(r);
    let extra = json!({
        "overview": r.overview,
        "genres": genres(r),
        "contentRatings": content_ratings(r),
        "remoteIds": remote_ids(r),
        "seasons": r.seasons.iter().map(|s| season(r, s)).collect::<Vec<_>>(),
        "seasonTypes": season_types(r),
        "characters": r.credits.iter().map(|c| character(r, c)).collect::<Vec<_>>(),
        "artworks": r.artworks.iter().map(|a| artwork_extended(r, a)).collect::<Vec<_>>(),
        "companies": [company(r)],
        "originalNetwork": company(r),
        "latestNetwork": company(r),
        "airsTime": "21:00",
        "tags": [],
        "trailers": [],
        "translations": translations(r),
    });
    if let (Some(base), Value::Object(more)) = (v.as_object_mut(), extra) {
        base.extend(more);
    }
    v
}

/// A MovieBaseRecord (the document gives it no `overview` either).
pub(crate) fn movie_base(r: &Record) -> Value {
    json!({
        "id": r.id, "name": r.name, "slug": r.slug, "image": r.image, "nameTranslations": ["eng"],
        "overviewTranslations": ["eng"], "aliases": aliases(r), "score": r.score,
        "status": status(r), "runtime": r.runtime, "lastUpdated": UPDATED, "year": r.year,
    })
}

/// A MovieExtendedRecord: the overview only in `translations`, as the document has it.
pub(crate) fn movie_extended(r: &Record) -> Value {
    let mut v = movie_base(r);
    let release = json!({ "country": r.country, "date": r.first_aired, "detail": "Theatrical" });
    let extra = json!({
        "genres": genres(r),
        "contentRatings": content_ratings(r),
        "remoteIds": remote_ids(r),
        "originalCountry": r.country,
        "originalLanguage": r.language,
        "releases": [release.clone()],
        "first_release": release,
        "characters": r.credits.iter().map(|c| character(r, c)).collect::<Vec<_>>(),
        "artworks": r.artworks.iter().map(artwork_base).collect::<Vec<_>>(),
        "companies": {
            "studio": [], "network": [], "production": [company(r)],
            "distributor": [], "special_effects": [],
        },
        "production_countries": [{ "id": 1, "country": r.country, "name": "United States of America" }],
        "spoken_languages": [r.language],
        "audioLanguages": [r.language],
        "subtitleLanguages": [],
        "studios": [],
        "trailers": [],
        "tagOptions": [],
        "lists": [],
        "awards": [],
        "inspirations": [],
        "translations": translations(r),
    });
    if let (Some(base), Value::Object(more)) = (v.as_object_mut(), extra) {
        base.extend(more);
    }
    v
}

/// A SearchResult: ids as strings ("series-280619", tvdb_id "280619"), the year a string.
pub(crate) fn search_result(r: &Record) -> Value {
    let kind = if r.movie { "movie" } else { "series" };
    let mut v = json!({
        "objectID": format!("{kind}-{}", r.id),
        "id": format!("{kind}-{}", r.id),
        "tvdb_id": r.id.to_string(),
        "type": kind,
        "name": r.name,
        "slug": r.slug,
        "year": r.year,
        "overview": r.overview,
        "overviews": { "eng": r.overview },
        "translations": { "eng": r.name },
        "image_url": r.image,
        "thumbnail": r.image.replace(".jpg", "_t.jpg"),
        "poster": r.image,
        "primary_language": r.language,
        "country": r.country,
        "genres": r.genres.iter().map(|g| g.1).collect::<Vec<_>>(),
        "aliases": r.aliases,
        "remote_ids": remote_ids(r),
        "status": r.status.1,
        "first_air_time": r.first_aired,
        "is_official": true,
    });
    if r.movie {
        let director = r.credits.iter().find(|c| c.people_type == "Director");
        v["director"] = json!(director.map_or("", |c| c.person));
        v["studios"] = json!([r.company.1]);
    } else {
        v["network"] = json!(r.company.1);
        v["companies"] = json!([r.company.1]);
    }
    v
}
