//! The TVDB v4, AniList and LRCLIB adapters against their contract fakes: what each sends (a
//! bearer token from one login, GraphQL variables, a User-Agent), how answers map into the
//! catalogue model (ratings per region, identities mapped between sources), and refusals.

#![allow(clippy::unwrap_used)]

use adapters_catalogue::{
    AniList, AniListConfig, Catalogue, Certification, Error, Lrclib, LrclibConfig, LyricsQuery,
    MusicKind, MusicSearch, TitleKind, TitleSearch, Tvdb, TvdbConfig,
};
use domain::{MediaId, MediaSource, MediaType, Secret};
use test_support::{AniListFake, LrclibFake, TvdbFake};

fn tvdb(fake: &TvdbFake, key: &str, pin: Option<&str>) -> Tvdb {
    let mut config = TvdbConfig::new(Secret::new(key));
    config.base_url = fake.base_url().parse().unwrap();
    config.pin = pin.map(Secret::new);
    Tvdb::new(config).unwrap()
}

fn id(source: MediaSource, id: &str) -> MediaId {
    MediaId::new(source, id)
}

#[tokio::test]
async fn tvdb_searches_with_one_login_and_maps_remote_ids() {
    let fake = TvdbFake::start().await;
    let client = tvdb(&fake, TvdbFake::API_KEY, Some(TvdbFake::PIN));
    let page = client
        .search_titles(&TitleSearch::new(TitleKind::Tv, "expanse"))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1, "{page:?}");
    let row = &page.items[0];
    assert_eq!(row.id, id(MediaSource::Tvdb, "280619"));
    assert_eq!((row.title.as_str(), row.year), ("The Expanse", Some(2015)));
    assert_eq!(row.media_type, MediaType::Tv);
    assert_eq!(row.original_language.as_deref(), Some("en"));
    assert!(
        row.external_ids
            .contains(&id(MediaSource::Imdb, "tt3230854"))
    );
    assert!(row.external_ids.contains(&id(MediaSource::Tmdb, "63639")));
    client
        .search_titles(&TitleSearch::new(TitleKind::Movie, "matrix"))
        .await
        .unwrap();
    assert_eq!(fake.logins(), 1, "one login serves both searches");
    let requests = fake.requests();
    let login = &requests[0];
    assert_eq!(
        (login.method.as_str(), login.path.as_str()),
        ("POST", "/login")
    );
    let body = login.json_body().unwrap();
    assert_eq!(body["apikey"], TvdbFake::API_KEY);
    assert_eq!(body["pin"], TvdbFake::PIN);
    let search = &requests[1];
    assert_eq!(search.param("type"), Some("series"));
    assert!(
        search
            .header("authorization")
            .unwrap()
            .starts_with("Bearer ")
    );
    assert!(
        requests.iter().all(|r| !r.path.contains(TvdbFake::API_KEY)
            && r.query.iter().all(|(_, v)| v != TvdbFake::API_KEY)),
        "the key travels only in the login body"
    );
}

