//! Adding to the library (`POST movie`, `series`, `artist`, `album`, `author`, `book`): the
//! service checks the profile and root folder, refuses what it already holds, fills the rest from
//! its metadata (the seeded lookups), records exactly the monitoring asked for and starts the
//! search the add options ask for.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{
    Resource, commands,
    library::decorate,
    routes::{Answer, invalid, not_found},
    state::{State, merge},
};

pub(crate) fn add(state: &mut State, resource: Resource, body: &Value) -> Answer {
    match resource {
        Resource::Movie => add_item(
            state,
            resource,
            body,
            "tmdbId",
            "This movie has already been added",
        ),
        Resource::Series => add_item(
            state,
            resource,
            body,
            "tvdbId",
            "This series has already been added",
        ),
        Resource::Artist => add_item(
            state,
            resource,
            body,
            "foreignArtistId",
            "This artist has already been added",
        ),
        Resource::Author => add_item(
            state,
            resource,
            body,
            "foreignAuthorId",
            "This author has already been added",
        ),
        Resource::Album => add_unit(
            state,
            resource,
            body,
            Resource::Artist,
            "artist",
            "foreignAlbumId",
        ),
        Resource::Book => add_unit(
            state,
            resource,
            body,
            Resource::Author,
            "author",
            "foreignBookId",
        ),
        _ => not_found(),
    }
}

fn check_profile_and_folder(state: &State, body: &Value) -> Result<(), Answer> {
    let profile = body["qualityProfileId"].as_i64().unwrap_or(0);
    if state.get(Resource::QualityProfile, profile).is_none() {
        return Err(invalid(
            "QualityProfileId",
            &format!("Quality Profile does not exist: {profile}"),
        ));
    }
    let folder = body["rootFolderPath"]
        .as_str()
        .or(body["path"].as_str())
        .unwrap_or("");
    if folder.is_empty() {
        return Err(invalid(
            "RootFolderPath",
            "'Root Folder Path' must not be empty.",
        ));
    }
    let known = state.all(Resource::RootFolder).iter().any(|root| {
        root["path"].as_str().is_some_and(|p| {
            folder.trim_end_matches('/') == p || folder.starts_with(&format!("{p}/"))
        })
    });
    if !known {
        return Err(invalid(
            "RootFolderPath",
            &format!("Root folder '{folder}' does not exist"),
        ));
    }
    Ok(())
}

fn metadata(state: &State, resource: Resource, key: &str, value: &Value) -> (Value, Vec<Value>) {
    state
        .lookups
        .iter()
        .find(|(res, meta, _)| *res == resource && meta[key] == *value)
        .map(|(_, meta, children)| (meta.clone(), children.clone()))
        .unwrap_or((json!({}), Vec::new()))
}

/// Adds a movie, series, artist or author with its children; returns the stored item's id.
fn insert_item(state: &mut State, resource: Resource, body: &Value, key: &str) -> i64 {
    let (mut value, children) = metadata(state, resource, key, &body[key]);
    let mut fields = body.clone();
    if let Some(fields) = fields.as_object_mut() {
        fields.remove("id");
        fields.remove("statistics");
    }
    merge(&mut value, fields);
    let name = ["title", "artistName", "authorName"]
        .iter()
        .find_map(|k| value[*k].as_str())
        .unwrap_or("Unknown")
        .to_string();
    if value["path"].as_str().is_none_or(str::is_empty) {
        let root = value["rootFolderPath"]
            .as_str()
            .unwrap_or("")
            .trim_end_matches('/');
        let folder = match value["year"].as_i64() {
            Some(year) if year > 0 => format!("{name} ({year})"),
            _ => name.clone(),
        };
        value["path"] = json!(format!("{root}/{folder}"));
    }
    value["added"] = json!(state.stamp());
    let id = state.insert(resource, value);
    let stored = state.get(resource, id).unwrap_or_default();
    match resource {
        Resource::Series => {
            let seasons = stored["seasons"].as_array().cloned().unwrap_or_default();
            let none = stored["addOptions"]["monitor"] == json!("none");
            for mut episode in children {
                let season = episode["seasonNumber"].clone();
                let monitored = !none
                    && seasons
                        .iter()
                        .any(|s| s["seasonNumber"] == season && s["monitored"] == json!(true));
                merge(
                    &mut episode,
                    json!({ "seriesId": id, "monitored": monitored, "hasFile": false, "episodeFileId": 0 }),
                );
                state.insert(Resource::Episode, without_id(episode));
            }
        }
        Resource::Artist | Resource::Author => {
            let (child, parent_key, foreign, wanted) = if resource == Resource::Artist {
                (
                    Resource::Album,
                    "artistId",
                    "foreignAlbumId",
                    "albumsToMonitor",
                )
            } else {
                (
                    Resource::Book,
                    "authorId",
                    "foreignBookId",
                    "booksToMonitor",
                )
            };
            let options = &stored["addOptions"];
            let all = options["monitor"] == json!("all") || options["monitor"].is_null();
            let chosen: Vec<Value> = options[wanted].as_array().cloned().unwrap_or_default();
            for mut unit in children {
                let monitored =
                    stored["monitored"] == json!(true) && (all || chosen.contains(&unit[foreign]));
                merge(&mut unit, json!({ parent_key: id, "monitored": monitored }));
                state.insert(child, without_id(unit));
            }
        }
        _ => {}
    }
    id
}

