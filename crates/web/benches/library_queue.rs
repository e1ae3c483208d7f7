//! Benchmark: `get_queue` merged over four library instances (Radarr, Sonarr, Lidarr, Readarr
//! fakes with 1,000 queue items each) through the full MCP path (router, edge, dispatch, governance
//! core, tool, adapters over loopback HTTP), against each instance read alone the same way.
//! Prints p50 and p99 of each and the ratio of the merged call to the slowest single instance.
//! Run: `cargo bench -p web --bench library_queue` (BENCH_ITERATIONS, default 60).

#![allow(clippy::unwrap_used)]

// The integration tests' server helpers; this bench uses two of them.
#[path = "../tests/it/support.rs"]
#[allow(dead_code)]
mod support;

use std::time::{Duration, Instant};

use domain::InstanceKind;
use serde_json::json;
use support::{instance, server_with_instances};
use test_support::arr::{ArrKind, FakeArr, Resource};

const ITEMS: usize = 1000;

async fn fake_with_queue(kind: ArrKind) -> FakeArr {
    let fake = FakeArr::start(kind).await;
    let parent = match kind {
        ArrKind::Radarr => None,
        ArrKind::Sonarr => Some((
            "seriesId",
            fake.insert(Resource::Series, json!({"title": "Show", "tvdbId": 1})),
        )),
        ArrKind::Lidarr => Some((
            "artistId",
            fake.insert(
                Resource::Artist,
                json!({"artistName": "Band", "foreignArtistId": "a"}),
            ),
        )),
        ArrKind::Readarr => Some((
            "authorId",
            fake.insert(
                Resource::Author,
                json!({"authorName": "Writer", "foreignAuthorId": "w"}),
            ),
        )),
    };
    for i in 0..ITEMS {
        let mut fields = match kind {
            ArrKind::Radarr => json!({"title": format!("Movie {i}"), "tmdbId": 10_000 + i}),
            ArrKind::Sonarr => {
                json!({"seasonNumber": 1 + i / 100, "episodeNumber": 1 + i % 100, "title": format!("E{i}")})
            }
            ArrKind::Lidarr => {
                json!({"title": format!("Album {i}"), "foreignAlbumId": format!("al{i}")})
            }
            ArrKind::Readarr => {
                json!({"title": format!("Book {i}"), "foreignBookId": format!("b{i}")})
            }
        };
        if let Some((key, id)) = parent {
            fields[key] = json!(id);
        }
        let unit = fake.insert(kind.unit(), fields);
        fake.start_download(
            unit,
            &format!("Release.{i}.1080p"),
            1_000_000_000 + i as i64,
        );
    }
    fake
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

async fn measure(s: &support::Server, args: serde_json::Value, n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let result = s.call(&s.owner_key, "get_queue", args.clone()).await;
        times.push(start.elapsed());
        assert_eq!(result["isError"], false, "{result}");
    }
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("BENCH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let kinds = [
        (ArrKind::Radarr, InstanceKind::Radarr, "radarr"),
        (ArrKind::Sonarr, InstanceKind::Sonarr, "sonarr"),
        (ArrKind::Lidarr, InstanceKind::Lidarr, "lidarr"),
        (ArrKind::Readarr, InstanceKind::Readarr, "readarr"),
    ];
    let mut fakes = Vec::new();
    let mut specs = Vec::new();
    for (kind, ik, id) in kinds {
        let fake = fake_with_queue(kind).await;
        specs.push(instance(id, ik, Some(&fake.url()), Some(fake.api_key())));
        fakes.push(fake);
    }
    let s = server_with_instances(specs).await;
    let check = s.call(&s.owner_key, "get_queue", json!({})).await;
    assert_eq!(
        check["structuredContent"]["data"]["total"],
        4 * ITEMS,
        "{check}"
    );
    // What the fake alone costs: the raw page over loopback, no adapter, no MCP.
    let raw = httpx::client(httpx::Timeouts::default()).unwrap();
    for (fake, (_, _, id)) in fakes.iter().zip(kinds) {
        let url = format!(
            "{}{}/queue?page=1&pageSize=1000",
            fake.url(),
            fake.kind().api_prefix()
        );
        let mut t = Vec::new();
        for _ in 0..10 {
            let start = Instant::now();
            let body = raw
                .get(&url)
                .header("X-Api-Key", fake.api_key())
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            t.push(start.elapsed());
            assert!(body.len() > 1000);
        }
        t.sort();
        println!("raw page of {id}: p50 {}", ms(percentile(&t, 0.5)));
    }
    // Warm-up, then single instances and the merged call interleaved per round.
    measure(&s, json!({}), 5).await;
    let mut slowest = (String::new(), Duration::ZERO, Duration::ZERO);
    println!("| get_queue | p50 | p99 |\n| --- | --- | --- |");
    for (_, _, id) in kinds {
        let t = measure(&s, json!({"instance_id": id}), n).await;
        let (p50, p99) = (percentile(&t, 0.5), percentile(&t, 0.99));
        println!("| {id} alone ({ITEMS} items) | {} | {} |", ms(p50), ms(p99));
        if p50 > slowest.1 {
            slowest = (id.to_string(), p50, p99);
        }
    }
    let t = measure(&s, json!({}), n).await;
    let (p50, p99) = (percentile(&t, 0.5), percentile(&t, 0.99));
    println!(
        "| merged, 4 instances ({} items) | {} | {} |",
        4 * ITEMS,
        ms(p50),
        ms(p99)
    );
    println!(
        "\nmerged / slowest single ({}): p50 {:.2}x, p99 {:.2}x (target <= 1.5x)",
        slowest.0,
        p50.as_secs_f64() / slowest.1.as_secs_f64(),
        p99.as_secs_f64() / slowest.2.as_secs_f64()
    );
    drop(fakes);
}
