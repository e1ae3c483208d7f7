//! The Transmission adapter against a real transmission-daemon, checked with an independent raw client.

#![allow(clippy::unwrap_used)]

mod common;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use adapters_downloads::{
    AddSource, AddStatus, AddTorrent, CategoryFilter, CategoryModel, DownloadClient, Error,
    TorrentCatalogue, TorrentQuery, TorrentState, TrackerErrorClass, transmission::TrClient,
};
use base64::Engine;
use common::{Daemon, Fixture, poll};
use domain::{InfoHash, InstanceId, Secret};
use serde_json::{Value, json};

/// Talks RPC on its own (its own session id), so checks never trust the code under test.
struct Raw {
    http: httpx::reqwest::Client,
    url: String,
    user: String,
    pass: String,
    sid: parking_lot::Mutex<String>,
}

impl Raw {
    fn new(d: &Daemon) -> Raw {
        Raw {
            http: httpx::client(httpx::Timeouts::default()).unwrap(),
            url: d.cred("TRANSMISSION_RPC_URL"),
            user: d.cred("TRANSMISSION_USER"),
            pass: d.cred("TRANSMISSION_PASS"),
            sid: parking_lot::Mutex::new(String::new()),
        }
    }

    async fn rpc(&self, body: Value) -> Value {
        for _ in 0..2 {
            let sid = self.sid.lock().clone();
            let r = self
                .http
                .post(&self.url)
                .basic_auth(&self.user, Some(&self.pass))
                .header("X-Transmission-Session-Id", sid)
                .json(&body)
                .send()
                .await
                .unwrap();
            if r.status() == 409 {
                *self.sid.lock() = r.headers()["X-Transmission-Session-Id"]
                    .to_str()
                    .unwrap()
                    .to_string();
                continue;
            }
            return r.json().await.unwrap();
        }
        panic!("raw handshake failed");
    }

    async fn one(&self, h: InfoHash) -> Option<Value> {
        let fields = [
            "hashString",
            "status",
            "labels",
            "downloadDir",
            "percentDone",
            "error",
            "errorString",
        ];
        let v = self.rpc(json!({"method": "torrent-get", "arguments": {"ids": [h.to_hex()], "fields": fields}})).await;
        v["arguments"]["torrents"]
            .as_array()
            .unwrap()
            .first()
            .cloned()
    }

    async fn count(&self) -> usize {
        let v = self
            .rpc(json!({"method": "torrent-get", "arguments": {"fields": ["id"]}}))
            .await;
        v["arguments"]["torrents"].as_array().unwrap().len()
    }

