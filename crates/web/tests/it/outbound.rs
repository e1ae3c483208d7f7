//! `add_torrent` with an http(s) URL, through the real MCP router against a real
//! transmission-daemon: Marquee fetches the .torrent itself under the outbound rule and hands
//! the daemon the bytes. A loopback URL is refused by default with one sentence, whatever its
//! port does, before any connection; allowed by the owner, it is fetched by Marquee (never by
//! the daemon). Every address here is on 127.0.0.1.

use std::sync::Arc;

use domain::{InstanceKind, Secret};
use parking_lot::Mutex;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tools::InstanceSpec;

use crate::peers::{Daemon, Fixture, TrRaw, poll};
use crate::support::{Server, outcome, server_for};

/// Serves `bytes` on 127.0.0.1 and keeps the User-Agent of every request it was sent.
async fn counting_server(bytes: Vec<u8>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let (log, bytes) = (log.clone(), bytes.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_lowercase();
                let agent = head
                    .lines()
                    .find_map(|l| l.strip_prefix("user-agent:"))
                    .unwrap_or("none")
                    .trim()
                    .to_string();
                log.lock().push(agent);
                let mut out = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/x-bittorrent\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    bytes.len()
                )
                .into_bytes();
                out.extend_from_slice(&bytes);
                let _ = sock.write_all(&out).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (format!("http://127.0.0.1:{port}/file.torrent"), seen)
}

struct World {
    tr: Daemon,
    traw: TrRaw,
    s: Server,
}

async fn world() -> World {
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"))
        .join()
        .unwrap();
    let traw = TrRaw::new(&tr);
    let spec = InstanceSpec {
        id: "tr".into(),
        kind: InstanceKind::Transmission,
        url: Some(tr.cred("TRANSMISSION_URL").parse().unwrap()),
        path: None,
        username: Some(tr.cred("TRANSMISSION_USER")),
        password: Some(Secret::new(tr.cred("TRANSMISSION_PASS"))),
        api_key: None,
        default: true,
    };
    let s = server_for(vec![spec], false).await;
    World { tr, traw, s }
}

async fn add(s: &Server, url: &str) -> serde_json::Value {
    s.call(
        &s.owner_key,
        "add_torrent",
        json!({"source": url, "paused": true}),
    )
    .await
}

#[tokio::test]
async fn a_loopback_url_is_refused_by_default_with_one_sentence_and_nothing_reaches_it() {
    let w = world().await;
    // The owner allowed nothing: the default.
    w.s.host.app.settings().set_outbound_hosts(Vec::new());
    let f = Fixture::new(
        &w.tr.dir.path().join("fixtures"),
        "refused.mkv",
        20_000,
        None,
    );
    let (url, seen) = counting_server(std::fs::read(&f.torrent).unwrap()).await;
    let port = url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let answers = [
        add(&w.s, &url).await,
        // A port where nothing listens, the same host by name, and with credentials.
        add(&w.s, "http://127.0.0.1:9/file.torrent").await,
        add(&w.s, &format!("http://localhost:{port}/file.torrent")).await,
        add(
            &w.s,
            &format!("http://user:pw@127.0.0.1:{port}/file.torrent"),
        )
        .await,
        add(
            &w.s,
            &format!("http://[::ffff:127.0.0.1]:{port}/file.torrent"),
        )
        .await,
    ];
    let sentence = format!("{}; nothing was added", httpx::outbound::REFUSAL);
    for r in &answers {
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(r["content"][0]["text"], sentence.as_str(), "{r}");
    }
    assert!(seen.lock().is_empty(), "no connection reached the server");
    assert!(
        w.traw.one(&f.hash).await.is_none(),
        "the daemon was sent nothing"
    );
}

#[tokio::test]
async fn an_allowed_loopback_url_is_fetched_by_marquee_and_the_daemon_gets_the_bytes() {
    let w = world().await;
    w.s.host
        .app
        .settings()
        .set_outbound_hosts(vec!["127.0.0.1".into()]);
    let f = Fixture::new(
        &w.tr.dir.path().join("fixtures"),
        "allowed.mkv",
        20_000,
        None,
    );
    let (url, seen) = counting_server(std::fs::read(&f.torrent).unwrap()).await;
    let (error, summary, data) = outcome(&add(&w.s, &url).await);
    assert!(!error, "{summary}");
    assert_eq!(data["results"][0]["info_hash"], f.hash.as_str());
    poll(10, "the torrent on transmission", async || {
        w.traw.one(&f.hash).await.map(|_| ())
    })
    .await;
    let agents = seen.lock().clone();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert!(
        agents[0].starts_with("marquee/"),
        "fetched by marquee: {agents:?}"
    );
}

#[tokio::test]
async fn an_answer_that_is_no_torrent_is_refused_and_nothing_is_added() {
    let w = world().await;
    let (url, _) = counting_server(b"<html>not a torrent</html>".to_vec()).await;
    let r = add(&w.s, &url).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["content"][0]["text"],
        "the URL did not answer with a .torrent file; nothing was added"
    );
    assert!(w.traw.snapshot().await.is_empty());
}

