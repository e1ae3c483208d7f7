//! An organise under SIGKILL: each round drops a season of episodes (random bytes) into the
//! folder instance `downloads`, plans a hard-link or copy organise of it into `library` as the
//! owner and applies it; the server is killed while the apply runs (at a random moment, or, every
//! other round, once the operation's checkpoint has passed a random file, so the kill surely
//! lands mid-organise), started again, and the disk is compared with the operation: every
//! destination is whole (the source's inode for a hard link, the source's bytes for a copy) or
//! absent, never a partial file under a destination's name; the files the checkpoint lists as
//! done are there, those after the file in flight are not; the operation is `succeeded` with
//! every file `done`, or `outcome_unknown` naming the files done and the one in flight. Then
//! `revert_change` of the cut-off organise removes exactly what it placed, the file in flight
//! included when it was placed, and the temporary file of a copy in flight; the sources stay as
//! they were.

use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::support::{
    KillClock, SeedNote, Served, assert_nothing_left_open, call_at, client, data, rounds, seed,
};

/// Episodes per round: enough steps that a kill lands among them.
const EPISODES: usize = 60;

/// The round's season folder in `downloads` (season `round + 1`), its episodes random bytes.
fn season(downloads: &Path, round: usize, g: &mut harness::Gen) -> String {
    let folder = format!("Crash.Loop.S{:02}.720p.HDTV.x264-GRP", round + 1);
    std::fs::create_dir_all(downloads.join(&folder)).unwrap();
    for e in 1..=EPISODES {
        let name = format!(
            "{folder}/Crash.Loop.S{:02}E{e:02}.720p.HDTV.x264-GRP.mkv",
            round + 1
        );
        let size = 16 * 1024 + g.below(48 * 1024);
        std::fs::write(downloads.join(name), g.bytes(size)).unwrap();
    }
    folder
}

