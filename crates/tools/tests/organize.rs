//! `plan_organize` end to end through the core, on real folders: a small download tree (a film
//! with a subtitle and a sample, a two-episode season, junk) planned as a hard-link organise
//! into a second folder instance, applied with `apply_change` (the same inode on both sides),
//! a destination that exists refused at planning and, when it appears after planning, at
//! apply with nothing done; reverted with `revert_change`; and bad input answered as the issue
//! says (unknown instance → the valid ids; outside the root and missing → one answer).

#![allow(clippy::unwrap_used)]

use std::{os::unix::fs::MetadataExt, path::Path, sync::Arc};

use domain::{FolderMedia, FolderRole, InstanceKind, Role};
use serde_json::{Value, json};
use store::Store;
use tools::{App, Called, Caller, FolderUse, InstanceSpec, Instances, Output, Settings, ToolError};

struct Fixture {
    app: Arc<App>,
    store: Store,
    owner: Caller,
    owner_id: domain::PersonId,
    /// An operator (files.write, not the owner): their organise waits for the owner.
    operator: Caller,
    downloads: std::path::PathBuf,
    library: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn spec(id: &str, kind: InstanceKind, path: Option<&Path>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: None,
        path: path.map(|p| p.display().to_string()),
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

fn put(root: &Path, rel: &str, body: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

const HEAT: &str = "Heat.1995.1080p.BluRay.x264-GRP";
const WIRE: &str = "The.Wire.S01.720p.HDTV.x264-GRP";

async fn fixture() -> Fixture {
    fixture_with(&[]).await
}

/// With these folder instances' roles and media types set as the config would.
async fn fixture_with(uses: &[(&str, FolderUse)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let downloads = dir.path().join("downloads");
    let library = dir.path().join("library");
    std::fs::create_dir_all(&library).unwrap();
    put(&downloads, &format!("{HEAT}/{HEAT}.mkv"), b"heat video");
    put(&downloads, &format!("{HEAT}/{HEAT}.en.srt"), b"1\nhello\n");
    put(&downloads, &format!("{HEAT}/Sample/heat-sample.mkv"), b"s");
    put(
        &downloads,
        &format!("{WIRE}/The.Wire.S01E01.The.Target.720p.HDTV.x264-GRP.mkv"),
        b"episode one",
    );
    put(
        &downloads,
        &format!("{WIRE}/The.Wire.S01E02.The.Detail.720p.HDTV.x264-GRP.mkv"),
        b"episode two",
    );
    put(&downloads, &format!("{WIRE}/readme.txt"), b"junk");
    put(dir.path(), "outside.mkv", b"not beneath any root");
    let list = vec![
        spec("builtin", InstanceKind::Builtin, None),
        spec("downloads", InstanceKind::Folder, Some(&downloads)),
        spec("library", InstanceKind::Folder, Some(&library)),
    ];
    let store = Store::open(dir.path()).await.unwrap();
    let (owner_person, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let op = store.add_person("op", Role::User).await.unwrap();
    let op_key = store
        .create_key(op.id, "operator", None, None)
        .await
        .unwrap();
    let app = Arc::new(tools::app(
        store.clone(),
        Arc::new(Settings::new(false, None)),
        Arc::new(
            Instances::new(list)
                .unwrap()
                .with_folders(uses.iter().map(|(id, u)| (id.to_string(), *u))),
        ),
    ));
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let operator = app
        .authenticate(op_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    Fixture {
        app,
        store,
        owner,
        owner_id: owner_person.id,
        operator,
        downloads,
        library,
        _dir: dir,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Result<Output, ToolError> {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(r) => r,
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

async fn ok(app: &App, caller: &Caller, name: &str, args: Value) -> Value {
    match call(app, caller, name, args).await {
        Ok(out) => out.data(),
        Err(e) => panic!("{name} failed: {}", e.message),
    }
}

async fn refused(app: &App, caller: &Caller, name: &str, args: Value) -> ToolError {
    match call(app, caller, name, args).await {
        Ok(out) => panic!("{name} answered: {}", out.summary),
        Err(e) => e,
    }
}

fn organise(paths: &[&str]) -> Value {
    json!({
        "instance_id": "downloads",
        "paths": paths,
        "target_instance_id": "library",
        "mode": "hardlink",
    })
}

fn files_under(root: &Path) -> Vec<String> {
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

const PLACED: [&str; 4] = [
    "Heat (1995)/Heat (1995) - 1080p.en.srt",
    "Heat (1995)/Heat (1995) - 1080p.mkv",
    "The Wire/Season 01/The Wire - S01E01 - The Target.mkv",
    "The Wire/Season 01/The Wire - S01E02 - The Detail.mkv",
];

#[tokio::test]
async fn a_hard_link_organise_is_planned_applied_and_reverted() {
    let f = fixture().await;
    let planned = ok(&f.app, &f.owner, "plan_organize", organise(&[HEAT, WIRE])).await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    assert_eq!(planned["status"], "pending");
    let mut pairs: Vec<(String, String)> = planned["plan"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["destination"].as_str().unwrap().to_string(),
                f["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    pairs.sort();
    let destinations: Vec<&str> = pairs.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(destinations, PLACED);
    assert_eq!(
        pairs[0].1,
        format!("{HEAT}/{HEAT}.en.srt"),
        "the subtitle travels with its film"
    );
    let skipped: Vec<&str> = planned["plan"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert!(skipped.contains(&"Heat.1995.1080p.BluRay.x264-GRP/Sample/heat-sample.mkv"));
    assert!(skipped.contains(&"The.Wire.S01.720p.HDTV.x264-GRP/readme.txt"));
    assert!(
        files_under(&f.library).is_empty(),
        "planning writes nothing"
    );

    // The owner's review shows every source → destination.
    let change = f.store.change(&change_id).await.unwrap().unwrap();
    let view = f.app.describe_plan(&change);
    assert!(
        view.effect.starts_with("Hard-links 4 files"),
        "{}",
        view.effect
    );
    assert_eq!(view.tables[0].rows.len(), 4);
    assert!(
        view.tables[0]
            .rows
            .iter()
            .any(|r| r[0] == format!("{HEAT}/{HEAT}.mkv")
                && r[1] == "Heat (1995)/Heat (1995) - 1080p.mkv")
    );

    let op = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-1"}),
    )
    .await;
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(op["result"]["ok"], 4, "{op}");
    let outcomes: Vec<&str> = op["result"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["done"; 4]);
    assert_eq!(files_under(&f.library), PLACED);
    for (dest, source) in &pairs {
        let (a, b) = (
            std::fs::metadata(f.downloads.join(source)).unwrap(),
            std::fs::metadata(f.library.join(dest)).unwrap(),
        );
        assert_eq!(
            (a.dev(), a.ino()),
            (b.dev(), b.ino()),
            "{dest} is a hard link"
        );
    }
    // The same key answers the same operation; nothing runs twice.
    let again = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-1"}),
    )
    .await;
    assert_eq!(again["operation_id"], op["operation_id"]);

    // Organising the same files again: every destination is taken, so nothing is planned.
    let e = refused(&f.app, &f.owner, "plan_organize", organise(&[HEAT])).await;
    assert_eq!(e.code.as_str(), "conflict", "{}", e.message);
    assert!(
        e.message.contains("Heat (1995)/Heat (1995) - 1080p.mkv"),
        "{}",
        e.message
    );

    // Undone: the links go, the downloads stay, the emptied folders go.
    let revert = ok(
        &f.app,
        &f.owner,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    let revert_id = revert["change_id"].as_str().unwrap();
    let revert_change = f.store.change(revert_id).await.unwrap().unwrap();
    assert_eq!(revert_change.tool, "plan_organize");
    assert!(
        f.app
            .describe_plan(&revert_change)
            .effect
            .contains(&format!(
                "Undoes change {change_id}: removes the 4 hard links"
            )),
    );
    let undone = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": revert_id, "idempotency_key": "organise-undo-1"}),
    )
    .await;
    assert_eq!(undone["status"], "succeeded", "{undone}");
    assert!(files_under(&f.library).is_empty());
    assert_eq!(std::fs::read_dir(&f.library).unwrap().count(), 0);
    assert_eq!(
        std::fs::read(f.downloads.join(format!("{HEAT}/{HEAT}.mkv"))).unwrap(),
        b"heat video"
    );
    // A change is reverted once, and a revert is not reverted.
    let e = refused(
        &f.app,
        &f.owner,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    assert!(
        e.message.contains("already has its revert"),
        "{}",
        e.message
    );
    let e = refused(
        &f.app,
        &f.owner,
        "revert_change",
        json!({"change_id": revert_id}),
    )
    .await;
    assert!(e.message.contains("cannot be reverted"), "{}", e.message);
}

#[tokio::test]
async fn a_destination_that_appears_after_planning_refuses_the_apply_and_nothing_is_done() {
    let f = fixture().await;
    let planned = ok(&f.app, &f.owner, "plan_organize", organise(&[HEAT, WIRE])).await;
    let change_id = planned["change_id"].as_str().unwrap();
    put(
        &f.library,
        "The Wire/Season 01/The Wire - S01E02 - The Detail.mkv",
        b"someone else's",
    );
    let e = refused(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-stale"}),
    )
    .await;
    assert_eq!(e.code.as_str(), "stale_plan", "{}", e.message);
    assert_eq!(
        files_under(&f.library),
        ["The Wire/Season 01/The Wire - S01E02 - The Detail.mkv"],
        "nothing was placed"
    );
    assert_eq!(
        std::fs::read(
            f.library
                .join("The Wire/Season 01/The Wire - S01E02 - The Detail.mkv")
        )
        .unwrap(),
        b"someone else's",
        "nothing was replaced"
    );
}

#[tokio::test]
async fn an_operators_organise_waits_for_the_owner() {
    let f = fixture().await;
    let planned = ok(&f.app, &f.operator, "plan_organize", organise(&[HEAT])).await;
    let change_id = planned["change_id"].as_str().unwrap();
    assert!(planned["missing_authority"].is_string(), "{planned}");
    let e = refused(
        &f.app,
        &f.operator,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-op-1"}),
    )
    .await;
    assert!(
        e.message.contains("waits for the owner's approval"),
        "{}",
        e.message
    );
    assert!(files_under(&f.library).is_empty());
    let change = f.store.change(change_id).await.unwrap().unwrap();
    f.store
        .decide_change(change_id, f.owner_id, true, &change.content_hash)
        .await
        .unwrap();
    let op = ok(
        &f.app,
        &f.operator,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-op-2"}),
    )
    .await;
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(files_under(&f.library), PLACED[..2]);
}

#[tokio::test]
async fn bad_input_is_refused_before_anything_is_planned() {
    let f = fixture().await;
    let mut args = organise(&[HEAT]);
    args["target_instance_id"] = json!("nowhere");
    let e = refused(&f.app, &f.owner, "plan_organize", args).await;
    assert!(
        e.message.contains("unknown target_instance_id \"nowhere\"")
            && e.message.contains("downloads, library"),
        "{}",
        e.message
    );
    // Outside the root and missing: the same answer, with only the name given changed.
    let outside = refused(
        &f.app,
        &f.owner,
        "plan_organize",
        organise(&["../outside.mkv"]),
    )
    .await;
    let missing = refused(
        &f.app,
        &f.owner,
        "plan_organize",
        organise(&["../absent.mkv"]),
    )
    .await;
    assert_eq!(outside.code.as_str(), "not_found");
    assert_eq!(
        outside.message.replace("outside", "X"),
        missing.message.replace("absent", "X")
    );
    let mut args = organise(&[HEAT]);
    args["template"] = json!("{title}/{nope}");
    let e = refused(&f.app, &f.owner, "plan_organize", args).await;
    assert!(
        e.message.contains("unknown template field {nope}"),
        "{}",
        e.message
    );
    let mut args = organise(&[HEAT]);
    args["mode"] = json!("teleport");
    refused(&f.app, &f.owner, "plan_organize", args).await;
    // One bad path refuses the whole call: nothing is stored.
    refused(&f.app, &f.owner, "plan_organize", organise(&[HEAT, "nope"])).await;
    assert!(f.store.changes_page(None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_downloads_folder_is_never_a_target_and_a_films_library_leaves_episodes_out() {
    let downloads = FolderUse {
        role: FolderRole::Downloads,
        media_type: None,
    };
    let films = FolderUse {
        role: FolderRole::Library,
        media_type: Some(FolderMedia::Movie),
    };
    let f = fixture_with(&[("downloads", downloads), ("library", films)]).await;
    let listed = ok(&f.app, &f.owner, "list_instances", json!({})).await;
    let row = |id: &str| {
        listed["instances"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(row("downloads")["role"], "downloads");
    assert_eq!(row("library")["role"], "library");
    assert_eq!(row("library")["media_type"], "movie");
    assert!(row("builtin").get("role").is_none());

    // Into the downloads folder: refused, naming the library folders; nothing stored.
    let mut args = organise(&[HEAT]);
    args["instance_id"] = json!("library");
    args["target_instance_id"] = json!("downloads");
    let e = refused(&f.app, &f.owner, "plan_organize", args).await;
    assert_eq!(e.code.as_str(), "invalid_argument");
    assert!(
        e.message.contains("\"downloads\" is a downloads folder")
            && e.message.contains("(library)")
            && e.message.contains("nothing was planned"),
        "{}",
        e.message
    );
    assert!(f.store.changes_page(None, 10).await.unwrap().is_empty());

    // Into the films library: the film is planned, the season's episodes are left out, said.
    let planned = call(&f.app, &f.owner, "plan_organize", organise(&[HEAT, WIRE]))
        .await
        .unwrap();
    let data = planned.data();
    let dests: Vec<String> = planned_files(&data).into_iter().map(|(_, d)| d).collect();
    assert_eq!(
        dests,
        vec![
            "Heat (1995)/Heat (1995) - 1080p.mkv".to_string(),
            "Heat (1995)/Heat (1995) - 1080p.en.srt".to_string(),
        ]
    );
    let warned = planned.warnings.join(" ");
    assert!(
        warned.contains("an episode, and the target folder holds films only"),
        "{warned}"
    );
    // Only episodes named: nothing to organise, said so.
    let e = refused(&f.app, &f.owner, "plan_organize", organise(&[WIRE])).await;
    assert!(e.message.contains("nothing to organise"), "{}", e.message);
}

#[tokio::test]
async fn a_hard_link_across_file_systems_is_refused_at_planning_and_a_copy_is_offered() {
    let f = fixture().await;
    // A second library on another file system (Linux's /dev/shm is tmpfs).
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let list = vec![
        spec("downloads", InstanceKind::Folder, Some(&f.downloads)),
        spec("elsewhere", InstanceKind::Folder, Some(shm.path())),
    ];
    let app = tools::app(
        f.store.clone(),
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let mut args = organise(&[HEAT]);
    args["target_instance_id"] = json!("elsewhere");
    let e = refused(&app, &f.owner, "plan_organize", args.clone()).await;
    assert!(
        e.message.contains("different file systems") && e.message.contains("mode copy"),
        "{}",
        e.message
    );
    args["mode"] = json!("copy");
    let planned = ok(&app, &f.owner, "plan_organize", args).await;
    let op = ok(
        &app,
        &f.owner,
        "apply_change",
        json!({"change_id": planned["change_id"], "idempotency_key": "organise-copy-1"}),
    )
    .await;
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(
        std::fs::read(shm.path().join("Heat (1995)/Heat (1995) - 1080p.mkv")).unwrap(),
        b"heat video"
    );
    assert!(
        f.downloads.join(format!("{HEAT}/{HEAT}.mkv")).exists(),
        "a copy leaves the source"
    );
}

/// Holds the call at its `at`-th progress report (an organise reports one before each file's
/// step) until the test lets it go.
struct Gate {
    at: f64,
    reached: std::sync::mpsc::SyncSender<()>,
    go: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl tools::report::Report for Gate {
    fn progress(&self, done: f64, _total: Option<f64>, _message: &str) {
        if done == self.at {
            let _ = self.reached.send(());
            let _ = self.go.lock().unwrap().recv();
        }
    }
    fn log(&self, _: tools::report::Level, _: &str, _: &str) {}
}

/// The destinations beneath `library` in the plan's order.
fn planned_files(planned: &Value) -> Vec<(String, String)> {
    planned["plan"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["source"].as_str().unwrap().to_string(),
                f["destination"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn outcomes(op: &Value) -> Vec<String> {
    op["result"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn a_cancelled_organise_stops_before_its_next_file_and_its_revert_removes_only_what_it_placed()
 {
    let f = fixture().await;
    let planned = ok(&f.app, &f.owner, "plan_organize", organise(&[HEAT, WIRE])).await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    let files = planned_files(&planned);
    assert_eq!(files.len(), 4);
    // Held before the third file's step: two files are placed by then.
    let (reached_tx, reached) = std::sync::mpsc::sync_channel(1);
    let (go, go_rx) = std::sync::mpsc::channel();
    let gate = Arc::new(Gate {
        at: 3.0,
        reached: reached_tx,
        go: std::sync::Mutex::new(go_rx),
    });
    let apply = {
        let (app, owner, change_id) = (f.app.clone(), f.owner.clone(), change_id.clone());
        tokio::spawn(async move {
            let line = tools::Line {
                report: Some(gate),
                asker: None,
            };
            let args = json!({"change_id": change_id, "idempotency_key": "organise-cancel-1"});
            match app
                .call_reporting(&owner, "apply_change", args.as_object().cloned(), line)
                .await
            {
                Called::Done(r) => r,
                Called::UnknownTool => panic!("apply_change"),
            }
        })
    };
    tokio::task::spawn_blocking(move || reached.recv().unwrap())
        .await
        .unwrap();
    let op_id = f
        .store
        .operation_for_change(&change_id)
        .await
        .unwrap()
        .unwrap()
        .id;
    let cancelling = ok(
        &f.app,
        &f.owner,
        "cancel_operation",
        json!({"operation_id": op_id}),
    )
    .await;
    assert_eq!(cancelling["status"], "cancelling", "{cancelling}");
    go.send(()).unwrap();
    let op = apply.await.unwrap().unwrap().data();
    assert_eq!(op["status"], "cancelled", "{op}");
    assert_eq!(op["result"]["cancelled"], true, "{op}");
    assert_eq!(
        (
            op["result"]["ok"].as_u64(),
            op["result"]["not_done"].as_u64()
        ),
        (Some(2), Some(2)),
        "{op}"
    );
    assert_eq!(outcomes(&op), ["done", "done", "not_done", "not_done"]);
    let mut placed: Vec<String> = files[..2].iter().map(|(_, d)| d.clone()).collect();
    placed.sort();
    assert_eq!(
        files_under(&f.library),
        placed,
        "nothing after the cancellation"
    );
    let shown = ok(
        &f.app,
        &f.owner,
        "get_operation",
        json!({"operation_id": op_id}),
    )
    .await;
    assert_eq!(shown["status"], "cancelled", "{shown}");
    assert_eq!(outcomes(&shown), outcomes(&op));

    // The cancelled organise's revert removes the two files it placed, nothing else.
    let revert = ok(
        &f.app,
        &f.owner,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    let undo: Vec<(String, String)> = planned_files(&revert);
    assert_eq!(undo, files[..2], "{revert}");
    let undone = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": revert["change_id"], "idempotency_key": "organise-cancel-undo"}),
    )
    .await;
    assert_eq!(undone["status"], "succeeded", "{undone}");
    assert!(files_under(&f.library).is_empty());
    for (source, _) in &files {
        assert!(f.downloads.join(source).is_file(), "{source} stays");
    }
}

#[tokio::test]
async fn an_organise_with_failed_files_reports_each_and_its_revert_undoes_only_the_placed_ones() {
    let f = fixture().await;
    let planned = ok(&f.app, &f.owner, "plan_organize", organise(&[HEAT, WIRE])).await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    // After planning, a file takes the name of the show's folder: the episodes cannot be
    // placed (their folder cannot be made), while what the plan read is unchanged.
    put(&f.library, "The Wire", b"not a folder");
    let op = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-partial-1"}),
    )
    .await;
    assert_eq!(
        (op["result"]["ok"].as_u64(), op["result"]["failed"].as_u64()),
        (Some(2), Some(2)),
        "{op}"
    );
    let results = op["result"]["results"].as_array().unwrap();
    for r in results {
        let episode = r["source"].as_str().unwrap().starts_with(WIRE);
        let expected = if episode { "failed" } else { "done" };
        assert_eq!(r["outcome"], expected, "{r}");
        if episode {
            assert!(
                r["message"].as_str().unwrap().contains("The Wire"),
                "the failure names the file: {r}"
            );
        }
    }
    assert_eq!(
        files_under(&f.library),
        [
            "Heat (1995)/Heat (1995) - 1080p.en.srt",
            "Heat (1995)/Heat (1995) - 1080p.mkv",
            "The Wire",
        ]
    );
    let revert = ok(
        &f.app,
        &f.owner,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    let undo: Vec<String> = planned_files(&revert).into_iter().map(|(_, d)| d).collect();
    assert_eq!(
        undo,
        [
            "Heat (1995)/Heat (1995) - 1080p.mkv",
            "Heat (1995)/Heat (1995) - 1080p.en.srt"
        ],
        "only the placed files are undone: {revert}"
    );
    let undone = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": revert["change_id"], "idempotency_key": "organise-partial-undo"}),
    )
    .await;
    assert_eq!(undone["status"], "succeeded", "{undone}");
    assert_eq!(outcomes(&undone), ["done", "done"]);
    assert_eq!(files_under(&f.library), ["The Wire"]);
    assert_eq!(
        std::fs::read(f.library.join("The Wire")).unwrap(),
        b"not a folder",
        "what the organise did not make stays"
    );
}

#[tokio::test]
async fn an_organise_is_reverted_by_whoever_planned_it_holding_files_write() {
    let f = fixture().await;
    let planned = ok(&f.app, &f.operator, "plan_organize", organise(&[HEAT])).await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    let change = f.store.change(&change_id).await.unwrap().unwrap();
    f.store
        .decide_change(&change_id, f.owner_id, true, &change.content_hash)
        .await
        .unwrap();
    let op = ok(
        &f.app,
        &f.operator,
        "apply_change",
        json!({"change_id": change_id, "idempotency_key": "organise-who-1"}),
    )
    .await;
    assert_eq!(op["status"], "succeeded", "{op}");

    // Another operator did not plan it: for them it does not exist.
    let other = f.store.add_person("otto", Role::User).await.unwrap();
    let other_key = f
        .store
        .create_key(other.id, "operator", None, None)
        .await
        .unwrap();
    let otto = f
        .app
        .authenticate(other_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let e = refused(
        &f.app,
        &otto,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    assert_eq!(e.code.as_str(), "not_found", "{}", e.message);

    // The planner, on a key whose grant holds settings.write but not files.write: refused,
    // naming what is missing.
    let mut spec = store::GrantSpec::default();
    spec.capabilities.insert(domain::Capability::SettingsWrite);
    f.store.create_grant("settings-only", &spec).await.unwrap();
    let op_person = f.store.person_by_name("op").await.unwrap().unwrap();
    let narrow_key = f
        .store
        .create_key(op_person.id, "settings-only", None, None)
        .await
        .unwrap();
    let narrow = f
        .app
        .authenticate(narrow_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let e = refused(
        &f.app,
        &narrow,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    assert_eq!(e.code.as_str(), "denied", "{}", e.message);
    assert!(
        e.message.contains("needs files.write"),
        "{}: {}",
        e.code.as_str(),
        e.message
    );

    // A reader holds neither settings.write nor files.write: no revert_change at all.
    let reader = f.store.add_person("rita", Role::User).await.unwrap();
    let reader_key = f
        .store
        .create_key(reader.id, "reader", None, None)
        .await
        .unwrap();
    let rita = f
        .app
        .authenticate(reader_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let e = refused(
        &f.app,
        &rita,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    assert_eq!(e.code.as_str(), "denied", "{}", e.message);
    assert!(
        e.message.contains("settings.write\" or \"files.write"),
        "{}",
        e.message
    );
    assert!(f.library.join("Heat (1995)").is_dir(), "nothing undone yet");

    // The owner switched plan_organize off for the operator: the revert of one is refused by
    // the same decision a call of it gets, and nothing is planned.
    let op_person = f.store.person_by_name("op").await.unwrap().unwrap();
    f.store
        .set_person_tool_switch(op_person.id, "plan_organize", false)
        .await
        .unwrap();
    let switched_key = f
        .store
        .create_key(op_person.id, "operator", None, None)
        .await
        .unwrap();
    let switched = f
        .app
        .authenticate(switched_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let before = f.store.changes_page(None, 50).await.unwrap().len();
    let e = refused(
        &f.app,
        &switched,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    assert_eq!(e.code.as_str(), "denied", "{}", e.message);
    assert_eq!(f.store.changes_page(None, 50).await.unwrap().len(), before);
    f.store
        .set_person_tool_switch(op_person.id, "plan_organize", true)
        .await
        .unwrap();

    // The operator who planned it (files.write, no settings.write) plans its revert; the
    // owner approves it like any change.
    let revert = ok(
        &f.app,
        &f.operator,
        "revert_change",
        json!({"change_id": change_id}),
    )
    .await;
    let revert_id = revert["change_id"].as_str().unwrap().to_string();
    assert!(revert["missing_authority"].is_string(), "{revert}");
    let e = refused(
        &f.app,
        &f.operator,
        "apply_change",
        json!({"change_id": revert_id, "idempotency_key": "organise-who-undo-0"}),
    )
    .await;
    assert!(
        e.message.contains("waits for the owner's approval"),
        "{}",
        e.message
    );
    let rc = f.store.change(&revert_id).await.unwrap().unwrap();
    f.store
        .decide_change(&revert_id, f.owner_id, true, &rc.content_hash)
        .await
        .unwrap();
    let undone = ok(
        &f.app,
        &f.operator,
        "apply_change",
        json!({"change_id": revert_id, "idempotency_key": "organise-who-undo-1"}),
    )
    .await;
    assert_eq!(undone["status"], "succeeded", "{undone}");
    assert!(files_under(&f.library).is_empty());
}
