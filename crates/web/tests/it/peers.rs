//! Real torrent daemons for the downloads tests: started by `../shared/peers/*.sh`, stopped by a
//! guard even when a test fails; torrent fixtures; raw clients that check the daemons' state
//! without any of Marquee's code.

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use httpx::reqwest;
use serde_json::{Value, json};

pub use test_support::peers::Daemon;

/// A tracker-less torrent made by `transmission-create` over fresh random bytes; its hash is
/// read with `transmission-show`, not with Marquee's code.
pub struct Fixture {
    pub name: String,
    pub data: PathBuf,
    pub torrent: PathBuf,
    pub hash: String,
}

impl Fixture {
    pub fn new(dir: &Path, name: &str, size: usize, tracker: Option<&str>) -> Fixture {
        std::fs::create_dir_all(dir).unwrap();
        let data = dir.join(name);
        let mut bytes = vec![0u8; size];
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut bytes)
            .unwrap();
        std::fs::write(&data, bytes).unwrap();
        let torrent = dir.join(format!("{name}.torrent"));
        let mut cmd = Command::new("transmission-create");
        cmd.arg("-o").arg(&torrent);
        if let Some(t) = tracker {
            cmd.arg("-t").arg(t);
        }
        let out = cmd.arg(&data).output().unwrap();
        assert!(out.status.success(), "transmission-create failed");
        let show = Command::new("transmission-show")
            .arg(&torrent)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&show.stdout);
        let hash = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Hash: "))
            .expect("transmission-show prints the hash")
            .trim()
            .to_string();
        Fixture {
            name: name.to_string(),
            data,
            torrent,
            hash,
        }
    }

    /// Copies the payload where a client will look, so the torrent checks complete.
    pub fn place_data(&self, folder: &Path) {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::copy(&self.data, folder.join(&self.name)).unwrap();
    }

    pub fn magnet(&self) -> String {
        format!("magnet:?xt=urn:btih:{}&dn={}", self.hash, self.name)
    }
}

