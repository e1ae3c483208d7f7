//! The backends' answers: the *arr services' (Radarr, Sonarr, Lidarr, Readarr: queue, history,
//! library, health, disk space, profiles, custom formats, tags, calendar, interactive release
//! search, which is where indexer results arrive) and TMDB's, decoded by the real adapters over
//! real HTTP. Seeds are the contract fakes' own answers; each input breaks one or more of them.
//! An adapter answers a value or an error, never a panic, and an error never quotes the key.

use std::{collections::HashMap, sync::Arc};

use adapters_catalogue::{Catalogue, TitleKind, TitleSearch, Tmdb, TmdbAuth, TmdbConfig};
use adapters_library::{LibraryClient, ReleaseScope, Service};
use axum::{
    Router,
    extract::{Request, State},
    http::{StatusCode, header},
    response::IntoResponse,
};
use domain::{MediaId, MediaSource, MediaType, Secret};
use harness::{Gen, run_async};
use parking_lot_free::Answers;
use serde_json::Value;
use test_support::{ArrKind, FakeArr, TmdbFake};

pub(crate) mod parking_lot_free {
    //! The answers a programmable server gives, by path (std's Mutex: one input at a time).
    use std::{collections::HashMap, sync::Mutex};

    #[derive(Default)]
    pub struct Answers(pub Mutex<HashMap<String, Vec<u8>>>);
}

