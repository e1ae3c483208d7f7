//! Albums and books requested through the real MCP endpoint, against the Lidarr and Readarr
//! contract fakes: an album lands in Lidarr without the artist's other albums monitored, a book
//! found by `search_books` is requested with the row's own ids and lands in Readarr, and
//! `check_request_status` follows both to available. Discovery rows say `in_library` from one
//! read of each library.

use std::time::Duration;

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{self, builtin, instance, outcome, server_with_instances};

async fn state_of(s: &support::Server, request_id: i64) -> (String, Value) {
    let (err, summary, data) = outcome(
        &s.call(
            &s.owner_key,
            "check_request_status",
            json!({"request_id": request_id}),
        )
        .await,
    );
    assert!(!err, "{summary}");
    let row = data["requests"][0].clone();
    (row["state"].as_str().unwrap().to_string(), row)
}

/// Follows a handed-over request through the fake's clock: searching, downloading, available.
async fn follow_to_available(s: &support::Server, fake: &FakeArr, id: i64) {
    assert_eq!(state_of(s, id).await.0, "searching");
    fake.advance(Duration::from_secs(1));
    let (state, row) = state_of(s, id).await;
    assert_eq!(state, "downloading", "{row}");
    fake.advance(Duration::from_secs(6 * 3600));
    fake.advance(Duration::from_secs(60));
    let (state, row) = state_of(s, id).await;
    assert_eq!(state, "available", "{row}");
}

#[tokio::test]
async fn an_album_request_lands_in_lidarr_without_the_artists_other_albums_and_becomes_available() {
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    let artist = json!({"artistName": "Radiohead", "foreignArtistId": "a74b1b7f-71a5-4011-9441-d0b5e4122711"});
    let album = |title: &str, id: &str| json!({"title": title, "foreignAlbumId": id, "releaseDate": "1997-05-21T00:00:00Z", "artist": artist});
    lidarr.seed_lookup(
        Resource::Artist,
        artist.clone(),
        vec![album("OK Computer", "rg-ok"), album("Kid A", "rg-kida")],
    );
    lidarr.seed_lookup(Resource::Album, album("OK Computer", "rg-ok"), vec![]);
    let s = server_with_instances(vec![instance(
        "lidarr",
        InstanceKind::Lidarr,
        Some(&lidarr.url()),
        Some(lidarr.api_key()),
    )])
    .await;

    let (err, summary, data) = outcome(
        &s.call(
            &s.owner_key,
            "request_media",
            json!({"media_source": "musicbrainz", "media_id": "rg-ok", "media_type": "music"}),
        )
        .await,
    );
    assert!(!err && summary.contains("added to lidarr"), "{summary}");
    let id = data["request"]["request_id"].as_i64().unwrap();
    let monitored: Vec<(String, bool)> = lidarr
        .all(Resource::Album)
        .iter()
        .map(|a| {
            (
                a["title"].as_str().unwrap().to_string(),
                a["monitored"] == true,
            )
        })
        .collect();
    assert_eq!(
        monitored,
        [
            ("OK Computer".to_string(), true),
            ("Kid A".to_string(), false)
        ]
    );
    assert_eq!(lidarr.all(Resource::Artist)[0]["monitorNewItems"], "none");
    let searches = lidarr.requests_to("POST", "/command");
    assert_eq!(searches.len(), 1);
    assert_eq!(searches[0].body["name"], "AlbumSearch");

    follow_to_available(&s, &lidarr, id).await;
}

#[tokio::test]
async fn a_book_found_by_search_books_is_requested_with_its_row_ids_and_lands_in_readarr() {
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "releaseDate": "1937-09-21T00:00:00Z", "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    let s = server_with_instances(vec![instance(
        "readarr",
        InstanceKind::Readarr,
        Some(&readarr.url()),
        Some(readarr.api_key()),
    )])
    .await;
    let (err, summary, found) = outcome(
        &s.call(&s.owner_key, "search_books", json!({"query": "hobbit"}))
            .await,
    );
    assert!(!err, "{summary}");
    let row = &found["results"][0];
    assert_eq!(row["in_library"], false, "{row}");
    let args = json!({"media_source": row["media_source"], "media_id": row["media_id"], "media_type": row["media_type"]});
    assert_eq!(
        args,
        json!({"media_source": "goodreads", "media_id": "5907", "media_type": "book"})
    );

    let (err, summary, data) = outcome(&s.call(&s.owner_key, "request_media", args.clone()).await);
    assert!(!err && summary.contains("added to readarr"), "{summary}");
    let id = data["request"]["request_id"].as_i64().unwrap();
    let books = readarr.all(Resource::Book);
    assert_eq!(
        (
            books.len(),
            books[0]["title"].clone(),
            books[0]["monitored"].clone()
        ),
        (1, json!("The Hobbit"), json!(true))
    );
    assert_eq!(
        readarr.requests_to("POST", "/command")[0].body["name"],
        "BookSearch"
    );

    follow_to_available(&s, &readarr, id).await;
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "request_media", args).await);
    assert!(!err && data["already_available"] == true, "{summary}");
}

