//! The builtin catalogue on the shipped data: search ranking, filters, details, recommendations, refusals.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use adapters_catalogue::{
    BrowseFilters, Builtin, Catalogue, Certification, CertificationCeiling, Error, Page,
    TimeWindow, TitleKind, TitleSearch, TitleSummary,
};
use domain::{MediaId, MediaSource, MediaType};
use expect_test::{Expect, expect};

fn builtin() -> Arc<Builtin> {
    Builtin::shared().expect("the shipped data loads")
}

/// One line per row: id, title, year, certification, genres.
fn render(page: &Page<TitleSummary>, rows: usize) -> String {
    let mut out = format!(
        "{} results, {} pages\n",
        page.total_results, page.total_pages
    );
    for t in page.items.iter().take(rows) {
        let cert = match &t.certification {
            Certification::Rated { rating, .. } => rating.as_str(),
            Certification::Unrated { .. } => "unrated",
            Certification::NotFetched => "?",
        };
        let year = t.year.map_or("-".to_string(), |y| y.to_string());
        out += &format!(
            "{} {} ({year}) {cert} [{}]\n",
            t.id,
            t.title,
            t.genres.join(", ")
        );
    }
    out
}

async fn check_search(query: &str, rows: usize, expect: Expect) {
    let page = builtin()
        .search_titles(&TitleSearch::new(TitleKind::Any, query))
        .await
        .unwrap();
    expect.assert_eq(&render(&page, rows));
}

