//! Discovery through the real MCP endpoint, with people of every role: content limits on the
//! builtin catalogue and on the TMDB fake (hidden counts exact, forbidden details refused word for
//! word, unreadable limits failing the call), media identity, instance choice, and what the
//! adapters sent, asserted on the fakes' side.

use std::time::Duration;

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::{MusicBrainzFake, RecordedRequest, TmdbFake};

use crate::support::{self, builtin, instance, outcome, server_with_instances};

const NOT_AVAILABLE: &str = "That title is not available for this account.";

fn pg_kid() -> ContentLimits {
    ContentLimits {
        max_movie_cert: Some("PG".into()),
        max_tv_rating: Some("TV-Y7".into()),
        rating_region: Some("US".into()),
        ..ContentLimits::default()
    }
}

fn rows(data: &Value) -> Vec<Value> {
    data["results"].as_array().cloned().unwrap_or_default()
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            format!(
                "{}:{}",
                r["media_source"].as_str().unwrap(),
                r["media_id"].as_str().unwrap()
            )
        })
        .collect()
}

/// What a US PG cap lets through on the builtin catalogue (retired M, M/PG, GP rank as PG).
fn pg_allows(row: &Value, block_unrated: bool) -> bool {
    match row["rating"].as_str() {
        Some("G" | "PG" | "M" | "M/PG" | "GP") => true,
        Some("unrated") | None => !block_unrated,
        Some(_) => false,
    }
}

#[tokio::test]
async fn a_pg_kid_sees_no_r_or_nc17_title_and_the_hidden_count_is_exact() {
    let s = server_with_instances(vec![builtin()]).await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", pg_kid())
        .await;
    let strict = ContentLimits {
        block_unrated: true,
        blocked_genres: vec!["Comedy".into()],
        ..pg_kid()
    };
    let strict_kid = s
        .key_with_limits("strict", Role::Kid, "requester", strict)
        .await;
    let mut hidden_seen = 0;
    for query in ["heat", "night", "love", "war", "dead"] {
        for page in [1, 2] {
            let args = json!({"query": query, "page": page});
            let (err, _, all) = outcome(&s.call(&s.owner_key, "search_titles", args.clone()).await);
            assert!(!err, "{all}");
            assert_eq!(all["hidden_by_limits"], 0);
            assert_eq!(all["instance_id"], "builtin");
            let all_rows = rows(&all);
            assert!(!all_rows.is_empty(), "{query} {page}");

            let result = s.call(&kid, "search_titles", args.clone()).await;
            let (err, summary, data) = outcome(&result);
            assert!(!err, "{data}");
            let shown = rows(&data);
            for r in &shown {
                assert!(
                    !matches!(r["rating"].as_str(), Some("R" | "NC-17" | "X" | "PG-13")),
                    "{query}: {r}"
                );
            }
            let expected: Vec<Value> = all_rows
                .iter()
                .filter(|r| pg_allows(r, false))
                .cloned()
                .collect();
            assert_eq!(ids(&shown), ids(&expected), "{query} {page}");
            let hidden = (all_rows.len() - expected.len()) as u64;
            assert_eq!(data["hidden_by_limits"], hidden, "{query} {page}");
            assert_eq!(data["content_limits_applied"], true);
            if hidden > 0 {
                assert!(summary.contains(&format!("{hidden} title")), "{summary}");
            }
            // Never which: no hidden title's id appears anywhere in the answer.
            let text = result.to_string();
            for gone in all_rows.iter().filter(|r| !pg_allows(r, false)) {
                assert!(!text.contains(gone["media_id"].as_str().unwrap()), "{gone}");
            }
            hidden_seen += hidden;

            let (err, _, data) = outcome(&s.call(&strict_kid, "search_titles", args).await);
            assert!(!err, "{data}");
            let expected: Vec<&Value> = all_rows
                .iter()
                .filter(|r| pg_allows(r, true))
                .filter(|r| {
                    !r["genres"]
                        .as_array()
                        .is_some_and(|g| g.contains(&json!("Comedy")))
                })
                .collect();
            assert_eq!(rows(&data).len(), expected.len(), "{query} {page}");
            assert_eq!(
                data["hidden_by_limits"],
                (all_rows.len() - expected.len()) as u64
            );
        }
    }
    assert!(
        hidden_seen > 10,
        "the queries must hide something: {hidden_seen}"
    );
}

