//! Catalogue benchmark: 100,000 synthetic torrents in two catalogues (qBittorrent- and
//! Transmission-shaped): query time per 200-row page, memory per row, incremental refresh time.
//!
//! `cargo bench -p adapters-downloads --bench catalogue` (BENCH_ROWS overrides the 100,000).

#![allow(clippy::unwrap_used)]

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use adapters_downloads::{
    SortKey, TorrentCatalogue, TorrentQuery, TorrentState, query_merged,
    transmission::delta_from_body,
};
use cap::Cap;
use domain::InstanceKind;
use serde_json::{Value, json};

#[global_allocator]
static ALLOC: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

const CATEGORIES: [&str; 6] = ["", "movies", "tv", "music", "books", "radarr-4k"];
const TAGS: [&str; 5] = ["", "radarr", "sonarr", "sonarr, 4k", "cross-seed, keep"];
const WORDS: [&str; 12] = [
    "The.Expanse",
    "Severance",
    "Dune.Part.Two",
    "Arcane",
    "Blue.Planet",
    "Andor",
    "Fallout",
    "Shogun",
    "The.Bear",
    "Slow.Horses",
    "Foundation",
    "Silo",
];
const QB_STATES: [&str; 8] = [
    "uploading",
    "stalledUP",
    "downloading",
    "stalledDL",
    "pausedUP",
    "pausedDL",
    "queuedDL",
    "checkingUP",
];

fn hash(i: usize, salt: u128) -> String {
    format!(
        "{:040x}",
        (i as u128 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835 ^ salt) >> 8
    )
}

fn name(i: usize) -> String {
    let w = WORDS[i % WORDS.len()];
    format!(
        "{w}.S{:02}E{:02}.{}.WEB-DL.x265-GRP{}",
        i % 9 + 1,
        i % 24 + 1,
        ["1080p", "2160p", "720p"][i % 3],
        i % 97
    )
}

fn qb_row(i: usize, tick: u64) -> Value {
    let cat = CATEGORIES[i % CATEGORIES.len()];
    json!({
        "name": name(i), "state": QB_STATES[(i + tick as usize) % QB_STATES.len()],
        "progress": (i % 101) as f64 / 100.0, "size": 500_000_000 + (i as u64 % 4000) * 1_000_000,
        "downloaded": i as u64 * 1000, "uploaded": i as u64 * 1500 + tick, "ratio": (i % 50) as f64 / 10.0,
        "dlspeed": (i as u64 * 7 + tick) % 100_000, "upspeed": (i as u64 * 3 + tick) % 50_000,
        "eta": if i.is_multiple_of(3) { 8_640_000 } else { (i % 86_400) as i64 },
        "category": cat, "tags": TAGS[i % TAGS.len()], "save_path": format!("/data/downloads/{cat}"),
        "added_on": 1_600_000_000 + i as i64 * 60, "completion_on": if i.is_multiple_of(2) { 1_600_100_000 + i as i64 } else { 0 },
        "tracker": format!("https://tracker{}.example/announce/0123456789abcdef0123", i % 10),
        "trackers_count": 1, "num_seeds": i % 40, "num_leechs": i % 13,
    })
}

fn tr_row(i: usize, tick: u64) -> Value {
    let cat = CATEGORIES[i % CATEGORIES.len()];
    let labels: Vec<&str> = TAGS[i % TAGS.len()]
        .split(", ")
        .filter(|s| !s.is_empty())
        .collect();
    let error = if i.is_multiple_of(33) { 2 } else { 0 };
    let status = [0, 4, 6, 6, 3, 2][(i + tick as usize) % 6];
    json!({
        "id": i + 1, "hashString": hash(i, 0xabcdef), "name": name(i), "status": status,
        "error": error, "errorString": if error == 2 { "Tracker gave an error: Unregistered torrent" } else { "" },
        "percentDone": (i % 101) as f64 / 100.0, "sizeWhenDone": 500_000_000 + (i as u64 % 4000) * 1_000_000,
        "downloadedEver": i as u64 * 1000, "uploadedEver": i as u64 * 1500 + tick, "uploadRatio": (i % 50) as f64 / 10.0,
        "rateDownload": (i as u64 * 7 + tick) % 100_000, "rateUpload": (i as u64 * 3) % 50_000,
        "eta": if i.is_multiple_of(3) { -1 } else { (i % 86_400) as i64 }, "labels": labels,
        "downloadDir": format!("/data/downloads/{cat}"), "addedDate": 1_600_000_000 + i as i64 * 60,
        "doneDate": if i.is_multiple_of(2) { 1_600_100_000 + i as i64 } else { 0 },
        "trackers": [{"announce": format!("https://tracker{}.example/0123456789abcdef0123/announce", i % 10)}],
        "peersSendingToUs": i % 40, "peersGettingFromUs": i % 13, "isStalled": i.is_multiple_of(7), "metadataPercentComplete": 1,
    })
}