#[tokio::test]
async fn a_torrent_or_magnet_naming_a_loopback_tracker_is_refused_before_the_client_is_told() {
    let w = world().await;
    w.s.host.app.settings().set_outbound_hosts(Vec::new());
    let folder = w.tr.dir.path().join("fixtures");
    let f = Fixture::new(
        &folder,
        "tracked.mkv",
        20_000,
        Some("http://127.0.0.2:9/announce"),
    );
    w.s.host
        .app
        .settings()
        .set_torrent_folders(vec![folder.clone()]);
    let magnet = format!("{}&tr=udp%3A%2F%2F127.0.0.1%3A6969%2Fannounce", f.magnet());
    for source in [f.torrent.to_str().unwrap().to_string(), magnet] {
        let r = add(&w.s, &source).await;
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(
            r["content"][0]["text"],
            format!(
                "the torrent names a tracker or web seed that {}; nothing was added",
                httpx::outbound::REFUSAL
            )
            .as_str(),
            "{source}: {r}"
        );
    }
    assert!(
        w.traw.snapshot().await.is_empty(),
        "the daemon was told nothing"
    );
    // The owner allows the tracker's host: the same file is added.
    w.s.host
        .app
        .settings()
        .set_outbound_hosts(vec!["127.0.0.2".into()]);
    let r = add(&w.s, f.torrent.to_str().unwrap()).await;
    assert_eq!(r["isError"], false, "{r}");
}

// A folder a caller passes to a library service is confined to the service's own folders.

mod folders {
    use std::sync::Arc;

    use domain::InstanceKind;
    use serde_json::json;
    use test_support::arr::{ArrKind, FakeArr, Resource};

    use crate::support::{Server, instance, outcome, server_with_instances};

    async fn sonarr() -> (Arc<FakeArr>, Server) {
        let fake = Arc::new(FakeArr::start(ArrKind::Sonarr).await);
        let series = fake.insert(
            Resource::Series,
            json!({ "title": "Bluey", "tvdbId": 353546, "path": "/data/media/tv/Bluey" }),
        );
        let episode = fake.insert(
            Resource::Episode,
            json!({ "seriesId": series, "seasonNumber": 1, "episodeNumber": 3, "title": "Keepy Uppy" }),
        );
        // Its download lands in /downloads/complete/…: that folder is the service's own.
        fake.start_download(episode, "Bluey.S01E02.1080p.WEB", 1_000_000);
        fake.seed_manual_import(
            episode,
            "/downloads/complete/Bluey.S01E03/bluey.s01e03.mkv",
            700_000_000,
            "dl-bluey-103",
            &[],
        );
        let mut spec = instance(
            "sonarr",
            InstanceKind::Sonarr,
            Some(&fake.url()),
            Some(fake.api_key()),
        );
        spec.default = true;
        (fake, server_with_instances(vec![spec]).await)
    }

    async fn candidates(s: &Server, folder: &str) -> (bool, String) {
        let args = json!({ "instance_id": "sonarr", "folder": folder });
        let (error, summary, _) = outcome(
            &s.call(&s.owner_key, "get_manual_import_candidates", args)
                .await,
        );
        (error, summary)
    }

    #[tokio::test]
    async fn a_folder_outside_the_services_own_is_refused_before_the_service_reads_it() {
        let (fake, s) = sonarr().await;
        for folder in [
            "/etc",
            "/root/.ssh",
            "/downloads/complete/../../etc",
            "/downloads/completely-other",
        ] {
            let (error, summary) = candidates(&s, folder).await;
            assert!(error, "{folder}: {summary}");
            assert!(
                summary.contains("is not inside a folder instance sonarr reports as its own"),
                "{folder}: {summary}"
            );
        }
        assert!(fake.requests_to("GET", "/manualimport").is_empty());
        let args = json!({ "instance_id": "sonarr", "folder": "/etc",
            "files": [{ "path": "/etc/passwd", "item_id": 1, "episode_ids": [1] }] });
        let (error, summary, _) =
            outcome(&s.call(&s.owner_key, "execute_manual_import", args).await);
        assert!(error && summary.contains("reports as its own"), "{summary}");
        assert!(fake.requests_to("GET", "/manualimport").is_empty());
        assert!(fake.requests_to("POST", "/command").is_empty());
    }

    #[tokio::test]
    async fn a_download_folder_and_a_root_folder_of_the_service_are_read() {
        let (fake, s) = sonarr().await;
        let (error, summary) = candidates(&s, "/downloads/complete/Bluey.S01E03").await;
        assert!(!error, "{summary}");
        let (error, summary) = candidates(&s, "/data/media/tv/Bluey").await;
        assert!(!error, "{summary}");
        assert_eq!(fake.requests_to("GET", "/manualimport").len(), 2);
    }
}