#[tokio::test]
async fn kept_builtin_answers_are_kept_per_question_and_per_callers_limits() {
    let s = server_with_instances(vec![builtin()]).await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", pg_kid())
        .await;
    let args = json!({"media_type": "movie", "genres": ["Crime"], "year_from": 1990});
    let owner_first = outcome(&s.call(&s.owner_key, "browse_titles", args.clone()).await).2;
    let kid_first = outcome(&s.call(&kid, "browse_titles", args.clone()).await).2;
    assert_eq!(owner_first["hidden_by_limits"], 0);
    assert!(rows(&kid_first).iter().all(|r| pg_allows(r, false)));
    assert_ne!(ids(&rows(&kid_first)), ids(&rows(&owner_first)));
    // Asked again: the same answers, each to its own caller.
    let owner_again = outcome(&s.call(&s.owner_key, "browse_titles", args.clone()).await).2;
    let kid_again = outcome(&s.call(&kid, "browse_titles", args.clone()).await).2;
    assert_eq!(owner_again, owner_first);
    assert_eq!(kid_again, kid_first);
    // Other arguments are another question.
    let later =
        json!({"media_type": "movie", "genres": ["Crime"], "year_from": 1990, "year_to": 1995});
    let owner_later = outcome(&s.call(&s.owner_key, "browse_titles", later).await).2;
    assert_ne!(ids(&rows(&owner_later)), ids(&rows(&owner_first)));
    // Once the kid's limits change, the answer kept for the old ones is not handed out.
    let store = s.host.app.store();
    let person = store.person_by_name("kid").await.unwrap().unwrap();
    let strict = ContentLimits {
        max_movie_cert: Some("G".into()),
        ..pg_kid()
    };
    store.set_limits(person.id, &strict).await.unwrap();
    let kid_strict = outcome(&s.call(&kid, "browse_titles", args).await).2;
    assert!(
        rows(&kid_strict)
            .iter()
            .all(|r| matches!(r["rating"].as_str(), Some("G" | "unrated") | None)),
        "{kid_strict}"
    );
    assert_ne!(ids(&rows(&kid_strict)), ids(&rows(&kid_first)));
}

#[tokio::test]
async fn forbidden_details_answer_exactly_and_admins_are_never_filtered() {
    let s = server_with_instances(vec![builtin()]).await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", pg_kid())
        .await;
    // Limits on an admin are ignored: admins and the owner are never filtered.
    let admin = s
        .key_with_limits("ana", Role::Admin, "admin", pg_kid())
        .await;
    let heat = json!({"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"});
    let toy_story = json!({"media_source": "imdb", "media_id": "tt0114709", "media_type": "movie"});

    let r = s.call(&kid, "get_title_details", heat.clone()).await;
    let (err, summary, data) = outcome(&r);
    assert!(err);
    assert_eq!(summary, NOT_AVAILABLE);
    assert_eq!(r["content"][0]["text"], NOT_AVAILABLE);
    assert_eq!(data["code"], "not_available");
    assert!(!r.to_string().contains("Heat"), "{r}");

    let (err, summary, data) = outcome(&s.call(&kid, "get_title_details", toy_story).await);
    assert!(!err, "{data}");
    assert!(summary.starts_with("Toy Story (1995)"), "{summary}");
    assert_eq!(
        (data["media_source"].clone(), data["rating"].clone()),
        (json!("builtin"), json!("G"))
    );

    for key in [&s.owner_key, &admin] {
        let (err, summary, data) = outcome(&s.call(key, "get_title_details", heat.clone()).await);
        assert!(!err, "{data}");
        assert!(summary.contains("rated R (US)"), "{summary}");
        assert_eq!(data["content_limits_applied"], false);
        let (_, _, data) = outcome(&s.call(key, "search_titles", json!({"query": "heat"})).await);
        assert_eq!(data["hidden_by_limits"], 0);
        assert!(rows(&data).iter().any(|r| r["rating"] == "R"));
        // Rows leave out what is empty: the builtin imdb id repeats media_id, so no external_ids.
        for r in rows(&data) {
            assert_eq!(r["media_source"], "builtin", "{r}");
            assert!(r["title"].is_string() && r["media_type"] == "movie", "{r}");
            assert!(r.get("external_ids").is_none(), "{r}");
            assert!(r.as_object().unwrap().values().all(|v| !v.is_null()), "{r}");
        }
    }

    // Recommendations: of a forbidden title, refused the same way; of an allowed one, filtered.
    let r = s.call(&kid, "get_recommendations", heat).await;
    assert_eq!(outcome(&r).1, NOT_AVAILABLE);
    let seed = json!({"media_source": "builtin", "media_id": "tt0114709", "media_type": "movie"});
    let (_, _, all) = outcome(
        &s.call(&s.owner_key, "get_recommendations", seed.clone())
            .await,
    );
    let (err, _, mine) = outcome(&s.call(&kid, "get_recommendations", seed).await);
    assert!(!err, "{mine}");
    let expected: Vec<Value> = rows(&all)
        .into_iter()
        .filter(|r| pg_allows(r, false))
        .collect();
    assert_eq!(ids(&rows(&mine)), ids(&expected));
    assert_eq!(
        mine["hidden_by_limits"],
        (rows(&all).len() - expected.len()) as u64
    );
}

