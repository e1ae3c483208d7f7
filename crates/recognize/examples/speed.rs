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

fn main() {
    let names = names();
    // Warm the tables.
    for n in &names {
        black_box(recognize::recognize(n));
    }
    let start = Instant::now();
    let mut done = 0u64;
    while start.elapsed().as_secs_f64() < 2.0 {
        for n in &names {
            black_box(recognize::recognize(black_box(n)));
        }
        done += names.len() as u64;
    }
    let rate = done as f64 / start.elapsed().as_secs_f64();
    println!(
        "recognize: {done} names in {:.2?}: {rate:.0} names/s on one core",
        start.elapsed()
    );
}