    async fn snapshot(&self) -> Vec<String> {
        let fields = ["hashString", "labels", "downloadDir"];
        let v = self
            .rpc(json!({"method": "torrent-get", "arguments": {"fields": fields}}))
            .await;
        let mut rows: Vec<String> = v["arguments"]["torrents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.to_string())
            .collect();
        rows.sort();
        rows
    }

    /// Adds `f` from its metainfo into `dir`, with `labels`: a torrent a test starts from.
    async fn add(&self, f: &Fixture, dir: &Path, labels: &[&str], paused: bool) {
        let metainfo = base64::engine::general_purpose::STANDARD.encode(&f.torrent);
        let args =
            json!({"metainfo": metainfo, "download-dir": dir.to_str().unwrap(), "paused": paused});
        let v = self
            .rpc(json!({"method": "torrent-add", "arguments": args}))
            .await;
        assert_eq!(v["result"], "success", "{v}");
        let args = json!({"ids": [f.hash.to_hex()], "labels": labels});
        let v = self
            .rpc(json!({"method": "torrent-set", "arguments": args}))
            .await;
        assert_eq!(v["result"], "success", "{v}");
    }

    /// Adds `f` by its magnet link, stopped.
    async fn add_magnet(&self, f: &Fixture) {
        let args = json!({"filename": f.magnet(), "paused": true});
        let v = self
            .rpc(json!({"method": "torrent-add", "arguments": args}))
            .await;
        assert_eq!(v["result"], "success", "{v}");
    }

    async fn stop(&self, h: InfoHash) {
        let args = json!({"ids": [h.to_hex()]});
        let v = self
            .rpc(json!({"method": "torrent-stop", "arguments": args}))
            .await;
        assert_eq!(v["result"], "success", "{v}");
    }

    async fn labels(&self, h: InfoHash) -> Vec<String> {
        let t = self.one(h).await.unwrap();
        t["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect()
    }
}

fn client(d: &Daemon, password: &str) -> TrClient {
    let timeouts = httpx::Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(10),
    };
    let url = d.cred("TRANSMISSION_URL").parse().unwrap();
    TrClient::new(
        url,
        Some(d.cred("TRANSMISSION_USER")),
        Some(Secret::new(password)),
        timeouts,
    )
    .unwrap()
}

fn add(source: AddSource, category: Option<&str>, tags: &[&str], paused: bool) -> AddTorrent {
    AddTorrent {
        source,
        category: category.map(str::to_string),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        paused,
        save_path: None,
    }
}

fn tags(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A fresh transmission-daemon for one test (the peer script's, stopped on drop), the client
/// under test and a raw one; torrents a test starts from are added with the raw one.
struct Tr {
    d: Daemon,
    raw: Raw,
    tr: TrClient,
    password: String,
    fix: PathBuf,
    downloads: PathBuf,
}

impl Tr {
    fn start() -> Tr {
        let d = Daemon::start("transmission.sh");
        let raw = Raw::new(&d);
        let password = d.cred("TRANSMISSION_PASS");
        let tr = client(&d, &password);
        let fix = d.dir.path().join("fixtures");
        let downloads = d.downloads();
        Tr {
            d,
            raw,
            tr,
            password,
            fix,
            downloads,
        }
    }

    fn t1(&self) -> Fixture {
        Fixture::new(&self.fix, "movie-one.mkv", 300_000, None)
    }

    fn t2(&self) -> Fixture {
        Fixture::new(&self.fix, "magnet-two.mkv", 100_000, None)
    }

    fn t3(&self) -> Fixture {
        Fixture::new(&self.fix, "show-three.mkv", 200_000, None)
    }

    /// What the adds leave: t1 checked and stopped in movies with the label mcp, t2 stopped
    /// by magnet.
    async fn t1_and_t2(&self) -> (Fixture, Fixture) {
        let (t1, t2) = (self.t1(), self.t2());
        let movies = self.downloads.join("movies");
        t1.place_data(&movies);
        self.raw.add(&t1, &movies, &["mcp"], true).await;
        poll(10, "t1 checked and stopped", async || {
            (self.raw.one(t1.hash).await?["status"] == 0).then_some(())
        })
        .await;
        self.raw.add_magnet(&t2).await;
        (t1, t2)
    }

    /// t3 seeding in the download folder.
    async fn t3_seeding(&self) -> Fixture {
        let t3 = self.t3();
        t3.place_data(&self.downloads);
        self.raw.add(&t3, &self.downloads, &[], false).await;
        poll(10, "t3 seeding", async || {
            (self.raw.one(t3.hash).await?["status"] == 6).then_some(())
        })
        .await;
        t3
    }

    /// t3 after seeding, stopped.
    async fn t3_stopped(&self) -> Fixture {
        let t3 = self.t3_seeding().await;
        self.raw.stop(t3.hash).await;
        poll(10, "t3 stopped", async || {
            (self.raw.one(t3.hash).await?["status"] == 0).then_some(())
        })
        .await;
        t3
    }

    /// A catalogue of this daemon that has had its first (full) refresh.
    async fn catalogue(&self) -> TorrentCatalogue {
        let dc = Arc::new(DownloadClient::Transmission(client(
            &self.d,
            &self.password,
        )));
        let cat = TorrentCatalogue::new(InstanceId("tr".into()), dc);
        assert!(cat.refresh().await.unwrap().full);
        cat
    }
}

fn unknown() -> InfoHash {
    "0123456789abcdef0123456789abcdef01234567".parse().unwrap()
}

/// Credentials, and the 409 handshake: a fresh client's first call only works through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_checked_and_the_first_call_goes_through_the_session_handshake() {
    let w = Tr::start();
    assert!(matches!(
        client(&w.d, "wrong").version().await,
        Err(Error::Unauthorized { .. })
    ));
    let tr = &w.tr;
    assert!(!format!("{tr:?}").contains(&w.password));
    let v = tr.version().await.unwrap();
    assert!(v.app.starts_with("3.") || v.app.starts_with("4."), "{v:?}");
    assert!(v.api.parse::<u32>().unwrap() >= 16, "{v:?}");
}

/// Add with category (= download sub-folder), labels and paused; again, garbage, a category
/// that climbs out, and a magnet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adds_put_the_category_labels_and_pause_on_the_daemon_and_refuse_bad_input() {
    let w = Tr::start();
    let (tr, raw, downloads) = (&w.tr, &w.raw, &w.downloads);
    let (t1, t2) = (w.t1(), w.t2());
    t1.place_data(&downloads.join("movies"));
    let out = tr
        .add(&add(
            AddSource::File(t1.torrent.clone()),
            Some("movies"),
            &["mcp"],
            true,
        ))
        .await
        .unwrap();
    assert_eq!(
        (out.info_hash, out.status),
        (Some(t1.hash), AddStatus::Added)
    );
    let row = raw.one(t1.hash).await.unwrap();
    assert_eq!(
        row["downloadDir"],
        downloads.join("movies").to_str().unwrap()
    );
    assert_eq!(raw.labels(t1.hash).await, ["mcp"]);
    poll(10, "t1 checked and stopped", async || {
        (raw.one(t1.hash).await?["status"] == 0).then_some(())
    })
    .await;
    let again = tr
        .add(&add(AddSource::File(t1.torrent.clone()), None, &[], true))
        .await
        .unwrap();
    assert_eq!(again.status, AddStatus::AlreadyPresent);
    assert!(matches!(
        tr.add(&add(AddSource::File(b"garbage".to_vec()), None, &[], true))
            .await,
        Err(Error::Invalid { .. })
    ));
    assert!(matches!(
        tr.add(&add(
            AddSource::File(t1.torrent.clone()),
            Some("../etc"),
            &[],
            true
        ))
        .await,
        Err(Error::Invalid { .. })
    ));
    let out = tr
        .add(&add(AddSource::Url(t2.magnet()), None, &[], true))
        .await
        .unwrap();
    assert_eq!(
        (out.info_hash, out.status),
        (Some(t2.hash), AddStatus::Added)
    );
    assert_eq!(raw.count().await, 2);
}

/// Catalogue: full first, then recently-active picks up an added torrent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_refreshes_in_full_first_then_from_the_recently_active() {
    let w = Tr::start();
    let (t1, _t2) = w.t1_and_t2().await;
    let t3 = w.t3();
    let dc = Arc::new(DownloadClient::Transmission(client(&w.d, &w.password)));
    let cat = TorrentCatalogue::new(InstanceId("tr".into()), dc.clone());
    let r = cat.refresh().await.unwrap();
    assert!(r.full);
    assert_eq!(r.rows, 2);
    let t1_row = cat.get(&t1.hash).unwrap();
    assert_eq!(
        (t1_row.category.as_deref(), t1_row.state),
        (Some("movies"), TorrentState::Paused)
    );
    let cats = cat.categories();
    assert_eq!(
        cats.items
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["movies"]
    );
    assert!(matches!(
        cats.model,
        CategoryModel::DownloadDirSubfolder { .. }
    ));
    assert_eq!(dc.categories().await.unwrap(), cats);
    t3.place_data(&w.downloads);
    w.raw.add(&t3, &w.downloads, &[], false).await;
    let r = cat.refresh().await.unwrap();
    assert!(!r.full, "second refresh must use recently-active: {r:?}");
    assert_eq!(r.rows, 3);
    assert!(cat.get(&t3.hash).is_some());
}

