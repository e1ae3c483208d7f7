//! The owner's checks, run as the real binary: `marquee doctor` asks every configured backend
//! (the same checks as `diagnose`) and names a failing one with what to do, and
//! `marquee people set-limits` takes only ratings the region's list has.

#![allow(clippy::unwrap_used)]

use std::{path::Path, process::Command};

use test_support::arr::{ArrKind, FakeArr};

/// Runs `marquee ARGS` in `dir` (its config and data folder): success, stdout, stderr.
fn marquee(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir)
        .env("MARQUEE_LOG", "error")
        // The default data folder is $XDG_DATA_HOME/marquee: here, dir/marquee.
        .env("XDG_DATA_HOME", dir)
        .env_remove("STATE_DIRECTORY")
        .env_remove("MARQUEE_DATA_DIR")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_before_the_first_start_checks_the_default_library_folder_as_serve_makes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let (ok, out, err) = tokio::task::spawn_blocking(move || marquee(&path, &["doctor"]))
        .await
        .unwrap();
    assert!(
        ok,
        "the embedded default passes the doctor on a new machine: {out}\n{err}"
    );
    assert!(
        out.contains("instance library (folder): ok"),
        "the default library folder is checked: {out}"
    );
    assert!(dir.path().join("marquee/library").is_dir());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_asks_every_backend_and_names_the_one_that_fails() {
    let dir = tempfile::tempdir().unwrap();
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let radarr_url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    std::fs::write(
        dir.path().join("marquee.toml"),
        format!(
            "[[instances]]\nid = \"builtin\"\nkind = \"builtin\"\n\n\
             [[instances]]\nid = \"radarr\"\nkind = \"radarr\"\nurl = \"{radarr_url}\"\napi_key = \"k\"\n\n\
             [[instances]]\nid = \"sonarr\"\nkind = \"sonarr\"\nurl = \"{}\"\napi_key = \"{}\"\n",
            sonarr.url(),
            sonarr.api_key()
        ),
    )
    .unwrap();
    // The embedded default's media folder, as `marquee serve` makes it at start.
    std::fs::create_dir_all(dir.path().join("marquee/library")).unwrap();
    let path = dir.path().to_path_buf();
    let (ok, out, err) = tokio::task::spawn_blocking(move || marquee(&path, &["doctor"]))
        .await
        .unwrap();
    assert!(!ok, "a failing backend fails the doctor: {out}");
    assert!(
        out.contains(
            "instance radarr (radarr): FAILED: library instance radarr could not be reached"
        ),
        "{out}"
    );
    assert!(out.contains("marquee.toml"), "says what to do: {out}");
    assert!(
        out.contains("instance sonarr (sonarr): ok: Sonarr 4.0.15.2941 answers"),
        "{out}"
    );
    assert!(out.contains("instance builtin (builtin): ok"), "{out}");
    assert!(err.contains("1 instance failed its check: radarr"), "{err}");
    assert!(
        sonarr
            .requests()
            .iter()
            .any(|r| r.path.ends_with("system/status")),
        "sonarr was asked"
    );
}

#[test]
fn set_limits_takes_only_ratings_the_regions_list_has() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = marquee(dir.path(), &["people", "add", "kim", "--role", "kid"]);
    assert!(ok, "{err}");
    for wrong in ["PG13", "banana"] {
        let (ok, _, err) = marquee(
            dir.path(),
            &["people", "set-limits", "kim", "--max-movie", wrong],
        );
        assert!(!ok, "{wrong} was accepted");
        assert!(
            err.contains(&format!(
                "\"{wrong}\" is not a US movie rating; valid: G, PG, "
            )) && err.contains(" PG-13, R, NC-17"),
            "{err}"
        );
    }
    let (ok, _, err) = marquee(
        dir.path(),
        &["people", "set-limits", "kim", "--max-tv", "TV-PG13"],
    );
    assert!(!ok);
    assert!(
        err.contains("valid: TV-Y, TV-Y7, TV-G, TV-PG, TV-14, TV-MA"),
        "{err}"
    );
    // A region no configured catalogue lists cannot be checked: refused, saying why.
    let (ok, _, err) = marquee(
        dir.path(),
        &[
            "people",
            "set-limits",
            "kim",
            "--region",
            "FR",
            "--max-movie",
            "12",
        ],
    );
    assert!(!ok);
    assert!(
        err.contains("no configured catalogue lists FR movie ratings"),
        "{err}"
    );
    // A valid one in any case is stored in the list's spelling.
    let (ok, out, err) = marquee(
        dir.path(),
        &[
            "people",
            "set-limits",
            "kim",
            "--max-movie",
            "pg-13",
            "--max-tv",
            "tv-pg",
        ],
    );
    assert!(ok, "{err}");
    assert!(out.contains("\"max_movie_cert\":\"PG-13\""), "{out}");
    assert!(out.contains("\"max_tv_rating\":\"TV-PG\""), "{out}");
}
