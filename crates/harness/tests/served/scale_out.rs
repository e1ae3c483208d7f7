//! Three `marquee serve` replicas on one store behind nginx, configured by
//! `deploy/replicas/nginx.conf` (its ports replaced by free ones): 40 concurrent
//! `request_media` calls of four people with a music quota of 5, spread over the replicas,
//! file exactly 5 requests each; a plan made through replica A is applied through B and retried
//! through C with the same idempotency key: one operation; replica A is SIGKILLed under load and
//! every call a client retries is answered.

use std::{
    path::Path,
    process::{Child, Command},
    time::{Duration, Instant},
};

use serde_json::json;
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{Served, call_at, client, data, free_port, summary};

/// nginx on `deploy/replicas/nginx.conf`, its replicas' and its own ports replaced; killed on
/// drop.
struct Nginx {
    child: Child,
    base: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Nginx {
    async fn start(dir: &Path, replicas: &[&Served]) -> Nginx {
        let shipped =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/replicas/nginx.conf");
        let mut conf = std::fs::read_to_string(&shipped).unwrap();
        for (n, replica) in replicas.iter().enumerate() {
            let port = replica.base.rsplit(':').next().unwrap();
            let shipped_port = format!("127.0.0.1:{}", 8765 + n);
            assert!(
                conf.contains(&shipped_port),
                "{shipped_port} in {}",
                shipped.display()
            );
            conf = conf.replace(&shipped_port, &format!("127.0.0.1:{port}"));
        }
        let port = free_port();
        conf = conf.replace(
            "listen 127.0.0.1:8080;",
            &format!("listen 127.0.0.1:{port};"),
        );
        let prefix = dir.join("nginx");
        std::fs::create_dir_all(prefix.join("logs")).unwrap();
        std::fs::write(prefix.join("nginx.conf"), conf).unwrap();
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("nginx is installed (scripts/test.sh installs nginx-light)");
        let child = Command::new(nginx)
            .arg("-p")
            .arg(&prefix)
            .arg("-c")
            .arg("nginx.conf")
            // One process, no workers: a kill on drop leaves nothing behind.
            .args(["-g", "daemon off; master_process off;"])
            .spawn()
            .unwrap();
        let proxy = Nginx {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let http = client();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = http
                .get(format!("{}/readyz", proxy.base))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200);
            if ready {
                return proxy;
            }
            assert!(Instant::now() < deadline, "nginx did not answer /readyz");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn album(person: usize, n: usize) -> String {
    format!("rg-scale-{person}-{n}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_behind_nginx_act_as_one_gateway() {
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    for p in 0..4 {
        for n in 0..10 {
            let artist = json!({"artistName": format!("Scale Artist {p}-{n}"), "foreignArtistId": format!("ar-scale-{p}-{n}")});
            let found = json!({"title": format!("Scale Album {p}-{n}"), "foreignAlbumId": album(p, n),
                "releaseDate": "1997-05-21T00:00:00Z", "artist": artist});
            lidarr.seed_lookup(Resource::Artist, artist.clone(), vec![found.clone()]);
            lidarr.seed_lookup(Resource::Album, found, vec![]);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let config = format!(
        "trusted_proxies = [\"127.0.0.1\"]\n[[instances]]\nid = \"lidarr\"\nkind = \"lidarr\"\nurl = \"{}\"\napi_key = \"{}\"\ndefault = true\n",
        lidarr.url(),
        lidarr.api_key()
    );
    let mut a = Served::first(&dir.path().join("a"), &data_dir, &config).await;
    let b = a.beside(&dir.path().join("b")).await;
    let c = a.beside(&dir.path().join("c")).await;
    let proxy = Nginx::start(dir.path(), &[&a, &b, &c]).await;
    // Calls give up after 15 s: a call that hangs fails the test instead of holding it.
    let http = httpx::builder(httpx::Timeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_secs(15),
    })
    .build()
    .unwrap();

    // Four people with a music quota of 5; ten requests each, all at once, through nginx.
    let mut keys = Vec::new();
    for p in 0..4 {
        let name = format!("p{p}");
        keys.push(a.person_with_key(&name, "user", "requester"));
        a.cli(&[
            "quotas", "set", "--person", &name, "--music", "5", "--days", "30",
        ]);
    }
    let mut calls = Vec::new();
    for n in 0..10 {
        for (p, key) in keys.iter().enumerate() {
            let (http, base, key) = (http.clone(), proxy.base.clone(), key.clone());
            let args = json!({"media_source": "musicbrainz", "media_id": album(p, n), "media_type": "music"});
            calls.push(tokio::spawn(async move {
                (p, call_at(&http, &base, &key, "request_media", args).await)
            }));
        }
    }
    let mut made = [0; 4];
    for call in calls {
        let (p, answer) = call.await.unwrap();
        let answer = answer.unwrap_or_else(|e| panic!("request_media through nginx: {e}"));
        if data(&answer).is_some_and(|d| d["request"]["request_id"].is_i64()) {
            made[p] += 1;
        } else {
            assert!(summary(&answer).contains("quota"), "{answer}");
        }
    }
    assert_eq!(made, [5; 4], "five requests each, none beyond the quota");
    let mut db = a.db().await;
    let stored: Vec<i64> = sqlx::query_scalar(
        "SELECT COUNT(*) FROM requests r JOIN people p ON p.id = r.person_id \
         WHERE p.name IN ('p0', 'p1', 'p2', 'p3') GROUP BY r.person_id",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    assert_eq!(stored, [5; 4]);
    let spread: i64 = sqlx::query_scalar(
        "SELECT COUNT(DISTINCT replica) FROM audit WHERE tool = 'request_media'",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(spread, 3, "every replica took calls");

    // A plan made through A, applied through B and retried through C with the same key.
    let planned = a
        .must(
            &a.owner,
            "plan_configuration",
            json!({"settings": [{"key": "mcp.allow_destructive", "value": true}]}),
        )
        .await;
    let change = data(&planned).unwrap()["change_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let args = json!({"change_id": change, "idempotency_key": "scale-out-1"});
    let applied = b.must(&b.owner, "apply_change", args.clone()).await;
    let again = c.must(&c.owner, "apply_change", args).await;
    let (first, second) = (data(&applied).unwrap(), data(&again).unwrap());
    assert_eq!(first["operation_id"], second["operation_id"], "{again}");
    let ops: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM operations WHERE change_id = ?")
        .bind(&change)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(ops, 1, "one operation");

    // Under load, replica A is SIGKILLed: a client that retries a failed call gets its answer.
    let started = Instant::now();
    let mut load = Vec::new();
    for worker in 0..8 {
        let (http, base, key) = (http.clone(), proxy.base.clone(), keys[worker % 4].clone());
        load.push(tokio::spawn(async move {
            let (mut answered, mut retried) = (0, 0);
            while started.elapsed() < Duration::from_secs(6) {
                let mut tries = 0;
                loop {
                    tries += 1;
                    match call_at(&http, &base, &key, "whoami", json!({})).await {
                        Ok(r) if data(&r).is_some() => break,
                        other => {
                            assert!(tries < 5, "still failing after {tries} tries: {other:?}");
                            retried += 1;
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                }
                answered += 1;
            }
            (answered, retried)
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    a.kill();
    let (mut answered, mut retried) = (0, 0);
    for worker in load {
        let (n, r) = worker.await.unwrap();
        answered += n;
        retried += r;
    }
    println!(
        "harness: scale-out: {answered} calls answered through nginx while a replica was killed, {retried} retried"
    );
    assert!(answered > 0);
    let answer = call_at(&http, &proxy.base, &keys[0], "whoami", json!({}))
        .await
        .unwrap();
    assert!(data(&answer).is_some(), "{answer}");
}
