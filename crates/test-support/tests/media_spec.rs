//! Every answer the Jellyfin fake gives to the requests Marquee's media adapter makes matches
//! Jellyfin's OpenAPI document (`../shared/specs/jellyfin-v12.openapi.json`; set
//! `MARQUEE_SHARED` when the shared folder is elsewhere), the nested `allOf` members (user data,
//! the item playing, play state, transcoding) included; and the fakes refuse a missing token.

#![allow(clippy::unwrap_used)]

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::{
    arr::spec::Spec,
    media::{FakeMedia, MEDIA_TOKEN, MEDIA_USERS, MediaKind},
};

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
