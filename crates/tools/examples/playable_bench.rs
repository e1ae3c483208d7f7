//! What `playable_on` costs a discovery page, and what the media-server sync costs: a Jellyfin
//! fake on 127.0.0.1 holding 50,000 films (1,000 of them builtin-catalogue films, so pages have
//! rows to mark), in a child process of its own (this program run with `fake`), is synced
//! through the core (`query_library_exists` waits for it), timed, with this process's peak and
//! anonymous resident memory before and after. Then the same questions (one each, so no kept
//! answer serves them) are asked with `search_titles` of two cores that differ only in that
//! media server, in alternating blocks on one thread: the time per page without and with
//! `playable_on`. One JSON line.
//! `cargo run --profile bench -p tools --example playable_bench`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{collections::BTreeSet, sync::Arc, time::Instant};

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::media::{FakeMedia, MEDIA_TOKEN, MediaKind};
use tools::{App, Called, Caller, InstanceSpec, Instances, Settings};

const ITEMS: usize = 50_000;
const BUILTIN_HELD: usize = 1_000;
const BLOCK: usize = 50;

fn spec(id: &str, kind: InstanceKind, url: Option<String>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| u.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: url_key(kind),
        default: true,
    }
}

fn url_key(kind: InstanceKind) -> Option<Secret> {
    (kind == InstanceKind::Jellyfin).then(|| Secret::new(MEDIA_TOKEN))
}

async fn core(list: Vec<InstanceSpec>) -> (App, Caller) {
    // In memory: nothing is kept, so every page is computed.
    let store = Store::open_in_memory().await.unwrap();
    let (_, owner) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let settings = Settings::new(false, None);
    // Measured at full speed: no per-person call rate.
    settings.call_rate.set_per_minute(0);
    let app = tools::app(
        store,
        Arc::new(settings),
        Arc::new(Instances::new(list).unwrap()),
    );
    let caller = app
        .authenticate(owner.secret.expose())
        .await
        .unwrap()
        .unwrap();
    (app, caller)
}

async fn call(app: &App, caller: &Caller, tool: &str, args: Value) -> Value {
    match app.call(caller, tool, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => out.data(),
        Called::Done(Err(e)) => panic!("{tool}: {}", e.message),
        Called::UnknownTool => panic!("unknown tool {tool}"),
    }
}

/// `VmHWM` and `RssAnon` of this process, in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("RssAnon:"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The child: the fake with the films of the file named by the second argument, its URL on
/// standard output, until standard input closes.
async fn serve_fake(films: &str) {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    let text = std::fs::read_to_string(films).unwrap();
    let mut held = 0;
    for line in text.lines() {
        let mut f = line.split('\t');
        let (Some(title), Some(year), Some(imdb)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        fake.add_movie(title, year.parse().unwrap(), imdb);
        held += 1;
    }
    fake.add_movies(ITEMS - 6 - held);
    println!("{}", fake.url());
    tokio::task::spawn_blocking(|| {
        let mut sink = String::new();
        let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut sink);
    })
    .await
    .unwrap();
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("fake") {
        return serve_fake(&args[2]).await;
    }
    let (plain, owner_plain) = core(vec![spec("builtin", InstanceKind::Builtin, None)]).await;

    // Questions and the films the server holds, from the builtin catalogue itself.
    let mut words = BTreeSet::new();
    let mut films = Vec::new();
    for page in 1..=60 {
        let d = call(
            &plain,
            &owner_plain,
            "browse_titles",
            json!({"media_type": "movie", "page": page}),
        )
        .await;
        for row in d["results"].as_array().into_iter().flatten() {
            let title = row["title"].as_str().unwrap_or_default();
            if let Some(w) = title
                .split(|c: char| !c.is_alphanumeric())
                .find(|w| w.len() >= 4)
            {
                words.insert(w.to_lowercase());
            }
            if let (Some(id), Some(year)) = (row["media_id"].as_str(), row["year"].as_i64()) {
                films.push((title.to_owned(), year, id.to_owned()));
            }
        }
    }
    let questions: Vec<String> = words.into_iter().take(1_000).collect();
    assert!(
        questions.len() >= 200,
        "too few questions: {}",
        questions.len()
    );

    let held = films.len().min(BUILTIN_HELD);
    let list = tempfile::NamedTempFile::new().unwrap();
    let lines: Vec<String> = films
        .iter()
        .take(held)
        .map(|(t, y, id)| format!("{}\t{y}\t{id}", t.replace('\t', " ")))
        .collect();
    std::fs::write(list.path(), lines.join("\n")).unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("fake")
        .arg(list.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut url,
    )
    .unwrap();
    let (served, owner_served) = core(vec![
        spec("builtin", InstanceKind::Builtin, None),
        spec(
            "jellyfin",
            InstanceKind::Jellyfin,
            Some(url.trim().to_owned()),
        ),
    ])
    .await;

    let (hwm_before, anon_before) = memory();
    let started = Instant::now();
    let d = call(
        &served,
        &owner_served,
        "query_library_exists",
        json!({"media_source": "imdb", "media_id": films[0].2, "media_type": "movie"}),
    )
    .await;
    let sync_s = started.elapsed().as_secs_f64();
    assert_eq!(d["exists"], true, "{d}");
    let (hwm_after, anon_after) = memory();

    // Alternating blocks of the same questions: without, then with the media server.
    let (mut without, mut with) = (Vec::new(), Vec::new());
    let mut marked = 0usize;
    let mut rows = 0usize;
    for block in questions.chunks(BLOCK) {
        for (app, caller, into) in [
            (&plain, &owner_plain, &mut without),
            (&served, &owner_served, &mut with),
        ] {
            for q in block {
                let started = Instant::now();
                let d = call(app, caller, "search_titles", json!({"query": q})).await;
                into.push(started.elapsed().as_secs_f64() * 1e6);
                if std::ptr::eq(app, &served) {
                    for r in d["results"].as_array().into_iter().flatten() {
                        rows += 1;
                        marked +=
                            usize::from(r["playable_on"].as_array().is_some_and(|p| !p.is_empty()));
                    }
                }
            }
        }
    }
    let (a, b) = (median(without), median(with));
    println!(
        "{}",
        json!({
            "items": ITEMS, "builtin_films_held": held,
            "sync_s": sync_s,
            "peak_rss_mib_before_sync": hwm_before as f64 / 1024.0,
            "peak_rss_mib_after_sync": hwm_after as f64 / 1024.0,
            "peak_rss_growth_mib": (hwm_after - hwm_before) as f64 / 1024.0,
            "rss_anon_growth_mib": (anon_after as f64 - anon_before as f64) / 1024.0,
            "pages": questions.len(), "rows_with_the_server": rows, "rows_playable": marked,
            "page_us_without": a, "page_us_with": b,
            "playable_share": (b - a) / a,
        })
    );
    drop(child.stdin.take());
    let _ = child.wait();
}