#[tokio::test]
async fn limits_that_cannot_be_read_fail_the_call_never_an_unfiltered_list() {
    let s = server_with_instances(vec![builtin()]).await;
    let typo = ContentLimits {
        max_movie_cert: Some("PG-7".into()),
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("typo", Role::Kid, "requester", typo)
        .await;
    let (err, summary, data) = outcome(
        &s.call(&kid, "search_titles", json!({"query": "heat"}))
            .await,
    );
    assert!(err);
    assert_eq!(data["code"], "limits_unreadable");
    assert!(
        summary.contains("\"PG-7\"") && summary.contains("valid: G, PG"),
        "{summary}"
    );
    assert!(data.get("results").is_none());

    // The builtin catalogue rates in the US only: French limits cannot be checked there.
    let french = ContentLimits {
        max_movie_cert: Some("U".into()),
        rating_region: Some("FR".into()),
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("amelie", Role::Kid, "requester", french)
        .await;
    let (err, _, data) = outcome(
        &s.call(&kid, "browse_titles", json!({"media_type": "movie"}))
            .await,
    );
    assert!(err);
    assert_eq!(data["code"], "limits_unreadable", "{data}");
    let (err, _, data) = outcome(
        &s.call(&kid, "search_titles", json!({"query": "heat"}))
            .await,
    );
    assert!(err);
    assert_eq!(data["code"], "limits_unreadable");
}

#[tokio::test]
async fn identity_and_inputs_are_strict() {
    let s = server_with_instances(vec![builtin()]).await;
    let k = &s.owner_key;
    for args in [
        json!({"media_source": "builtin", "media_type": "movie"}),
        json!({"media_id": "tt0113277", "media_type": "movie"}),
        json!({"media_type": "movie"}),
    ] {
        for tool in ["get_title_details", "get_recommendations"] {
            let (err, summary, data) = outcome(&s.call(k, tool, args.clone()).await);
            assert!(err, "{tool} {args}");
            assert_eq!(data["code"], "invalid_argument");
            assert!(
                summary.contains("media_source") && summary.contains("media_id"),
                "{summary}"
            );
        }
    }
    let (err, summary, _) = outcome(
        &s.call(k, "search_titles", json!({"query": "heat", "sort": "new"}))
            .await,
    );
    assert!(err && summary.contains("sort"), "{summary}");
    let (err, summary, _) = outcome(
        &s.call(
            k,
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": 603, "media_type": "movie"}),
        )
        .await,
    );
    assert!(err && summary.contains("media_id"), "{summary}");
    let (err, summary, data) = outcome(
        &s.call(
            k,
            "get_title_details",
            json!({"media_source": "musicbrainz", "media_id": "x", "media_type": "movie"}),
        )
        .await,
    );
    assert!(err);
    assert!(
        summary
            .contains("use media_source tmdb or imdb or builtin or tvdb or anilist or myanimelist"),
        "{summary}"
    );
    assert_eq!(
        data["supported_sources"],
        json!(["tmdb", "imdb", "builtin", "tvdb", "anilist", "myanimelist"])
    );
    // A tmdb id with no tmdb instance configured: refused naming what it needs.
    let (err, summary, _) = outcome(
        &s.call(
            k,
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "603", "media_type": "movie"}),
        )
        .await,
    );
    assert!(err && summary.contains("tmdb"), "{summary}");
    let (err, summary, data) = outcome(
        &s.call(
            k,
            "get_title_details",
            json!({"media_source": "builtin", "media_id": "tt0000000", "media_type": "movie"}),
        )
        .await,
    );
    assert!(err && data["code"] == "not_found", "{summary}");
    // Unknown instance ids are refused with the valid ones, never served by the default.
    let (err, summary, _) = outcome(
        &s.call(
            k,
            "search_titles",
            json!({"query": "heat", "instance_id": "tmdb"}),
        )
        .await,
    );
    assert!(err);
    assert_eq!(summary, "unknown instance_id \"tmdb\"; valid ids: builtin");
    // What the builtin catalogue cannot know is refused, naming what can.
    let (err, summary, data) = outcome(&s.call(k, "get_trending", json!({})).await);
    assert!(err && summary.contains("tmdb"), "{summary}");
    assert_eq!(data["code"], "unsupported");
    let (err, summary, _) = outcome(
        &s.call(k, "get_trending", json!({"instance_id": "builtin"}))
            .await,
    );
    assert!(
        err && summary.contains("cannot answer trending"),
        "{summary}"
    );
    let (err, summary, _) = outcome(&s.call(k, "search_music", json!({"query": "abba"})).await);
    assert!(err && summary.contains("musicbrainz"), "{summary}");
    // An empty answer says the catalogue was read and had nothing.
    let (err, summary, data) =
        outcome(&s.call(k, "search_titles", json!({"query": "zzqxjv"})).await);
    assert!(!err, "{data}");
    assert!(
        summary.contains("the catalogue was read and has none"),
        "{summary}"
    );
}

