//! The downloads tools through the real MCP router against a real qbittorrent-nox and a real
//! transmission-daemon: every tool, checked on the daemons' own state with raw clients.

mod checks;
mod completions;
mod reads;
mod scope;
mod writes;

use std::collections::BTreeSet;

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use tools::InstanceSpec;

use crate::peers::{Daemon, Fixture, QbRaw, TrRaw};
use crate::support::{Server, server_for};

const UNKNOWN: &str = "0123456789abcdef0123456789abcdef01234567";

fn spec(id: &str, kind: InstanceKind, url: &str, user: &str, pass: &str) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(url.parse().unwrap()),
        path: None,
        username: Some(user.into()),
        password: Some(Secret::new(pass)),
        api_key: None,
        default: false,
    }
}

/// A tool result that must have succeeded: its structured content.
async fn ok(s: &Server, tool: &str, args: Value) -> Value {
    let (_, body) = s.rpc(&s.owner_key, json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":tool,"arguments":args}})).await;
    let r = body["result"].clone();
    assert!(body.get("error").is_none(), "{tool}: {body}");
    assert_eq!(r["isError"], false, "{tool} {args}: {r}");
    r["structuredContent"].clone()
}

/// A tool result that must have been refused: its one sentence.
async fn refused(s: &Server, tool: &str, args: Value) -> String {
    let r = s.call(&s.owner_key, tool, args.clone()).await;
    assert_eq!(r["isError"], true, "{tool} {args} should fail: {r}");
    r["content"][0]["text"].as_str().unwrap().to_string()
}

fn hashes(rows: &Value) -> BTreeSet<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["info_hash"].as_str().unwrap().to_string())
        .collect()
}

fn set(v: &[&String]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

struct World {
    qb: Daemon,
    tr: Daemon,
    qraw: QbRaw,
    traw: TrRaw,
    specs: Vec<InstanceSpec>,
    fix: std::path::PathBuf,
}

impl World {
    async fn start() -> World {
        let (qb, tr) = std::thread::scope(|s| {
            let q = s.spawn(|| Daemon::start("qbittorrent.sh"));
            let t = s.spawn(|| Daemon::start("transmission.sh"));
            (q.join().unwrap(), t.join().unwrap())
        });
        let qraw = QbRaw::login(&qb).await;
        let traw = TrRaw::new(&tr);
        let mut q = spec(
            "qb",
            InstanceKind::Qbittorrent,
            &qb.cred("QBITTORRENT_URL"),
            &qb.cred("QBITTORRENT_USER"),
            &qb.cred("QBITTORRENT_PASS"),
        );
        q.default = true;
        let t = spec(
            "tr",
            InstanceKind::Transmission,
            &tr.cred("TRANSMISSION_URL"),
            &tr.cred("TRANSMISSION_USER"),
            &tr.cred("TRANSMISSION_PASS"),
        );
        let fix = qb.dir.path().join("fixtures");
        World {
            qb,
            tr,
            qraw,
            traw,
            specs: vec![q, t],
            fix,
        }
    }

    async fn snapshot(&self) -> (Vec<String>, Vec<String>) {
        (self.qraw.snapshot().await, self.traw.snapshot().await)
    }

    fn tr_dir(&self, sub: &str) -> std::path::PathBuf {
        self.tr.downloads().join(sub)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_tools_drive_the_real_daemons() {
    let w = World::start().await;
    let q1 = Fixture::new(&w.fix, "q-movie-one.mkv", 300_000, None);
    let q2 = Fixture::new(&w.fix, "q-magnet-two.mkv", 100_000, None);
    let q3 = Fixture::new(&w.fix, "q-url-three.mkv", 50_000, None);
    let t1 = Fixture::new(&w.fix, "t-movie-one.mkv", 200_000, None);
    let t2 = Fixture::new(&w.fix, "t-tool-two.mkv", 150_000, None);
    let t3 = Fixture::new(&w.fix, "t-show-three.mkv", 120_000, None);
    // What exists before Marquee looks: qBittorrent categories and tags, and Transmission
    // torrents in the sub-folders movies and tv (its categories) with the label mcp.
    for (path, form) in [
        ("torrents/createCategory", [("category", "movies")]),
        ("torrents/createCategory", [("category", "tv")]),
        ("torrents/createTags", [("tags", "mcp,keep")]),
    ] {
        w.qraw.post(path, &form).await;
    }
    q1.place_data(&w.qb.downloads());
    t1.place_data(&w.tr_dir("movies"));
    t2.place_data(&w.tr_dir("movies"));
    t3.place_data(&w.tr_dir("tv"));
    w.traw.add(&t1, &w.tr_dir("movies"), &["mcp"]).await;
    w.traw.add(&t3, &w.tr_dir("tv"), &[]).await;
    let s = server_for(w.specs.clone(), true).await;
    s.host
        .app
        .settings()
        .set_torrent_folders(vec![w.fix.clone()]);

    reads::categories(&s).await;
    reads::adds(&s, &w, [&q1, &q2, &q3, &t2]).await;
    reads::reads(&s, [&q1, &q2, &q3, &t1, &t2, &t3]).await;
    let t4 = reads::tracker_errors(&s, &w).await;
    writes::writes(&s, &w, [&q1, &q2, &t1, &t2, &t3]).await;
    writes::deletes(&s, &w, [&q2, &t2, &t4]).await;
    checks::audit(&s).await;
    checks::grants(&s, &q1).await;
    checks::failures(&w, &q1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_scoped_to_one_download_instance_cannot_touch_another() {
    let w = World::start().await;
    let t1 = Fixture::new(&w.fix, "t-scoped-one.mkv", 100_000, None);
    t1.place_data(&w.tr_dir("movies"));
    w.traw.add(&t1, &w.tr_dir("movies"), &["mcp"]).await;
    let s = server_for(w.specs.clone(), true).await;
    scope::scope(&s, &w, &t1).await;
}
