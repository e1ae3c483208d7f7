//! `search_indexers` over five Torznab fakes on 127.0.0.1, each answering 100 rows after 50 ms
//! (a fifth of the torrents on every feed, so merging has work): the p50 and p90 of whole calls
//! through the core against the slowest indexer's delay, and what the call adds after the
//! slowest indexer answered (recognition, merge by info hash, filters, sort, page, references)
//! as the call's time less the slowest indexer's own time. One JSON line.
//! `cargo run --release -p tools --example indexer_search_bench [CALLS]`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{sync::Arc, time::Duration, time::Instant};

use domain::{InstanceKind, Secret};
use serde_json::json;
use store::Store;
use test_support::indexers::{FakeRelease, FeedMode, TorznabFake};
use tools::{Called, InstanceSpec, Instances, Settings};

const FEEDS: usize = 5;
const ROWS: usize = 100;
const DELAY: Duration = Duration::from_millis(50);

fn releases(feed: usize) -> Vec<FakeRelease> {
    let res = ["720p", "1080p", "2160p"];
    (0..ROWS)
        .map(|i| {
            let title = format!(
                "The.Matrix.1999.{}.BluRay.x264-G{feed}R{i}",
                res[i % res.len()]
            );
            let mut r = FakeRelease::torrent(&title, 1_000_000_000 + i as u64, (i % 97) as u32, 1);
            // Rows 0..20 are the same torrents on every feed.
            let key = if i < 20 { i } else { feed * 1000 + i };
            r.info_hash = Some(format!("{key:040x}"));
            r.imdb = Some("tt0133093".into());
            r
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let mut feeds = Vec::new();
    let mut list = Vec::new();
    for n in 0..FEEDS {
        let feed = TorznabFake::start(&format!("Feed{n}"), releases(n)).await;
        feed.set_mode(FeedMode::Slow(DELAY));
        list.push(InstanceSpec {
            id: format!("feed{n}"),
            kind: InstanceKind::Torznab,
            url: Some(feed.url().parse().unwrap()),
            path: None,
            username: None,
            password: None,
            api_key: Some(Secret::new(TorznabFake::API_KEY.to_string())),
            default: false,
        });
        feeds.push(feed);
    }
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let owner = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let args = json!({ "query": "matrix", "page_size": 100 });
    let mut whole = Vec::new();
    let mut after = Vec::new();
    let mut merged = 0;
    // The first call reads each feed's caps as well: not counted.
    for n in 0..=calls {
        let started = Instant::now();
        let out = match app
            .call(&owner, "search_indexers", args.as_object().cloned())
            .await
        {
            Called::Done(Ok(out)) => out,
            Called::Done(Err(e)) => panic!("{}", e.message),
            Called::UnknownTool => panic!("no search_indexers"),
        };
        let took = started.elapsed().as_secs_f64() * 1000.0;
        let d = out.data();
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let slowest = d["indexers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["millis"].as_u64().unwrap())
            .max()
            .unwrap() as f64;
        merged = d["merged"].as_u64().unwrap();
        if n > 0 {
            whole.push(took);
            after.push((took - slowest).max(0.0));
        }
    }
    whole.sort_by(f64::total_cmp);
    after.sort_by(f64::total_cmp);
    let delay = DELAY.as_secs_f64() * 1000.0;
    println!(
        "{}",
        json!({
            "indexers": FEEDS, "rows_each": ROWS, "delay_ms": delay, "calls": calls,
            "merged_rows": merged,
            "p50_ms": percentile(&whole, 0.5), "p90_ms": percentile(&whole, 0.9),
            "p50_over_delay": percentile(&whole, 0.5) / delay,
            "after_slowest_p50_ms": percentile(&after, 0.5),
            "after_slowest_p90_ms": percentile(&after, 0.9),
        })
    );
}
