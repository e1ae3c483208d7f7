//! `marquee ready` (the container image's health check): fails while nothing serves the
//! configured address and succeeds once the server there answers /readyz, even when it
//! listens on every address and allows only the loopback names.

#![allow(clippy::unwrap_used)]

mod kit;

use std::{
    process::Command,
    time::{Duration, Instant},
};

fn ready(config: &std::path::Path) -> std::process::Output {
    Command::new(kit::BIN)
        .args(["ready", "--config"])
        .arg(config)
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap()
}

#[tokio::test]
async fn ready_fails_without_a_server_and_succeeds_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let config = dir.path().join("marquee.toml");
    std::fs::write(&config, format!("listen = \"0.0.0.0:{port}\"\n")).unwrap();
    let out = ready(&config);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing answers on 127.0.0.1:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _serving = kit::serve(&config, &dir.path().join("data"), port).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = ready(&config);
        if out.status.success() {
            assert_eq!(String::from_utf8_lossy(&out.stdout), "ready\n");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