/// Pause and resume, checked on the daemon; recheck and reannounce are taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_and_resume_reach_the_daemon_and_the_catalogue() {
    let w = Tr::start();
    let (tr, raw) = (&w.tr, &w.raw);
    let (t1, _t2) = w.t1_and_t2().await;
    let t3 = w.t3_seeding().await;
    let cat = w.catalogue().await;
    tr.pause(&[t3.hash]).await.unwrap();
    poll(10, "t3 stopped", async || {
        (raw.one(t3.hash).await?["status"] == 0).then_some(())
    })
    .await;
    tr.resume(&[t1.hash]).await.unwrap();
    poll(10, "t1 seeding", async || {
        (raw.one(t1.hash).await?["status"] == 6).then_some(())
    })
    .await;
    tr.recheck(&[t1.hash]).await.unwrap();
    tr.reannounce(&[t1.hash]).await.unwrap();
    cat.refresh_hashes(&[t3.hash]).await.unwrap();
    assert_eq!(cat.get(&t3.hash).unwrap().state, TorrentState::Paused);
}

/// Category moves the data into the sub-folder; labels replace, add and remove.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_category_moves_the_data_and_labels_replace_add_and_remove() {
    let w = Tr::start();
    let (tr, raw, downloads) = (&w.tr, &w.raw, &w.downloads);
    let (t1, _t2) = w.t1_and_t2().await;
    let t3 = w.t3_stopped().await;
    let cat = w.catalogue().await;
    tr.set_category(&[t3.hash], Some("tv")).await.unwrap();
    poll(10, "t3 moved to tv", async || {
        let dir = raw.one(t3.hash).await?["downloadDir"].as_str()?.to_string();
        (dir == downloads.join("tv").to_str()? && downloads.join("tv").join(&t3.name).exists())
            .then_some(())
    })
    .await;
    tr.set_tags(&[t3.hash], &tags(&["a", "b"])).await.unwrap();
    assert_eq!(raw.labels(t3.hash).await, ["a", "b"]);
    tr.set_tags(&[t3.hash], &tags(&["b", "c"])).await.unwrap();
    assert_eq!(raw.labels(t3.hash).await, ["b", "c"]);
    tr.add_tags(&[t3.hash, t1.hash], &tags(&["d"]))
        .await
        .unwrap();
    tr.remove_tags(&[t3.hash], &tags(&["b"])).await.unwrap();
    assert_eq!(raw.labels(t3.hash).await, ["c", "d"]);
    assert_eq!(raw.labels(t1.hash).await, ["d", "mcp"]);
    cat.refresh_hashes(&[t1.hash, t3.hash]).await.unwrap();
    let tv = TorrentQuery {
        category: Some(CategoryFilter::Is("tv".into())),
        tag: Some("c".into()),
        ..TorrentQuery::default()
    };
    assert_eq!(
        cat.query(&tv)
            .rows
            .iter()
            .map(|t| t.info_hash)
            .collect::<Vec<_>>(),
        [t3.hash]
    );
}

