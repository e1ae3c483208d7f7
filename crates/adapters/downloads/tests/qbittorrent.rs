//! The qBittorrent adapter against a real qbittorrent-nox, checked with an independent raw client.

#![allow(clippy::unwrap_used)]

mod common;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use adapters_downloads::{
    AddSource, AddStatus, AddTorrent, CategoryFilter, DownloadClient, Error, SortKey,
    TorrentCatalogue, TorrentQuery, TorrentState, TrackerErrorClass, TrackerStatus,
    qbittorrent::QbClient,
};
use common::{Daemon, Fixture, poll};
use domain::{InfoHash, InstanceId, Secret};
use httpx::reqwest;
use serde_json::Value;

/// Reads the daemon with its own session, so checks never trust the code under test.
struct Raw {
    http: reqwest::Client,
    base: String,
}

impl Raw {
    async fn login(d: &Daemon) -> Raw {
        let http = httpx::builder(httpx::Timeouts::default())
            .cookie_store(true)
            .build()
            .unwrap();
        let base = format!("{}/api/v2", d.cred("QBITTORRENT_URL"));
        let form = [
            ("username", d.cred("QBITTORRENT_USER")),
            ("password", d.cred("QBITTORRENT_PASS")),
        ];
        let ok = http
            .post(format!("{base}/auth/login"))
            .form(&form)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(ok, "Ok.");
        Raw { http, base }
    }