/// A server that answers each path with the bytes the current input set for it (`{}` else).
pub(crate) async fn programmable() -> (Arc<Answers>, url::Url) {
    let answers = Arc::new(Answers::default());
    let router = Router::new()
        .fallback(|State(a): State<Arc<Answers>>, req: Request| async move {
            let body =
                a.0.lock()
                    .unwrap()
                    .get(req.uri().path())
                    .cloned()
                    .unwrap_or_else(|| b"{}".to_vec());
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response()
        })
        .with_state(answers.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (answers, format!("http://{addr}/").parse().unwrap())
}

pub(crate) const ARR_KEYS: &[&str] = &[
    "id",
    "title",
    "records",
    "totalRecords",
    "page",
    "pageSize",
    "status",
    "trackedDownloadStatus",
    "statusMessages",
    "messages",
    "movieId",
    "seriesId",
    "episodeId",
    "quality",
    "size",
    "sizeleft",
    "downloadId",
    "protocol",
    "indexer",
    "guid",
    "infoUrl",
    "downloadUrl",
    "path",
    "freeSpace",
    "totalSpace",
    "tmdbId",
    "tvdbId",
    "imdbId",
    "year",
    "monitored",
    "hasFile",
    "movieFile",
    "statistics",
    "seasons",
    "images",
    "ratings",
    "tags",
    "name",
    "items",
    "allowed",
    "cutoff",
    "specifications",
    "fields",
    "value",
    "type",
    "source",
    "message",
    "wikiUrl",
    "date",
    "eventType",
    "data",
    "releaseTitle",
    "customFormats",
    "languages",
    "rejections",
    "seeders",
    "leechers",
];

/// Every read of one service, as the tools make them.
async fn arr_reads(c: &LibraryClient, g: &mut Gen) -> Result<String, String> {
    let r = match g.below(13) {
        0 => c.queue().await.map(|v| v.len()),
        1 => c.history(50).await.map(|v| v.len()),
        2 => c.library().await.map(|v| v.len()),
        3 => c.health().await.map(|v| v.len()),
        4 => c.disk_space().await.map(|v| v.len()),
        5 => c.quality_profiles().await.map(|v| v.len()),
        6 => c.custom_formats().await.map(|v| v.len()),
        7 => c.root_folders().await.map(|v| v.len()),
        8 => c.tags().await.map(|v| v.len()),
        9 => c
            .calendar("2026-01-01", "2026-02-01")
            .await
            .map(|v| v.len()),
        10 => c.held_ids().await.map(|v| v.len()),
        11 => c.item(1).await.map(|_| 1),
        _ => {
            let scope = match c.service() {
                Service::Radarr => ReleaseScope::Movie(1),
                Service::Sonarr => ReleaseScope::Episode(1),
                Service::Lidarr => ReleaseScope::Album(1),
                Service::Readarr => ReleaseScope::Book(1),
            };
            c.releases(&scope).await.map(|v| v.len())
        }
    };
    Ok(match r {
        Ok(n) => format!("{n} rows"),
        Err(e) => e.to_string(),
    })
}

/// The fakes' answers by full path, gathered by making every read against them once.
pub(crate) async fn arr_seeds(kind: ArrKind, service: Service) -> HashMap<String, Vec<u8>> {
    let fake = FakeArr::start(kind).await;
    let c = LibraryClient::new(
        service,
        fake.url().parse().unwrap(),
        Secret::new(fake.api_key()),
    )
    .unwrap();
    let mut g = Gen::new(1);
    for _ in 0..60 {
        let _ = arr_reads(&c, &mut g).await;
    }
    let mut seeds = HashMap::new();
    for r in fake.requests() {
        if r.status == 200 && !r.answer.is_null() {
            let full = format!("{}{}", fake.api_prefix(), r.path);
            seeds.insert(full, r.answer.to_string().into_bytes());
        }
    }
    seeds
}

/// Breaks one or several of the seed answers.
pub(crate) fn broken(
    g: &mut Gen,
    seeds: &HashMap<String, Vec<u8>>,
    keys: &[&str],
) -> HashMap<String, Vec<u8>> {
    let mut answers = seeds.clone();
    let paths: Vec<String> = answers.keys().cloned().collect();
    let n = 1 + g.below(3);
    for _ in 0..n {
        let Some(path) = (!paths.is_empty()).then(|| g.pick(&paths).clone()) else {
            break;
        };
        let seed = &seeds[&path];
        let bytes = match (g.below(4), serde_json::from_slice::<Value>(seed)) {
            (0, _) | (_, Err(_)) => g.mutate_bytes(
                seed,
                &[
                    b"{", b"}", b"[", b"]", b"\"", b"null", b"-1", b"1e999", b"\\u0000",
                ],
            ),
            (_, Ok(v)) => g.mutate_json(&v, keys).to_string().into_bytes(),
        };
        answers.insert(path, bytes);
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arr_answers_decode_or_fail_cleanly() {
    let kinds = [
        (ArrKind::Radarr, Service::Radarr),
        (ArrKind::Sonarr, Service::Sonarr),
        (ArrKind::Lidarr, Service::Lidarr),
        (ArrKind::Readarr, Service::Readarr),
    ];
    let mut targets = Vec::new();
    for (kind, service) in kinds {
        let seeds = arr_seeds(kind, service).await;
        assert!(
            seeds.len() >= 8,
            "{kind:?}: seeds from the fake: {:?}",
            seeds.keys()
        );
        let (answers, url) = programmable().await;
        let key = format!("canary-{}-key-5f1d", service.as_str());
        let client = LibraryClient::new(service, url, Secret::new(&key)).unwrap();
        targets.push((seeds, answers, client, key));
    }
    let targets = Arc::new(targets);
    let report = run_async("arr-answers", 800, |mut g| {
        let targets = targets.clone();
        async move {
            let (seeds, answers, client, key) = &targets[g.below(targets.len())];
            *answers.0.lock().unwrap() = broken(&mut g, seeds, ARR_KEYS);
            let said = arr_reads(client, &mut g).await?;
            if said.contains(key.as_str()) {
                return Err(format!("the key in: {said}"));
            }
            Ok(())
        }
    })
    .await;
    report.assert_clean();
}

const TMDB_KEYS: &[&str] = &[
    "id",
    "title",
    "name",
    "results",
    "page",
    "total_pages",
    "total_results",
    "release_date",
    "first_air_date",
    "overview",
    "poster_path",
    "genre_ids",
    "genres",
    "vote_average",
    "media_type",
    "release_dates",
    "iso_3166_1",
    "certification",
    "content_ratings",
    "rating",
    "external_ids",
    "imdb_id",
    "runtime",
    "credits",
    "cast",
    "crew",
    "recommendations",
    "belongs_to_collection",
];

async fn tmdb_reads(t: &Tmdb, g: &mut Gen) -> String {
    let id = MediaId::new(
        MediaSource::Tmdb,
        *g.pick(&["603", "1396", "348", "0", "-1", "x"]),
    );
    let r = match g.below(6) {
        0 => t
            .search_titles(&TitleSearch::new(TitleKind::Movie, "heat"))
            .await
            .map(|p| p.items.len()),
        1 => t
            .search_titles(&TitleSearch::new(TitleKind::Any, "alien"))
            .await
            .map(|p| p.items.len()),
        2 => t
            .title_details(&id, MediaType::Movie, "us")
            .await
            .map(|_| 1),
        3 => t.title_details(&id, MediaType::Tv, "gb").await.map(|_| 1),
        4 => t
            .recommendations(&id, MediaType::Movie, 1)
            .await
            .map(|p| p.items.len()),
        _ => t
            .search_collections("alien", 1)
            .await
            .map(|p| p.items.len()),
    };
    match r {
        Ok(n) => format!("{n} rows"),
        Err(e) => e.to_string(),
    }
}

fn tmdb(base: &str, key: &str) -> Tmdb {
    let mut config = TmdbConfig::new(TmdbAuth::ApiKey(Secret::new(key)));
    config.base_url = base.parse().unwrap();
    Tmdb::new(config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tmdb_answers_decode_or_fail_cleanly() {
    // Seeds: what the fake answers to every read, fetched again by path.
    let fake = TmdbFake::start().await;
    let t = tmdb(fake.base_url(), TmdbFake::API_KEY);
    let mut g = Gen::new(2);
    for _ in 0..40 {
        tmdb_reads(&t, &mut g).await;
    }
    let http = httpx::client(httpx::Timeouts::default()).unwrap();
    let mut seeds = HashMap::new();
    for r in fake.requests() {
        let url = format!("{}{}", fake.base_url(), r.path);
        let resp = http.get(&url).query(&r.query).send().await.unwrap();
        if resp.status().is_success() {
            let path = url::Url::parse(&url).unwrap().path().to_string();
            seeds.insert(path, resp.bytes().await.unwrap().to_vec());
        }
    }
    assert!(seeds.len() >= 4, "seeds from the fake: {:?}", seeds.keys());
    // The programmable server answers below the same base path as the fake ("/3").
    let (answers, url) = programmable().await;
    let key = "canary-tmdb-key-8e2a";
    let client = tmdb(&format!("{url}3"), key);
    let report = run_async("tmdb-answers", 600, |mut g| {
        *answers.0.lock().unwrap() = broken(&mut g, &seeds, TMDB_KEYS);
        let client = &client;
        async move {
            let said = tmdb_reads(client, &mut g).await;
            if said.contains(key) {
                return Err(format!("the key in: {said}"));
            }
            Ok(())
        }
    })
    .await;
    report.assert_clean();
}