/// An unknown hash changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_to_an_unknown_hash_change_nothing() {
    let w = Tr::start();
    let (tr, raw) = (&w.tr, &w.raw);
    let unknown = unknown();
    let _t1_t2 = w.t1_and_t2().await;
    let t3 = w.t3_stopped().await;
    let before = raw.snapshot().await;
    for out in [
        tr.pause(&[unknown]).await.unwrap(),
        tr.set_category(&[unknown], Some("movies")).await.unwrap(),
        tr.set_tags(&[unknown], &tags(&["zzz"])).await.unwrap(),
        tr.add_tags(&[unknown], &tags(&["zzz"])).await.unwrap(),
        tr.delete(&[unknown], true).await.unwrap(),
    ] {
        assert_eq!(
            (out.done.len(), out.not_found.as_slice()),
            (0, &[unknown][..])
        );
    }
    assert_eq!(raw.snapshot().await, before);
    assert_eq!(
        raw.one(t3.hash).await.unwrap()["status"],
        0,
        "t3 still stopped"
    );
}

/// Reads of one torrent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_torrent_reads_its_detail_files_and_trackers() {
    let w = Tr::start();
    let tr = &w.tr;
    let (t1, _t2) = w.t1_and_t2().await;
    let detail = tr.torrent_detail(t1.hash).await.unwrap();
    assert_eq!(
        (&*detail.torrent.name, detail.file_count),
        ("movie-one.mkv", Some(1))
    );
    let files = tr.torrent_files(t1.hash).await.unwrap();
    assert_eq!(
        (files.len(), files[0].size, files[0].wanted),
        (1, 300_000, true)
    );
    assert!(tr.torrent_trackers(t1.hash).await.unwrap().is_empty());
    assert!(matches!(
        tr.torrent_detail(unknown()).await,
        Err(Error::NotFound { .. })
    ));
    assert!(tr.free_space().await.unwrap().unwrap() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracker_errors_are_classified() {
    let w = Tr::start();
    let cat = w.catalogue().await;
    tracker_error_is_classified(&w.d, &w.tr, &cat, &w.fix).await;
}

/// Add by URL: the daemon fetches it once and names the hash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_add_by_url_is_fetched_once_and_names_the_hash() {
    let w = Tr::start();
    let (tr, raw) = (&w.tr, &w.raw);
    let t5 = Fixture::new(&w.fix, "by-url-five.mkv", 50_000, None);
    let (url, fetched) = common::serve_file(t5.torrent.clone()).await;
    let out = tr
        .add(&add(AddSource::Url(url), None, &["u"], true))
        .await
        .unwrap();
    assert_eq!(
        (out.info_hash, out.status),
        (Some(t5.hash), AddStatus::Added)
    );
    assert_eq!(fetched.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(raw.labels(t5.hash).await, ["u"]);
    tr.delete(&[t5.hash], true).await.unwrap();
}

/// Delete: without data the file stays, with data it goes; recently-active reports removals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_keep_or_remove_the_data_and_the_catalogue_sees_them_go() {
    let w = Tr::start();
    let (tr, raw, downloads) = (&w.tr, &w.raw, &w.downloads);
    let (t1, t2) = w.t1_and_t2().await;
    let t3 = w.t3();
    t3.place_data(&downloads.join("tv"));
    raw.add(&t3, &downloads.join("tv"), &[], true).await;
    let cat = w.catalogue().await;
    let t3_data = downloads.join("tv").join(&t3.name);
    let t1_data = downloads.join("movies").join(&t1.name);
    tr.delete(&[t2.hash, t3.hash], false).await.unwrap();
    poll(10, "t2, t3 gone", async || {
        (raw.one(t2.hash).await.is_none() && raw.one(t3.hash).await.is_none()).then_some(())
    })
    .await;
    assert!(t3_data.exists(), "deleting without data keeps the file");
    tr.delete(&[t1.hash], true).await.unwrap();
    poll(10, "t1 data gone", async || {
        (!t1_data.exists() && raw.one(t1.hash).await.is_none()).then_some(())
    })
    .await;
    let r = cat.refresh().await.unwrap();
    assert!(!r.full, "{r:?}");
    assert!(r.removed >= 3, "{r:?}");
    assert_eq!(cat.len(), 0);
}

