//! The TMDB adapter against the contract fake: paths, parameters and auth as the fake saw them,
//! JSON mapped into the model, names resolved server-side, errors classified without secrets.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use adapters_catalogue::{
    BrowseFilters, Catalogue, Certification, CertificationCeiling, Error, TimeWindow, TitleKind,
    TitleSearch, Tmdb, TmdbAuth, TmdbConfig, tmdb::GENRE_LIST_LIFETIME,
};
use domain::{MediaId, MediaSource, MediaType, Secret};
use expect_test::expect;
use test_support::{RecordedRequest, TmdbFake};

fn client(base_url: &str, auth: TmdbAuth) -> Tmdb {
    let mut config = TmdbConfig::new(auth);
    config.base_url = base_url.parse().unwrap();
    config.timeouts = httpx::Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
    };
    Tmdb::new(config).unwrap()
}

fn with_key(fake: &TmdbFake) -> Tmdb {
    client(
        fake.base_url(),
        TmdbAuth::ApiKey(Secret::new(TmdbFake::API_KEY)),
    )
}

/// Query parameters except the key, as `k=v&…`.
fn params(r: &RecordedRequest) -> String {
    r.query
        .iter()
        .filter(|(k, _)| k != "api_key")
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

fn tmdb_id(id: &str) -> MediaId {
    MediaId::new(MediaSource::Tmdb, id)
}

#[tokio::test]
async fn searches_movies_with_the_api_key_and_maps_rows() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let page = tmdb
        .search_titles(&TitleSearch::new(TitleKind::Movie, "heat"))
        .await
        .unwrap();
    assert_eq!((page.page, page.total_pages, page.total_results), (1, 1, 1));
    let row = &page.items[0];
    assert_eq!(
        (
            row.id.to_string(),
            row.media_type,
            row.title.as_str(),
            row.year
        ),
        ("tmdb:949".into(), MediaType::Movie, "Heat", Some(1995))
    );
    assert_eq!(row.genres, ["Crime", "Drama", "Action", "Thriller"]);
    assert_eq!(
        row.certification,
        Certification::NotFetched,
        "TMDB lists carry no certification"
    );
    assert_eq!(
        row.poster_url.as_deref(),
        Some("https://image.tmdb.org/t/p/w342/umSVjVdbVwtx5ryCA2QXL44Durm.jpg")
    );

    let search = &fake.requests_to("/search/movie")[0];
    assert_eq!(params(search), "query=heat&page=1&include_adult=false");
    assert_eq!(search.param("api_key"), Some(TmdbFake::API_KEY));
    assert_eq!(search.header("authorization"), None);
    assert_eq!(search.header("user-agent"), Some(httpx::USER_AGENT));
    assert_eq!(
        fake.requests_to("/genre/movie/list").len(),
        1,
        "genre names come from TMDB's list"
    );

    tmdb.search_titles(&TitleSearch::new(TitleKind::Movie, "matrix"))
        .await
        .unwrap();
    assert_eq!(
        fake.requests_to("/genre/movie/list").len(),
        1,
        "the genre list is read once per client"
    );
}

#[tokio::test]
async fn a_read_token_goes_in_the_authorization_header_only() {
    let fake = TmdbFake::start().await;
    let tmdb = client(
        fake.base_url(),
        TmdbAuth::ReadToken(Secret::new(TmdbFake::READ_TOKEN)),
    );
    let mut search = TitleSearch::new(TitleKind::Tv, "thrones");
    search.year = Some(2011);
    let page = tmdb.search_titles(&search).await.unwrap();
    assert_eq!(page.items[0].title, "Game of Thrones");
    assert_eq!(
        page.items[0].genres,
        ["Sci-Fi & Fantasy", "Drama", "Action & Adventure"]
    );
    let r = &fake.requests_to("/search/tv")[0];
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {}", TmdbFake::READ_TOKEN).as_str())
    );
    assert_eq!(r.param("api_key"), None);
    assert_eq!(r.param("first_air_date_year"), Some("2011"));
}

