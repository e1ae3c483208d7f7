//! `apply_change` under SIGKILL, against a real qBittorrent and a real Transmission: each round
//! adds three torrents to one of them (picked at random), plans their deletion as an operator,
//! approves it as the owner and applies it; the server is killed at a random moment of the
//! apply, started again, and the operation, the same idempotency key applied again and the
//! daemon's own torrent list are compared.

use std::{
    collections::BTreeSet,
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use httpx::reqwest;
use serde_json::{Value, json};
use test_support::peers::Daemon;

use crate::support::{
    KillClock, SeedNote, Served, assert_nothing_left_open, call_at, client, data, rounds, seed,
};

/// One of the two daemons, as Marquee's instance and as the test reads it directly.
struct Peer {
    id: &'static str,
    daemon: Daemon,
}

impl Peer {
    /// The info hashes the daemon itself holds, read from its own API.
    async fn hashes(&self, http: &reqwest::Client) -> BTreeSet<String> {
        let d = &self.daemon;
        let list: Vec<String> = if self.id == "qb" {
            let base = d.cred("QBITTORRENT_URL");
            let login = http
                .post(format!("{base}/api/v2/auth/login"))
                .form(&[
                    ("username", d.cred("QBITTORRENT_USER")),
                    ("password", d.cred("QBITTORRENT_PASS")),
                ])
                .send()
                .await
                .unwrap();
            let cookie = login
                .headers()
                .get_all("set-cookie")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(|v| v.split(';').next().filter(|c| c.starts_with("SID=")))
                .map(str::to_string)
                .expect("qBittorrent's login sets SID");
            let info: Value = http
                .get(format!("{base}/api/v2/torrents/info"))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            info.as_array()
                .unwrap()
                .iter()
                .map(|t| t["hash"].as_str().unwrap().to_lowercase())
                .collect()
        } else {
            let url = d.cred("TRANSMISSION_RPC_URL");
            let body = json!({"method": "torrent-get", "arguments": {"fields": ["hashString"]}});
            let (user, pass) = (d.cred("TRANSMISSION_USER"), d.cred("TRANSMISSION_PASS"));
            let first = http
                .post(&url)
                .basic_auth(&user, Some(&pass))
                .json(&body)
                .send()
                .await
                .unwrap();
            let session = first
                .headers()
                .get("x-transmission-session-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let got: Value = http
                .post(&url)
                .basic_auth(&user, Some(&pass))
                .header("x-transmission-session-id", session)
                .json(&body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            got["arguments"]["torrents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["hashString"].as_str().unwrap().to_lowercase())
                .collect()
        };
        let set: BTreeSet<String> = list.iter().cloned().collect();
        assert_eq!(set.len(), list.len(), "{} lists a torrent twice", self.id);
        set
    }
}

/// A torrent file over fresh random bytes, made by transmission-create; its info hash.
fn torrent(dir: &Path, name: &str, g: &mut harness::Gen) -> (String, String) {
    let payload = dir.join(format!("{name}.bin"));
    std::fs::write(&payload, g.bytes(64 * 1024)).unwrap();
    let file = dir.join(format!("{name}.torrent"));
    let made = Command::new("transmission-create")
        .arg("-o")
        .arg(&file)
        .arg(&payload)
        .output()
        .unwrap();
    assert!(made.status.success(), "transmission-create");
    let show = Command::new("transmission-show")
        .arg(&file)
        .output()
        .unwrap();
    let hash = String::from_utf8_lossy(&show.stdout)
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Hash: ")
                .map(|h| h.trim().to_lowercase())
        })
        .unwrap();
    (file.display().to_string(), hash)
}

const DONE: [&str; 4] = ["succeeded", "failed", "cancelled", "outcome_unknown"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_change_survives_sigkill_at_random_moments() {
    let seed = seed("crash-apply-change");
    let mut note = SeedNote {
        name: "crash-apply-change",
        seed,
        round: 0,
    };
    let mut g = harness::Gen::new(seed);
    let rounds = rounds();
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"));
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"));
    let peers = [
        Peer {
            id: "qb",
            daemon: qb.join().unwrap(),
        },
        Peer {
            id: "tr",
            daemon: tr.join().unwrap(),
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let torrents = dir.path().join("torrents");
    std::fs::create_dir_all(&torrents).unwrap();
    let data_dir = dir.path().join("data");
    let (qbd, trd) = (&peers[0].daemon, &peers[1].daemon);
    let config = format!(
        "[mcp]\nallow_destructive = true\n[downloads]\ntorrent_folders = [\"{}\"]\n\
         [[instances]]\nid = \"qb\"\nkind = \"qbittorrent\"\nurl = \"{}\"\nusername = \"{}\"\npassword = \"{}\"\ndefault = true\n\
         [[instances]]\nid = \"tr\"\nkind = \"transmission\"\nurl = \"{}\"\nusername = \"{}\"\npassword = \"{}\"\n",
        torrents.display(),
        qbd.cred("QBITTORRENT_URL"),
        qbd.cred("QBITTORRENT_USER"),
        qbd.cred("QBITTORRENT_PASS"),
        trd.cred("TRANSMISSION_URL"),
        trd.cred("TRANSMISSION_USER"),
        trd.cred("TRANSMISSION_PASS"),
    );
    let mut served = Served::first(dir.path(), &data_dir, &config).await;
    let ops = served.person_with_key("ops", "admin", "operator");
    let http = client();
    let mut clock = KillClock::new(Duration::from_millis(30));
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for round in 0..rounds {
        note.round = round;
        let peer = g.pick(&peers);
        let mut hashes = Vec::new();
        for n in 0..3 {
            let (file, hash) = torrent(&torrents, &format!("r{round}-{n}"), &mut g);
            let added = served
                .must(
                    &served.owner,
                    "add_torrent",
                    json!({"source": file, "paused": true, "instance_id": peer.id}),
                )
                .await;
            assert!(data(&added).is_some(), "add_torrent: {added}");
            hashes.push(hash);
        }
        let change = plan(&served, &ops, peer.id, &hashes).await;
        approve(&data_dir, &change).await;
        let key = format!("crash-apply-{seed:x}-{round:04}");
        let args = json!({"change_id": change, "idempotency_key": key});
        let started = Instant::now();
        let task = {
            let (http, base, ops, args) =
                (http.clone(), served.base.clone(), ops.clone(), args.clone());
            tokio::spawn(async move {
                let r = call_at(&http, &base, &ops, "apply_change", args).await;
                (r, started.elapsed())
            })
        };
        tokio::time::sleep(clock.pick(&mut g)).await;
        served.kill();
        let (acked, took) = task.await.unwrap();
        if acked.is_ok() {
            clock.saw(took);
        } else {
            clock.none_finished();
        }
        served.start().await;
        assert_nothing_left_open(&served).await;

        let mut db = served.db().await;
        let before: Vec<(String, String, String)> =
            sqlx::query_as("SELECT id, status, checkpoint FROM operations WHERE change_id = ?")
                .bind(&change)
                .fetch_all(&mut db)
                .await
                .unwrap();
        assert!(
            before.len() <= 1,
            "two operations for one change: {before:?}"
        );
        // Nothing lost: an acknowledged operation is there as it was answered.
        if let Ok(answer) = &acked
            && let Some(d) = data(answer)
        {
            let (id, status, _) = before.first().expect("the acknowledged operation");
            assert_eq!(d["operation_id"].as_str(), Some(id.as_str()), "{answer}");
            let said = d["status"].as_str().unwrap_or_default();
            if DONE.contains(&said) {
                assert_eq!(said, status, "the acknowledged status after a restart");
            }
        }
        // Reported as it stands, and the same key answers the same operation without running
        // it again; a key the kill cut off before anything was stored starts it now.
        let again = served.must(&ops, "apply_change", args.clone()).await;
        let d = data(&again).unwrap_or_else(|| panic!("apply_change again: {again}"));
        let (op_id, status) = match before.first() {
            Some((id, status, _)) => {
                assert_eq!(d["operation_id"].as_str(), Some(id.as_str()), "{again}");
                assert_eq!(d["status"].as_str(), Some(status.as_str()), "{again}");
                (id.clone(), status.clone())
            }
            None => {
                let status = d["status"].as_str().unwrap_or_default().to_string();
                assert_eq!(
                    status, "succeeded",
                    "an apply started after the restart: {again}"
                );
                (d["operation_id"].as_str().unwrap().to_string(), status)
            }
        };
        let shown = served
            .must(&ops, "get_operation", json!({"change_id": change}))
            .await;
        let shown = data(&shown).unwrap_or_else(|| panic!("get_operation: {shown}"));
        assert_eq!(shown["operation_id"].as_str(), Some(op_id.as_str()));
        assert_eq!(shown["status"].as_str(), Some(status.as_str()), "{shown}");
        let after: i64 = sqlx::query_scalar("SELECT count(*) FROM operations WHERE change_id = ?")
            .bind(&change)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(after, 1, "one operation for the change");
        // The daemon's own list agrees with what the operation says.
        let held = peer.hashes(&http).await;
        let left: Vec<&String> = hashes.iter().filter(|h| held.contains(*h)).collect();
        match status.as_str() {
            "succeeded" => assert!(left.is_empty(), "succeeded, yet {left:?} remain"),
            "failed"
                if shown["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("before any external call")) =>
            {
                assert_eq!(left.len(), 3, "nothing was sent, yet torrents are gone")
            }
            "outcome_unknown" => assert!(
                shown["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("not retried")),
                "{shown}"
            ),
            _ => {}
        }
        let how = if acked.is_ok() { "answered" } else { "cut" };
        *outcomes.entry(format!("{how} {status}")).or_default() += 1;
    }
    println!("harness: crash-apply-change {rounds} rounds, outcomes {outcomes:?}, seed {seed}");
}

/// delete_torrents as the operator, once the instance shows the torrents: the change id.
async fn plan(served: &Served, ops: &str, instance: &str, hashes: &[String]) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = served
            .must(
                ops,
                "delete_torrents",
                json!({"info_hashes": hashes, "delete_data": true, "instance_id": instance}),
            )
            .await;
        if let Some(id) = data(&r).and_then(|d| d["change_id"].as_str()) {
            return id.to_string();
        }
        assert!(
            Instant::now() < deadline,
            "delete_torrents never planned: {r}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The owner's approval, as the owner pages record it.
async fn approve(data_dir: &Path, change_id: &str) {
    let store = store::Store::open(data_dir).await.unwrap();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let change = store.change(change_id).await.unwrap().unwrap();
    store
        .decide_change(change_id, owner.id, true, &change.content_hash)
        .await
        .unwrap();
}
