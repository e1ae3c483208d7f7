//! Microbenchmark of the JSON Marquee writes around already-serialized parts, in process:
//! the JSON-RPC reply (`mcp::dispatch`), the `tools/list` answer, and a tool's `CallToolResult`
//! (`web::host::render`), small and as a 200-row page, each in both protocol eras.
//!
//! `cargo run --profile bench -p web --example bench_wire` (BENCH_ROUNDS, default 7: the
//! median round of each case is printed, in microseconds per call).

#![allow(clippy::unwrap_used)]

use std::{hint::black_box, sync::Arc, time::Instant};

use mcp::{
    Context, HostError, Link, ListedTool, Peers, RenderedResult, ServerIdentity, ToolHost,
    model::{ErrorData, JsonObject, ReadResourceResult, Resource, ResourceTemplate},
};
use serde::Serialize;
use serde_json::{Value, json};
use tools::{Caller, Instances, Output, Settings};
use web::{Host, Metrics};

/// The real host for `tools/list`, plus three fixed answers for `tools/call`.
struct Bench {
    host: Host,
    small: Output,
    page: Output,
    kept: Output,
}

/// A row shaped like a `find_torrents` row, with text that needs escapes.
#[derive(Serialize)]
struct Row {
    instance_id: &'static str,
    info_hash: String,
    name: String,
    state: &'static str,
    progress: f64,
    size: u64,
    ratio: f64,
    category: Option<&'static str>,
    tags: Vec<&'static str>,
    save_path: &'static str,
    added_at: &'static str,
    dl_speed: u64,
    ul_speed: u64,
    tracker_error: Option<&'static str>,
}

#[derive(Serialize)]
struct Page {
    total: usize,
    offset: usize,
    next_offset: Option<usize>,
    rows: Vec<Row>,
}

fn page() -> Page {
    let rows = (0..200)
        .map(|i| Row {
            instance_id: "qbit-main",
            info_hash: format!("{i:040x}"),
            name: format!("Film \"{i}\" (2019) [1080p] C:\\rips\\é"),
            state: "seeding",
            progress: 1.0,
            size: 4_000_000_000 + i,
            ratio: 1.25,
            category: Some("movies"),
            tags: vec!["hd", "kept"],
            save_path: "/data/torrents/movies",
            added_at: "2025-01-31T18:00:00Z",
            dl_speed: 0,
            ul_speed: 12_345,
            tracker_error: None,
        })
        .collect();
    Page {
        total: 50_000,
        offset: 0,
        next_offset: Some(200),
        rows,
    }
}

impl ToolHost for Bench {
    type Caller = Caller;

    fn identity(&self) -> &ServerIdentity {
        self.host.identity()
    }

    async fn authenticate(&self, credential: &str) -> Result<Option<Caller>, HostError> {
        self.host.authenticate(credential).await
    }

    async fn list_tools(&self, caller: &Caller) -> Result<Arc<[Arc<ListedTool>]>, HostError> {
        self.host.list_tools(caller).await
    }

    async fn call_tool(
        &self,
        _caller: &Caller,
        name: &str,
        _arguments: Option<JsonObject>,
        _cx: &Context<'_>,
    ) -> Result<RenderedResult, ErrorData> {
        let out = match name {
            "small" => &self.small,
            "page" => &self.page,
            _ => &self.kept,
        };
        Ok(web::render(Ok(out.clone())))
    }

    async fn list_resources(&self, _caller: &Caller) -> Vec<Resource> {
        Vec::new()
    }

    fn list_resource_templates(&self, _caller: &Caller) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    async fn read_resource(
        &self,
        _caller: &Caller,
        _uri: &str,
    ) -> Result<Option<ReadResourceResult>, mcp::model::ErrorData> {
        Ok(None)
    }
}

fn request(method: &str, params: Value, modern: bool) -> Value {
    let mut params = params;
    if modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params })
}

/// Microseconds per call: the median of `rounds` rounds of `n` calls.
async fn measure(
    bench: &std::sync::Arc<Bench>,
    caller: &Caller,
    message: &Value,
    n: usize,
    rounds: usize,
) -> f64 {
    let peers = std::sync::Arc::new(Peers::default());
    let mut medians = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..n {
            let link = Link {
                peers: &peers,
                owner: 1,
                out: None,
                tells_list_changes: false,
            };
            let reply =
                mcp::dispatch(bench, caller, message.clone(), Default::default(), link).await;
            assert_eq!(reply.status, 200, "{message}");
            black_box(reply.body);
        }
        medians.push(start.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
    medians.sort_by(f64::total_cmp);
    medians[rounds / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, issued) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(Vec::new()).unwrap()),
    );
    app.start_jobs(std::future::pending());
    let host = Host::new(app, Arc::new(Metrics::default()));
    let caller = host
        .authenticate(issued.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let small = Output::new(
        "You are owner (\"admin\"), with 3 grants.",
        json!({ "person": "owner", "role": "admin", "grant": "owner", "capabilities": ["discover", "downloads.read"], "quotas": [] }),
    );
    let page = Output::typed("Rows 1-200 of 50000 matching torrents.", &page()).unwrap();
    let kept = page.clone().shared();
    let bench = std::sync::Arc::new(Bench {
        host,
        small,
        page,
        kept,
    });
    let cases: [(&str, &str, Value, usize); 4] = [
        ("tools/list", "tools/list", json!({}), 20_000),
        (
            "call small",
            "tools/call",
            json!({ "name": "small" }),
            20_000,
        ),
        (
            "call page 200 rows",
            "tools/call",
            json!({ "name": "page" }),
            1_000,
        ),
        (
            "call page 200 rows, kept",
            "tools/call",
            json!({ "name": "kept" }),
            5_000,
        ),
    ];
    println!("| case | legacy µs/call | 2026-07-28 µs/call |\n| --- | ---: | ---: |");
    for (label, method, params, n) in cases {
        let legacy = measure(
            &bench,
            &caller,
            &request(method, params.clone(), false),
            n,
            rounds,
        )
        .await;
        let modern = measure(&bench, &caller, &request(method, params, true), n, rounds).await;
        println!("| {label} | {legacy:.2} | {modern:.2} |");
    }
}