#[tokio::test]
async fn a_wrong_key_is_unauthorized_and_no_message_shows_a_secret() {
    let fake = TmdbFake::start().await;
    let secret = "wrong-key-hunter2-5f4e3d";
    let tmdb = client(fake.base_url(), TmdbAuth::ApiKey(Secret::new(secret)));
    let e = tmdb
        .search_titles(&TitleSearch::new(TitleKind::Movie, "heat"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            e.backend(),
            Some(httpx::Error::Unauthorized { status: 401 })
        ),
        "{e:?}"
    );
    expect!["tmdb: the service refused the credentials (HTTP 401)"].assert_eq(&e.to_string());
    assert!(!format!("{e:?}").contains(secret));
    assert_eq!(
        fake.requests()[0].param("api_key"),
        Some(secret),
        "the fake saw the key it refused"
    );

    let token = client(
        fake.base_url(),
        TmdbAuth::ReadToken(Secret::new("token-hunter2")),
    );
    let debug = format!("{tmdb:?} {token:?}");
    assert!(
        !debug.contains(secret) && !debug.contains("hunter2"),
        "{debug}"
    );
    assert!(debug.contains("Secret(\"***\")"), "{debug}");
}

#[tokio::test]
async fn an_unreachable_base_url_is_unreachable() {
    let tmdb = client(
        "http://127.0.0.1:9/3",
        TmdbAuth::ApiKey(Secret::new("k-hunter2")),
    );
    let e = tmdb
        .search_titles(&TitleSearch::new(TitleKind::Movie, "heat"))
        .await
        .unwrap_err();
    assert!(
        matches!(e.backend(), Some(httpx::Error::Unreachable { .. })),
        "{e:?}"
    );
    assert!(!e.to_string().contains("hunter2"), "{e}");
}

#[tokio::test]
async fn multi_search_and_trending_leave_people_out() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let page = tmdb
        .search_titles(&TitleSearch::new(TitleKind::Any, "tom"))
        .await
        .unwrap();
    assert!(
        page.items.is_empty(),
        "Tom Hanks is a person, not a title: {page:?}"
    );
    assert_eq!(fake.requests_to("/search/multi").len(), 1);

    let page = tmdb
        .trending(TitleKind::Any, TimeWindow::Week, 1)
        .await
        .unwrap();
    let rows: Vec<String> = page
        .items
        .iter()
        .map(|t| format!("{} {:?} {}", t.id, t.media_type, t.title))
        .collect();
    expect![[r#"
        [
            "tmdb:603 Movie The Matrix",
            "tmdb:949 Movie Heat",
            "tmdb:862 Movie Toy Story",
            "tmdb:12 Movie Finding Nemo",
            "tmdb:1399 Tv Game of Thrones",
            "tmdb:82728 Tv Bluey",
            "tmdb:2316 Tv The Office",
            "tmdb:2996 Tv The Office",
        ]
    "#]]
    .assert_debug_eq(&rows);
    assert_eq!(fake.requests_to("/trending/all/week").len(), 1);
    tmdb.trending(TitleKind::Tv, TimeWindow::Day, 1)
        .await
        .unwrap();
    assert_eq!(fake.requests_to("/trending/tv/day").len(), 1);
}

#[tokio::test]
async fn collections_are_searched() {
    let fake = TmdbFake::start().await;
    let page = with_key(&fake)
        .search_collections("toy story", 1)
        .await
        .unwrap();
    assert_eq!(page.items[0].id, tmdb_id("10194"));
    assert_eq!(page.items[0].name, "Toy Story Collection");
    assert_eq!(
        params(&fake.requests_to("/search/collection")[0]),
        "query=toy story&page=1"
    );
}

#[tokio::test]
async fn browse_resolves_names_and_pushes_every_filter_upstream() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let mut f = BrowseFilters::new(MediaType::Movie);
    f.genres = vec!["animation".into(), "Family".into()];
    f.without_genres = vec!["Horror".into(), "War".into()];
    f.year_from = Some(1990);
    f.year_to = Some(2005);
    f.min_vote_average = Some(7.5);
    f.min_vote_count = Some(100);
    f.original_language = Some("EN".into());
    f.watch_provider = Some("disney plus".into());
    f.watch_region = Some("us".into());
    f.company = Some("Pixar".into());
    f.certification = Some(CertificationCeiling {
        region: "us".into(),
        max: "pg".into(),
    });
    f.runtime_min = Some(60);
    f.runtime_max = Some(120);
    let page = tmdb.browse(&f).await.unwrap();
    let titles: Vec<&str> = page.items.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Toy Story"],
        "Finding Nemo has no US certification, so a ceiling drops it"
    );
    assert!(page.unapplied_filters.is_empty());
    expect!["sort_by=popularity.desc&include_adult=false&page=1&with_genres=16,10751&without_genres=27,10752&primary_release_date.gte=1990-01-01&primary_release_date.lte=2005-12-31&vote_average.gte=7.5&vote_count.gte=100&with_original_language=en&with_watch_providers=337&watch_region=US&with_companies=3&certification_country=US&certification.lte=PG&with_runtime.gte=60&with_runtime.lte=120"]
        .assert_eq(&params(&fake.requests_to("/discover/movie")[0]));
    assert_eq!(
        params(&fake.requests_to("/watch/providers/movie")[0]),
        "watch_region=US"
    );
    assert_eq!(
        params(&fake.requests_to("/search/company")[0]),
        "query=Pixar"
    );
    assert_eq!(fake.requests_to("/certification/movie/list").len(), 1);

    let mut f = BrowseFilters::new(MediaType::Movie);
    f.keyword = Some("Heist".into());
    let page = tmdb.browse(&f).await.unwrap();
    assert_eq!(
        page.items
            .iter()
            .map(|t| t.title.as_str())
            .collect::<Vec<_>>(),
        ["Heat"]
    );
    assert_eq!(
        fake.requests_to("/discover/movie")[1].param("with_keywords"),
        Some("10084")
    );
}