    async fn info(&self) -> Vec<Value> {
        let v: Value = self
            .http
            .get(format!("{}/torrents/info", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v.as_array().unwrap().clone()
    }

    async fn one(&self, h: InfoHash) -> Option<Value> {
        self.info()
            .await
            .into_iter()
            .find(|t| t["hash"] == h.to_hex())
    }

    async fn field(&self, h: InfoHash, f: &str) -> String {
        let t = self.one(h).await.unwrap_or_else(|| panic!("{h} is gone"));
        t[f].as_str()
            .map(str::to_string)
            .unwrap_or_else(|| t[f].to_string())
    }

    /// What an unknown-hash write must leave alone: hashes, categories, tags, paused or not.
    async fn snapshot(&self) -> Vec<(String, String, String, bool)> {
        let mut v: Vec<_> = self
            .info()
            .await
            .iter()
            .map(|t| {
                let state = t["state"].as_str().unwrap_or_default();
                (
                    t["hash"].to_string(),
                    t["category"].to_string(),
                    t["tags"].to_string(),
                    state.starts_with("paused"),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// Adds `f` from its .torrent file, into `savepath` (else the default save path): a torrent
    /// a test starts from. Waits until the daemon lists it.
    async fn add(
        &self,
        f: &Fixture,
        category: Option<&str>,
        tags: &str,
        paused: bool,
        savepath: Option<&Path>,
    ) {
        let file = reqwest::multipart::Part::bytes(f.torrent.clone())
            .file_name(format!("{}.torrent", f.name));
        let mut form = reqwest::multipart::Form::new()
            .part("torrents", file)
            .text("paused", paused.to_string())
            .text("tags", tags.to_string());
        if let Some(c) = category {
            form = form.text("category", c.to_string());
        }
        if let Some(p) = savepath {
            form = form.text("savepath", p.to_str().unwrap().to_string());
        }
        let r = self
            .http
            .post(format!("{}/torrents/add", self.base))
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "torrents/add: {}", r.status());
        assert_eq!(r.text().await.unwrap(), "Ok.");
        poll(10, "a raw add listed", async || self.one(f.hash).await).await;
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) {
        let r = self
            .http
            .post(format!("{}/{path}", self.base))
            .form(form)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
    }
}

fn client(d: &Daemon, password: &str) -> QbClient {
    let timeouts = httpx::Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(10),
    };
    QbClient::new(
        d.cred("QBITTORRENT_URL").parse().unwrap(),
        d.cred("QBITTORRENT_USER"),
        Secret::new(password),
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

/// A fresh qbittorrent-nox for one test (the peer script's, stopped on drop), the client under
/// test and a raw one; torrents a test starts from are added with the raw one.
struct Qb {
    d: Daemon,
    raw: Raw,
    qb: QbClient,
    password: String,
    fix: PathBuf,
}

impl Qb {
    async fn start() -> Qb {
        let d = Daemon::start("qbittorrent.sh");
        let raw = Raw::login(&d).await;
        let password = d.cred("QBITTORRENT_PASS");
        let qb = client(&d, &password);
        let fix = d.dir.path().join("fixtures");
        Qb {
            d,
            raw,
            qb,
            password,
            fix,
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

    /// What the adds leave: the category movies; t1 paused in it with the tag mcp, its data in
    /// the default save path; t2 by magnet, paused.
    async fn t1_and_t2(&self) -> (Fixture, Fixture) {
        let (t1, t2) = (self.t1(), self.t2());
        self.raw
            .post("torrents/createCategory", &[("category", "movies")])
            .await;
        t1.place_data(&self.d.downloads());
        self.raw.add(&t1, Some("movies"), "mcp", true, None).await;
        poll(10, "t1 added and paused", async || {
            let t = self.raw.one(t1.hash).await?;
            (t["state"].as_str()?.starts_with("paused")).then_some(())
        })
        .await;
        let form = [("urls", t2.magnet()), ("paused", "true".to_string())];
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.raw.post("torrents/add", &form).await;
        poll(10, "magnet added", async || self.raw.one(t2.hash).await).await;
        (t1, t2)
    }

    /// t3 checked and running, its data in the default save path.
    async fn t3_running(&self) -> Fixture {
        let t3 = self.t3();
        t3.place_data(&self.d.downloads());
        self.raw.add(&t3, None, "", false, None).await;
        poll(15, "t3 checked and running", async || {
            let t = self.raw.one(t3.hash).await?;
            let running = !t["state"].as_str()?.starts_with("paused");
            (running && t["progress"] == 1).then_some(())
        })
        .await;
        t3
    }

    /// t3 after running, paused.
    async fn t3_paused(&self) -> Fixture {
        let t3 = self.t3_running().await;
        self.raw
            .post("torrents/pause", &[("hashes", &t3.hash.to_hex())])
            .await;
        poll(10, "t3 paused", async || {
            self.raw
                .field(t3.hash, "state")
                .await
                .starts_with("paused")
                .then_some(())
        })
        .await;
        t3
    }

    /// A catalogue of this daemon that has had its first (full) refresh.
    async fn catalogue(&self) -> TorrentCatalogue {
        let dc = Arc::new(DownloadClient::Qbittorrent(client(&self.d, &self.password)));
        let cat = TorrentCatalogue::new(InstanceId("qb".into()), dc);
        assert!(cat.refresh().await.unwrap().full);
        cat
    }
}

fn unknown() -> InfoHash {
    "0123456789abcdef0123456789abcdef01234567".parse().unwrap()
}

/// Credentials: a wrong password is Unauthorized, and Debug never shows the password.
/// Version detection: 4.5 speaks WebAPI 2.8.x, so pause/resume (not stop/start).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_checked_and_the_webapi_version_is_detected() {
    let w = Qb::start().await;
    let bad = client(&w.d, "wrong-password");
    assert!(matches!(
        bad.version().await,
        Err(Error::Unauthorized { .. })
    ));
    let qb = &w.qb;
    assert!(!format!("{qb:?}").contains(&w.password));
    let v = qb.version().await.unwrap();
    assert!(v.api.starts_with("2."), "{v:?}");
    assert!(!qb.api_version().await.unwrap().uses_stop_start());
}

/// Add: file with category, tags, paused; the data is in place so it checks complete. Again,
/// garbage, and a magnet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adds_put_the_category_tags_and_pause_on_the_daemon_and_refuse_garbage() {
    let w = Qb::start().await;
    let (qb, raw, d) = (&w.qb, &w.raw, &w.d);
    let (t1, t2) = (w.t1(), w.t2());
    raw.post("torrents/createCategory", &[("category", "movies")])
        .await;
    t1.place_data(&d.downloads());
    let out = qb
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
    poll(10, "t1 added and paused", async || {
        let t = raw.one(t1.hash).await?;
        (t["state"].as_str()?.starts_with("paused")).then_some(())
    })
    .await;
    assert_eq!(raw.field(t1.hash, "category").await, "movies");
    assert_eq!(raw.field(t1.hash, "tags").await, "mcp");
    let again = qb
        .add(&add(AddSource::File(t1.torrent.clone()), None, &[], true))
        .await
        .unwrap();
    assert_eq!(again.status, AddStatus::AlreadyPresent);
    assert!(matches!(
        qb.add(&add(AddSource::File(b"<html>".to_vec()), None, &[], true))
            .await,
        Err(Error::Invalid { .. })
    ));
    let out = qb
        .add(&add(AddSource::Url(t2.magnet()), None, &[], true))
        .await
        .unwrap();
    assert_eq!(out.info_hash, Some(t2.hash));
    poll(10, "magnet added", async || raw.one(t2.hash).await).await;
    assert_eq!(raw.info().await.len(), 2);
}

/// Catalogue: a full first refresh, then an incremental one that sees an added torrent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_refreshes_in_full_first_then_incrementally() {
    let w = Qb::start().await;
    let (t1, _t2) = w.t1_and_t2().await;
    let t3 = w.t3();
    let dc = Arc::new(DownloadClient::Qbittorrent(client(&w.d, &w.password)));
    let cat = TorrentCatalogue::new(InstanceId("qb".into()), dc.clone());
    let r = cat.refresh().await.unwrap();
    assert!(r.full);
    assert_eq!(r.rows, 2);
    let movies = TorrentQuery {
        category: Some(CategoryFilter::Is("movies".into())),
        ..TorrentQuery::default()
    };
    assert_eq!(
        cat.query(&movies)
            .rows
            .iter()
            .map(|t| t.info_hash)
            .collect::<Vec<_>>(),
        [t1.hash]
    );
    assert_eq!(
        cat.categories()
            .items
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["movies"]
    );
    t3.place_data(&w.d.downloads());
    w.raw.add(&t3, None, "", false, None).await;
    // qBittorrent answers the add before the torrent is in its list: wait for it there.
    poll(10, "file added", async || w.raw.one(t3.hash).await).await;
    let r = cat.refresh().await.unwrap();
    assert!(!r.full, "second refresh must be incremental: {r:?}");
    assert_eq!(r.rows, 3);
    assert!(cat.get(&t3.hash).is_some());
}

/// Pause and resume, checked on the daemon (both are asynchronous there); recheck and
/// reannounce are taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_and_resume_reach_the_daemon_and_the_catalogue() {
    let w = Qb::start().await;
    let (qb, raw) = (&w.qb, &w.raw);
    let (t1, _t2) = w.t1_and_t2().await;
    let t3 = w.t3_running().await;
    let cat = w.catalogue().await;
    let out = qb.pause(&[t3.hash]).await.unwrap();
    assert_eq!(
        (out.done.as_slice(), out.not_found.len()),
        (&[t3.hash][..], 0)
    );
    poll(10, "t3 paused", async || {
        raw.field(t3.hash, "state")
            .await
            .starts_with("paused")
            .then_some(())
    })
    .await;
    qb.resume(&[t1.hash]).await.unwrap();
    poll(10, "t1 resumed", async || {
        (!raw.field(t1.hash, "state").await.starts_with("paused")).then_some(())
    })
    .await;
    poll(15, "t1 seeding", async || {
        (raw.field(t1.hash, "progress").await == "1").then_some(())
    })
    .await;
    qb.recheck(&[t1.hash]).await.unwrap();
    qb.reannounce(&[t1.hash]).await.unwrap();
    cat.refresh().await.unwrap();
    assert_eq!(cat.get(&t3.hash).unwrap().state, TorrentState::Paused);
}

/// Category and tags: set, cleared, an unknown category refused; tags replace, add, remove,
/// and a tag with a comma is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn categories_and_tags_are_set_on_the_daemon_and_unknown_ones_refused() {
    let w = Qb::start().await;
    let (qb, raw) = (&w.qb, &w.raw);
    let _t1_t2 = w.t1_and_t2().await;
    let t3 = w.t3_paused().await;
    let cat = w.catalogue().await;
    qb.set_category(&[t3.hash], Some("movies")).await.unwrap();
    assert_eq!(raw.field(t3.hash, "category").await, "movies");
    qb.set_category(&[t3.hash], None).await.unwrap();
    assert_eq!(raw.field(t3.hash, "category").await, "");
    let e = qb.set_category(&[t3.hash], Some("nope")).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "the download client refused the request: unknown category \"nope\"; this instance has: movies"
    );
    qb.set_tags(&[t3.hash], &tags(&["a", "b"])).await.unwrap();
    assert_eq!(raw.field(t3.hash, "tags").await, "a, b");
    qb.set_tags(&[t3.hash], &tags(&["b", "c"])).await.unwrap();
    assert_eq!(raw.field(t3.hash, "tags").await, "b, c");
    qb.add_tags(&[t3.hash], &tags(&["d"])).await.unwrap();
    qb.remove_tags(&[t3.hash], &tags(&["b"])).await.unwrap();
    assert_eq!(raw.field(t3.hash, "tags").await, "c, d");
    assert!(matches!(
        qb.add_tags(&[t3.hash], &tags(&["x,y"])).await,
        Err(Error::Invalid { .. })
    ));
    let r = cat.refresh().await.unwrap();
    assert!(!r.full);
    let c_tagged = TorrentQuery {
        tag: Some("c".into()),
        ..TorrentQuery::default()
    };
    assert_eq!(cat.query(&c_tagged).total, 1);
}

/// Move: the category, then automatic management, and qBittorrent moves the data itself (in
/// the background) into the category's folder, here <default save path>/movies. An unknown
/// category is refused before automatic management is turned on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_to_a_category_lets_qbittorrent_move_the_data() {
    let w = Qb::start().await;
    let (qb, raw, d) = (&w.qb, &w.raw, &w.d);
    let unknown = unknown();
    let _t1_t2 = w.t1_and_t2().await;
    let t3 = w.t3_paused().await;
    let e = qb.move_to_category(&[t3.hash], "nope").await.unwrap_err();
    assert!(e.to_string().contains("unknown category \"nope\""), "{e}");
    assert_eq!(raw.field(t3.hash, "auto_tmm").await, "false");
    let out = qb
        .move_to_category(&[t3.hash, unknown], "movies")
        .await
        .unwrap();
    assert_eq!((out.done, out.not_found), (vec![t3.hash], vec![unknown]));
    let movies_dir = d.downloads().join("movies");
    poll(10, "t3 moved into movies", async || {
        let t = raw.one(t3.hash).await?;
        let there = t["save_path"].as_str()?.trim_end_matches('/') == movies_dir.to_str()?;
        (there
            && t["auto_tmm"] == true
            && movies_dir.join(&t3.name).is_file()
            && !d.downloads().join(&t3.name).exists())
        .then_some(())
    })
    .await;
    assert_eq!(raw.field(t3.hash, "category").await, "movies");
}

/// An unknown hash changes nothing, and is reported as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_to_an_unknown_hash_change_nothing_and_say_so() {
    let w = Qb::start().await;
    let (qb, raw) = (&w.qb, &w.raw);
    let unknown = unknown();
    let _t1_t2 = w.t1_and_t2().await;
    let t3 = w.t3_paused().await;
    let before = raw.snapshot().await;
    for out in [
        qb.pause(&[unknown]).await.unwrap(),
        qb.resume(&[unknown]).await.unwrap(),
        qb.set_category(&[unknown], Some("movies")).await.unwrap(),
        qb.move_to_category(&[unknown], "movies").await.unwrap(),
        qb.set_tags(&[unknown], &tags(&["zzz"])).await.unwrap(),
        qb.delete(&[unknown], true).await.unwrap(),
    ] {
        assert_eq!(
            (out.done.len(), out.not_found.as_slice()),
            (0, &[unknown][..])
        );
    }
    let mixed = qb.pause(&[unknown, t3.hash, t3.hash]).await.unwrap();
    assert_eq!(
        (mixed.done, mixed.not_found),
        (vec![t3.hash], vec![unknown])
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(raw.snapshot().await, before);
}

/// Reads of one torrent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_torrent_reads_its_detail_files_and_trackers() {
    let w = Qb::start().await;
    let qb = &w.qb;
    let (t1, _t2) = w.t1_and_t2().await;
    let detail = qb.torrent_detail(t1.hash).await.unwrap();
    assert_eq!(&*detail.torrent.name, "movie-one.mkv");
    assert!(
        detail
            .created_by
            .unwrap_or_default()
            .contains("Transmission")
    );
    let files = qb.torrent_files(t1.hash).await.unwrap();
    assert_eq!((files.len(), files[0].size), (1, 300_000));
    assert!(
        qb.torrent_trackers(t1.hash).await.unwrap().is_empty(),
        "pseudo-trackers are left out"
    );
    assert!(matches!(
        qb.torrent_detail(unknown()).await,
        Err(Error::NotFound { .. })
    ));
    assert!(qb.free_space().await.unwrap().unwrap() > 0);
}

