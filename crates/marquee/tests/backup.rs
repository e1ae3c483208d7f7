//! `marquee backup` and `marquee restore`, run as the real binary: a backup taken while Marquee
//! serves restores after a stop (what came after the backup is gone, what came before is
//! there, the replaced database is kept); a restore is refused while serving, and for a file
//! that is not a Marquee backup or was written by a newer schema, changing nothing.

#![allow(clippy::unwrap_used)]

mod kit;

use std::{path::Path, process::Command};

use kit::{BIN, cli, free_port, serve};

/// `marquee ARGS` that must fail; its stderr.
fn cli_fails(config: &Path, data: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn people(config: &Path, data: &Path) -> String {
    cli(config, data, &["people", "list"])
}

fn setup(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, u16) {
    let port = free_port();
    let config = dir.join("marquee.toml");
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    (config, dir.join("data"), port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_restores_after_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    let (config, data, port) = setup(dir.path());
    cli(
        &config,
        &data,
        &["people", "add", "alice", "--role", "admin"],
    );
    let serving = serve(&config, &data, port).await;

    let file = dir.path().join("household.backup");
    let file_arg = file.to_str().unwrap();
    let out = cli(&config, &data, &["backup", file_arg]);
    assert!(out.contains("backed up"), "{out}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o600,
        "a backup holds verifiers and the audit: owner only"
    );
    let again = cli_fails(&config, &data, &["backup", file_arg]);
    assert!(again.contains("already exists"), "{again}");

    cli(&config, &data, &["people", "add", "bob", "--role", "kid"]);
    let refused = cli_fails(&config, &data, &["restore", file_arg]);
    assert!(refused.contains("stop it first"), "{refused}");
    assert!(
        people(&config, &data).contains("bob"),
        "a refused restore changes nothing"
    );

    drop(serving);
    let out = cli(&config, &data, &["restore", file_arg]);
    assert!(out.contains("restored") && out.contains("kept as"), "{out}");
    let now = people(&config, &data);
    assert!(now.contains("alice"), "{now}");
    assert!(!now.contains("bob"), "bob came after the backup: {now}");
    let kept = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains("before-restore"))
        .count();
    assert!(
        kept >= 1,
        "the replaced database is kept beside the new one"
    );

    // The restored database serves.
    let serving = serve(&config, &data, port).await;
    let status = ready_status(port).await;
    assert_eq!(status, 200);
    drop(serving);
}

/// GET /readyz until it answers 200 (or 10 s); the last status.
async fn ready_status(port: u16) -> u16 {
    let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let code = http
            .get(format!("http://127.0.0.1:{port}/readyz"))
            .send()
            .await
            .map_or(0, |r| r.status().as_u16());
        if code == 200 || std::time::Instant::now() > deadline {
            return code;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[test]
fn restore_refuses_what_is_not_a_backup_of_this_schema_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (config, data, _) = setup(dir.path());
    cli(
        &config,
        &data,
        &["people", "add", "alice", "--role", "admin"],
    );

    let garbage = dir.path().join("garbage.backup");
    std::fs::write(&garbage, b"not a database at all, just some bytes\n").unwrap();
    let err = cli_fails(&config, &data, &["restore", garbage.to_str().unwrap()]);
    assert!(err.contains("is not a Marquee backup"), "{err}");

    let missing = dir.path().join("missing.backup");
    let err = cli_fails(&config, &data, &["restore", missing.to_str().unwrap()]);
    assert!(err.contains("cannot read"), "{err}");

    // A backup from a future build: one more schema step than this build knows.
    let newer = dir.path().join("newer.backup");
    cli(&config, &data, &["backup", newer.to_str().unwrap()]);
    let status = Command::new("sqlite3")
        .arg(&newer)
        .arg(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (999999, 'from the future', 1, x'00', 0)",
        )
        .status()
        .unwrap();
    assert!(status.success());
    let err = cli_fails(&config, &data, &["restore", newer.to_str().unwrap()]);
    assert!(err.contains("newer Marquee"), "{err}");

    assert!(people(&config, &data).contains("alice"), "nothing changed");
    let kept = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains("before-restore"));
    assert!(!kept, "a refused restore moves nothing aside");
}
