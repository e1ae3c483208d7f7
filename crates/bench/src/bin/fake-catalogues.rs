//! `fake-catalogues`: the TMDB and MusicBrainz contract fakes of `test-support`, run as one process
//! so `scripts/bench-matrix.sh` can point a Marquee at them. Prints `tmdb URL` and
//! `musicbrainz URL`, then serves until killed or until `--exit-after` seconds have passed.
//!
//! The fakes record every request and hand each answer the requests before it (tests assert on
//! them); under load that log would grow without end and make the fake, not Marquee, the cost
//! measured, so this process clears the TMDB fake's log every few milliseconds. The MusicBrainz
//! fake keeps its log: its one-request-per-second rule reads it, as the real service enforces.

use std::time::Duration;

use clap::Parser;
use test_support::{MusicBrainzFake, TmdbFake};

#[derive(Parser, Debug)]
#[command(
    name = "fake-catalogues",
    about = "TMDB and MusicBrainz contract fakes on 127.0.0.1 (benchmark backends)"
)]
struct Cli {
    /// Stop after this many seconds (a guard against a forgotten process).
    #[arg(long, default_value_t = 3600)]
    exit_after: u64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fake-catalogues: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(Duration::from_secs(cli.exit_after)));
    std::process::ExitCode::SUCCESS
}

async fn serve(exit_after: Duration) {
    let tmdb = TmdbFake::start().await;
    let musicbrainz = MusicBrainzFake::start().await;
    // scripts/bench-matrix.sh reads these lines to learn the addresses and the TMDB key.
    println!("tmdb {} {}", tmdb.base_url(), TmdbFake::API_KEY);
    println!("musicbrainz {}", musicbrainz.base_url());
    let deadline = tokio::time::Instant::now() + exit_after;
    let mut tick = tokio::time::interval(Duration::from_millis(5));
    while tokio::time::Instant::now() < deadline {
        tick.tick().await;
        tmdb.clear();
    }
}
