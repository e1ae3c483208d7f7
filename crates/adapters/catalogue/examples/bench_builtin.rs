//! Benchmark of the builtin catalogue: load time, and search latency against a naive reference
//! (a linear substring scan over lowercased titles) measured in the same run.
//!
//! Run: `cargo run --profile bench -p adapters-catalogue --example bench_builtin`

use std::time::{Duration, Instant};

use adapters_catalogue::{Builtin, Catalogue, TitleKind, TitleSearch};

const QUERIES: [&str; 16] = [
    "heat",
    "the matrix",
    "star wars",
    "godfather",
    "tom hanks",
    "spielberg",
    "quai des orfevres",
    "leon morin",
    "the",
    "love story 1970",
    "john wayne western",
    "casablanca",
    "alien",
    "kubrick",
    "night",
    "hitchcock vertigo",
];

fn main() {
    let mut loads: Vec<Duration> = (0..5)
        .map(|_| Builtin::load().expect("data loads").load_time())
        .collect();
    loads.sort();
    let builtin = Builtin::load().expect("data loads");
    println!("films: {}", builtin.len());
    println!(
        "load: min {:?}, median {:?}, max {:?}",
        loads[0], loads[2], loads[4]
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let rounds = 200;
    let mut ours = Vec::with_capacity(QUERIES.len() * rounds);
    let mut reference = Vec::with_capacity(QUERIES.len() * rounds);
    let lowered = reference_titles(&builtin, &rt);
    for _ in 0..rounds {
        for q in QUERIES {
            let search = TitleSearch::new(TitleKind::Movie, q);
            let t = Instant::now();
            let page = rt.block_on(builtin.search_titles(&search)).expect("search");
            ours.push(t.elapsed());
            std::hint::black_box(page);

            let t = Instant::now();
            let needle = q.to_lowercase();
            let hits: Vec<&String> = lowered
                .iter()
                .filter(|title| title.contains(&needle))
                .take(20)
                .collect();
            reference.push(t.elapsed());
            std::hint::black_box(hits);
        }
    }
    let (p50, p99) = percentiles(&mut ours);
    let (r50, r99) = percentiles(&mut reference);
    println!(
        "search (index, ranked, first page): p50 {p50:?}, p99 {p99:?} over {} searches",
        ours.len()
    );
    println!("reference (substring scan of titles, unranked): p50 {r50:?}, p99 {r99:?}");
    println!(
        "ratio p50 index/reference: {:.2}",
        p50.as_secs_f64() / r50.as_secs_f64()
    );
}

/// Every title, lowercased, for the reference scan (read through browse pages: 1940-2014).
fn reference_titles(builtin: &Builtin, rt: &tokio::runtime::Runtime) -> Vec<String> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let mut filters = adapters_catalogue::BrowseFilters::new(domain::MediaType::Movie);
        filters.page = page;
        let p = rt.block_on(builtin.browse(&filters)).expect("browse");
        if p.items.is_empty() {
            break;
        }
        out.extend(p.items.into_iter().map(|t| t.title.to_lowercase()));
        page += 1;
    }
    out
}

fn percentiles(v: &mut [Duration]) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 99 / 100])
}
