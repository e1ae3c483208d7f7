//! Benchmark of the builtin catalogue: load time, and search latency against a naive reference
//! (a linear substring scan over lowercased titles) measured in the same run.
//!
//! Memory: heap bytes held by one loaded catalogue and the heap's peak while loading it (a counting
//! global allocator over mimalloc, the allocator `marquee` runs on), and the process's resident set
//! (VmRSS) before and after that first load.
//!
//! Run: `cargo run --profile bench -p adapters-catalogue --example bench_builtin`

use std::time::{Duration, Instant};

use adapters_catalogue::{Builtin, Catalogue, TitleKind, TitleSearch};
use cap::Cap;

#[global_allocator]
static ALLOC: Cap<mimalloc::MiMalloc> = Cap::new(mimalloc::MiMalloc, usize::MAX);

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
    let (heap0, rss0) = (ALLOC.allocated(), rss_kib());
    // Loaded as `marquee serve` loads it: on a thread of its own that stays alive (tokio's
    // blocking pool), so the memory it touched is read before that thread ends.
    let (loaded_tx, loaded_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let loader = std::thread::spawn(move || {
        loaded_tx
            .send(Builtin::load().expect("data loads"))
            .expect("main waits");
        let _ = done_rx.recv();
    });
    let builtin = loaded_rx.recv().expect("the loader sends the catalogue");
    let (heap1, rss1) = (ALLOC.allocated(), rss_kib());
    drop(done_tx);
    loader.join().expect("the loader ends");
    println!(
        "memory: heap held {:.2} MiB, peak while loading {:.2} MiB; VmRSS {:.1} -> {:.1} MiB (+{:.1} MiB)",
        (heap1 - heap0) as f64 / 1048576.0,
        (ALLOC.max_allocated() - heap0) as f64 / 1048576.0,
        rss0 as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        rss1.saturating_sub(rss0) as f64 / 1024.0
    );
    let mut loads: Vec<Duration> = (0..5)
        .map(|_| Builtin::load().expect("data loads").load_time())
        .collect();
    loads.sort();
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
    questions(&builtin, &rt);
}

/// The broad questions of the benchmark matrix (scripts/bench-matrix.sh), one line each.
fn questions(builtin: &Builtin, rt: &tokio::runtime::Runtime) {
    use adapters_catalogue::BrowseFilters;
    use domain::{MediaId, MediaSource, MediaType};
    let browse = |genres: &[&str], years: Option<(i32, i32)>, page: u32| {
        let mut f = BrowseFilters::new(MediaType::Movie);
        f.genres = genres.iter().map(|g| g.to_string()).collect();
        f.year_from = years.map(|y| y.0);
        f.year_to = years.map(|y| y.1);
        f.page = page;
        f
    };
    let heat = MediaId::new(MediaSource::Builtin, "tt0113277");
    let time = |label: &str, run: &dyn Fn()| {
        let mut took: Vec<Duration> = (0..300)
            .map(|_| {
                let t = Instant::now();
                run();
                t.elapsed()
            })
            .collect();
        let (p50, p99) = percentiles(&mut took);
        println!("question {label}: p50 {p50:?}, p99 {p99:?}");
    };
    for q in ["the", "love", "star wars", "a"] {
        let search = TitleSearch::new(TitleKind::Movie, q);
        time(&format!("search \"{q}\""), &|| {
            std::hint::black_box(rt.block_on(builtin.search_titles(&search)).expect("search"));
        });
    }
    for (label, f) in [
        ("browse all", browse(&[], None, 1)),
        ("browse Comedy", browse(&["Comedy"], None, 1)),
        ("browse 1990-1999", browse(&[], Some((1990, 1999)), 1)),
        ("browse Drama page 40", browse(&["Drama"], None, 40)),
    ] {
        time(label, &|| {
            std::hint::black_box(rt.block_on(builtin.browse(&f)).expect("browse"));
        });
    }
    time("recommendations Heat", &|| {
        let page = rt.block_on(builtin.recommendations(&heat, MediaType::Movie, 1));
        std::hint::black_box(page.expect("recommendations"));
    });
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

/// The process's resident set in KiB, from /proc/self/status (0 where there is none).
fn rss_kib() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn percentiles(v: &mut [Duration]) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 99 / 100])
}