#[tokio::test]
async fn unresolvable_names_list_options_or_close_matches() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let browse = |edit: &dyn Fn(&mut BrowseFilters)| {
        let mut f = BrowseFilters::new(MediaType::Movie);
        edit(&mut f);
        f
    };
    let err = async |f: BrowseFilters| tmdb.browse(&f).await.unwrap_err().to_string();

    expect!["unknown genre \"Sci-Fi\"; valid values: Action, Adventure, Animation, Comedy, Crime, Documentary, Drama, Family, Fantasy, History, Horror, Music, Mystery, Romance, Science Fiction, TV Movie, Thriller, War, Western"]
        .assert_eq(&err(browse(&|f| f.genres = vec!["Sci-Fi".into()])).await);
    expect![[r#"unknown streaming provider "Disney"; close matches: Disney Plus"#]].assert_eq(
        &err(browse(&|f| {
            f.watch_provider = Some("Disney".into());
            f.watch_region = Some("GB".into());
        }))
        .await,
    );
    expect!["unknown streaming provider \"Hulu\"; valid values: Netflix, Amazon Prime Video, Disney Plus, Max"].assert_eq(
        &err(browse(&|f| {
            f.watch_provider = Some("Hulu".into());
            f.watch_region = Some("US".into());
        }))
        .await,
    );
    expect!["invalid watch_region: a streaming provider needs a region (e.g. US)"]
        .assert_eq(&err(browse(&|f| f.watch_provider = Some("Netflix".into()))).await);
    expect![[r#"unknown company "Warner Bros"; close matches: Warner Bros. Pictures, Warner Bros. Television"#]]
        .assert_eq(&err(browse(&|f| f.company = Some("Warner Bros".into()))).await);
    expect![[r#"unknown keyword "robot"; no close match"#]]
        .assert_eq(&err(browse(&|f| f.keyword = Some("robot".into()))).await);
    expect![[r#"unknown certification "TV-Y"; valid values: NR, G, PG, PG-13, R, NC-17"#]]
        .assert_eq(
            &err(browse(&|f| {
                f.certification = Some(CertificationCeiling {
                    region: "US".into(),
                    max: "TV-Y".into(),
                })
            }))
            .await,
        );
    expect![[r#"unknown certification region "FR"; valid values: GB, US"#]].assert_eq(
        &err(browse(&|f| {
            f.certification = Some(CertificationCeiling {
                region: "FR".into(),
                max: "U".into(),
            })
        }))
        .await,
    );
    assert!(
        fake.requests_to("/discover/movie").is_empty(),
        "nothing is discovered with an unresolved name"
    );
}

#[tokio::test]
async fn tv_browse_says_the_certification_ceiling_was_not_applied() {
    let fake = TmdbFake::start().await;
    let mut f = BrowseFilters::new(MediaType::Tv);
    f.genres = vec!["Kids".into()];
    f.year_from = Some(2015);
    f.certification = Some(CertificationCeiling {
        region: "US".into(),
        max: "TV-Y".into(),
    });
    let page = with_key(&fake).browse(&f).await.unwrap();
    assert_eq!(
        page.items
            .iter()
            .map(|t| t.title.as_str())
            .collect::<Vec<_>>(),
        ["Bluey"]
    );
    assert_eq!(page.unapplied_filters, ["certification"]);
    let r = &fake.requests_to("/discover/tv")[0];
    assert_eq!(
        params(r),
        "sort_by=popularity.desc&include_adult=false&page=1&with_genres=10762&first_air_date.gte=2015-01-01"
    );
}

#[tokio::test]
async fn movie_details_carry_every_region_and_the_asked_one() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let d = tmdb
        .title_details(&tmdb_id("603"), MediaType::Movie, "us")
        .await
        .unwrap();
    assert_eq!(
        d.summary.certification,
        Certification::Rated {
            region: "US".into(),
            rating: "R".into()
        }
    );
    let regions: Vec<String> = d
        .certifications
        .iter()
        .map(|c| format!("{}={}", c.region, c.rating))
        .collect();
    assert_eq!(regions, ["US=R", "GB=15", "DE=16"]);
    assert_eq!(d.summary.genres, ["Action", "Science Fiction"]);
    assert_eq!(
        d.summary.external_ids,
        [MediaId::new(MediaSource::Imdb, "tt0133093")]
    );
    assert_eq!(
        (d.runtime_minutes, d.directors.clone()),
        (
            Some(136),
            vec!["Lana Wachowski".to_string(), "Lilly Wachowski".into()]
        )
    );
    assert_eq!(d.cast[0], "Keanu Reeves");
    let dates: Vec<String> = d
        .release_dates
        .iter()
        .map(|r| format!("{:?} {} {:?}", r.region, r.date, r.kind))
        .collect();
    expect![[r#"
        [
            "None 1999-03-30 None",
            "Some(\"US\") 1999-03-30 Some(\"premiere\")",
            "Some(\"US\") 1999-03-30 Some(\"theatrical\")",
        ]
    "#]]
    .assert_debug_eq(&dates);
    assert_eq!(
        params(&fake.requests_to("/movie/603")[0]),
        "append_to_response=release_dates,credits"
    );

    let fr = tmdb
        .title_details(&tmdb_id("603"), MediaType::Movie, "FR")
        .await
        .unwrap();
    assert_eq!(
        fr.summary.certification,
        Certification::Unrated {
            region: Some("FR".into())
        }
    );
    let nemo = tmdb
        .title_details(&tmdb_id("12"), MediaType::Movie, "US")
        .await
        .unwrap();
    assert_eq!(
        nemo.summary.certification,
        Certification::Unrated {
            region: Some("US".into())
        },
        "an empty certification is none"
    );
}

#[tokio::test]
async fn tv_details_read_content_ratings() {
    let fake = TmdbFake::start().await;
    let d = with_key(&fake)
        .title_details(&tmdb_id("1399"), MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(d.summary.certification.rating(), Some("TV-MA"));
    assert_eq!((d.seasons, d.runtime_minutes), (Some(8), Some(60)));
    assert_eq!(d.directors, ["David Benioff", "D. B. Weiss"]);
    assert_eq!(
        params(&fake.requests_to("/tv/1399")[0]),
        "append_to_response=content_ratings,credits"
    );
}

#[tokio::test]
async fn details_carry_the_backdrop_and_episodes_are_read_one_at_a_time() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let show = tmdb
        .title_details(&tmdb_id("1399"), MediaType::Tv, "US")
        .await
        .unwrap();
    assert_eq!(
        show.backdrop_url.as_deref(),
        Some("https://image.tmdb.org/t/p/w1280/2OMB0ynKlyIenMJWI2Dy9IWT4c.jpg")
    );
    let film = tmdb
        .title_details(&tmdb_id("603"), MediaType::Movie, "US")
        .await
        .unwrap();
    assert_eq!(film.backdrop_url, None, "a null backdrop_path is no fanart");

    let e = tmdb.episode_details(&tmdb_id("1399"), 1, 2).await.unwrap();
    assert_eq!((e.season, e.episode), (1, 2));
    assert_eq!(e.name.as_deref(), Some("The Kingsroad"));
    assert_eq!(e.air_date.as_deref(), Some("2011-04-24"));
    assert!(e.overview.unwrap().starts_with("While Bran recovers"));
    let asked = &fake.requests_to("/tv/1399/season/1/episode/2")[0];
    assert_eq!(asked.param("api_key"), Some(TmdbFake::API_KEY));

    let missing = tmdb
        .episode_details(&tmdb_id("1399"), 1, 99)
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, Error::NotFound { what: "episode", id, .. } if id == "tmdb:1399 S01E99"),
        "{missing:?}"
    );
    // The builtin catalogue knows no episodes: it says so, naming TMDB.
    let builtin = adapters_catalogue::Builtin::shared().unwrap();
    let refused = builtin
        .episode_details(&tmdb_id("1399"), 1, 2)
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::Unsupported { .. }), "{refused:?}");
}

#[tokio::test]
async fn recommendations_lists_and_refusals() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let recs = tmdb
        .recommendations(&tmdb_id("603"), MediaType::Movie, 1)
        .await
        .unwrap();
    assert_eq!(
        recs.items
            .iter()
            .map(|t| t.id.to_string())
            .collect::<Vec<_>>(),
        ["tmdb:949"]
    );
    assert_eq!(fake.requests_to("/movie/603/recommendations").len(), 1);

    let certs = tmdb.certifications(MediaType::Tv, "US").await.unwrap();
    assert_eq!(
        certs
            .iter()
            .map(|c| c.certification.as_str())
            .collect::<Vec<_>>(),
        ["NR", "TV-Y", "TV-Y7", "TV-G", "TV-PG", "TV-14", "TV-MA"]
    );
    assert!(matches!(
        tmdb.certifications(MediaType::Movie, "XX").await,
        Err(Error::UnknownName { .. })
    ));
    assert_eq!(tmdb.genres(MediaType::Tv).await.unwrap().len(), 16);

    let e = tmdb
        .title_details(&tmdb_id("999"), MediaType::Movie, "US")
        .await
        .unwrap_err();
    expect!["no title tmdb:999 in the tmdb catalogue"].assert_eq(&e.to_string());
    let e = tmdb
        .title_details(
            &MediaId::new(MediaSource::Imdb, "tt0133093"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap_err();
    expect![
        "the id imdb:tt0133093 is not supported by the tmdb catalogue; use a catalogue of: builtin"
    ]
    .assert_eq(&e.to_string());
    let e = tmdb
        .title_details(&tmdb_id("603"), MediaType::Music, "US")
        .await
        .unwrap_err();
    expect!["title details for music is not supported by the tmdb catalogue; use a catalogue of: musicbrainz"]
        .assert_eq(&e.to_string());
    assert!(matches!(
        tmdb.search_titles(&TitleSearch::new(TitleKind::Movie, " "))
            .await,
        Err(Error::InvalidArgument { .. })
    ));
}

/// Moves tokio's clock by `by` between two reads (paused only while it moves, so the HTTP
/// client's own timers run on the real clock).
async fn later(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

#[tokio::test]
async fn the_genre_list_is_kept_for_a_day_then_read_again() {
    let fake = TmdbFake::start().await;
    let tmdb = with_key(&fake);
    let first = tmdb.genres(MediaType::Movie).await.unwrap();
    assert!(first.contains(&"Crime".to_string()), "{first:?}");
    later(GENRE_LIST_LIFETIME - Duration::from_secs(1)).await;
    assert_eq!(tmdb.genres(MediaType::Movie).await.unwrap(), first);
    assert_eq!(fake.requests_to("/genre/movie/list").len(), 1, "kept");
    later(Duration::from_secs(2)).await;
    assert_eq!(tmdb.genres(MediaType::Movie).await.unwrap(), first);
    assert_eq!(
        fake.requests_to("/genre/movie/list").len(),
        2,
        "read again once a day old"
    );
}
