//! Every answer the Jellyfin fake gives to the requests Marquee's media adapter makes matches
//! Jellyfin's OpenAPI document (`../shared/specs/jellyfin-v12.openapi.json`; set
//! `MARQUEE_SHARED` when the shared folder is elsewhere), the nested `allOf` members (user data,
//! the item playing, play state, transcoding) included; the collection answers of the Jellyfin
//! and Plex fakes match their documents (Plex's `plex-pms.openapi.yaml`); and the fakes refuse a
//! missing token.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::{
    arr::spec::Spec,
    media::{FakeMedia, MEDIA_TOKEN, MEDIA_USERS, MediaKind},
};

mod yaml;

async fn get(fake: &FakeMedia, path_and_query: &str, auth: Option<(&str, String)>) -> u16 {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let mut request = reqwest::Client::new()
        .get(format!("{}{path_and_query}", fake.url()))
        .header("Accept", "application/json");
    if let Some((name, value)) = auth {
        request = request.header(name, value);
    }
    request.send().await.unwrap().status().as_u16()
}

/// The `allOf` members the document wraps its nested objects in, checked against their own
/// schemas (the checker reads `$ref`, not `allOf`).
fn nested(spec: &Spec, body: &Value, errors: &mut Vec<String>) {
    let check = |schema: &str, v: &Value, at: &str, errors: &mut Vec<String>| {
        if !v.is_null() {
            spec.validate(
                &json!({ "$ref": format!("#/components/schemas/{schema}") }),
                v,
                at,
                errors,
            );
        }
    };
    let items: Vec<&Value> = match body {
        Value::Array(list) => list.iter().collect(),
        v => v["Items"]
            .as_array()
            .map(|l| l.iter().collect())
            .unwrap_or_default(),
    };
    for (i, item) in items.iter().enumerate() {
        check(
            "UserItemDataDto",
            &item["UserData"],
            &format!("$[{i}].UserData"),
            errors,
        );
        check(
            "BaseItemDto",
            &item["NowPlayingItem"],
            &format!("$[{i}].NowPlayingItem"),
            errors,
        );
        check(
            "PlayerStateInfo",
            &item["PlayState"],
            &format!("$[{i}].PlayState"),
            errors,
        );
        check(
            "TranscodingInfo",
            &item["TranscodingInfo"],
            &format!("$[{i}].TranscodingInfo"),
            errors,
        );
    }
}

#[tokio::test]
async fn jellyfin_answers_match_its_document() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let auth = || {
        Some((
            "Authorization",
            format!("MediaBrowser Client=\"t\", Token=\"{MEDIA_TOKEN}\""),
        ))
    };
    let alice = MEDIA_USERS[0].1;
    let paths = [
        "/System/Info".to_string(),
        "/Users".to_string(),
        "/Items?recursive=true&includeItemTypes=Movie,Series,Episode&fields=ProviderIds,Genres,DateCreated,OfficialRating&startIndex=0&limit=1000".to_string(),
        "/Items?recursive=true&includeItemTypes=Movie,Series,Episode&startIndex=4&limit=2".to_string(),
        format!("/UserItems/Resume?userId={alice}&limit=20"),
        format!("/Items?userId={alice}&recursive=true&isPlayed=true&includeItemTypes=Movie,Episode&sortBy=DatePlayed&sortOrder=Descending&limit=20"),
        "/Sessions?activeWithinSeconds=960".to_string(),
    ];
    for path in &paths {
        assert_eq!(get(&fake, path, auth()).await, 200, "GET {path}");
    }
    let spec = Spec::load_file("jellyfin-v12.openapi.json");
    let mut checked = Vec::new();
    let mut errors = Vec::new();
    for (method, path, status, body) in fake.answers() {
        match spec.check(&method, &path, status, &body) {
            Ok(Some(c)) => checked.push(c),
            Ok(None) => errors.push(format!("{method} {path} is not in the document")),
            Err(e) => errors.push(e),
        }
        nested(&spec, &body, &mut errors);
    }
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(checked.len(), paths.len(), "{checked:#?}");
    // The half-watched episode and the transcoding session are there to be checked.
    let answers = fake.answers();
    let resume = &answers[4].3;
    assert_eq!(resume["Items"][0]["UserData"]["PlayedPercentage"], 50.0);
    assert_eq!(answers[6].3[0]["PlayState"]["PlayMethod"], "Transcode");
}