#[tokio::test]
async fn heat_finds_the_three_films_named_heat_newest_first() {
    check_search(
        "heat",
        6,
        expect![[r#"
            124 results, 7 pages
            builtin:tt0113277 Heat (1995) R [Thriller, Mystery, Drama, Crime, History, Action, Adventure]
            builtin:tt0093164 Heat (1987) unrated [Drama, Crime, Action]
            builtin:tt0068688 Heat (1972) unrated [Romance, Comedy, Drama]
            builtin:tt2404463 The Heat (2013) unrated [Comedy, Action]
            builtin:tt2083231 Java Heat (2013) unrated [Action]
            builtin:tt0094961 Dead Heat (1988) R [Horror, Comedy, Action]
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_year_in_the_query_picks_the_film() {
    check_search(
        "Heat 1987",
        1,
        expect![[r#"
            1 results, 1 pages
            builtin:tt0093164 Heat (1987) unrated [Drama, Crime, Action]
        "#]],
    )
    .await;
}

#[tokio::test]
async fn accents_and_case_are_folded_both_ways() {
    for q in [
        "quai des orfevres",
        "QUAI DES ORFÈVRES",
        "Quai des Orfévres",
    ] {
        let page = builtin()
            .search_titles(&TitleSearch::new(TitleKind::Movie, q))
            .await
            .unwrap();
        assert_eq!(page.items[0].title, "Quai des Orfèvres", "query {q}");
    }
    check_search(
        "lupe velez",
        2,
        expect![[r#"
            1 results, 1 pages
            builtin:tt0031641 Mexican Spitfire (1940) unrated [Comedy]
        "#]],
    )
    .await;
}

#[tokio::test]
async fn title_words_rank_before_people() {
    check_search(
        "pacino godfather",
        3,
        expect![[r#"
            3 results, 1 pages
            builtin:tt0068646 The Godfather (1972) R [Thriller, Drama, Crime, History]
            builtin:tt0099674 The Godfather Part III (1990) R [Thriller, Mystery, Drama, Crime, History]
            builtin:tt0071562 The Godfather Part II (1974) R [Thriller, Mystery, Drama, Crime, History, Action]
        "#]],
    )
    .await;
    let page = builtin()
        .search_titles(&TitleSearch::new(TitleKind::Movie, "kubrick"))
        .await
        .unwrap();
    assert!(page.total_results >= 10, "{}", render(&page, 20));
}

#[tokio::test]
async fn the_last_word_also_matches_as_a_prefix() {
    check_search(
        "godfath",
        4,
        expect![[r#"
            7 results, 1 pages
            builtin:tt0068646 The Godfather (1972) R [Thriller, Drama, Crime, History]
            builtin:tt0074412 Disco Godfather (1979) unrated [Horror, Action]
            builtin:tt0040064 3 Godfathers (1948) unrated [Western, Drama]
            builtin:tt0099674 The Godfather Part III (1990) R [Thriller, Mystery, Drama, Crime, History]
        "#]],
    )
    .await;
}

#[tokio::test]
async fn pages_follow_on() {
    let b = builtin();
    let mut search = TitleSearch::new(TitleKind::Movie, "night");
    let one = b.search_titles(&search).await.unwrap();
    search.page = 2;
    let two = b.search_titles(&search).await.unwrap();
    assert_eq!(one.items.len(), 20);
    assert!(one.total_pages >= 2);
    assert!(
        one.items
            .iter()
            .all(|a| two.items.iter().all(|b| a.id != b.id))
    );
    search.page = 0;
    assert!(matches!(
        b.search_titles(&search).await,
        Err(Error::InvalidArgument { .. })
    ));
}

#[tokio::test]
async fn a_pg_ceiling_leaves_no_r_nc17_or_unrated_film() {
    let b = builtin();
    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.certification = Some(CertificationCeiling {
        region: "US".into(),
        max: "PG".into(),
    });
    let first = b.browse(&filters).await.unwrap();
    assert!(first.total_results > 500, "{}", first.total_results);
    for page in 1..=first.total_pages {
        filters.page = page;
        for t in b.browse(&filters).await.unwrap().items {
            let rating = t.certification.rating().unwrap_or("unrated").to_string();
            assert!(
                ["G", "PG", "GP", "M", "M/PG"].contains(&rating.as_str()),
                "{} is {rating}",
                t.title
            );
        }
    }
}

#[tokio::test]
async fn browse_combines_genre_year_language_country_and_runtime() {
    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.genres = vec!["animation".into(), "Comedy".into()];
    filters.year_from = Some(1995);
    filters.year_to = Some(1999);
    filters.original_language = Some("en".into());
    filters.country = Some("US".into());
    filters.runtime_max = Some(95);
    filters.certification = Some(CertificationCeiling {
        region: "us".into(),
        max: "G".into(),
    });
    let page = builtin().browse(&filters).await.unwrap();
    expect![[r#"
        13 results, 1 pages
        builtin:tt0187819 Doug's 1st Movie (1999) G [Animation, Comedy, Drama, Family]
        builtin:tt0120910 Fantasia 2000 (1999) G [Animation, Musical, Comedy, Fantasy]
        builtin:tt0120855 Tarzan (1999) G [Animation, Musical, Comedy, Drama, Family, Adventure]
        builtin:tt0120363 Toy Story 2 (1999) G [Animation, Comedy, Fantasy]
        builtin:tt0120762 Mulan (1998) G [Animation, Musical, Comedy, Drama, Fantasy, Family, Action, Adventure]
    "#]]
    .assert_eq(&render(&page, 5));

    // Leaving out genres (how content limits push blocked genres down) drops each film carrying any.
    filters.without_genres = vec!["drama".into(), "Family".into()];
    let page = builtin().browse(&filters).await.unwrap();
    expect![[r#"
        4 results, 1 pages
        builtin:tt0120910 Fantasia 2000 (1999) G [Animation, Musical, Comedy, Fantasy]
        builtin:tt0120363 Toy Story 2 (1999) G [Animation, Comedy, Fantasy]
        builtin:tt0166792 Scooby-Doo on Zombie Island (1998) G [Animation, Horror, Mystery, Comedy]
        builtin:tt0114709 Toy Story (1995) G [Animation, Comedy, Fantasy, Adventure]
    "#]]
    .assert_eq(&render(&page, 5));
}

#[tokio::test]
async fn unknown_names_list_the_valid_ones() {
    let b = builtin();
    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.genres = vec!["Science Fiction".into()];
    let e = b.browse(&filters).await.unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unknown genre \"Science Fiction\"; valid values: "),
        "{e}"
    );
    assert!(e.to_string().contains("Sci-Fi"), "{e}");

    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.original_language = Some("Frnch".into());
    expect!["unknown language \"Frnch\"; no close match"]
        .assert_eq(&b.browse(&filters).await.unwrap_err().to_string());
    filters.original_language = Some("Fren".into());
    expect![[r#"unknown language "Fren"; close matches: French, Quebec French"#]]
        .assert_eq(&b.browse(&filters).await.unwrap_err().to_string());

    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.certification = Some(CertificationCeiling {
        region: "US".into(),
        max: "TV-Y".into(),
    });
    expect![[r#"unknown US certification "TV-Y"; valid values: G, PG, PG-13, R, NC-17"#]]
        .assert_eq(&b.browse(&filters).await.unwrap_err().to_string());
    filters.certification = Some(CertificationCeiling {
        region: "GB".into(),
        max: "PG".into(),
    });
    expect![[r#"unknown certification region "GB"; valid values: US"#]]
        .assert_eq(&b.browse(&filters).await.unwrap_err().to_string());
}

#[tokio::test]
async fn what_the_data_cannot_know_is_refused_naming_tmdb() {
    let b = builtin();
    let e = b
        .trending(TitleKind::Movie, TimeWindow::Week, 1)
        .await
        .unwrap_err();
    expect!["trending (not knowable offline) is not supported by the builtin catalogue; use a catalogue of: tmdb"]
        .assert_eq(&e.to_string());
    assert!(
        matches!(e, Error::Unsupported { ref supported_by, .. } if supported_by == &[MediaSource::Tmdb])
    );
    let e = b
        .search_titles(&TitleSearch::new(TitleKind::Tv, "friends"))
        .await
        .unwrap_err();
    expect!["searching tv is not supported by the builtin catalogue; use a catalogue of: tmdb"]
        .assert_eq(&e.to_string());
    let mut filters = BrowseFilters::new(MediaType::Movie);
    filters.keyword = Some("heist".into());
    expect![
        "filtering by keyword is not supported by the builtin catalogue; use a catalogue of: tmdb"
    ]
    .assert_eq(&b.browse(&filters).await.unwrap_err().to_string());
    let e = b.search_collections("matrix", 1).await.unwrap_err();
    expect![
        "collection search is not supported by the builtin catalogue; use a catalogue of: tmdb"
    ]
    .assert_eq(&e.to_string());
    let search = adapters_catalogue::MusicSearch {
        kind: adapters_catalogue::MusicKind::Artist,
        query: "abba".into(),
        release_type: None,
        page: 1,
    };
    expect![
        "music search is not supported by the builtin catalogue; use a catalogue of: musicbrainz, lrclib"
    ]
    .assert_eq(&b.search_music(&search).await.unwrap_err().to_string());
    let e = b
        .title_details(
            &MediaId::new(MediaSource::Tmdb, "949"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap_err();
    expect!["the id tmdb:949 is not supported by the builtin catalogue; use a catalogue of: tmdb"]
        .assert_eq(&e.to_string());
}

#[tokio::test]
async fn details_by_builtin_or_imdb_id() {
    let b = builtin();
    let a = b
        .title_details(
            &MediaId::new(MediaSource::Builtin, "tt0113277"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap();
    let c = b
        .title_details(
            &MediaId::new(MediaSource::Imdb, "tt0113277"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap();
    assert_eq!(a, c);
    expect![[r#"
        TitleDetails {
            summary: TitleSummary {
                id: MediaId {
                    media_source: Builtin,
                    media_id: "tt0113277",
                },
                media_type: Movie,
                title: "Heat",
                year: Some(
                    1995,
                ),
                certification: Rated {
                    region: "US",
                    rating: "R",
                },
                genres: [
                    "Thriller",
                    "Mystery",
                    "Drama",
                    "Crime",
                    "History",
                    "Action",
                    "Adventure",
                ],
                overview: None,
                original_language: Some(
                    "English",
                ),
                vote_average: None,
                vote_count: None,
                poster_url: None,
                external_ids: [
                    MediaId {
                        media_source: Imdb,
                        media_id: "tt0113277",
                    },
                ],
            },
            certifications: [
                RegionalRating {
                    region: "US",
                    rating: "R",
                },
            ],
            runtime_minutes: Some(
                170,
            ),
            cast: [
                "Al Pacino",
                "Amy Brenneman",
                "Ashley Judd",
                "Bud Cort",
                "Danny Trejo",
            ],
            directors: [
                "Michael Mann",
            ],
            release_dates: [
                ReleaseDate {
                    region: None,
                    date: "1995-01-01",
                    kind: None,
                },
            ],
            languages: [
                "English",
            ],
            countries: [
                "United States",
            ],
            seasons: None,
            backdrop_url: None,
        }
    "#]]
    .assert_debug_eq(&a);

    let gb = b
        .title_details(
            &MediaId::new(MediaSource::Builtin, "tt0113277"),
            MediaType::Movie,
            "GB",
        )
        .await
        .unwrap();
    assert_eq!(
        gb.summary.certification,
        Certification::NotFetched,
        "the data rates the US only"
    );
    let unrated = b
        .title_details(
            &MediaId::new(MediaSource::Builtin, "tt0093164"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap();
    assert_eq!(
        unrated.summary.certification,
        Certification::Unrated {
            region: Some("US".into())
        }
    );

    let e = b
        .title_details(
            &MediaId::new(MediaSource::Imdb, "tt0000001"),
            MediaType::Movie,
            "US",
        )
        .await
        .unwrap_err();
    expect!["no title imdb:tt0000001 in the builtin catalogue"].assert_eq(&e.to_string());
    let e = b
        .title_details(
            &MediaId::new(MediaSource::Builtin, "tt0113277"),
            MediaType::Tv,
            "US",
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
}

#[tokio::test]
async fn recommendations_come_from_shared_people_and_genres() {
    let page = builtin()
        .recommendations(
            &MediaId::new(MediaSource::Builtin, "tt0068646"),
            MediaType::Movie,
            1,
        )
        .await
        .unwrap();
    expect![[r#"
        119 results, 6 pages
        builtin:tt0071562 The Godfather Part II (1974) R [Thriller, Mystery, Drama, Crime, History, Action]
        builtin:tt0099674 The Godfather Part III (1990) R [Thriller, Mystery, Drama, Crime, History]
        builtin:tt0071360 The Conversation (1974) PG [Thriller, Mystery, Drama, Crime]
    "#]]
    .assert_eq(&render(&page, 3));
}

#[tokio::test]
async fn certification_and_genre_lists() {
    let b = builtin();
    let certs = b.certifications(MediaType::Movie, "US").await.unwrap();
    let names: Vec<(&str, u32)> = certs
        .iter()
        .map(|c| (c.certification.as_str(), c.order))
        .collect();
    expect![[r#"[("G", 1), ("PG", 2), ("M", 2), ("M/PG", 2), ("GP", 2), ("PG-13", 3), ("R", 4), ("NC-17", 5), ("X", 5)]"#]]
        .assert_eq(&format!("{names:?}"));
    assert!(b.certifications(MediaType::Tv, "US").await.is_err());
    let genres = b.genres(MediaType::Movie).await.unwrap();
    assert_eq!(genres.len(), 21);
    assert!(genres.contains(&"Sci-Fi".to_string()));
}

#[test]
fn loads_every_row() {
    let b = builtin();
    assert_eq!(b.len(), 17_470);
    assert!(!format!("{b:?}").is_empty());
}