fn tmdb_instances(fake: &TmdbFake) -> Vec<tools::InstanceSpec> {
    vec![
        builtin(),
        instance(
            "tmdb",
            InstanceKind::Tmdb,
            Some(fake.base_url()),
            Some(TmdbFake::API_KEY),
        ),
    ]
}

#[tokio::test]
async fn tmdb_rows_are_rated_from_details_for_limited_people_and_caps_are_pushed_upstream() {
    let fake = TmdbFake::start().await;
    let s = server_with_instances(tmdb_instances(&fake)).await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", pg_kid())
        .await;

    // Trending answers from TMDB (picked without instance_id, since builtin cannot know).
    let (err, _, all) = outcome(&s.call(&s.owner_key, "get_trending", json!({})).await);
    assert!(!err, "{all}");
    assert_eq!(all["instance_id"], "tmdb");
    assert_eq!(rows(&all).len(), 8);
    assert!(
        rows(&all).iter().all(|r| r.get("rating").is_none()),
        "lists carry no rating"
    );
    fake.clear();
    let (err, summary, data) = outcome(&s.call(&kid, "get_trending", json!({})).await);
    assert!(!err, "{data}");
    assert_eq!(ids(&rows(&data)), ["tmdb:862", "tmdb:12", "tmdb:82728"]);
    assert_eq!(data["hidden_by_limits"], 5);
    assert!(summary.contains("5 titles were hidden"), "{summary}");
    let shown: Vec<String> = rows(&data)
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["title"].as_str().unwrap(),
                r["rating"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(shown, ["Toy Story G", "Finding Nemo unrated", "Bluey TV-Y"]);
    // Each row's rating was read from its details, with the documented parameters and the key.
    let mut detail_paths: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/movie/") || r.path.starts_with("/tv/"))
        .map(|r| {
            let append = r.param("append_to_response").unwrap();
            assert!(
                append == "release_dates,credits" || append == "content_ratings,credits",
                "{append}"
            );
            assert_eq!(r.param("api_key"), Some(TmdbFake::API_KEY));
            assert_eq!(r.method, "GET");
            r.path.clone()
        })
        .collect();
    detail_paths.sort();
    assert_eq!(
        detail_paths,
        [
            "/movie/12",
            "/movie/603",
            "/movie/862",
            "/movie/949",
            "/tv/1399",
            "/tv/2316",
            "/tv/2996",
            "/tv/82728"
        ]
    );
    // Read once: the same list again costs no details call.
    fake.clear();
    let (_, _, again) = outcome(&s.call(&kid, "get_trending", json!({})).await);
    assert_eq!(again["hidden_by_limits"], 5);
    assert!(
        fake.requests()
            .iter()
            .all(|r| !r.path.starts_with("/movie/")),
        "{:?}",
        fake.requests()
    );

    // Browsing pushes the cap into TMDB's discover query and checks the answer again.
    let (data, discover) = browse_tmdb(
        &s,
        &fake,
        &kid,
        json!({"media_type": "movie", "instance_id": "tmdb"}),
    )
    .await;
    assert_eq!(discover.param("certification_country"), Some("US"));
    assert_eq!(discover.param("certification.lte"), Some("PG"));
    assert_eq!(discover.param("include_adult"), Some("false"));
    assert_eq!(ids(&rows(&data)), ["tmdb:862"]);
    // A milder ceiling of the caller's own stays; a looser one is replaced by the limit.
    fake.clear();
    let r = s
        .call(
            &kid,
            "browse_titles",
            json!({"media_type": "movie", "instance_id": "tmdb", "max_certification": "R"}),
        )
        .await;
    assert_eq!(
        fake.requests_to("/discover/movie")[0].param("certification.lte"),
        Some("PG")
    );
    assert!(
        r["structuredContent"]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("limit"),
        "{r}"
    );
    let (_, sent) = browse_tmdb(
        &s,
        &fake,
        &kid,
        json!({"media_type": "movie", "instance_id": "tmdb", "max_certification": "G"}),
    )
    .await;
    assert_eq!(sent.param("certification.lte"), Some("G"));
    // TV discovery cannot filter by certification upstream: the rows are checked here.
    let (data, _) = browse_tmdb(&s, &fake, &kid, json!({"media_type": "tv"})).await;
    assert_eq!(ids(&rows(&data)), ["tmdb:82728"]);
    assert_eq!(data["hidden_by_limits"], 3);

    // Details of a TMDB title the limits forbid; a show with seasons for the owner.
    let r = s
        .call(
            &kid,
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "1399", "media_type": "tv"}),
        )
        .await;
    assert_eq!(outcome(&r).1, NOT_AVAILABLE);
    let (err, summary, data) = outcome(
        &s.call(
            &s.owner_key,
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "1399", "media_type": "tv"}),
        )
        .await,
    );
    assert!(!err, "{data}");
    assert_eq!(data["seasons"], 8);
    assert!(summary.contains("rated TV-MA (US)"), "{summary}");

    // Collections carry no ratings: shown to the owner, refused to a limited person.
    let (err, _, data) = outcome(
        &s.call(&s.owner_key, "search_collections", json!({"query": "toy"}))
            .await,
    );
    assert!(!err, "{data}");
    assert_eq!(rows(&data)[0]["media_id"], "10194");
    assert_eq!(rows(&data)[0]["media_source"], "tmdb");
    let (err, _, data) = outcome(
        &s.call(&kid, "search_collections", json!({"query": "toy"}))
            .await,
    );
    assert!(err);
    assert_eq!(
        data["code"], "denied",
        "a refusal by the household's rules, never a backend failure"
    );
}