/// torrents/info paging: an offset past the end wraps on 4.5; every row comes back once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paged_listings_return_every_torrent_once() {
    let w = Qb::start().await;
    let qb = &w.qb;
    let (t1, t2) = w.t1_and_t2().await;
    let t3 = w.t3_running().await;
    for page in [1, 2, 3, 1000] {
        let mut got: Vec<InfoHash> = qb
            .list_torrents_paged(page)
            .await
            .unwrap()
            .iter()
            .map(|t| t.info_hash)
            .collect();
        got.sort();
        let mut want = vec![t1.hash, t2.hash, t3.hash];
        want.sort();
        assert_eq!(got, want, "page size {page}");
    }
    let wrapped = qb.torrents_page(1, 7).await.unwrap();
    assert!(
        wrapped.len() <= 1,
        "an offset past the end gives at most a wrapped row"
    );
}

/// 403 after logout: reads log in again and are sent again; writes are never sent twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_logout_reads_log_in_again_and_writes_are_never_sent_twice() {
    let w = Qb::start().await;
    let (qb, raw) = (&w.qb, &w.raw);
    let t1 = w.t1();
    t1.place_data(&w.d.downloads());
    raw.add(&t1, None, "", false, None).await;
    poll(15, "t1 seeding", async || {
        (raw.field(t1.hash, "progress").await == "1").then_some(())
    })
    .await;
    // A client in use has logged in and learned the WebAPI version (an add asks for it first
    // while it is unknown, and that read would renew the session).
    qb.api_version().await.unwrap();
    qb.logout().await.unwrap();
    assert_eq!(qb.torrents(&[t1.hash]).await.unwrap().len(), 1);
    qb.logout().await.unwrap();
    // A bulk write starts with an existence read, which renews the session before the write.
    qb.recheck(&[t1.hash]).await.unwrap();
    // An add by URL has no read before it: the 403 renews the session, the add is not repeated
    // (qBittorrent would have fetched the URL), and sent once more it works.
    let t5 = Fixture::new(&w.fix, "by-url-five.mkv", 50_000, None);
    let (url, fetched) = common::serve_file(t5.torrent.clone()).await;
    qb.logout().await.unwrap();
    let by_url = add(AddSource::Url(url), None, &[], true);
    let e = qb.add(&by_url).await.unwrap_err();
    assert!(
        matches!(&e, Error::Unauthorized { detail } if detail.contains("not sent again")),
        "{e}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(fetched.load(std::sync::atomic::Ordering::SeqCst), 0);
    let out = qb.add(&by_url).await.unwrap();
    assert_eq!((out.info_hash, out.status), (None, AddStatus::Added));
    poll(10, "URL torrent added", async || raw.one(t5.hash).await).await;
    assert_eq!(fetched.load(std::sync::atomic::Ordering::SeqCst), 1);
    qb.delete(&[t5.hash], true).await.unwrap();
    qb.logout().await.unwrap();
    qb.pause(&[t1.hash]).await.unwrap();
    poll(10, "t1 paused after re-login", async || {
        raw.field(t1.hash, "state")
            .await
            .starts_with("paused")
            .then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracker_errors_are_classified() {
    let w = Qb::start().await;
    let cat = w.catalogue().await;
    tracker_error_is_classified(&w.d, &w.qb, &cat, &w.fix).await;
}

/// Delete: without data the file stays, with data it goes; the catalogue sees both go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_keep_or_remove_the_data_and_the_catalogue_sees_them_go() {
    let w = Qb::start().await;
    let (qb, raw, d) = (&w.qb, &w.raw, &w.d);
    let (t1, t2) = w.t1_and_t2().await;
    let t3 = w.t3();
    let movies_dir = d.downloads().join("movies");
    t3.place_data(&movies_dir);
    raw.add(&t3, Some("movies"), "", true, Some(&movies_dir))
        .await;
    let cat = w.catalogue().await;
    let t3_data = d.downloads().join("movies").join(&t3.name);
    let t1_data = d.downloads().join(&t1.name);
    qb.delete(&[t2.hash, t3.hash], false).await.unwrap();
    poll(10, "t2, t3 gone", async || {
        (raw.one(t3.hash).await.is_none() && raw.one(t2.hash).await.is_none()).then_some(())
    })
    .await;
    assert!(t3_data.exists(), "deleting without data keeps the file");
    qb.delete(&[t1.hash], true).await.unwrap();
    poll(10, "t1 data gone", async || {
        (!t1_data.exists() && raw.one(t1.hash).await.is_none()).then_some(())
    })
    .await;
    let r = cat.refresh().await.unwrap();
    assert!(!r.full);
    assert!(r.removed >= 3, "{r:?}");
    assert!(cat.get(&t1.hash).is_none() && cat.get(&t3.hash).is_none());
    let sorted = cat.query(&TorrentQuery {
        sort: SortKey::AddedAt,
        ..TorrentQuery::default()
    });
    assert!(sorted.rows.iter().all(|t| t.info_hash != t1.hash));
}

/// A loopback tracker that answers "unregistered torrent": the catalogue must learn and classify it.
async fn tracker_error_is_classified(
    d: &Daemon,
    qb: &QbClient,
    cat: &TorrentCatalogue,
    fix: &std::path::Path,
) {
    let announce = common::failing_tracker("unregistered torrent").await;
    let t4 = Fixture::new(fix, "tracked-four.mkv", 50_000, Some(&announce));
    t4.place_data(&d.downloads());
    qb.add(&add(AddSource::File(t4.torrent.clone()), None, &[], false))
        .await
        .unwrap();
    let entry = poll(30, "tracker failure seen by qBittorrent", async || {
        let list = qb.torrent_trackers(t4.hash).await.ok()?;
        list.into_iter()
            .find(|t| t.status == TrackerStatus::NotWorking && t.message.is_some())
    })
    .await;
    assert_eq!(entry.error_class, Some(TrackerErrorClass::Unregistered));
    assert_eq!(entry.host.as_deref(), Some("127.0.0.1"));
    let row = poll(30, "catalogue classifies the tracker error", async || {
        cat.refresh().await.ok()?;
        cat.get(&t4.hash).filter(|t| t.tracker_error.is_some())
    })
    .await;
    assert_eq!(row.tracker_error, Some(TrackerErrorClass::Unregistered));
    let groups = cat.tracker_error_groups();
    assert_eq!(
        (groups.len(), groups[0].class, groups[0].count),
        (1, TrackerErrorClass::Unregistered, 1)
    );
    qb.delete(&[t4.hash], true).await.unwrap();
}