fn maindata(
    rows: impl Iterator<Item = usize>,
    rid: u64,
    full: bool,
    tick: u64,
    changed_only: bool,
) -> Vec<u8> {
    let torrents: serde_json::Map<String, Value> = rows
        .map(|i| {
            let v = if changed_only {
                json!({"state": QB_STATES[(i + tick as usize) % QB_STATES.len()], "dlspeed": (i as u64 + tick) % 100_000,
                       "upspeed": tick % 50_000, "progress": ((i as u64 + tick) % 101) as f64 / 100.0,
                       "downloaded": i as u64 * 1000 + tick, "eta": (tick % 86_400) as i64, "num_seeds": tick % 40})
            } else {
                qb_row(i, tick)
            };
            (hash(i, 0), v)
        })
        .collect();
    let body = json!({"rid": rid, "full_update": full, "torrents": torrents,
        "categories": CATEGORIES.iter().filter(|c| !c.is_empty()).map(|c| (c.to_string(), json!({"name": c, "savePath": ""}))).collect::<serde_json::Map<_, _>>(),
        "server_state": {"free_space_on_disk": 1_000_000_000_000u64, "dl_info_speed": tick, "up_info_speed": tick}});
    serde_json::to_vec(&body).unwrap()
}

fn torrent_get(rows: impl Iterator<Item = usize>, tick: u64) -> Vec<u8> {
    let torrents: Vec<Value> = rows.map(|i| tr_row(i, tick)).collect();
    serde_json::to_vec(
        &json!({"result": "success", "arguments": {"torrents": torrents, "removed": []}}),
    )
    .unwrap()
}

fn offline(kind: InstanceKind, id: &str) -> TorrentCatalogue {
    TorrentCatalogue::offline(id, kind).unwrap()
}

