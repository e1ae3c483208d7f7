//! The `scan_library` benchmark's driver (`scripts/bench-scan.sh`): `generate DIR N` writes a
//! tree of N sparse media files (films in their folders, shows by season, a few samples and
//! junk files); `scan DIR DATA` scans it through the core twice (cold: an empty index; warm:
//! nothing changed) and prints the times, the counts and the peak RSS (and the peak before the
//! scans, the builtin catalogue loaded) as one JSON line, with the time recognising the tree's
//! media paths alone takes on one thread (the "plus recognition" of the cold target).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{path::Path, sync::Arc, time::Instant};

use domain::InstanceKind;
use serde_json::json;
use store::Store;
use tools::{Called, InstanceSpec, Instances, Settings};

fn spec(id: &str, kind: InstanceKind, path: Option<String>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: None,
        path,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

const WORDS: &[&str] = &[
    "Silent", "River", "Night", "Golden", "Shadow", "Winter", "Echo", "Harbor", "Crimson",
    "Lantern", "Falcon", "Garden", "Iron", "Paper", "Storm", "Velvet",
];

fn generate(dir: &Path, n: usize) {
    let sparse = |rel: String, size: u64| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::File::create(&p).unwrap().set_len(size).unwrap();
    };
    let mut made = 0;
    let mut i = 0usize;
    while made < n {
        let a = WORDS[i % WORDS.len()];
        let b = WORDS[(i / WORDS.len()) % WORDS.len()];
        let year = 1950 + (i % 70);
        if i.is_multiple_of(2) {
            // A film: the video, a subtitle, a sample and an NFO.
            let folder = format!("Movies/{a} {b} {i} ({year})");
            sparse(
                format!("{folder}/{a}.{b}.{i}.{year}.1080p.BluRay.x264-GRP.mkv"),
                4_000_000_000,
            );
            sparse(format!("{folder}/{a}.{b}.{i}.{year}.en.srt"), 50_000);
            sparse(format!("{folder}/Sample/sample.mkv"), 30_000_000);
            sparse(format!("{folder}/movie.nfo"), 2_000);
            made += 4;
        } else {
            // A show's season of ten episodes.
            let show = format!("{a} {b} Show {i}");
            for e in 1..=10 {
                sparse(
                    format!(
                        "TV/{show}/Season 01/{a}.{b}.Show.{i}.S01E{e:02}.720p.WEB-DL.x264-GRP.mkv"
                    ),
                    1_000_000_000,
                );
            }
            made += 10;
        }
        i += 1;
    }
}

/// Recognises the relative path of every video outside a `Sample` folder, as the scan
/// recognises a media file, on this thread: (files, seconds).
fn recognise_alone(dir: &Path) -> (usize, f64) {
    fn videos(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "Sample") {
                    videos(&path, root, out);
                }
            } else if path.extension().is_some_and(|e| e == "mkv") {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut paths = Vec::new();
    videos(dir, dir, &mut paths);
    let t = Instant::now();
    let titled = paths
        .iter()
        .filter(|p| recognize::recognize(p).title.is_some())
        .count();
    let seconds = t.elapsed().as_secs_f64();
    assert_eq!(titled, paths.len(), "every generated video has a title");
    (paths.len(), seconds)
}

/// The process's peak resident set, in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

async fn scan(dir: &Path, data: &Path) {
    let store = Store::open(data).await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let instances = Instances::new(vec![
        spec("builtin", InstanceKind::Builtin, None),
        spec(
            "bench",
            InstanceKind::Folder,
            Some(dir.display().to_string()),
        ),
    ])
    .unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
    );
    let owner = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    // The builtin catalogue loads at start in a server (the job discover.builtin): load it
    // before timing, as a name's identity is matched against it.
    let warm = json!({"name": "Heat (1995)"}).as_object().cloned();
    let _ = app.call(&owner, "recognize_media", warm).await;
    let before = peak_rss_kib();
    let args = json!({"instance_id": "bench"}).as_object().cloned();
    let mut runs = Vec::new();
    for pass in ["cold", "warm"] {
        let t = Instant::now();
        let out = match app.call(&owner, "scan_library", args.clone()).await {
            Called::Done(Ok(out)) => out,
            Called::Done(Err(e)) => panic!("scan_library failed: {}", e.message),
            Called::UnknownTool => panic!("no scan_library"),
        };
        let seconds = t.elapsed().as_secs_f64();
        let d = out.data();
        runs.push(json!({
            "pass": pass,
            "seconds": seconds,
            "media_files": d["media_files"],
            "added": d["added"],
            "unchanged": d["unchanged"],
            "unrecognised": d["unrecognised"],
        }));
    }
    let rss = peak_rss_kib();
    let (recognised, recognise_seconds) = recognise_alone(dir);
    println!(
        "{}",
        json!({"runs": runs, "peak_rss_kib": rss, "peak_rss_before_scan_kib": before,
               "recognised": recognised, "recognise_seconds": recognise_seconds})
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("generate") if args.len() == 4 => {
            generate(Path::new(&args[2]), args[3].parse().expect("a file count"));
        }
        Some("scan") if args.len() == 4 => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(scan(Path::new(&args[2]), Path::new(&args[3])));
        }
        _ => {
            eprintln!("usage: scan_bench generate DIR N | scan_bench scan DIR DATA_DIR");
            std::process::exit(2);
        }
    }
}