/// A loopback tracker that answers "unregistered torrent": the row must carry the class.
async fn tracker_error_is_classified(
    d: &Daemon,
    tr: &TrClient,
    cat: &TorrentCatalogue,
    fix: &std::path::Path,
) {
    let announce = common::failing_tracker("unregistered torrent").await;
    let t4 = Fixture::new(fix, "tracked-four.mkv", 50_000, Some(&announce));
    t4.place_data(&d.downloads());
    tr.add(&add(AddSource::File(t4.torrent.clone()), None, &[], false))
        .await
        .unwrap();
    let row = poll(30, "catalogue classifies the tracker error", async || {
        cat.refresh().await.ok()?;
        cat.get(&t4.hash).filter(|t| t.tracker_error.is_some())
    })
    .await;
    assert_eq!(row.tracker_error, Some(TrackerErrorClass::Unregistered));
    assert_eq!(row.tracker.as_deref(), Some("127.0.0.1"));
    let trackers = tr.torrent_trackers(t4.hash).await.unwrap();
    assert_eq!(
        trackers[0].error_class,
        Some(TrackerErrorClass::Unregistered)
    );
    assert_eq!(
        cat.overview()
            .tracker_errors
            .get(&TrackerErrorClass::Unregistered),
        Some(&1)
    );
    tr.delete(&[t4.hash], true).await.unwrap();
}
