//! The media adapter against servers no one here wrote: Prism mocks generated from Jellyfin's
//! OpenAPI document and the community Plex Media Server document (`scripts/prism.sh` starts
//! them on 127.0.0.1 and passes their URLs in `MARQUEE_PRISM_JELLYFIN` and `MARQUEE_PRISM_PLEX`).
//! Prism fills every field with its type's placeholder, so these tests assert that every read
//! Prism can answer decodes, never what the values are: a decode error or a refused request
//! fails. A read whose schema Prism cannot fill (it answers 500 `SCHEMA_TOO_COMPLEX`) is named
//! below and skipped.
//!
//! Not part of `cargo test --workspace` (`test = false`): `scripts/prism.sh` runs it.

use adapters_media::{Error, MediaClient, Server};
use domain::Secret;

fn client(server: Server, var: &str, users: Vec<(String, Secret)>) -> MediaClient {
    let url = std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: run scripts/prism.sh, which starts the Prism mocks")
    });
    MediaClient::new(
        server,
        url.parse().unwrap(),
        Secret::new("prism-token"),
        users,
        httpx::Timeouts::default(),
    )
    .unwrap()
}

/// Reads whose answer schema Prism cannot fill (Jellyfin's `SessionInfoDto` nests the item
/// playing, its media sources and streams without end).
const TOO_COMPLEX_FOR_PRISM: [&str; 1] = ["jellyfin sessions"];

/// The read decoded (a paged read may be refused as incomplete: Prism's placeholder total
/// disagrees with its one example item).
fn decoded<T>(what: &str, r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(Error::Incomplete { .. }) => None,
        Err(Error::Http {
            source: httpx::Error::Upstream { status: 500, .. },
            ..
        }) if TOO_COMPLEX_FOR_PRISM.contains(&what) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

#[tokio::test]
async fn jellyfin_reads_decode_against_its_document() {
    let c = client(Server::Jellyfin, "MARQUEE_PRISM_JELLYFIN", Vec::new());
    let status = c.status().await.unwrap_or_else(|e| panic!("status: {e}"));
    assert!(!status.is_empty());
    // Prism's example item is of the first `BaseItemKind` (not a movie, show or episode), so
    // the page decodes to no title; the read must still succeed or be refused as incomplete.
    decoded("jellyfin items", c.all_items().await);
    let users = c.users().await.unwrap_or_else(|e| panic!("users: {e}"));
    let user = users.first().expect("prism answers one example user");
    decoded("jellyfin resume", c.continue_watching(user, 20).await);
    decoded("jellyfin history", c.history(user, 20).await);
    decoded("jellyfin sessions", c.sessions().await);
}

#[tokio::test]
async fn plex_reads_decode_against_the_community_document() {
    let users = vec![("alice".to_string(), Secret::new("prism-user-token"))];
    let c = client(Server::Plex, "MARQUEE_PRISM_PLEX", users);
    let status = c.status().await.unwrap_or_else(|e| panic!("status: {e}"));
    assert!(!status.is_empty());
    decoded("plex items", c.all_items().await);
    decoded(
        "plex continue watching",
        c.continue_watching("alice", 20).await,
    );
    decoded("plex history", c.history("alice", 20).await);
    let sessions = decoded("plex sessions", c.sessions().await);
    assert!(sessions.is_some(), "prism answers one example session");
}
