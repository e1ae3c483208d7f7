//! The adapters against servers no one here wrote: Prism mocks generated from the vendors' own
//! OpenAPI documents (`scripts/prism.sh` installs `@stoplight/prism-cli`, starts one static mock
//! per document on 127.0.0.1 and passes their URLs in `MARQUEE_PRISM_*`). Prism fills every field
//! with its type's placeholder (`"string"`, -2147483648, `true`), so these tests assert that
//! every read and every write Prism can answer decodes, never what the values are. A paged read
//! whose placeholder `totalRecords` disagrees with its one record is `Incomplete`, as the
//! adapters promise for any such page; a decode error or a refused request is a failure.
//!
//! Not part of `cargo test --workspace` (`test = false`): `scripts/prism.sh` runs it.

use adapters_library::{
    AddOptions, Error, LibraryClient, MediaRef, ReleaseScope, SearchTarget, Service,
};
use domain::{MediaSource, MediaType, Secret};

fn client(service: Service, var: &str) -> LibraryClient {
    let url = std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: run scripts/prism.sh, which starts the Prism mocks")
    });
    LibraryClient::new(service, url.parse().unwrap(), Secret::new("prism-key")).unwrap()
}

/// Reads whose schema Prism cannot fill: it answers 500 `SCHEMA_TOO_COMPLEX` (Readarr's
/// resources nest lazily-loaded author, book and edition lists in each other without end).
const TOO_COMPLEX_FOR_PRISM: [&str; 6] = [
    "readarr queue",
    "readarr history",
    "readarr library",
    "readarr manual import candidates",
    "readarr books",
    "readarr book",
];

/// The read decoded (or, for a paged read, was refused as incomplete).
fn decoded<T>(what: &str, r: Result<T, Error>, paged: bool) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(Error::Incomplete { .. }) if paged => None,
        Err(Error::Http {
            source: httpx::Error::Upstream { status: 500, .. },
            ..
        }) if TOO_COMPLEX_FOR_PRISM.contains(&what) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

fn ok<T>(what: &str, r: Result<T, Error>) -> Option<T> {
    decoded(what, r, false)
}

/// A read whose answer the test goes on with.
fn need<T>(what: &str, r: Result<T, Error>) -> T {
    decoded(what, r, false).unwrap_or_else(|| panic!("{what}: prism could not answer it"))
}

/// What all four answer alike.
async fn common_reads(c: &LibraryClient) {
    let name = c.service().as_str();
    decoded(&format!("{name} queue"), c.queue().await, true);
    ok(&format!("{name} history"), c.history(10).await);
    ok(&format!("{name} health"), c.health().await);
    ok(&format!("{name} disk space"), c.disk_space().await);
    ok(
        &format!("{name} quality profiles"),
        c.quality_profiles().await,
    );
    ok(
        &format!("{name} metadata profiles"),
        c.metadata_profiles().await,
    );
    ok(&format!("{name} custom formats"), c.custom_formats().await);
    ok(&format!("{name} root folders"), c.root_folders().await);
    ok(&format!("{name} tags"), c.tags().await);
    ok(&format!("{name} command"), c.command(1).await);
    ok(&format!("{name} service config"), c.service_config().await);
    if let Some(items) = ok(&format!("{name} library"), c.library().await) {
        assert!(!items.is_empty(), "{name}: prism answers one example item");
    }
    ok(
        &format!("{name} manual import candidates"),
        c.manual_import_candidates(Some("abc"), None).await,
    );
}

async fn common_writes(c: &LibraryClient, target: SearchTarget) {
    let name = c.service().as_str();
    let w = c.unchecked_writer();
    ok(&format!("{name} search command"), w.search(&target).await);
    ok(&format!("{name} rescan command"), w.rescan(1).await);
}

fn opts() -> AddOptions {
    AddOptions {
        quality_profile_id: 1,
        root_folder_path: "/media".into(),
        seasons: vec![1],
        metadata_profile_id: Some(1),
    }
}

fn media(source: MediaSource, id: &str, media_type: MediaType) -> MediaRef {
    MediaRef {
        source,
        id: id.into(),
        media_type,
    }
}

