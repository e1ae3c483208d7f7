//! The MusicBrainz adapter against the contract fake: search and lookup paths and parameters, the
//! User-Agent with its contact, and pacing as the fake measured it.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use adapters_catalogue::{
    Catalogue, Certification, Error, MusicBrainz, MusicBrainzConfig, MusicKind, MusicSearch,
    ReleaseType,
};
use domain::{MediaId, MediaSource, MediaType};
use expect_test::expect;
use test_support::MusicBrainzFake;

/// Pacing and the fake's window, shortened together so tests stay fast and still check pacing.
const INTERVAL: Duration = Duration::from_millis(150);

fn client(base_url: &str, interval: Duration) -> MusicBrainz {
    MusicBrainz::new(MusicBrainzConfig {
        base_url: base_url.parse().unwrap(),
        contact: Some("ops@example.org".into()),
        timeouts: httpx::Timeouts {
            connect: Duration::from_secs(2),
            request: Duration::from_secs(5),
        },
        min_interval: interval,
    })
    .unwrap()
}

fn search(kind: MusicKind, query: &str, release_type: Option<ReleaseType>) -> MusicSearch {
    MusicSearch {
        kind,
        query: query.into(),
        release_type,
        page: 1,
    }
}

#[tokio::test]
async fn searches_artists_with_json_paging_and_a_contactable_user_agent() {
    let fake = MusicBrainzFake::start_with_window(INTERVAL).await;
    let mb = client(fake.base_url(), INTERVAL);
    let page = mb
        .search_music(&search(MusicKind::Artist, "abba", None))
        .await
        .unwrap();
    assert_eq!((page.total_results, page.total_pages), (1, 1));
    expect![[r#"
        MusicItem {
            id: MediaId {
                media_source: Musicbrainz,
                media_id: "d87e52c5-bb8d-4da8-b941-9f4928627dc8",
            },
            kind: Artist,
            media_type: Music,
            title: "ABBA",
            artist: None,
            album: None,
            year: Some(
                1972,
            ),
            certification: Unrated {
                region: None,
            },
            genres: [
                "pop",
                "europop",
            ],
            type_name: Some(
                "Group",
            ),
            disambiguation: Some(
                "Swedish pop group",
            ),
            country: Some(
                "SE",
            ),
            length_ms: None,
            score: Some(
                100,
            ),
        }
    "#]]
    .assert_debug_eq(&page.items[0]);
    let r = &fake.requests()[0];
    assert_eq!(r.path, "/artist");
    assert_eq!(
        r.query,
        [
            ("query", "abba"),
            ("limit", "25"),
            ("offset", "0"),
            ("fmt", "json")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let ua = r.header("user-agent").unwrap();
    assert!(
        ua.starts_with("Marquee/") && ua.ends_with(" ( ops@example.org )"),
        "{ua}"
    );
}

#[tokio::test]
async fn release_groups_filter_by_primary_type_and_recordings_carry_length() {
    let fake = MusicBrainzFake::start_with_window(INTERVAL).await;
    let mb = client(fake.base_url(), INTERVAL);
    let albums = mb
        .search_music(&search(
            MusicKind::ReleaseGroup,
            "abba",
            Some(ReleaseType::Album),
        ))
        .await
        .unwrap();
    let rows: Vec<String> = albums
        .items
        .iter()
        .map(|i| format!("{} {:?} {:?} {:?}", i.title, i.type_name, i.artist, i.year))
        .collect();
    assert_eq!(rows, ["Arrival Some(\"Album\") Some(\"ABBA\") Some(1976)"]);
    assert_eq!(
        fake.requests()[0].param("query"),
        Some("(abba) AND primarytype:album")
    );

    let mut singles = search(MusicKind::ReleaseGroup, "abba", Some(ReleaseType::Single));
    singles.page = 2;
    let page = mb.search_music(&singles).await.unwrap();
    assert!(page.items.is_empty());
    assert_eq!(fake.requests()[1].param("offset"), Some("25"));

    let songs = mb
        .search_music(&search(MusicKind::Recording, "paranoid android", None))
        .await
        .unwrap();
    assert_eq!(
        (songs.items[0].length_ms, songs.items[0].artist.as_deref()),
        (Some(387_000), Some("Radiohead"))
    );
    assert_eq!(fake.requests()[2].path, "/recording");
    assert_eq!(songs.items[0].media_type, MediaType::Music);
    assert_eq!(
        songs.items[0].certification,
        Certification::Unrated { region: None }
    );

    let e = mb
        .search_music(&search(MusicKind::Artist, "abba", Some(ReleaseType::Ep)))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
}

#[tokio::test]
async fn requests_are_paced_as_the_fake_measures_them() {
    let fake = MusicBrainzFake::start_with_window(INTERVAL).await;
    let mb = std::sync::Arc::new(client(fake.base_url(), INTERVAL));
    let mut tasks = Vec::new();
    for q in ["abba", "radiohead", "queen", "arrival"] {
        let mb = mb.clone();
        tasks.push(tokio::spawn(async move {
            mb.search_music(&search(MusicKind::Artist, q, None)).await
        }));
    }
    for t in tasks {
        t.await.unwrap().expect("a paced client is never refused");
    }
    let arrivals: Vec<_> = fake.requests().iter().map(|r| r.at).collect();
    assert_eq!(arrivals.len(), 4);
    for pair in arrivals.windows(2) {
        assert!(
            pair[1].duration_since(pair[0]) >= INTERVAL,
            "{:?}",
            pair[1].duration_since(pair[0])
        );
    }
}

#[tokio::test]
async fn the_default_client_keeps_one_request_per_second() {
    let fake = MusicBrainzFake::start().await;
    let mb = MusicBrainz::new(MusicBrainzConfig {
        base_url: fake.base_url().parse().unwrap(),
        ..MusicBrainzConfig::default()
    })
    .unwrap();
    mb.search_music(&search(MusicKind::Artist, "abba", None))
        .await
        .unwrap();
    mb.search_music(&search(MusicKind::Recording, "queen", None))
        .await
        .unwrap();
    let r = fake.requests();
    assert!(r[1].at.duration_since(r[0].at) >= Duration::from_secs(1));
    assert_eq!(
        r[0].header("user-agent"),
        Some(httpx::USER_AGENT),
        "no contact configured"
    );
}

#[tokio::test]
async fn an_unpaced_client_is_rate_limited_by_the_fake() {
    let fake = MusicBrainzFake::start().await;
    let mb = client(fake.base_url(), Duration::ZERO);
    mb.search_music(&search(MusicKind::Artist, "abba", None))
        .await
        .unwrap();
    let e = mb
        .search_music(&search(MusicKind::Artist, "abba", None))
        .await
        .unwrap_err();
    assert!(
        matches!(e.backend(), Some(httpx::Error::RateLimited { .. })),
        "{e:?}"
    );
    expect!["musicbrainz: rate limited by the service"].assert_eq(&e.to_string());
}

#[tokio::test]
async fn looks_up_by_mbid_with_genres() {
    let fake = MusicBrainzFake::start_with_window(INTERVAL).await;
    let mb = client(fake.base_url(), INTERVAL);
    let id = MediaId::new(
        MediaSource::Musicbrainz,
        "b1392450-e666-3926-a536-22c65f834433",
    );
    let album = mb
        .music_details(&id, MusicKind::ReleaseGroup)
        .await
        .unwrap();
    assert_eq!(
        (album.title.as_str(), album.genres.clone(), album.score),
        ("OK Computer", vec!["alternative rock".to_string()], None)
    );
    let r = &fake.requests()[0];
    assert_eq!(
        (r.path.as_str(), r.param("inc")),
        (
            "/release-group/b1392450-e666-3926-a536-22c65f834433",
            Some("artist-credits+genres")
        )
    );

    let missing = MediaId::new(
        MediaSource::Musicbrainz,
        "00000000-0000-0000-0000-000000000000",
    );
    let e = mb
        .music_details(&missing, MusicKind::Artist)
        .await
        .unwrap_err();
    expect![
        "no artist musicbrainz:00000000-0000-0000-0000-000000000000 in the musicbrainz catalogue"
    ]
    .assert_eq(&e.to_string());
    let e = mb
        .music_details(
            &MediaId::new(MediaSource::Musicbrainz, "abba"),
            MusicKind::Artist,
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert_eq!(
        fake.requests().len(),
        2,
        "an id that is no MBID is refused before any request"
    );
}

#[tokio::test]
async fn title_questions_are_refused_naming_the_catalogues_that_answer() {
    let mb = MusicBrainz::new(MusicBrainzConfig::default()).unwrap();
    let e = mb
        .search_titles(&adapters_catalogue::TitleSearch::new(
            adapters_catalogue::TitleKind::Movie,
            "heat",
        ))
        .await
        .unwrap_err();
    expect!["title search is not supported by the musicbrainz catalogue; use a catalogue of: builtin, tmdb, tvdb, anilist"].assert_eq(&e.to_string());
}

#[tokio::test]
async fn an_unreachable_base_url_is_unreachable() {
    let mb = client("http://127.0.0.1:9/ws/2", Duration::ZERO);
    let e = mb
        .search_music(&search(MusicKind::Artist, "abba", None))
        .await
        .unwrap_err();
    assert!(
        matches!(e.backend(), Some(httpx::Error::Unreachable { .. })),
        "{e:?}"
    );
}