/// Median and max of `runs` timings of `f`.
fn time(runs: usize, mut f: impl FnMut(usize)) -> (Duration, Duration) {
    let mut v: Vec<Duration> = (0..runs)
        .map(|n| {
            let t = Instant::now();
            f(n);
            t.elapsed()
        })
        .collect();
    v.sort();
    (v[v.len() / 2], v[v.len() - 1])
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let total: usize = std::env::var("BENCH_ROWS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let per = total / 2;
    println!("catalogue benchmark: {total} torrents in two catalogues of {per}");

    let qb = offline(InstanceKind::Qbittorrent, "qb");
    let tr = offline(InstanceKind::Transmission, "tr");
    let qb_full = maindata(0..per, 1, true, 0, false);
    let tr_full = torrent_get(0..per, 0);

    // (b) memory: what the two filled catalogues keep (the answers were allocated before).
    let before = ALLOC.allocated();
    let t = Instant::now();
    qb.apply_maindata_bytes(&qb_full).unwrap();
    let qb_fill = t.elapsed();
    tr.apply_transmission_delta(delta_from_body(&tr_full, true, "/data/downloads").unwrap())
        .unwrap();
    let rows_bytes = ALLOC.allocated().saturating_sub(before);
    drop((qb_full, tr_full));
    println!(
        "(b) memory: {:.1} MB for {} rows ({} bytes/row); size_of::<Torrent>() = {} bytes; target < 60 MB",
        rows_bytes as f64 / 1e6,
        qb.len() + tr.len(),
        rows_bytes / (qb.len() + tr.len()).max(1),
        std::mem::size_of::<adapters_downloads::Torrent>()
    );

    // (a) query: filter + sort + 200-row page.
    let q = TorrentQuery {
        states: vec![
            TorrentState::Seeding,
            TorrentState::Downloading,
            TorrentState::Stalled,
        ],
        name_contains: Some("s01".into()),
        sort: SortKey::Ratio,
        descending: true,
        limit: 200,
        ..TorrentQuery::default()
    };
    let page = qb.query(&q);
    println!(
        "(a) query: states + name contains + sort by ratio desc, {} of {} matched rows per page",
        page.rows.len(),
        page.total
    );
    // Cold: each run is a new query (an always-true min_size makes it one), so the catalogue
    // filters and sorts every row. Warm: the same query again, answered from the order kept
    // for it until the rows change (catalogue/recent.rs).
    let fresh = |n: usize, q: &TorrentQuery| TorrentQuery {
        min_size: Some(n as u64),
        ..q.clone()
    };
    let (med, max) = time(50, |n| {
        black_box(qb.query(black_box(&fresh(n, &q))));
    });
    println!(
        "    one catalogue ({per} rows), first page, cold: median {} (max {})",
        ms(med),
        ms(max)
    );
    let (wmed, _) = time(50, |_| {
        black_box(qb.query(black_box(&q)));
    });
    println!(
        "    the same, warm (the same query again): median {}",
        ms(wmed)
    );
    let (tmed1, _) = time(50, |n| {
        black_box(tr.query(black_box(&fresh(n, &q))));
    });
    println!(
        "    the Transmission-shaped catalogue alone, cold: median {}",
        ms(tmed1)
    );
    let (mmed, mmax) = time(50, |n| {
        black_box(query_merged(&[&qb, &tr], black_box(&fresh(n + 100, &q))));
    });
    println!(
        "    merged ({total} rows), first page, cold: median {} (max {})",
        ms(mmed),
        ms(mmax)
    );
    let (mwmed, _) = time(50, |_| {
        black_box(query_merged(&[&qb, &tr], black_box(&q)));
    });
    println!("    merged, first page, warm: median {}", ms(mwmed));
    let merged_total = query_merged(&[&qb, &tr], &q).page.total;
    let last = TorrentQuery {
        offset: merged_total.saturating_sub(200),
        ..q.clone()
    };
    let (lmed, _) = time(20, |_| {
        black_box(query_merged(&[&qb, &tr], black_box(&last)));
    });
    println!(
        "    merged, last page, warm (a page deep in a kept order): median {}",
        ms(lmed)
    );
    let everything = TorrentQuery {
        sort: SortKey::AddedAt,
        descending: true,
        ..TorrentQuery::default()
    };
    let (amed, _) = time(20, |n| {
        black_box(query_merged(
            &[&qb, &tr],
            black_box(&fresh(n + 200, &everything)),
        ));
    });
    println!(
        "    merged, no filter, newest first, cold: median {}",
        ms(amed)
    );

    // (c) incremental refresh: 1% of all rows changed (maindata partial updates), parse + apply.
    let changed = total / 100;
    let bodies: Vec<Vec<u8>> = (0..20u64)
        .map(|n| {
            maindata(
                (0..changed).map(|k| (k * 97 + n as usize * 13) % per),
                n + 2,
                false,
                n + 1,
                true,
            )
        })
        .collect();
    let (rmed, rmax) = time(bodies.len(), |n| {
        qb.apply_maindata_bytes(&bodies[n]).unwrap();
    });
    println!(
        "(c) refresh: {changed} partial updates ({} KB maindata), parse + apply: median {} (max {}); target < 50 ms",
        bodies[0].len() / 1024,
        ms(rmed),
        ms(rmax)
    );
    let tr_bodies: Vec<Vec<u8>> = (0..10u64)
        .map(|n| torrent_get((0..changed).map(|k| (k * 89 + n as usize * 7) % per), n + 1))
        .collect();
    let (tmed, _) = time(tr_bodies.len(), |n| {
        let delta = delta_from_body(&tr_bodies[n], false, "/data/downloads").unwrap();
        tr.apply_transmission_delta(delta).unwrap();
    });
    println!(
        "    transmission recently-active, {changed} whole rows, parse + apply: median {}",
        ms(tmed)
    );
    println!(
        "    reference, full qBittorrent load of {per} rows: {}; the 1% refresh costs {:.3}x of it",
        ms(qb_fill),
        rmed.as_secs_f64() / qb_fill.as_secs_f64()
    );
    assert_eq!(
        qb.len() + tr.len(),
        per * 2,
        "refreshes change rows, never the row count"
    );

    // (d) the broad page across refreshes: every row, by name, 200 rows, merged. A refresh that
    // brings nothing (a quiet daemon) or only speeds and progress leaves the kept order right.
    let broad = TorrentQuery {
        limit: 200,
        ..TorrentQuery::default()
    };
    let t = Instant::now();
    black_box(query_merged(&[&qb, &tr], &broad));
    println!(
        "(d) broad page (no filter, by name, 200 rows, merged), first ask: {}",
        ms(t.elapsed())
    );
    let (bmed, bmax) = time(10, |n| {
        let empty = format!(r#"{{"rid":{}}}"#, 100 + n);
        qb.apply_maindata_bytes(empty.as_bytes()).unwrap();
        black_box(query_merged(&[&qb, &tr], black_box(&broad)));
    });
    println!(
        "    after a refresh that brought nothing, empty apply + page: median {} (max {})",
        ms(bmed),
        ms(bmax)
    );
    let (smed, smax) = time(bodies.len(), |n| {
        qb.apply_maindata_bytes(&bodies[n]).unwrap();
        black_box(query_merged(&[&qb, &tr], black_box(&broad)));
    });
    println!(
        "    after a {changed}-row refresh of states, speeds and progress, apply + page: median {} (max {})",
        ms(smed),
        ms(smax)
    );
    let (omed, _) = time(50, |_| {
        black_box((
            qb.overview(),
            tr.overview(),
            qb.tags(),
            qb.tracker_error_groups(),
        ));
    });
    println!(
        "    overview + tags + tracker-error groups of both catalogues: median {}",
        ms(omed)
    );
}