#[tokio::test]
async fn radarr_reads_and_writes_decode_against_its_own_document() {
    let c = client(Service::Radarr, "MARQUEE_PRISM_RADARR");
    common_reads(&c).await;
    let item = need("radarr movie", c.item(1).await);
    ok("radarr movie history", c.item_history(&item).await);
    ok("radarr files", c.files(1).await);
    ok(
        "radarr calendar",
        c.calendar("2026-01-01", "2026-01-31").await,
    );
    ok("radarr releases", c.releases(&ReleaseScope::Movie(1)).await);
    let found = need(
        "radarr lookup by tmdb",
        c.find(&media(MediaSource::Tmdb, "603", MediaType::Movie))
            .await,
    );
    ok(
        "radarr lookup by imdb",
        c.find(&media(MediaSource::Imdb, "tt0133093", MediaType::Movie))
            .await,
    );
    ok(
        "radarr add",
        c.unchecked_writer().add(&found, &opts()).await,
    );
    common_writes(&c, SearchTarget::Movie(1)).await;
}

async fn sonarr(var: &str) {
    let c = client(Service::Sonarr, var);
    common_reads(&c).await;
    let item = need("sonarr series", c.item(1).await);
    ok("sonarr series history", c.item_history(&item).await);
    ok("sonarr season history", c.episode_history(1, 1, None).await);
    // v5: `history/episode`; up to v4: the paged `history` filtered by the episode, which Prism's
    // one-record page with a placeholder total leaves incomplete.
    decoded(
        "sonarr episode history",
        c.episode_history(1, 1, Some(1)).await,
        true,
    );
    ok("sonarr episodes", c.episodes(1, Some(1)).await);
    ok("sonarr files", c.files(1).await);
    ok(
        "sonarr calendar",
        c.calendar("2026-01-01", "2026-01-31").await,
    );
    ok(
        "sonarr releases",
        c.releases(&ReleaseScope::Season {
            series_id: 1,
            season: 1,
        })
        .await,
    );
    if let Some(releases) = ok(
        "sonarr episode releases",
        c.releases(&ReleaseScope::Episode(1)).await,
    ) {
        assert!(!releases.is_empty(), "prism answers one example release");
        ok("sonarr grab", c.unchecked_writer().grab(&releases[0]).await);
    }
    let found = need(
        "sonarr lookup by tvdb",
        c.find(&media(MediaSource::Tvdb, "81189", MediaType::Tv))
            .await,
    );
    ok(
        "sonarr add",
        c.unchecked_writer().add(&found, &opts()).await,
    );
    common_writes(
        &c,
        SearchTarget::Season {
            series_id: 1,
            season: 1,
        },
    )
    .await;
}

#[tokio::test]
async fn sonarr_v3_reads_and_writes_decode_against_its_own_document() {
    sonarr("MARQUEE_PRISM_SONARR").await;
}

#[tokio::test]
async fn sonarr_v5_reads_and_writes_decode_against_its_own_document() {
    sonarr("MARQUEE_PRISM_SONARR_V5").await;
}

#[tokio::test]
async fn lidarr_reads_and_writes_decode_against_its_own_document() {
    let c = client(Service::Lidarr, "MARQUEE_PRISM_LIDARR");
    common_reads(&c).await;
    let albums = need("lidarr albums", c.children(1).await);
    let album = need("lidarr album", c.item(1).await);
    ok("lidarr album history", c.item_history(&album).await);
    ok("lidarr releases", c.releases(&ReleaseScope::Album(1)).await);
    let found = need(
        "lidarr lookup by musicbrainz",
        c.find(&media(
            MediaSource::Musicbrainz,
            "f5093c06-23e3-404f-aeaa-40f72885ee3a",
            MediaType::Music,
        ))
        .await,
    );
    assert!(!albums.is_empty());
    ok(
        "lidarr add",
        c.unchecked_writer().add(&found, &opts()).await,
    );
    common_writes(&c, SearchTarget::Album(1)).await;
}

#[tokio::test]
async fn readarr_reads_and_writes_decode_against_its_own_document() {
    let c = client(Service::Readarr, "MARQUEE_PRISM_READARR");
    common_reads(&c).await;
    let books = ok("readarr books", c.children(1).await);
    if let Some(book) = ok("readarr book", c.item(1).await) {
        ok("readarr book history", c.item_history(&book).await);
    }
    ok("readarr lookup", c.lookup_books("dune").await);
    ok("readarr releases", c.releases(&ReleaseScope::Book(1)).await);
    // Readarr's document declares no body for its lookup, so Prism answers none: not found.
    let found = match c
        .find(&media(MediaSource::Goodreads, "3228917", MediaType::Book))
        .await
    {
        Ok(found) => Some(found),
        Err(Error::NotFound(_)) => None,
        Err(e) => panic!("readarr lookup by book source: {e}"),
    };
    if let Some(books) = books {
        assert!(!books.is_empty());
    }
    if let Some(found) = found {
        ok(
            "readarr add",
            c.unchecked_writer().add(&found, &opts()).await,
        );
    }
    common_writes(&c, SearchTarget::Book(1)).await;
}