#[tokio::test]
async fn the_fakes_refuse_a_request_without_their_token() {
    for (kind, header) in [
        (MediaKind::Jellyfin, "Authorization"),
        (MediaKind::Emby, "X-Emby-Token"),
        (MediaKind::Plex, "X-Plex-Token"),
    ] {
        let fake = FakeMedia::start(kind).await;
        let path = if kind == MediaKind::Plex {
            "/identity"
        } else {
            "/System/Info"
        };
        assert_eq!(get(&fake, path, None).await, 401, "{kind:?}");
        assert_eq!(
            get(&fake, path, Some((header, "wrong".into()))).await,
            401,
            "{kind:?}"
        );
        let good = if kind == MediaKind::Jellyfin {
            format!("MediaBrowser Token=\"{MEDIA_TOKEN}\"")
        } else {
            MEDIA_TOKEN.to_string()
        };
        assert_eq!(
            get(&fake, path, Some((header, good))).await,
            200,
            "{kind:?}"
        );
    }
}

/// Sends `method path?query` with the fake's token; the status.
async fn send(fake: &FakeMedia, method: reqwest::Method, path_and_query: &str) -> u16 {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let (name, value) = match fake.kind() {
        MediaKind::Plex => ("X-Plex-Token", MEDIA_TOKEN.to_string()),
        _ => (
            "Authorization",
            format!("MediaBrowser Client=\"t\", Token=\"{MEDIA_TOKEN}\""),
        ),
    };
    reqwest::Client::new()
        .request(method, format!("{}{path_and_query}", fake.url()))
        .header("Accept", "application/json")
        .header(name, value)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Every answer the fake gave, checked against `spec`: how many were.
fn all_match(fake: &FakeMedia, spec: &Spec) -> usize {
    let mut checked = 0;
    let mut errors = Vec::new();
    for (method, path, status, body) in fake.answers() {
        match spec.check(&method, &path, status, &body) {
            Ok(Some(_)) => checked += 1,
            Ok(None) => errors.push(format!("{method} {path} is not in the document")),
            Err(e) => errors.push(e),
        }
    }
    assert!(errors.is_empty(), "{errors:#?}");
    checked
}

#[tokio::test]
async fn jellyfin_collection_answers_match_its_document() {
    use reqwest::Method;
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let (paddington, alien) = (
        "a0000000-0000-4000-8000-000000000001",
        "a0000000-0000-4000-8000-000000000002",
    );
    assert_eq!(
        send(&fake, Method::GET, "/Library/VirtualFolders").await,
        200
    );
    let created = format!("/Collections?name=Friday&ids={paddington}");
    assert_eq!(send(&fake, Method::POST, &created).await, 200);
    let id = fake.answers()[1].3["Id"].as_str().unwrap().to_string();
    let items = format!("/Collections/{id}/Items?ids={alien}");
    assert_eq!(send(&fake, Method::POST, &items).await, 204);
    assert_eq!(send(&fake, Method::GET, &format!("/Items/{id}")).await, 200);
    assert_eq!(
        send(&fake, Method::GET, &format!("/Items?parentId={id}")).await,
        200
    );
    assert_eq!(send(&fake, Method::DELETE, &items).await, 204);
    assert_eq!(
        send(&fake, Method::DELETE, &format!("/Items/{id}")).await,
        204
    );
    assert_eq!(send(&fake, Method::GET, &format!("/Items/{id}")).await, 404);
    let spec = Spec::load_file("jellyfin-v12.openapi.json");
    assert_eq!(all_match(&fake, &spec), 7);
}

#[tokio::test]
async fn plex_collection_answers_match_its_document() {
    use reqwest::Method;
    let fake = FakeMedia::start(MediaKind::Plex).await;
    let uri = |ids: &str| {
        format!(
            "server%3A%2F%2Ff00dfeed%2Fcom.plexapp.plugins.library%2Flibrary%2Fmetadata%2F{ids}"
        )
    };
    assert_eq!(send(&fake, Method::GET, "/library/sections/all").await, 200);
    let created = format!(
        "/library/collections?type=1&title=Friday&smart=0&sectionId=1&uri={}",
        uri("1")
    );
    assert_eq!(send(&fake, Method::POST, &created).await, 200);
    let id = fake.answers()[1].3["MediaContainer"]["Metadata"][0]["ratingKey"]
        .as_str()
        .unwrap()
        .to_string();
    let items = format!("/library/collections/{id}/items");
    assert_eq!(
        send(&fake, Method::PUT, &format!("{items}?uri={}", uri("2"))).await,
        200
    );
    assert_eq!(send(&fake, Method::GET, &items).await, 200);
    assert_eq!(send(&fake, Method::PUT, &format!("{items}/2")).await, 200);
    let gone = format!("/library/sections/1/collection/{id}");
    assert_eq!(send(&fake, Method::DELETE, &gone).await, 200);
    assert_eq!(send(&fake, Method::GET, &items).await, 404);
    // The delete answers an empty page (`text/html` in the document): nothing to check.
    let spec = Spec::from_value(yaml::document("plex-pms.openapi.yaml"));
    let answers = fake.answers();
    assert_eq!(answers.last().unwrap().3, Value::Null);
    assert!(all_match(&fake, &spec) >= 5);
}

#[tokio::test]
async fn jellyfin_playlist_order_and_poster_answers_match_its_document() {
    use reqwest::Method;
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let (paddington, alien) = (
        "a0000000-0000-4000-8000-000000000001",
        "a0000000-0000-4000-8000-000000000002",
    );
    let kid = MEDIA_USERS[1].1;
    let created = format!("/Playlists?name=Kids&ids={paddington}&userId={kid}&mediaType=Video");
    assert_eq!(send(&fake, Method::POST, &created).await, 200);
    let id = fake.answers()[0].3["Id"].as_str().unwrap().to_string();
    let items = format!("/Playlists/{id}/Items");
    let add = format!("{items}?ids={alien}&userId={kid}");
    assert_eq!(send(&fake, Method::POST, &add).await, 204);
    let read = format!("{items}?userId={kid}");
    assert_eq!(send(&fake, Method::GET, &read).await, 200);
    let entry = fake.answers().last().unwrap().3["Items"][1]["PlaylistItemId"]
        .as_str()
        .unwrap()
        .to_string();
    let removed = format!("{items}?entryIds={entry}");
    assert_eq!(send(&fake, Method::DELETE, &removed).await, 204);
    assert_eq!(fake.shelves()[0].items, vec!["Paddington".to_string()]);
    // Another user's read of the playlist finds nothing.
    let other = format!("{items}?userId={}", MEDIA_USERS[0].1);
    assert_eq!(send(&fake, Method::GET, &other).await, 404);
    let image = format!("/Items/{paddington}/Images/Primary");
    assert_eq!(send(&fake, Method::GET, &image).await, 200);
    assert_eq!(
        send(&fake, Method::DELETE, &format!("/Items/{id}")).await,
        204
    );
    let spec = Spec::load_file("jellyfin-v12.openapi.json");
    assert_eq!(all_match(&fake, &spec), 6);
}

#[tokio::test]
async fn plex_playlist_and_poster_answers_match_its_document() {
    use reqwest::Method;
    let fake = FakeMedia::start(MediaKind::Plex).await;
    let uri = "server%3A%2F%2Ff00dfeed%2Fcom.plexapp.plugins.library%2Flibrary%2Fmetadata%2F1";
    // Playlists are the managed user's: the admin token makes none.
    let created = format!("/playlists?type=video&title=Kids&smart=0&uri={uri}");
    assert_eq!(send(&fake, Method::POST, &created).await, 400);
    assert_eq!(send(&fake, Method::GET, "/library/metadata/1").await, 200);
    let thumb = fake.answers()[0].3["MediaContainer"]["Metadata"][0]["thumb"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(thumb.starts_with("/library/metadata/1/thumb/"), "{thumb}");
    assert_eq!(send(&fake, Method::GET, &thumb).await, 200);
    let spec = Spec::from_value(yaml::document("plex-pms.openapi.yaml"));
    assert!(all_match(&fake, &spec) >= 1);
}
