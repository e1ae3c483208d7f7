//! Benchmark of the merged library reads through the full in-process MCP path (router, edge,
//! governance, tool, adapter, loopback HTTP to the fakes): `get_queue` and `diagnose_queue` over
//! four *arr fakes (Radarr, Sonarr, Lidarr, Readarr) with 1,000 queue items each, 10% of them
//! stuck, against the slowest single instance's `get_queue` measured in the same run; and
//! `diagnose_queue` again with a qBittorrent instance (`qbit.rs`) holding every item's hash, so
//! each item is also looked up in the download catalogue (the stalled ones stalled there too).
//!
//! `cargo run --profile bench -p web --example bench_library` (BENCH_CALLS, default 200). The
//! fakes run in this process on the same two worker threads, so their own work (building and
//! writing 1,000 items per answer) is part of every figure, the single reads' as the merged one's.

#![allow(clippy::unwrap_used)]

mod qbit;

use std::{sync::Arc, time::Instant};

use axum::{body::Body, http::Request};
use domain::InstanceKind;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource, Verdict};
use tools::{InstanceSpec, Instances, Settings};
use tower::ServiceExt;
use web::{EdgeConfig, Host, Metrics, Web};

const ITEMS: usize = 1000;

async fn fake(kind: ArrKind, hashes: &mut Vec<(String, bool)>) -> FakeArr {
    let fake = FakeArr::start(kind).await;
    let unit = match kind {
        ArrKind::Radarr => fake.insert(
            Resource::Movie,
            json!({ "title": "Heat", "tmdbId": 949, "path": "/m/Heat" }),
        ),
        ArrKind::Sonarr => {
            let s = fake.insert(
                Resource::Series,
                json!({ "title": "Bluey", "tvdbId": 1, "path": "/tv/Bluey" }),
            );
            fake.insert(
                Resource::Episode,
                json!({ "seriesId": s, "seasonNumber": 1, "episodeNumber": 4 }),
            )
        }
        ArrKind::Lidarr => {
            let a = fake.insert(
                Resource::Artist,
                json!({ "artistName": "The Beatles", "path": "/music/Beatles" }),
            );
            fake.insert(
                Resource::Album,
                json!({ "title": "Abbey Road", "artistId": a }),
            )
        }
        ArrKind::Readarr => {
            let a = fake.insert(
                Resource::Author,
                json!({ "authorName": "Frank Herbert", "path": "/books/Herbert" }),
            );
            fake.insert(Resource::Book, json!({ "title": "Dune", "authorId": a }))
        }
    };
    for i in 0..ITEMS {
        let (id, stalled) = if i % 10 == 0 {
            let v = Verdict::ALL[(i / 10) % Verdict::ALL.len()];
            (fake.seed_stuck(unit, v), v == Verdict::StalledDownload)
        } else {
            let id = fake.start_download(unit, &format!("Release.{i}.1080p"), 1_000_000_000);
            (id, false)
        };
        // A hash of its own per instance and item, as the download client holds it.
        let hash = format!("{:02X}{:038X}", kind as u8, i);
        fake.update(Resource::Queue, id, json!({ "downloadId": hash }));
        hashes.push((hash, stalled));
    }
    fake
}

fn spec(id: &str, kind: InstanceKind, fake: &FakeArr) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(fake.url().parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: Some(domain::Secret::new(fake.api_key())),
        default: true,
    }
}

async fn call(router: &axum::Router, key: &str, tool: &str, args: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": tool, "arguments": args } });
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {key}"))
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    // A long tool (get_queue, diagnose_queue) is answered as an SSE stream to a client that
    // accepts one: the answer is its last `data:` line.
    let text = String::from_utf8_lossy(&bytes);
    let answer = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .next_back()
        .unwrap_or(&text);
    let v: Value = serde_json::from_str(answer.trim()).unwrap();
    assert_eq!(v["result"]["isError"], false, "{tool}: {v}");
    v
}