/// Polls `f` every 200 ms until it returns `Some`, for at most `secs` seconds.
pub async fn poll<T>(secs: u64, what: &str, mut f: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// qBittorrent's WebAPI with its own session.
pub struct QbRaw {
    http: reqwest::Client,
    base: String,
}

impl QbRaw {
    pub async fn login(d: &Daemon) -> QbRaw {
        let http = httpx::builder(httpx::Timeouts::default())
            .cookie_store(true)
            .build()
            .unwrap();
        let base = format!("{}/api/v2", d.cred("QBITTORRENT_URL"));
        let form = [
            ("username", d.cred("QBITTORRENT_USER")),
            ("password", d.cred("QBITTORRENT_PASS")),
        ];
        let r = http
            .post(format!("{base}/auth/login"))
            .form(&form)
            .send()
            .await;
        assert_eq!(r.unwrap().text().await.unwrap(), "Ok.");
        QbRaw { http, base }
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) {
        let r = self
            .http
            .post(format!("{}/{path}", self.base))
            .form(form)
            .send();
        let status = r.await.unwrap().status();
        assert!(status.is_success(), "{path}: {status}");
    }

    /// Adds `f`'s .torrent file with the WebAPI's own form and `fields` (category, tags,
    /// paused...): a torrent a test starts from, added without Marquee. Waits until listed.
    pub async fn add(&self, f: &Fixture, fields: &[(&str, &str)]) {
        let file = reqwest::multipart::Part::bytes(std::fs::read(&f.torrent).unwrap())
            .file_name(format!("{}.torrent", f.name));
        let form = reqwest::multipart::Form::new().part("torrents", file);
        self.add_form(f, form, fields).await;
    }

    /// Adds `f` by its magnet link, like [`QbRaw::add`].
    pub async fn add_magnet(&self, f: &Fixture, fields: &[(&str, &str)]) {
        let form = reqwest::multipart::Form::new().text("urls", f.magnet());
        self.add_form(f, form, fields).await;
    }

    async fn add_form(&self, f: &Fixture, form: reqwest::multipart::Form, fields: &[(&str, &str)]) {
        let form = fields
            .iter()
            .fold(form, |form, (k, v)| form.text(k.to_string(), v.to_string()));
        let r = self
            .http
            .post(format!("{}/torrents/add", self.base))
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "torrents/add: {}", r.status());
        assert_eq!(r.text().await.unwrap(), "Ok.");
        poll(10, "a raw add listed", async || self.one(&f.hash).await).await;
    }

    pub async fn all(&self) -> Vec<Value> {
        let r = self.http.get(format!("{}/torrents/info", self.base)).send();
        let v: Value = r.await.unwrap().json().await.unwrap();
        v.as_array().unwrap().clone()
    }

    pub async fn one(&self, hash: &str) -> Option<Value> {
        self.all().await.into_iter().find(|t| t["hash"] == hash)
    }

    /// Hash, category, tags and whether paused, of every torrent, sorted; read once no torrent
    /// is in a passing state (checking, moving), so earlier asynchronous work cannot show up.
    pub async fn snapshot(&self) -> Vec<String> {
        let mut all = self.all().await;
        for _ in 0..100 {
            let busy = all.iter().any(|t| {
                let s = t["state"].as_str().unwrap_or("");
                s.starts_with("checking") || s == "moving" || s == "allocating" || s == "metaDL"
            });
            if !busy {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            all = self.all().await;
        }
        let mut v: Vec<String> = all
            .iter()
            .map(|t| {
                let paused = t["state"].as_str().unwrap_or("").starts_with("paused");
                format!("{} {} {} {paused}", t["hash"], t["category"], t["tags"])
            })
            .collect();
        v.sort();
        v
    }
}

/// Transmission RPC with its own session id.
pub struct TrRaw {
    http: reqwest::Client,
    url: String,
    user: String,
    pass: String,
    sid: parking_lot::Mutex<String>,
}

impl TrRaw {
    pub fn new(d: &Daemon) -> TrRaw {
        TrRaw {
            http: httpx::client(httpx::Timeouts::default()).unwrap(),
            url: d.cred("TRANSMISSION_RPC_URL"),
            user: d.cred("TRANSMISSION_USER"),
            pass: d.cred("TRANSMISSION_PASS"),
            sid: parking_lot::Mutex::new(String::new()),
        }
    }

    pub async fn rpc(&self, method: &str, arguments: Value) -> Value {
        let body = json!({ "method": method, "arguments": arguments });
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
                let sid = r.headers()["X-Transmission-Session-Id"].to_str().unwrap();
                *self.sid.lock() = sid.to_string();
                continue;
            }
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["result"], "success", "{method}: {v}");
            return v["arguments"].clone();
        }
        panic!("transmission session handshake failed");
    }

    pub async fn one(&self, hash: &str) -> Option<Value> {
        let fields = ["hashString", "status", "labels", "downloadDir", "name"];
        let v = self
            .rpc("torrent-get", json!({ "ids": [hash], "fields": fields }))
            .await;
        v["torrents"].as_array().unwrap().first().cloned()
    }

    /// Hash, labels, folder and status of every torrent, sorted.
    pub async fn snapshot(&self) -> Vec<String> {
        let fields = ["hashString", "labels", "downloadDir", "status"];
        let mut v = self.rpc("torrent-get", json!({ "fields": fields })).await;
        // Statuses 1 and 2 are "waiting to check" and "checking": wait for earlier work to settle.
        for _ in 0..100 {
            let busy = v["torrents"].as_array().is_some_and(|a| {
                a.iter()
                    .any(|t| matches!(t["status"].as_i64(), Some(1 | 2)))
            });
            if !busy {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            v = self.rpc("torrent-get", json!({ "fields": fields })).await;
        }
        let mut rows: Vec<String> = v["torrents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.to_string())
            .collect();
        rows.sort();
        rows
    }

    /// Adds a .torrent file the daemon reads from disk, into `dir`, with `labels`.
    pub async fn add(&self, f: &Fixture, dir: &Path, labels: &[&str]) {
        let args = json!({
            "filename": f.torrent.to_str().unwrap(),
            "download-dir": dir.to_str().unwrap(),
            "paused": false,
        });
        self.rpc("torrent-add", args).await;
        self.rpc("torrent-set", json!({ "ids": [f.hash], "labels": labels }))
            .await;
    }
}

/// Serves `bytes` at `http://127.0.0.1:PORT/file.torrent`.
pub async fn serve_file(bytes: Vec<u8>) -> String {
    use axum::{Router, routing::get};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route("/file.torrent", get(move || async move { bytes.clone() }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://127.0.0.1:{port}/file.torrent")
}

/// A tracker on loopback that answers every announce with a bencoded failure.
pub async fn failing_tracker(reason: &'static str) -> String {
    use axum::{Router, routing::get};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let body = format!("d14:failure reason{}:{}e", reason.len(), reason);
    let app = Router::new().route("/announce", get(move || async move { body }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://127.0.0.1:{port}/announce")
}

/// An HTTP server that answers every request with 200 and garbage.
pub async fn garbage_server() -> String {
    use axum::Router;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().fallback(|| async { "<html>this is not a torrent client" });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://127.0.0.1:{port}/")
}

/// A listener that accepts connections and never answers: a hung backend.
pub async fn silent_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((conn, _)) = listener.accept().await {
            held.push(conn);
        }
    });
    format!("http://127.0.0.1:{port}/")
}

/// A loopback address where nothing listens.
pub fn dead_url() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}/")
}

/// A Transmission instance `tr` reached through a fault proxy in front of the daemon `d`, so a
/// test can slow or break the way between Marquee and a real daemon.
pub async fn transmission_behind_proxy(
    d: &Daemon,
) -> (test_support::fault::FaultProxy, tools::InstanceSpec) {
    let url = d.cred("TRANSMISSION_URL");
    let proxy = test_support::fault::FaultProxy::in_front_of(&url).await;
    let spec = tools::InstanceSpec {
        id: "tr".into(),
        kind: domain::InstanceKind::Transmission,
        url: Some(proxy.url_for(&url).parse().unwrap()),
        path: None,
        username: Some(d.cred("TRANSMISSION_USER")),
        password: Some(domain::Secret::new(d.cred("TRANSMISSION_PASS"))),
        api_key: None,
        default: true,
    };
    (proxy, spec)
}