/// `browse_titles` as `key` on the TMDB fake, which must answer: its data, and the one discover
/// request the adapter sent.
async fn browse_tmdb(
    s: &support::Server,
    fake: &TmdbFake,
    key: &str,
    args: Value,
) -> (Value, RecordedRequest) {
    fake.clear();
    let (err, _, data) = outcome(&s.call(key, "browse_titles", args.clone()).await);
    assert!(!err, "{data}");
    let kind = args["media_type"].as_str().unwrap();
    let mut sent = fake.requests_to(&format!("/discover/{kind}"));
    assert_eq!(sent.len(), 1, "{args}");
    (data, sent.remove(0))
}

#[tokio::test]
async fn blocked_genres_are_pushed_into_discover_queries_and_checked_again() {
    let fake = TmdbFake::start().await;
    let s = server_with_instances(tmdb_instances(&fake)).await;
    let limits = ContentLimits {
        blocked_genres: vec!["Sci-Fi".into(), "comedy".into()],
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", limits)
        .await;
    let movies = json!({"media_type": "movie", "instance_id": "tmdb"});
    let (all, sent) = browse_tmdb(&s, &fake, &s.owner_key, movies.clone()).await;
    assert_eq!(rows(&all).len(), 4);
    assert_eq!(
        sent.param("without_genres"),
        None,
        "the owner is never filtered"
    );

    // Movies: "Sci-Fi" is TMDB's "Science Fiction"; ids in the genre list's order.
    let (data, sent) = browse_tmdb(&s, &fake, &kid, movies).await;
    assert_eq!(sent.param("without_genres"), Some("35,878"));
    assert_eq!(ids(&rows(&data)), ["tmdb:949", "tmdb:12"]);
    assert_eq!(data["content_limits_applied"], true);
    // Shows: the combined genre "Sci-Fi & Fantasy" is blocked too.
    let (data, sent) = browse_tmdb(&s, &fake, &kid, json!({"media_type": "tv"})).await;
    assert_eq!(sent.param("without_genres"), Some("35,10765"));
    assert!(rows(&data).is_empty(), "{data}");

    // The builtin catalogue applies the same exclusion itself; nothing blocked comes back.
    let (err, _, data) = outcome(
        &s.call(
            &kid,
            "browse_titles",
            json!({"media_type": "movie", "instance_id": "builtin", "year_from": 1990, "year_to": 1999}),
        )
        .await,
    );
    assert!(!err, "{data}");
    let shown = rows(&data);
    assert!(!shown.is_empty());
    for r in &shown {
        let genres = r["genres"].as_array().cloned().unwrap_or_default();
        assert!(
            !genres.contains(&json!("Comedy")) && !genres.contains(&json!("Sci-Fi")),
            "{r}"
        );
    }
}

#[tokio::test]
async fn a_tmdb_that_cannot_be_read_fails_the_call() {
    let fake = TmdbFake::start().await;
    let mut specs = tmdb_instances(&fake);
    specs[1].api_key = Some(domain::Secret::new("wrong-key"));
    let s = server_with_instances(specs).await;
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "get_trending", json!({})).await);
    assert!(err);
    assert_eq!(data["code"], "backend_unauthorized");
    assert!(
        summary.contains("\"tmdb\"") && !summary.contains("wrong-key"),
        "{summary}"
    );
    // diagnose asks TMDB's own key check: answering with 401 is not healthy.
    let (_, summary, data) = outcome(&s.call(&s.owner_key, "diagnose", json!({})).await);
    let checks = data["instances"].as_array().unwrap();
    let tmdb = checks.iter().find(|c| c["id"] == "tmdb").unwrap();
    assert_eq!(tmdb["ok"], false, "{tmdb}");
    let detail = tmdb["detail"].as_str().unwrap();
    assert!(
        detail.contains("refused the credentials") && detail.contains("api_key"),
        "{detail}"
    );
    assert!(!data.to_string().contains("wrong-key"));
    assert!(summary.contains("1 with problems (tmdb)"), "{summary}");
    let builtin = checks.iter().find(|c| c["id"] == "builtin").unwrap();
    assert_eq!(builtin["ok"], true);
    assert!(
        builtin["detail"].as_str().unwrap().contains("films loaded"),
        "{builtin}"
    );
    assert!(!fake.requests_to("/authentication").is_empty());
}

