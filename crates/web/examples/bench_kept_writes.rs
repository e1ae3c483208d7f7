//! Does background writing cost kept answers their speed? In process, the same kept
//! `list_requests` page and `whoami` answer are asked for in a loop, first with the database
//! quiet, then while another handle on the same file (as the command line, or a background job,
//! would be) writes a row every millisecond to tables no kept answer reads (owner-page
//! sessions), then to tables they do read (requests). Each table group has its own version
//! (`store::Group`), so only the last loop should lose its kept answers.
//!
//! `cargo run --profile bench -p web --example bench_kept_writes` (BENCH_CALLS, default
//! 20000 per case; the median of BENCH_ROUNDS rounds, default 5, in calls per second;
//! BENCH_WRITE_EVERY_US, default 1000, the pause between two writes, 0 for none).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use domain::{MediaId, MediaSource, MediaType, PersonId};
use serde_json::json;
use store::{NewRequest, Store};
use tools::{App, Called, Caller, Instances, Settings};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the background writer writes while a case runs.
#[derive(Clone, Copy, PartialEq)]
enum Writes {
    None,
    /// Owner-page sessions: no kept answer reads them.
    Elsewhere,
    /// Requests: `list_requests` and `whoami` read them.
    Read,
}

async fn request(store: &Store, person: PersonId, n: usize) {
    let new = NewRequest {
        person,
        media: MediaId::new(MediaSource::Builtin, format!("tt{n:07}")),
        media_type: MediaType::Movie,
        title: format!("Title {n}"),
        year: Some(1990),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: true,
    };
    store
        .create_request(&new)
        .await
        .expect("a request is stored");
}

/// Calls per second of `tool` over `calls` calls while `writes` go on in the background, and
/// how many of the answers were computed afresh (a new `observed_at`) rather than kept.
async fn rate(
    app: &App,
    caller: &Caller,
    other: &Store,
    tool: &str,
    calls: usize,
    writes: Writes,
    pause: Duration,
) -> (f64, usize) {
    let person = caller.authority.person.id;
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, other) = (stop.clone(), other.clone());
        tokio::spawn(async move {
            // A new title for every write of the whole run: a request already open writes nothing.
            static NEXT: AtomicUsize = AtomicUsize::new(1_000_000);
            while !stop.load(Ordering::Relaxed) {
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                match writes {
                    Writes::None => {}
                    Writes::Elsewhere => {
                        other.create_session(person).await.expect("a session");
                    }
                    Writes::Read => request(&other, person, n).await,
                }
                if pause.is_zero() {
                    tokio::task::yield_now().await;
                } else {
                    tokio::time::sleep(pause).await;
                }
            }
        })
    };
    let args = json!({"limit": 20}).as_object().cloned();
    let started = Instant::now();
    let mut fresh = 0;
    let mut last = None;
    for _ in 0..calls {
        match app
            .call(caller, tool, args.clone().filter(|_| tool != "whoami"))
            .await
        {
            Called::Done(Ok(out)) => {
                if last != Some(out.observed_at) {
                    fresh += 1;
                    last = Some(out.observed_at);
                }
            }
            other => panic!("{tool} failed: {other:?}"),
        }
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    writer.await.expect("the writer stops");
    (calls as f64 / elapsed.as_secs_f64(), fresh)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls = env("BENCH_CALLS", 20_000);
    let rounds = env("BENCH_ROUNDS", 5);
    let pause = Duration::from_micros(env("BENCH_WRITE_EVERY_US", 1000) as u64);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = Store::open(dir.path()).await.expect("the store opens");
    let (owner, key) = store
        .bootstrap_owner("owner")
        .await
        .expect("the owner is made")
        .expect("a new store has no owner");
    for n in 0..200 {
        request(&store, owner.id, n).await;
    }
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::default()),
    );
    let caller = app
        .authenticate(key.secret.expose())
        .await
        .expect("the store answers")
        .expect("the owner's key is valid");
    let other = Store::open(dir.path()).await.expect("a second handle");
    println!(
        "median of {rounds} rounds of {calls} calls; a write every {} µs",
        pause.as_micros()
    );
    for tool in ["list_requests", "whoami"] {
        for (label, writes) in [
            ("quiet", Writes::None),
            ("writes elsewhere", Writes::Elsewhere),
            ("writes to what it reads", Writes::Read),
        ] {
            let mut seen = Vec::with_capacity(rounds);
            let mut fresh = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let (r, f) = rate(&app, &caller, &other, tool, calls, writes, pause).await;
                seen.push(r);
                fresh.push(f);
            }
            seen.sort_by(f64::total_cmp);
            fresh.sort_unstable();
            println!(
                "{tool:>14}  {label:<24} {:>10.0} calls/s  {:>6} of {calls} computed afresh",
                seen[rounds / 2],
                fresh[rounds / 2]
            );
        }
    }
}
