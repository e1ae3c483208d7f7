//! How many names per second `recognize` reads on one core (release build):
//! `cargo run --release -p recognize --example speed`.

use std::{hint::black_box, time::Instant};

fn names() -> Vec<String> {
    let titles = [
        "The.Simpsons",
        "Breaking Bad",
        "Heat",
        "The_Lord_of_the_Rings",
        "Fear.the.Walking.Dead",
        "Amélie",
        "[HorribleSubs] One Piece",
        "Blade Runner 2049",
    ];
    let middles = [
        ".S05E06.Episode.Title.",
        " - 1x02 - Name ",
        ".2019.",
        " (1995) ",
        " - 05 ",
        ".Season.2.Complete.",
    ];
    let tails = [
        "720p.HDTV.x264-LOL.mkv",
        "1080p.WEB-DL.DD5.1.H.264-NTb.mkv",
        "2160p.UHD.BluRay.HDR.DTS-HD.MA.7.1.x265-GRP.mkv",
        "DVDRip.XviD.FRENCH-AC3.avi",
        "[720p][AAC][ABCD1234].mp4",
    ];
    let mut out = Vec::new();
    for t in titles {
        for m in middles {
            for tail in tails {
                out.push(format!("{t}{m}{tail}"));
                out.push(format!("Shows/{t}/Season 01/{t}{m}{tail}"));
            }
        }
    }
    out
}

/// Nanoseconds this thread has run on a CPU (Linux), so a busy machine does not count
/// against the figure; `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let names = names();
    // Warm the tables.
    for n in &names {
        black_box(recognize::recognize(n));
    }
    let cpu_start = cpu_ns();
    let start = Instant::now();
    let mut done = 0u64;
    while start.elapsed().as_secs_f64() < 2.0 {
        for n in &names {
            black_box(recognize::recognize(black_box(n)));
        }
        done += names.len() as u64;
    }
    let wall = start.elapsed().as_secs_f64();
    let rate = done as f64 / wall;
    let on_cpu = cpu_start
        .zip(cpu_ns())
        .map(|(a, b)| b.saturating_sub(a) as f64 / 1e9)
        .filter(|s| *s > 0.0);
    match on_cpu {
        Some(cpu) => println!(
            "recognize: {done} names in {wall:.2} s ({cpu:.2} s on a CPU): {:.0} names per CPU-second on one core, {rate:.0} per second of wall time",
            done as f64 / cpu
        ),
        None => println!("recognize: {done} names in {wall:.2} s: {rate:.0} names/s on one core"),
    }
}