#[tokio::test]
async fn an_album_or_book_request_looks_the_title_up_once_from_read_to_hand_over() {
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    lidarr.seed_lookup(
        Resource::Album,
        json!({"title": "OK Computer", "foreignAlbumId": "rg-ok", "artist": {"artistName": "Radiohead", "foreignArtistId": "a74b"}}),
        vec![],
    );
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    let s = server_with_instances(vec![
        instance(
            "lidarr",
            InstanceKind::Lidarr,
            Some(&lidarr.url()),
            Some(lidarr.api_key()),
        ),
        instance(
            "readarr",
            InstanceKind::Readarr,
            Some(&readarr.url()),
            Some(readarr.api_key()),
        ),
    ])
    .await;
    let titles = [
        (
            &lidarr,
            "/album/lookup",
            json!({"media_source": "musicbrainz", "media_id": "rg-ok", "media_type": "music"}),
        ),
        (
            &readarr,
            "/book/lookup",
            json!({"media_source": "goodreads", "media_id": "5907", "media_type": "book"}),
        ),
    ];
    for (fake, lookup, args) in titles {
        let (err, summary, _) = outcome(
            &s.call(&s.owner_key, "get_request_options", args.clone())
                .await,
        );
        assert!(!err, "{summary}");
        assert_eq!(
            fake.requests_to("GET", lookup).len(),
            1,
            "{lookup}: get_request_options"
        );
        fake.clear_requests();
        // The owner's request is approved at once: read, destination and hand-over in one call.
        let (err, summary, _) = outcome(&s.call(&s.owner_key, "request_media", args).await);
        assert!(!err && summary.contains("added to"), "{summary}");
        assert_eq!(
            fake.requests_to("GET", lookup).len(),
            1,
            "{lookup}: request_media"
        );
    }
}

#[tokio::test]
async fn a_weekly_book_quota_shows_in_whoami_and_refuses_the_second_book() {
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    for (title, id) in [("The Hobbit", "5907"), ("Dune", "234225")] {
        readarr.seed_lookup(
            Resource::Book,
            json!({"title": title, "foreignBookId": id, "author": {"authorName": "Someone", "foreignAuthorId": "1"}}),
            vec![],
        );
    }
    let s = server_with_instances(vec![instance(
        "readarr",
        InstanceKind::Readarr,
        Some(&readarr.url()),
        Some(readarr.api_key()),
    )])
    .await;
    let store = s.host.app.store().clone();
    let user = store::QuotaScope::Role { role: Role::User };
    store
        .set_quota(&user, domain::MediaType::Book, 1, 7)
        .await
        .unwrap();
    store
        .set_quota(&user, domain::MediaType::Music, 3, 30)
        .await
        .unwrap();
    let ana = s.key_for("ana", Role::User, "requester").await;
    let book =
        |id: &str| json!({"media_source": "goodreads", "media_id": id, "media_type": "book"});

    let (_, summary, _) = outcome(&s.call(&ana, "whoami", json!({})).await);
    assert!(
        summary.contains("1 of 1 book per 7 days left")
            && summary.contains("3 of 3 albums per 30 days left"),
        "{summary}"
    );
    let (err, summary, _) = outcome(&s.call(&ana, "request_media", book("5907")).await);
    assert!(!err, "{summary}");
    let (_, summary, _) = outcome(&s.call(&ana, "whoami", json!({})).await);
    assert!(summary.contains("0 of 1 book per 7 days left"), "{summary}");
    let (err, summary, data) = outcome(&s.call(&ana, "request_media", book("234225")).await);
    assert!(err && summary.contains("no book fits now"), "{summary}");
    assert_eq!(data["allowances"][0]["media_type"], "book", "{data}");
}

#[tokio::test]
async fn a_book_named_by_another_source_is_refused_with_the_sources_that_can_name_it() {
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    let s = server_with_instances(vec![instance(
        "readarr",
        InstanceKind::Readarr,
        Some(&readarr.url()),
        Some(readarr.api_key()),
    )])
    .await;
    let (err, summary, _) = outcome(
        &s.call(
            &s.owner_key,
            "request_media",
            json!({"media_source": "tmdb", "media_id": "603", "media_type": "book"}),
        )
        .await,
    );
    assert!(err);
    assert_eq!(
        summary,
        "media_source \"tmdb\" cannot name a book title in the library; valid sources: goodreads"
    );
    assert!(readarr.requests_to("GET", "/book/lookup").is_empty());
}

#[tokio::test]
async fn discovery_rows_say_in_library_from_one_read_of_the_library_and_only_to_library_readers() {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1, "monitored": true}),
    );
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "radarr",
            InstanceKind::Radarr,
            Some(&radarr.url()),
            Some(radarr.api_key()),
        ),
    ])
    .await;
    let requester = s.key_for("pat", Role::User, "requester").await;
    let flags = |data: &Value| -> Vec<(String, Value)> {
        data["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["media_id"].as_str().unwrap().to_string(),
                    r.get("in_library").cloned().unwrap_or(Value::Null),
                )
            })
            .collect()
    };
    for _ in 0..2 {
        let (err, summary, data) = outcome(
            &s.call(&s.owner_key, "search_titles", json!({"query": "heat"}))
                .await,
        );
        assert!(!err, "{summary}");
        let flags = flags(&data);
        assert!(
            flags.contains(&("tt0113277".into(), json!(true))),
            "{flags:?}"
        );
        assert!(
            flags
                .iter()
                .all(|(id, held)| *held == json!(id == "tt0113277")),
            "{flags:?}"
        );
    }
    assert_eq!(radarr.requests_to("GET", "/movie").len(), 1);

    let (err, summary, data) = outcome(
        &s.call(&requester, "search_titles", json!({"query": "heat"}))
            .await,
    );
    assert!(!err, "{summary}");
    assert!(
        flags(&data).iter().all(|(_, held)| held.is_null()),
        "a caller without library.read sees no flag: {data}"
    );
}