fn without_id(mut value: Value) -> Value {
    if let Some(v) = value.as_object_mut() {
        v.remove("id");
    }
    value
}

fn add_item(
    state: &mut State,
    resource: Resource,
    body: &Value,
    key: &str,
    duplicate: &str,
) -> Answer {
    if body[key].is_null() || body[key] == json!(0) || body[key] == json!("") {
        return invalid(
            &capital(key),
            &format!("'{}' must not be empty.", capital(key)),
        );
    }
    if let Err(refused) = check_profile_and_folder(state, body) {
        return refused;
    }
    if !state.find(resource, key, &body[key]).is_empty() {
        return invalid(&capital(key), duplicate);
    }
    let id = insert_item(state, resource, body, key);
    let options = &body["addOptions"];
    let search = |flag: &str| options[flag] == json!(true);
    match resource {
        Resource::Movie if search("searchForMovie") => {
            commands::queue(state, json!({ "name": "MoviesSearch", "movieIds": [id] }));
        }
        Resource::Series if search("searchForMissingEpisodes") => {
            commands::queue(state, json!({ "name": "SeriesSearch", "seriesId": id }));
        }
        Resource::Artist if search("searchForMissingAlbums") => {
            commands::queue(state, json!({ "name": "ArtistSearch", "artistId": id }));
        }
        Resource::Author if search("searchForMissingBooks") => {
            commands::queue(state, json!({ "name": "AuthorSearch", "authorId": id }));
        }
        _ => {}
    }
    let value = state.get(resource, id).unwrap_or_default();
    (StatusCode::CREATED, decorate(state, resource, value))
}

/// `POST album` / `POST book`: the parent comes along in the body and is added first if the
/// library does not hold it (monitored as its own add options say, `none` by default); only the
/// requested album or book is then monitored.
fn add_unit(
    state: &mut State,
    resource: Resource,
    body: &Value,
    parent: Resource,
    parent_field: &str,
    key: &str,
) -> Answer {
    let parent_key = match parent {
        Resource::Artist => "foreignArtistId",
        _ => "foreignAuthorId",
    };
    let parent_body = &body[parent_field];
    if body[key].as_str().is_none_or(str::is_empty) {
        return invalid(
            &capital(key),
            &format!("'{}' must not be empty.", capital(key)),
        );
    }
    let parent_id = match state
        .find(parent, parent_key, &parent_body[parent_key])
        .first()
    {
        Some(held) => held["id"].as_i64().unwrap_or_default(),
        None => {
            if let Err(refused) = check_profile_and_folder(state, parent_body) {
                return refused;
            }
            let mut parent_body = parent_body.clone();
            if parent_body["addOptions"]["monitor"].is_null() {
                parent_body["addOptions"] = json!({ "monitor": "none" });
            }
            insert_item(state, parent, &parent_body, parent_key)
        }
    };
    let id_field = format!("{}Id", parent_field);
    let unit_id = match state.find(resource, key, &body[key]).first() {
        Some(held) => {
            let id = held["id"].as_i64().unwrap_or_default();
            state.update(resource, id, json!({ "monitored": true }));
            id
        }
        None => {
            let (mut value, _) = metadata(state, resource, key, &body[key]);
            merge(&mut value, without_id(body.clone()));
            if let Some(v) = value.as_object_mut() {
                v.remove(parent_field);
            }
            merge(
                &mut value,
                json!({ id_field: parent_id, "monitored": true }),
            );
            state.insert(resource, value)
        }
    };
    let search_flag = if resource == Resource::Album {
        "searchForNewAlbum"
    } else {
        "searchForNewBook"
    };
    if body["addOptions"][search_flag] == json!(true) {
        let (name, ids) = if resource == Resource::Album {
            ("AlbumSearch", "albumIds")
        } else {
            ("BookSearch", "bookIds")
        };
        commands::queue(state, json!({ "name": name, ids: [unit_id] }));
    }
    let value = state.get(resource, unit_id).unwrap_or_default();
    (StatusCode::CREATED, decorate(state, resource, value))
}

fn capital(key: &str) -> String {
    let mut chars = key.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
