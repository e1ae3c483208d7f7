//! The downloads tools through the real MCP router against a real qbittorrent-nox and a real
//! transmission-daemon: every tool, checked on the daemons' own state with raw clients. Each
//! test has its own pair of daemons (started by the peer scripts, stopped on drop) and starts
//! from a scene set up with the raw clients, so a failure names the behaviour that broke.

mod checks;
mod completions;
mod reads;
mod scope;
mod writes;

use std::collections::BTreeSet;

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use tools::InstanceSpec;

use crate::peers::{Daemon, Fixture, QbRaw, TrRaw, poll};
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
    s.conforms(tool, &r);
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

/// The torrents of the scene: q* for qBittorrent, t* for Transmission.
struct Scene {
    q1: Fixture,
    q2: Fixture,
    q3: Fixture,
    t1: Fixture,
    t2: Fixture,
    t3: Fixture,
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

    /// What exists before Marquee looks: qBittorrent categories and tags, and Transmission
    /// torrents in the sub-folders movies and tv (its categories) with the label mcp; the data
    /// of q1 and t2 in place for their adds.
    async fn scene(&self) -> Scene {
        let scene = Scene {
            q1: Fixture::new(&self.fix, "q-movie-one.mkv", 300_000, None),
            q2: Fixture::new(&self.fix, "q-magnet-two.mkv", 100_000, None),
            q3: Fixture::new(&self.fix, "q-url-three.mkv", 50_000, None),
            t1: Fixture::new(&self.fix, "t-movie-one.mkv", 200_000, None),
            t2: Fixture::new(&self.fix, "t-tool-two.mkv", 150_000, None),
            t3: Fixture::new(&self.fix, "t-show-three.mkv", 120_000, None),
        };
        for (path, form) in [
            ("torrents/createCategory", [("category", "movies")]),
            ("torrents/createCategory", [("category", "tv")]),
            ("torrents/createTags", [("tags", "mcp,keep")]),
        ] {
            self.qraw.post(path, &form).await;
        }
        scene.q1.place_data(&self.qb.downloads());
        scene.t1.place_data(&self.tr_dir("movies"));
        scene.t2.place_data(&self.tr_dir("movies"));
        scene.t3.place_data(&self.tr_dir("tv"));
        self.traw
            .add(&scene.t1, &self.tr_dir("movies"), &["mcp"])
            .await;
        self.traw.add(&scene.t3, &self.tr_dir("tv"), &[]).await;
        scene
    }

    /// The scene and what the adds leave, settled: q1 paused in movies with the tag mcp, q2 (by
    /// magnet) and q3 paused without a category, t2 seeding in movies.
    async fn stocked(&self) -> Scene {
        let scene = self.scene().await;
        let paused = [("paused", "true"), ("autoTMM", "false")];
        self.qraw
            .add(
                &scene.q1,
                &[
                    paused[0],
                    paused[1],
                    ("category", "movies"),
                    ("tags", "mcp"),
                ],
            )
            .await;
        self.qraw.add_magnet(&scene.q2, &paused[..1]).await;
        self.qraw.add(&scene.q3, &paused).await;
        self.traw.add(&scene.t2, &self.tr_dir("movies"), &[]).await;
        let (t2, qraw, traw) = (&scene.t2, &self.qraw, &self.traw);
        poll(
            15,
            "t2 seeding and the qbittorrent adds paused",
            async || {
                let seeding = traw.one(&t2.hash).await?["status"] == 6;
                let all = qraw.all().await;
                let paused = all
                    .iter()
                    .all(|t| t["state"].as_str().unwrap_or("").starts_with("paused"));
                (seeding && paused && all.len() == 3).then_some(())
            },
        )
        .await;
        scene
    }

    /// Marquee over both daemons, destructive tools on, the fixtures' folder a torrent folder.
    async fn server(&self) -> Server {
        let s = server_for(self.specs.clone(), true).await;
        s.host
            .app
            .settings()
            .set_torrent_folders(vec![self.fix.clone()]);
        s
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn categories_and_tags_are_listed_per_instance() {
    let w = World::start().await;
    w.scene().await;
    let s = w.server().await;
    reads::categories(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adds_reach_the_daemons_and_refused_adds_change_nothing() {
    let w = World::start().await;
    let Scene { q1, q2, q3, t2, .. } = w.scene().await;
    let s = w.server().await;
    reads::adds(&s, &w, [&q1, &q2, &q3, &t2]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_filter_and_page_and_one_torrent_is_read() {
    let w = World::start().await;
    let Scene {
        q1,
        q2,
        q3,
        t1,
        t2,
        t3,
    } = w.stocked().await;
    let s = w.server().await;
    reads::reads(&s, [&q1, &q2, &q3, &t1, &t2, &t3]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracker_errors_are_grouped_and_filterable() {
    let w = World::start().await;
    w.scene().await;
    let s = w.server().await;
    reads::tracker_errors(&s, &w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_writes_reach_the_daemons_and_refused_ones_change_nothing() {
    let w = World::start().await;
    let Scene {
        q1, q2, t1, t2, t3, ..
    } = w.stocked().await;
    let s = w.server().await;
    writes::writes(&s, &w, [&q1, &q2, &t1, &t2, &t3]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletions_wait_for_the_destructive_switch_and_reach_the_daemons() {
    let w = World::start().await;
    let Scene { q2, t2, .. } = w.scene().await;
    // What the writes leave for deletion: q2 by magnet, t2 moved into tv, a fourth torrent.
    w.qraw.add_magnet(&q2, &[("paused", "true")]).await;
    t2.place_data(&w.tr_dir("tv"));
    w.traw.add(&t2, &w.tr_dir("tv"), &[]).await;
    let t4 = Fixture::new(&w.fix, "t-deleted-four.mkv", 40_000, None);
    t4.place_data(&w.tr.downloads());
    w.traw.add(&t4, &w.tr.downloads(), &[]).await;
    let s = w.server().await;
    writes::deletes(&s, &w, [&q2, &t2, &t4]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_audited_and_reads_are_not() {
    let w = World::start().await;
    let scene = w.scene().await;
    let s = w.server().await;
    checks::one_call_of_each(&s, &scene).await;
    checks::audit(&s).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_writes_and_deletions_each_need_their_authority() {
    let w = World::start().await;
    let Scene { q1, .. } = w.stocked().await;
    let s = w.server().await;
    checks::grants(&s, &q1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_that_are_down_answer_garbage_or_hang_are_reported_beside_a_real_one() {
    let w = World::start().await;
    let Scene { q1, q3, .. } = w.scene().await;
    // qBittorrent holds two torrents.
    let paused = [("paused", "true")];
    w.qraw.add(&q1, &paused).await;
    w.qraw.add(&q3, &paused).await;
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