/// Every entry beneath `root` (files, and the temporary names a copy writes first), relative.
fn entries(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// Whether `dest` is the whole file `source` placed as `mode` says; `None` when absent.
fn placed(source: &Path, dest: &Path, mode: &str) -> Option<bool> {
    let d = std::fs::symlink_metadata(dest).ok()?;
    let s = std::fs::metadata(source).unwrap();
    Some(match mode {
        "hardlink" => (d.dev(), d.ino()) == (s.dev(), s.ino()),
        _ => d.ino() != s.ino() && std::fs::read(dest).unwrap() == std::fs::read(source).unwrap(),
    })
}

/// The operation's checkpoint in the server's database, as JSON (`Null` before the first).
async fn checkpoint(served: &Served, change: &str) -> Value {
    let mut db = served.db().await;
    let row: Option<(String,)> =
        sqlx::query_as("SELECT checkpoint FROM operations WHERE change_id = ?")
            .bind(change)
            .fetch_optional(&mut db)
            .await
            .unwrap_or(None);
    row.and_then(|(c,)| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organise_killed_mid_apply_leaves_each_file_whole_or_absent_and_says_which() {
    let seed = seed("crash-organize");
    let mut note = SeedNote {
        name: "crash-organize",
        seed,
        round: 0,
    };
    let mut g = harness::Gen::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let (downloads, library) = (dir.path().join("downloads"), dir.path().join("library"));
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::create_dir_all(&library).unwrap();
    let config = format!(
        "[[instances]]\nid = \"downloads\"\nkind = \"folder\"\npath = \"{}\"\n\
         [[instances]]\nid = \"library\"\nkind = \"folder\"\npath = \"{}\"\n",
        downloads.display(),
        library.display(),
    );
    let mut served = Served::first(dir.path(), &dir.path().join("data"), &config).await;
    let owner = served.owner.clone();
    let http = client();
    let mut clock = KillClock::new(Duration::from_millis(50));
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    let mut mid_way = 0;
    for round in 0..rounds() {
        note.round = round;
        let folder = season(&downloads, round, &mut g);
        let originals: Vec<(PathBuf, Vec<u8>)> = entries(&downloads.join(&folder))
            .into_iter()
            .map(|f| {
                let p = downloads.join(&folder).join(f);
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        let mode = *g.pick(&["hardlink", "copy"]);
        let planned = served
            .must(
                &owner,
                "plan_organize",
                json!({"instance_id": "downloads", "paths": [folder],
                       "target_instance_id": "library", "mode": mode}),
            )
            .await;
        let planned = data(&planned).unwrap_or_else(|| panic!("plan_organize: {planned}"));
        let change = planned["change_id"].as_str().unwrap().to_string();
        let files: Vec<(String, String)> = planned["plan"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["source"].as_str().unwrap().to_string(),
                    f["destination"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(files.len(), EPISODES);

        let key = format!("crash-organize-{seed:x}-{round:04}");
        let args = json!({"change_id": change, "idempotency_key": key});
        let started = Instant::now();
        let task = {
            let (http, base, owner, args) = (
                http.clone(),
                served.base.clone(),
                owner.clone(),
                args.clone(),
            );
            tokio::spawn(async move {
                let r = call_at(&http, &base, &owner, "apply_change", args).await;
                (r, started.elapsed())
            })
        };
        if round % 2 == 1 {
            // Once the checkpoint passes a random file: the kill lands among the steps.
            let past = 1 + g.below(EPISODES - 2);
            let deadline = Instant::now() + Duration::from_secs(60);
            while checkpoint(&served, &change).await["file"]
                .as_u64()
                .is_none_or(|f| (f as usize) < past)
            {
                assert!(
                    Instant::now() < deadline,
                    "the organise never reached file {past}"
                );
                if task.is_finished() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        } else {
            tokio::time::sleep(clock.pick(&mut g)).await;
        }
        served.kill();
        let (acked, took) = task.await.unwrap();
        if acked.is_ok() {
            clock.saw(took);
        } else {
            clock.none_finished();
        }
        served.start().await;
        assert_nothing_left_open(&served).await;

        // A kill before anything was stored: the same key starts it now, and it runs whole.
        let again = served.must(&owner, "apply_change", args.clone()).await;
        let op = data(&again).unwrap_or_else(|| panic!("apply_change again: {again}"));
        let shown = served
            .must(&owner, "get_operation", json!({"change_id": change}))
            .await;
        let shown = data(&shown).unwrap_or_else(|| panic!("get_operation: {shown}"));
        assert_eq!(shown["operation_id"], op["operation_id"], "one operation");
        let status = shown["status"].as_str().unwrap().to_string();

        // The disk: each destination whole or absent, never a part under its name.
        let state: Vec<Option<bool>> = files
            .iter()
            .map(|(s, d)| placed(&downloads.join(s), &library.join(d), mode))
            .collect();
        for ((_, d), st) in files.iter().zip(&state) {
            assert_ne!(
                *st,
                Some(false),
                "{d} is at its destination but not whole ({mode})"
            );
        }
        let is_there = |i: usize| state[i] == Some(true);
        match status.as_str() {
            "succeeded" => {
                let outcomes: Vec<&str> = shown["result"]["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["outcome"].as_str().unwrap())
                    .collect();
                assert_eq!(outcomes, vec!["done"; EPISODES], "{shown}");
                assert!(
                    (0..EPISODES).all(is_there),
                    "succeeded, yet a file is missing"
                );
            }
            "outcome_unknown" => {
                assert!(
                    shown["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("not retried")),
                    "{shown}"
                );
                let cp = &shown["checkpoint"];
                let flight = cp["file"].as_u64().unwrap() as usize;
                assert_eq!(cp["files"], EPISODES, "{cp}");
                let done: Vec<usize> = cp["done"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_u64().unwrap() as usize)
                    .collect();
                assert_eq!(done, (0..flight).collect::<Vec<_>>(), "{cp}");
                assert_eq!(cp["failed"], json!([]), "{cp}");
                // Each file's outcome, read from the checkpoint: done, the one in flight
                // unknown, the rest not done.
                let said: Vec<&str> = shown["result"]["results"]
                    .as_array()
                    .unwrap_or_else(|| panic!("no per-file outcome: {shown}"))
                    .iter()
                    .map(|r| r["outcome"].as_str().unwrap())
                    .collect();
                let expected: Vec<&str> = (0..EPISODES)
                    .map(|i| match i.cmp(&flight) {
                        std::cmp::Ordering::Less => "done",
                        std::cmp::Ordering::Equal => "outcome_unknown",
                        std::cmp::Ordering::Greater => "not_done",
                    })
                    .collect();
                assert_eq!(said, expected, "{shown}");
                assert!(done.iter().all(|i| is_there(*i)), "a file done is missing");
                assert!(
                    (flight + 1..EPISODES).all(|i| !is_there(i)),
                    "a file after the one in flight ({flight}) was placed"
                );
                if flight > 0 && flight + 1 < EPISODES {
                    mid_way += 1;
                }
            }
            other => panic!("an organise ended {other}: {shown}"),
        }
        // Only the copy in flight may leave its temporary name behind, beside its destination.
        let stray: Vec<String> = entries(&library)
            .into_iter()
            .filter(|e| e.ends_with(".part"))
            .collect();
        assert!(stray.len() <= 1, "temporary files left: {stray:?}");

        // Its revert removes what it placed (the file in flight too when it was placed).
        let revert = served
            .must(&owner, "revert_change", json!({"change_id": change}))
            .await;
        let there = state.iter().filter(|s| **s == Some(true)).count();
        let Some(revert) = data(&revert) else {
            assert_eq!(
                there, 0,
                "a revert refused although files were placed: {revert}"
            );
            assert!(
                crate::support::summary(&revert).contains("placed no file"),
                "{revert}"
            );
            *tally
                .entry(format!("{mode} {status}, nothing placed"))
                .or_default() += 1;
            continue;
        };
        let undo = revert["plan"]["files"].as_array().unwrap().len();
        assert_eq!(
            undo, there,
            "the revert names every file placed and only those"
        );
        let undone = served
            .must(
                &owner,
                "apply_change",
                json!({"change_id": revert["change_id"], "idempotency_key": format!("{key}-undo")}),
            )
            .await;
        let undone =
            data(&undone).unwrap_or_else(|| panic!("apply_change of the revert: {undone}"));
        assert_eq!(undone["status"], "succeeded", "{undone}");
        for (_, d) in &files {
            assert!(
                !library.join(d).exists(),
                "{d} is still there after the revert"
            );
        }
        for (p, bytes) in &originals {
            assert_eq!(&std::fs::read(p).unwrap(), bytes, "{} changed", p.display());
        }
        // The copy in flight's temporary file goes with the revert: its writer is gone.
        let parts: Vec<String> = entries(&library)
            .into_iter()
            .filter(|e| e.ends_with(".part"))
            .collect();
        assert!(
            parts.is_empty(),
            "the revert left temporary files: {parts:?}"
        );
        for stray in entries(&library) {
            std::fs::remove_file(library.join(stray)).unwrap();
        }
        let how = if acked.is_ok() { "answered" } else { "cut" };
        *tally.entry(format!("{how} {mode} {status}")).or_default() += 1;
    }
    println!(
        "harness: crash-organize {} rounds, outcomes {tally:?}, {mid_way} killed mid-organise, seed {seed}",
        rounds()
    );
    assert!(
        rounds() < 2 || mid_way > 0,
        "no round's kill landed among the organise's steps"
    );
}