/// p50 and p99 in milliseconds of `n` sequential calls. Between calls (untimed) the fakes
/// forget the requests they recorded, which a real service does not keep.
async fn measure(
    router: &axum::Router,
    key: &str,
    fakes: &[&FakeArr],
    tool: &str,
    args: Value,
    n: usize,
) -> (f64, f64) {
    for _ in 0..5 {
        call(router, key, tool, args.clone()).await;
    }
    let mut times: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..n {
        fakes.iter().for_each(|f| f.clear_requests());
        let start = Instant::now();
        call(router, key, tool, args.clone()).await;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[n / 2], times[(n * 99 / 100).min(n - 1)])
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    httpx::client(httpx::Timeouts::default()).expect("installs the TLS provider");
    let n: usize = std::env::var("BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut hashes = Vec::new();
    let fakes = [
        (
            "radarr",
            InstanceKind::Radarr,
            fake(ArrKind::Radarr, &mut hashes).await,
        ),
        (
            "sonarr",
            InstanceKind::Sonarr,
            fake(ArrKind::Sonarr, &mut hashes).await,
        ),
        (
            "lidarr",
            InstanceKind::Lidarr,
            fake(ArrKind::Lidarr, &mut hashes).await,
        ),
        (
            "readarr",
            InstanceKind::Readarr,
            fake(ArrKind::Readarr, &mut hashes).await,
        ),
    ];
    let specs: Vec<InstanceSpec> = fakes
        .iter()
        .map(|(id, kind, f)| spec(id, *kind, f))
        .collect();
    let (router, key) = marquee(specs.clone()).await;
    let client = InstanceSpec {
        id: "qb".into(),
        kind: InstanceKind::Qbittorrent,
        url: Some(qbit::start(&hashes).await.parse().unwrap()),
        path: None,
        username: Some("admin".into()),
        password: Some(domain::Secret::new("adminadmin")),
        api_key: None,
        default: true,
    };
    let (with_client, client_key) = marquee(specs.into_iter().chain([client]).collect()).await;
    let all: Vec<&FakeArr> = fakes.iter().map(|(_, _, f)| f).collect();

    println!("| call | p50 ms | p99 ms |\n| --- | --- | --- |");
    let mut slowest = (0.0f64, 0.0f64);
    for (id, _, _) in &fakes {
        let (p50, p99) = measure(
            &router,
            &key,
            &all,
            "get_queue",
            json!({ "instance_id": id, "limit": 1 }),
            n,
        )
        .await;
        println!("| get_queue {id} (1,000 items) | {p50:.2} | {p99:.2} |");
        if p50 > slowest.0 {
            slowest = (p50, p99);
        }
    }
    let (p50, p99) = measure(&router, &key, &all, "get_queue", json!({ "limit": 1 }), n).await;
    println!("| get_queue merged (4 x 1,000) | {p50:.2} | {p99:.2} |");
    println!(
        "merged / slowest single p50: {:.2}x (target <= 1.5x)",
        p50 / slowest.0
    );
    let (p50, p99) = measure(&router, &key, &all, "diagnose_queue", json!({}), n).await;
    println!("| diagnose_queue (4 x 1,000, 10% stuck) | {p50:.2} | {p99:.2} |");
    let plain = p50;
    let answer = call(&with_client, &client_key, "diagnose_queue", json!({})).await;
    assert!(
        answer.to_string().contains(r#""available":true"#),
        "the client's state is in the evidence"
    );
    let (p50, p99) = measure(
        &with_client,
        &client_key,
        &all,
        "diagnose_queue",
        json!({}),
        n,
    )
    .await;
    println!(
        "| diagnose_queue with a qBittorrent holding all 4,000 hashes | {p50:.2} | {p99:.2} |"
    );
    println!(
        "diagnose / slowest single get_queue p50: {:.2}x; with the client's evidence: {:.2}x",
        plain / slowest.0,
        p50 / slowest.0
    );
}

/// A Marquee over `specs` on an in-memory store: its router and the owner's key.
async fn marquee(specs: Vec<InstanceSpec>) -> (axum::Router, String) {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let key = issued.secret.expose().to_string();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(specs).unwrap()),
    );
    app.start_jobs(std::future::pending());
    let metrics = Arc::new(Metrics::default());
    let host = Arc::new(Host::new(app, metrics.clone()));
    let web = Web::new(EdgeConfig::default(), metrics);
    web.set_ready(host);
    (web::router(web), key)
}