#[tokio::test]
async fn a_read_access_token_goes_in_the_authorization_header_and_a_missing_one_is_diagnosed() {
    let fake = TmdbFake::start().await;
    let mut token = instance("tmdb", InstanceKind::Tmdb, Some(fake.base_url()), None);
    token.password = Some(domain::Secret::new(TmdbFake::READ_TOKEN));
    let keyless = instance("tmdb-2", InstanceKind::Tmdb, Some(fake.base_url()), None);
    let s = server_with_instances(vec![builtin(), token, keyless]).await;
    let (err, _, data) = outcome(
        &s.call(
            &s.owner_key,
            "search_titles",
            json!({"query": "matrix", "instance_id": "tmdb"}),
        )
        .await,
    );
    assert!(!err, "{data}");
    assert_eq!(ids(&rows(&data)), ["tmdb:603"]);
    let sent = fake.requests_to("/search/multi");
    assert_eq!(sent[0].param("query"), Some("matrix"));
    assert_eq!(sent[0].param("api_key"), None);
    assert_eq!(
        sent[0].header("authorization").map(str::to_owned),
        Some(format!("Bearer {}", TmdbFake::READ_TOKEN))
    );
    let (err, summary, data) = outcome(
        &s.call(
            &s.owner_key,
            "get_trending",
            json!({"instance_id": "tmdb-2"}),
        )
        .await,
    );
    assert!(err);
    assert_eq!(data["code"], "backend_misconfigured");
    assert!(summary.contains("needs api_key"), "{summary}");
    let (_, _, data) = outcome(
        &s.call(&s.owner_key, "diagnose", json!({"instance_id": "tmdb-2"}))
            .await,
    );
    assert_eq!(data["instances"][0]["ok"], false);
    fake.clear();
    let (_, _, data) = outcome(
        &s.call(&s.owner_key, "diagnose", json!({"instance_id": "tmdb"}))
            .await,
    );
    assert_eq!(data["instances"][0]["ok"], true, "{data}");
    assert_eq!(
        data["instances"][0]["detail"],
        "TMDB accepts the credentials"
    );
    let asked = fake.requests_to("/authentication");
    assert_eq!(asked.len(), 1);
    assert_eq!(
        fake.requests().len(),
        1,
        "the key check is diagnose's only request"
    );
    assert_eq!(
        asked[0].header("authorization").map(str::to_owned),
        Some(format!("Bearer {}", TmdbFake::READ_TOKEN))
    );
}

