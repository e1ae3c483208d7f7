//! Test helpers: real daemons started by the shared peer scripts, fixtures, raw checks, fake trackers.

#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use adapters_downloads::info_hash_of_torrent;
use domain::InfoHash;

pub use test_support::peers::Daemon;

fn ensure_transmission_create() {
    if Command::new("transmission-create")
        .arg("--help")
        .output()
        .is_ok()
    {
        return;
    }
    let install = || {
        Command::new("apt-get")
            .args([
                "install",
                "-y",
                "--no-install-recommends",
                "transmission-cli",
            ])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    if !install() {
        let _ = Command::new("apt-get").arg("update").status();
        assert!(install(), "cannot install transmission-cli");
    }
}

/// Bytes nobody else has: an xorshift stream seeded by the clock and a label.
pub fn random_bytes(len: usize, label: &str) -> Vec<u8> {
    let mut x: u64 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    for b in label.bytes() {
        x = x.wrapping_mul(0x100_0000_01b3) ^ u64::from(b);
    }
    x |= 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A torrent made by `transmission-create` over a fresh random file.
pub struct Fixture {
    pub name: String,
    pub data: PathBuf,
    pub torrent: Vec<u8>,
    pub hash: InfoHash,
}

impl Fixture {
    /// `tracker`: an announce URL, or none for a trackerless torrent.
    pub fn new(dir: &Path, name: &str, size: usize, tracker: Option<&str>) -> Fixture {
        ensure_transmission_create();
        std::fs::create_dir_all(dir).unwrap();
        let data = dir.join(name);
        std::fs::write(&data, random_bytes(size, name)).unwrap();
        let out = dir.join(format!("{name}.torrent"));
        let mut cmd = Command::new("transmission-create");
        cmd.arg("-o").arg(&out);
        if let Some(t) = tracker {
            cmd.arg("-t").arg(t);
        }
        let st = cmd.arg(&data).output().unwrap();
        assert!(
            st.status.success(),
            "transmission-create: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let torrent = std::fs::read(&out).unwrap();
        let hash = info_hash_of_torrent(&torrent).unwrap();
        Fixture {
            name: name.to_string(),
            data,
            torrent,
            hash,
        }
    }

    /// Puts the payload where a client will look, so the torrent is complete after its check.
    pub fn place_data(&self, folder: &Path) -> PathBuf {
        std::fs::create_dir_all(folder).unwrap();
        let to = folder.join(&self.name);
        std::fs::copy(&self.data, &to).unwrap();
        to
    }

    pub fn magnet(&self) -> String {
        format!("magnet:?xt=urn:btih:{}&dn={}", self.hash, self.name)
    }
}

/// Polls `f` every 100 ms until it returns `Some`, for at most `secs` seconds.
pub async fn poll<T>(secs: u64, what: &str, mut f: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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

/// Serves `bytes` at `http://127.0.0.1:PORT/file.torrent`, counting downloads.
pub async fn serve_file(
    bytes: Vec<u8>,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::{Arc, atomic::AtomicUsize, atomic::Ordering};

    use axum::{Router, routing::get};
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route(
        "/file.torrent",
        get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = bytes.clone();
            async move { body }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://127.0.0.1:{port}/file.torrent"), hits)
}
