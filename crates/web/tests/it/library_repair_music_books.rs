//! Release search and grab for an album (Lidarr) and a book (Readarr) through the real MCP
//! endpoint: a canary planted in every GUID, download URL, magnet link and info URL of the
//! fakes' releases reaches no answer, error or log line, a reference grabs exactly its release
//! once, and a reference used for another album or book, or after its release vanished, grabs
//! nothing.

use std::sync::{Arc, Mutex};

use domain::InstanceKind;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{Server, instance, outcome, server_with_instances};

const CANARY: &str = "CANARY5519";

/// A Lidarr or Readarr fake holding two titles, with two releases of the first and one of the
/// second, and a Marquee reading it; the scopes of the two titles.
async fn world(kind: ArrKind) -> (FakeArr, Server, Value, Value) {
    let fake = FakeArr::start(kind).await;
    let (units, scopes, instance_kind) = match kind {
        ArrKind::Lidarr => {
            let artist = fake.insert(Resource::Artist, json!({ "artistName": "The Beatles", "foreignArtistId": "b10bbbfc", "path": "/music/The Beatles" }));
            let units = ["9162580e", "5c5d6b3e"].map(|mbid| {
                fake.insert(
                    Resource::Album,
                    json!({ "title": format!("Album {mbid}"), "foreignAlbumId": mbid, "artistId": artist }),
                )
            });
            let scopes = ["9162580e", "5c5d6b3e"].map(|mbid| {
                json!({ "media_source": "musicbrainz", "media_id": mbid, "media_type": "music" })
            });
            (units, scopes, InstanceKind::Lidarr)
        }
        _ => {
            let author = fake.insert(Resource::Author, json!({ "authorName": "Frank Herbert", "foreignAuthorId": "58", "path": "/books/Frank Herbert" }));
            let units = ["234225", "53732"].map(|id| {
                fake.insert(
                    Resource::Book,
                    json!({ "title": format!("Book {id}"), "foreignBookId": id, "authorId": author }),
                )
            });
            let scopes =
                ["234225", "53732"].map(|id| json!({ "media_id": id, "media_type": "book" }));
            (units, scopes, InstanceKind::Readarr)
        }
    };
    for (n, unit) in [(1, units[0]), (2, units[0]), (3, units[1])] {
        fake.seed_release(
            unit,
            json!({
                "title": format!("Release {n} [FLAC] EPUB"),
                "guid": format!("https://indexer.example/details/{n}?{CANARY}-guid"),
                "downloadUrl": format!("http://prowlarr:9696/1/download?apikey={CANARY}-dl&link={n}"),
                "magnetUrl": format!("magnet:?xt=urn:btih:{CANARY}{n}&tr=udp://t.example"),
                "infoUrl": format!("https://indexer.example/info/{CANARY}-{n}"),
                "infoHash": format!("{CANARY}{n}"),
            }),
        );
    }
    let mut spec = instance(
        "arr",
        instance_kind,
        Some(&fake.url()),
        Some(fake.api_key()),
    );
    spec.default = true;
    let server = server_with_instances(vec![spec]).await;
    let [a, b] = scopes;
    (fake, server, a, b)
}

/// A call whose whole answer must not hold the canary.
async fn call(s: &Server, tool: &str, args: Value) -> (bool, String, Value) {
    let result = s.call(&s.owner_key, tool, args).await;
    assert!(
        !result.to_string().contains(CANARY),
        "a GUID or URL leaked: {result}"
    );
    outcome(&result)
}

async fn releases(s: &Server, scope: &Value) -> Vec<Value> {
    let (error, summary, data) = call(s, "search_releases", scope.clone()).await;
    assert!(!error, "{summary}");
    data["releases"].as_array().unwrap().clone()
}

async fn grab(s: &Server, scope: &Value, row: &Value) -> (bool, String) {
    let mut args = scope.clone();
    args["release_ref"] = row["release_ref"].clone();
    args["indexer_id"] = row["indexer_id"].clone();
    let (error, summary, _) = call(s, "grab_release", args).await;
    (error, summary)
}

/// Log lines written while the guard lives, at every level.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Searches the first title, grabs its second release, and checks the fake grabbed exactly
/// that one, once, with no canary in any answer or log line.
async fn grabs_exactly_the_referenced_release_once(kind: ArrKind) {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::info!("capturing");

    let (fake, s, first, _) = world(kind).await;
    let rows = releases(&s, &first).await;
    let titles: Vec<&str> = rows.iter().map(|r| r["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Release 1 [FLAC] EPUB", "Release 2 [FLAC] EPUB"]);
    let (error, summary) = grab(&s, &first, &rows[1]).await;
    assert!(!error, "{summary}");
    let grabs = fake.grabs();
    assert_eq!(grabs.len(), 1, "{grabs:?}");
    assert_eq!(
        grabs[0]["guid"],
        format!("https://indexer.example/details/2?{CANARY}-guid")
    );
    assert_eq!(
        fake.all(Resource::Queue).len(),
        1,
        "the grab is downloading"
    );
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("capturing"), "the capture works");
    assert!(!logged.contains(CANARY), "{logged}");
}

/// A reference of the first title used for the second, then after the release vanished.
async fn a_foreign_or_vanished_reference_grabs_nothing(kind: ArrKind) {
    let (fake, s, first, second) = world(kind).await;
    let row = releases(&s, &first).await[0].clone();
    let (error, summary) = grab(&s, &second, &row).await;
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    fake.clear_releases();
    let (error, summary) = grab(&s, &first, &row).await;
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    assert!(fake.grabs().is_empty());
    assert!(fake.requests_to("POST", "/release").is_empty());
}

#[tokio::test]
async fn an_album_reference_grabs_exactly_its_release_once_and_no_guid_or_url_leaks() {
    grabs_exactly_the_referenced_release_once(ArrKind::Lidarr).await;
}

#[tokio::test]
async fn a_book_reference_grabs_exactly_its_release_once_and_no_guid_or_url_leaks() {
    grabs_exactly_the_referenced_release_once(ArrKind::Readarr).await;
}

#[tokio::test]
async fn an_album_reference_used_for_another_album_or_after_it_vanished_grabs_nothing() {
    a_foreign_or_vanished_reference_grabs_nothing(ArrKind::Lidarr).await;
}

#[tokio::test]
async fn a_book_reference_used_for_another_book_or_after_it_vanished_grabs_nothing() {
    a_foreign_or_vanished_reference_grabs_nothing(ArrKind::Readarr).await;
}

#[tokio::test]
async fn a_book_is_named_by_its_book_source_id_alone_and_one_not_held_is_refused() {
    let (fake, s, _, _) = world(ArrKind::Readarr).await;
    let cases = [
        json!({ "media_source": "tmdb", "media_id": "234225", "media_type": "book" }),
        json!({ "media_id": "999999", "media_type": "book" }),
        json!({ "media_id": "9162580e", "media_type": "music" }),
    ];
    let mut said = Vec::new();
    for args in cases {
        let (error, summary, _) = call(&s, "search_releases", args).await;
        assert!(error);
        said.push(summary);
    }
    expect_test::expect![[r#"
        [
            "a book is named by the book_source_id search_books shows, as media_id, without media_source",
            "no book with book_source_id 999999 is in the library of arr; search_books finds books and says which are in the library",
            "media_source is required for a music title; valid sources: musicbrainz",
        ]
    "#]].assert_debug_eq(&said);
    assert!(fake.requests_to("GET", "/release").is_empty());
}