#[tokio::test]
async fn music_comes_from_musicbrainz_paced_and_named() {
    let fake = MusicBrainzFake::start_with_window(Duration::from_millis(900)).await;
    let s = server_with_instances(vec![
        builtin(),
        instance("mb", InstanceKind::Musicbrainz, Some(fake.base_url()), None),
    ])
    .await;
    let (err, summary, data) = outcome(
        &s.call(&s.owner_key, "search_music", json!({"query": "Radiohead"}))
            .await,
    );
    assert!(!err, "{data}");
    assert!(summary.contains("from mb"), "{summary}");
    let first = &rows(&data)[0];
    assert_eq!(
        (
            first["media_source"].clone(),
            first["media_id"].clone(),
            first["media_type"].clone()
        ),
        (
            json!("musicbrainz"),
            json!("a74b1b7f-71a5-4011-9441-d0b5e4122711"),
            json!("music")
        )
    );
    let (err, _, data) = outcome(
        &s.call(
            &s.owner_key,
            "search_music",
            json!({"query": "Radiohead", "kind": "release_group", "release_type": "album"}),
        )
        .await,
    );
    assert!(!err, "{data}");
    let sent = fake.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].path, "/artist");
    assert_eq!(sent[0].param("fmt"), Some("json"));
    assert_eq!(sent[1].path, "/release-group");
    assert!(
        sent[1]
            .param("query")
            .unwrap()
            .contains("primarytype:album")
    );
    let agent = sent[0].header("user-agent").unwrap();
    assert!(
        agent.starts_with("Marquee/") && agent.contains("tests@marquee.invalid"),
        "{agent}"
    );
    assert!(sent[1].at.duration_since(sent[0].at) >= Duration::from_millis(900));

    // Music has no ratings: "block unrated" hides it all, and says how many.
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                block_unrated: true,
                ..pg_kid()
            },
        )
        .await;
    let (err, summary, data) = outcome(
        &s.call(&kid, "search_music", json!({"query": "Radiohead"}))
            .await,
    );
    assert!(!err, "{data}");
    assert!(rows(&data).is_empty());
    assert_eq!(data["hidden_by_limits"], 1);
    assert!(summary.contains("1 result was hidden"), "{summary}");
}

#[tokio::test]
async fn discovery_is_listed_by_grant_and_diagnose_tells_what_is_missing() {
    let s = server_with_instances(vec![builtin()]).await;
    let reader = s.key_for("rita", Role::User, "reader").await;
    let (_, body) = s
        .rpc(
            &reader,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"search_titles") && !names.contains(&"request_media"),
        "{names:?}"
    );
    let r = s.call(&s.owner_key, "diagnose", json!({})).await;
    let (_, _, data) = outcome(&r);
    let notes = data["notes"].to_string();
    assert!(
        notes.contains("no book source: search_books needs a Readarr"),
        "{notes}"
    );
    assert!(
        notes.contains("no library backend is configured"),
        "{notes}"
    );
    assert_eq!(data["instances"][0]["supported"], true);
}