#[tokio::test]
async fn tvdb_details_rate_per_region_and_count_official_seasons() {
    let fake = TvdbFake::start().await;
    let client = tvdb(&fake, TvdbFake::API_KEY, None);
    let show = id(MediaSource::Tvdb, "280619");
    let us = client
        .title_details(&show, MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(
        us.summary.certification,
        Certification::Rated {
            region: "US".into(),
            rating: "TV-14".into()
        }
    );
    assert_eq!(
        us.seasons,
        Some(2),
        "specials and DVD order are not seasons"
    );
    assert_eq!(us.cast, ["Steven Strait", "Dominique Tipper"]);
    assert_eq!(us.directors, ["Mark Fergus"]);
    assert_eq!(us.runtime_minutes, Some(45));
    assert!(us.backdrop_url.as_deref().unwrap().contains("fanart"));
    assert!(
        us.certifications
            .iter()
            .any(|c| c.region == "GB" && c.rating == "15")
    );
    let gb = client
        .title_details(&show, MediaType::Tv, "GB")
        .await
        .unwrap();
    assert_eq!(gb.summary.certification.rating(), Some("15"));
    let fr = client
        .title_details(&show, MediaType::Tv, "FR")
        .await
        .unwrap();
    assert_eq!(
        fr.summary.certification,
        Certification::Unrated {
            region: Some("FR".into())
        }
    );
    let episode = client.episode_details(&show, 1, 2).await.unwrap();
    assert_eq!(episode.name.as_deref(), Some("The Big Empty"));
    assert_eq!(episode.air_date.as_deref(), Some("2015-12-15"));
}

#[tokio::test]
async fn tvdb_reads_imdb_and_tmdb_ids_through_its_mapping() {
    let fake = TvdbFake::start().await;
    let client = tvdb(&fake, TvdbFake::API_KEY, None);
    let matrix = client
        .title_details(&id(MediaSource::Imdb, "tt0133093"), MediaType::Movie, "US")
        .await
        .unwrap();
    assert_eq!(matrix.summary.id, id(MediaSource::Tvdb, "169"));
    assert_eq!(matrix.summary.certification.rating(), Some("R"));
    assert_eq!((matrix.runtime_minutes, matrix.seasons), (Some(136), None));
    assert_eq!(matrix.directors, ["Lana Wachowski"]);
    let bluey = client
        .title_details(&id(MediaSource::Tmdb, "82728"), MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(bluey.summary.title, "Bluey");
    assert_eq!(bluey.summary.certification.rating(), Some("TV-Y"));
    let missing = client
        .title_details(&id(MediaSource::Tvdb, "999999999"), MediaType::Tv, "US")
        .await
        .unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }), "{missing}");
    let sneaky = client
        .title_details(
            &id(MediaSource::Imdb, "tt1/../../login"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap_err();
    assert!(matches!(sneaky, Error::InvalidArgument { .. }), "{sneaky}");
    let foreign = client
        .title_details(&id(MediaSource::Anilist, "1"), MediaType::Tv, "US")
        .await
        .unwrap_err();
    assert!(matches!(foreign, Error::Unsupported { .. }), "{foreign}");
}

#[tokio::test]
async fn tvdb_logs_in_again_once_when_its_token_is_refused() {
    let fake = TvdbFake::start().await;
    let client = tvdb(&fake, TvdbFake::API_KEY, None);
    let show = id(MediaSource::Tvdb, "353546");
    client
        .title_details(&show, MediaType::Tv, "US")
        .await
        .unwrap();
    fake.expire_tokens();
    let again = client
        .title_details(&show, MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(again.summary.title, "Bluey");
    assert_eq!(fake.logins(), 2);

    let refused = tvdb(&fake, "not-the-key", None);
    let e = refused.check().await.unwrap_err();
    assert!(
        matches!(e.backend(), Some(httpx::Error::Unauthorized { .. })),
        "{e}"
    );
    assert!(!e.to_string().contains("not-the-key"), "{e}");
    let wrong_pin = tvdb(&fake, TvdbFake::API_KEY, Some("0000"));
    assert!(wrong_pin.check().await.is_err());
}

fn anilist(fake: &AniListFake) -> AniList {
    AniList::new(AniListConfig {
        base_url: fake.base_url().parse().unwrap(),
        ..AniListConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn anilist_searches_without_adult_titles_and_by_format() {
    let fake = AniListFake::start().await;
    let client = anilist(&fake);
    let any = client
        .search_titles(&TitleSearch::new(TitleKind::Any, "cowboy"))
        .await
        .unwrap();
    let titles: Vec<&str> = any.items.iter().map(|t| t.title.as_str()).collect();
    assert!(titles.contains(&"Cowboy Bebop"), "{titles:?}");
    assert!(titles.contains(&"Cowboy Bebop: The Movie"), "{titles:?}");
    assert!(
        !titles.contains(&"Cowboy Nights"),
        "adult titles are left out: {titles:?}"
    );
    let bebop = any
        .items
        .iter()
        .find(|t| t.title == "Cowboy Bebop")
        .unwrap();
    assert_eq!(bebop.id, id(MediaSource::Anilist, "1"));
    assert_eq!(bebop.media_type, MediaType::Tv);
    assert_eq!(bebop.external_ids, [id(MediaSource::Myanimelist, "1")]);
    assert_eq!(bebop.certification, Certification::Unrated { region: None });
    assert_eq!(bebop.vote_average, Some(8.6));
    let movies = client
        .search_titles(&TitleSearch::new(TitleKind::Movie, "cowboy"))
        .await
        .unwrap();
    assert_eq!(movies.items.len(), 1);
    assert_eq!(movies.items[0].media_type, MediaType::Movie);
    let sent = fake.requests();
    let variables = &sent[1].json_body().unwrap()["variables"];
    assert_eq!(variables["isAdult"], false);
    assert_eq!(variables["format_in"], serde_json::json!(["MOVIE"]));
}

#[tokio::test]
async fn anilist_reads_titles_by_myanimelist_id_as_plain_text() {
    let fake = AniListFake::start().await;
    let client = anilist(&fake);
    let bebop = client
        .title_details(&id(MediaSource::Myanimelist, "1"), MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(bebop.summary.id, id(MediaSource::Anilist, "1"));
    assert_eq!(bebop.directors, ["Shinichirou Watanabe"]);
    assert_eq!(bebop.runtime_minutes, Some(24));
    let overview = bebop.summary.overview.unwrap();
    assert!(!overview.contains('<'), "{overview}");
    let sent = fake.requests();
    assert_eq!(sent[0].json_body().unwrap()["variables"]["id"], 1);
    assert!(
        sent[0].json_body().unwrap()["query"]
            .as_str()
            .unwrap()
            .contains("idMal")
    );
    let wrong_type = client
        .title_details(&id(MediaSource::Anilist, "199"), MediaType::Tv, "US")
        .await
        .unwrap_err();
    assert!(
        wrong_type.to_string().contains("is a movie"),
        "{wrong_type}"
    );
    let missing = client
        .title_details(&id(MediaSource::Anilist, "424242"), MediaType::Tv, "US")
        .await
        .unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }), "{missing}");
    let like = client
        .recommendations(&id(MediaSource::Anilist, "1"), MediaType::Tv, 1)
        .await
        .unwrap();
    assert_eq!(like.items[0].id, id(MediaSource::Anilist, "5"));
}

fn lrclib(fake: &LrclibFake) -> Lrclib {
    Lrclib::new(LrclibConfig {
        base_url: fake.base_url().parse().unwrap(),
        ..LrclibConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn lrclib_finds_songs_and_their_lyrics() {
    let fake = LrclibFake::start().await;
    let client = lrclib(&fake);
    let page = client
        .search_music(&MusicSearch {
            kind: MusicKind::Recording,
            query: "paranoid".into(),
            release_type: None,
            page: 1,
        })
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    let song = &page.items[0];
    assert_eq!(song.id, id(MediaSource::Lrclib, "3002"));
    assert_eq!(song.album.as_deref(), Some("OK Computer"));
    assert_eq!(song.length_ms, Some(387_000));
    let by_id = client
        .lyrics(&LyricsQuery::Id(id(MediaSource::Lrclib, "3001")))
        .await
        .unwrap();
    assert_eq!(by_id.track, "Dancing Queen");
    assert!(by_id.synced.as_deref().unwrap().starts_with('['));
    let exact = client
        .lyrics(&LyricsQuery::Song {
            track: "Paranoid Android".into(),
            artist: "Radiohead".into(),
            album: Some("OK Computer".into()),
            duration: Some(387.0),
        })
        .await
        .unwrap();
    assert_eq!(exact.id, id(MediaSource::Lrclib, "3002"));
    let loose = client
        .lyrics(&LyricsQuery::Song {
            track: "dancing queen".into(),
            artist: "abba".into(),
            album: None,
            duration: Some(231.0),
        })
        .await
        .unwrap();
    assert_eq!(loose.id, id(MediaSource::Lrclib, "3001"));
    let instrumental = client
        .lyrics(&LyricsQuery::Id(id(MediaSource::Lrclib, "3003")))
        .await
        .unwrap();
    assert!(instrumental.instrumental && instrumental.plain.is_none());
    let requests = fake.requests();
    assert!(requests.iter().all(|r| {
        r.header("user-agent")
            .is_some_and(|a| a.starts_with("Marquee/"))
    }));
    assert!(
        requests
            .iter()
            .any(|r| r.path == "/api/get" && r.param("duration") == Some("387"))
    );
    let missing = client
        .lyrics(&LyricsQuery::Song {
            track: "Dancing Queen".into(),
            artist: "ABBA".into(),
            album: None,
            duration: Some(100.0),
        })
        .await
        .unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }), "{missing}");
    let artists = client
        .search_music(&MusicSearch {
            kind: MusicKind::Artist,
            query: "abba".into(),
            release_type: None,
            page: 1,
        })
        .await
        .unwrap_err();
    assert!(matches!(artists, Error::Unsupported { .. }), "{artists}");
}
