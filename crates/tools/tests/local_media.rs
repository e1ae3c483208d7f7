//! The index of media files on disk through the core: `scan_library` over a generated tree (a
//! movie with subtitles and a sample, a show's season, an album, junk) counts what it found,
//! a rescan reads only what changed and drops what is gone, `find_local_media` groups by title
//! and season, and a kid's limits hide a title above its rating with a count.

#![allow(clippy::unwrap_used)]

use std::{
    path::Path,
    sync::{Arc, Mutex},
};

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::{ContentLimits, Store};
use tools::{App, Called, Caller, InstanceSpec, Instances, Line, Output, Settings, report};

struct Fixture {
    app: App,
    owner: Caller,
    kid: Caller,
    root: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn spec(id: &str, kind: InstanceKind, path: Option<String>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: None,
        path,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

/// A sparse file of `size` bytes.
fn file(root: &Path, rel: &str, size: u64) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::File::create(&p).unwrap().set_len(size).unwrap();
}

/// The tree the scan reads: 7 media files, a sample, 3 junk files.
fn tree(root: &Path) {
    file(
        root,
        "Movies/Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv",
        3_000_000,
    );
    file(
        root,
        "Movies/Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.en.srt",
        40_000,
    );
    file(root, "Movies/Heat (1995)/Sample/heat-sample.mkv", 10_000);
    file(root, "Movies/Heat (1995)/movie.nfo", 100);
    file(
        root,
        "Movies/Toy Story (1995)/Toy.Story.1995.720p.WEB-DL.DD5.1.H.264-GRP.mkv",
        2_000_000,
    );
    file(
        root,
        "TV/Show Name/Season 01/Show.Name.S01E01.720p.HDTV.x264-GRP.mkv",
        500_000,
    );
    file(
        root,
        "TV/Show Name/Season 01/Show.Name.S01E03.720p.HDTV.x264-GRP.mkv",
        600_000,
    );
    file(
        root,
        "Music/Pink Floyd/The Dark Side of the Moon (1973)/03 - Time.flac",
        70_000,
    );
    file(root, "----.mkv", 1_000);
    file(root, "notes.txt", 10);
    file(root, "cover.jpg", 10);
}

async fn fixture(extra: Vec<InstanceSpec>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("library");
    std::fs::create_dir(&root).unwrap();
    tree(&root);
    let mut list = vec![
        spec("builtin", InstanceKind::Builtin, None),
        spec(
            "library",
            InstanceKind::Folder,
            Some(root.display().to_string()),
        ),
    ];
    list.extend(extra);
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let kid = store.add_person("kid", Role::User).await.unwrap();
    store
        .set_limits(
            kid.id,
            &ContentLimits {
                max_movie_cert: Some("PG".into()),
                rating_region: Some("US".into()),
                ..ContentLimits::default()
            },
        )
        .await
        .unwrap();
    let kid_key = store
        .create_key(kid.id, "requester", None, None)
        .await
        .unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let kid = app
        .authenticate(kid_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    Fixture {
        app,
        owner,
        kid,
        root,
        _dir: dir,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Output {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => out,
        Called::Done(Err(e)) => panic!("{name} failed: {}", e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

async fn refused(app: &App, caller: &Caller, name: &str, args: Value) -> String {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Err(e)) => e.message,
        Called::Done(Ok(out)) => panic!("{name} answered: {}", out.summary),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

fn titles(d: &Value) -> Vec<String> {
    d["titles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_scan_counts_the_tree_and_a_rescan_reads_only_what_changed() {
    let f = fixture(Vec::new()).await;
    let out = call(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await;
    let d = out.data();
    assert_eq!(d["media_files"], 7, "{d}");
    assert_eq!(d["added"], 7, "{d}");
    assert_eq!(d["changed"], 0);
    assert_eq!(d["removed"], 0);
    assert_eq!(d["unchanged"], 0);
    assert_eq!(d["samples"], 1, "{d}");
    assert_eq!(d["ignored"], 3, "{d}");
    assert_eq!(d["unrecognised"], 1, "{d}");
    assert_eq!(d["unrecognised_sample"], json!(["----.mkv"]));
    assert_eq!(d["complete"], true);

    // One file changes size, one goes.
    std::fs::OpenOptions::new()
        .write(true)
        .open(
            f.root
                .join("Movies/Toy Story (1995)/Toy.Story.1995.720p.WEB-DL.DD5.1.H.264-GRP.mkv"),
        )
        .unwrap()
        .set_len(2_500_000)
        .unwrap();
    std::fs::remove_file(
        f.root
            .join("TV/Show Name/Season 01/Show.Name.S01E03.720p.HDTV.x264-GRP.mkv"),
    )
    .unwrap();
    let d = call(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await
    .data();
    assert_eq!(d["added"], 0, "{d}");
    assert_eq!(d["changed"], 1, "{d}");
    assert_eq!(d["removed"], 1, "{d}");
    assert_eq!(d["unchanged"], 5, "{d}");
    assert_eq!(
        d["unrecognised"], 0,
        "unchanged files are not read again: {d}"
    );

    let found = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"query": "toy story"}),
    )
    .await
    .data();
    assert_eq!(found["titles"][0]["size_bytes"], 2_500_000, "{found}");
}

#[tokio::test]
async fn find_groups_by_title_with_seasons_quality_and_languages() {
    let f = fixture(Vec::new()).await;
    call(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await;
    let d = call(&f.app, &f.owner, "find_local_media", json!({}))
        .await
        .data();
    assert_eq!(
        titles(&d),
        [
            "Heat",
            "Show Name",
            "The Dark Side of the Moon",
            "Toy Story"
        ],
        "{d}"
    );
    assert_eq!(d["total_titles"], 4);
    assert_eq!(d["hidden"], 0);
    assert_eq!(d["unrecognised_files"], 1);

    let heat = &d["titles"][0];
    assert_eq!(heat["media_type"], "movie");
    assert_eq!(heat["year"], 1995);
    assert_eq!(heat["media_source"], "builtin");
    assert_eq!(heat["media_id"], "tt0113277");
    assert_eq!(heat["size_bytes"], 3_040_000);
    assert_eq!(heat["screen_sizes"], json!(["1080p"]));
    assert_eq!(heat["subtitle_languages"], json!(["en"]), "{heat}");
    assert_eq!(heat["files"].as_array().unwrap().len(), 2);
    assert_eq!(heat["files"][0]["source"], "Blu-ray");
    assert_eq!(heat["files"][0]["video_codec"], "H.264");

    let show = &d["titles"][1];
    assert_eq!(show["media_type"], "tv");
    assert_eq!(
        show["seasons"],
        json!([{"season": 1, "episodes": [1, 3], "gaps": [2], "size_bytes": 1_100_000}]),
        "{show}"
    );

    let album = &d["titles"][2];
    assert_eq!(album["media_type"], "music");
    assert_eq!(album["artist"], "Pink Floyd");
    assert_eq!(album["year"], 1973);
    assert_eq!(album["files"][0]["track_title"], "Time");

    // Filters: media type, identity, instance; paging.
    let tv = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"media_type": "tv"}),
    )
    .await;
    assert_eq!(titles(&tv.data()), ["Show Name"]);
    assert!(
        tv.warnings.iter().any(|w| w.contains("episodes")),
        "{:?}",
        tv.warnings
    );
    let by_id = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"media_source": "builtin", "media_id": "tt0113277"}),
    )
    .await
    .data();
    assert_eq!(titles(&by_id), ["Heat"]);
    let page = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"limit": 3, "offset": 2}),
    )
    .await
    .data();
    assert_eq!(titles(&page), ["The Dark Side of the Moon", "Toy Story"]);
    assert_eq!(page["next_offset"], Value::Null);
    let music = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"media_type": "music", "query": "pink floyd"}),
    )
    .await
    .data();
    assert_eq!(titles(&music), ["The Dark Side of the Moon"]);
}

#[tokio::test]
async fn a_kids_limits_hide_titles_above_its_rating_and_count_them() {
    let f = fixture(Vec::new()).await;
    call(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await;
    let out = call(
        &f.app,
        &f.kid,
        "find_local_media",
        json!({"media_type": "movie"}),
    )
    .await;
    let d = out.data();
    // Heat is rated R: hidden and counted, never named.
    assert_eq!(titles(&d), ["Toy Story"], "{d}");
    assert_eq!(d["hidden"], 1);
    assert!(!out.summary.contains("Heat"));
    assert!(!d.to_string().contains("Heat"));
    // The show has no identity to rate (no catalogue knows shows): hidden too; music passes.
    let all = call(&f.app, &f.kid, "find_local_media", json!({}))
        .await
        .data();
    assert_eq!(
        titles(&all),
        ["The Dark Side of the Moon", "Toy Story"],
        "{all}"
    );
    assert_eq!(all["hidden"], 2);
    // The owner sees both movies.
    let owner = call(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"media_type": "movie"}),
    )
    .await
    .data();
    assert_eq!(titles(&owner), ["Heat", "Toy Story"]);
}

#[tokio::test]
async fn a_kept_page_holds_until_a_scan_changes_the_index() {
    let f = fixture(Vec::new()).await;
    let scan = || {
        call(
            &f.app,
            &f.owner,
            "scan_library",
            json!({"instance_id": "library"}),
        )
    };
    let movies = || {
        call(
            &f.app,
            &f.owner,
            "find_local_media",
            json!({"media_type": "movie"}),
        )
    };
    scan().await;
    let first = movies().await;
    assert_eq!(titles(&first.data()), ["Heat", "Toy Story"]);
    // A file dropped in is not in the index until a scan reads it; the page asked again is
    // the kept one, the very answer.
    file(
        &f.root,
        "Movies/Alien (1979)/Alien.1979.1080p.BluRay.x264-GRP.mkv",
        3_000_000,
    );
    let again = movies().await;
    assert_eq!(again.data(), first.data());
    assert_eq!(
        again.observed_at, first.observed_at,
        "handed out again, not read again"
    );
    // The scan changes the index: the next page is read afresh.
    scan().await;
    assert_eq!(
        titles(&movies().await.data()),
        ["Alien", "Heat", "Toy Story"]
    );
    // A file gone and a rescan: gone from the page too.
    std::fs::remove_file(
        f.root
            .join("Movies/Alien (1979)/Alien.1979.1080p.BluRay.x264-GRP.mkv"),
    )
    .unwrap();
    scan().await;
    assert_eq!(titles(&movies().await.data()), ["Heat", "Toy Story"]);
}

#[tokio::test]
async fn a_kids_scan_does_not_show_unrecognised_paths() {
    let f = fixture(Vec::new()).await;
    let out = call(
        &f.app,
        &f.kid,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await;
    assert_eq!(out.data()["unrecognised"], 1);
    assert_eq!(out.data()["unrecognised_sample"], json!([]));
}

#[tokio::test]
async fn an_unknown_instance_lists_the_folder_ids_and_a_gone_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let f = fixture(vec![spec(
        "attic",
        InstanceKind::Folder,
        Some(gone.display().to_string()),
    )])
    .await;
    let msg = refused(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "nope"}),
    )
    .await;
    assert!(msg.contains("library") && msg.contains("attic"), "{msg}");
    assert!(!msg.contains("builtin"), "only folder ids: {msg}");
    let msg = refused(
        &f.app,
        &f.owner,
        "find_local_media",
        json!({"instance_id": "nope"}),
    )
    .await;
    assert!(msg.contains("library"), "{msg}");

    let msg = refused(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "attic"}),
    )
    .await;
    assert!(
        msg.contains("\"attic\"") && msg.contains("does not exist"),
        "{msg}"
    );
    // The other folder keeps working.
    let d = call(
        &f.app,
        &f.owner,
        "scan_library",
        json!({"instance_id": "library"}),
    )
    .await
    .data();
    assert_eq!(d["added"], 7);
}

#[tokio::test]
async fn each_folder_has_a_scan_job_that_fills_the_index() {
    let f = fixture(Vec::new()).await;
    let names: Vec<String> = f.app.jobs().iter().map(|j| j.name.clone()).collect();
    assert!(
        names.contains(&"files.scan:library".to_string()),
        "{names:?}"
    );
    let before = call(&f.app, &f.owner, "find_local_media", json!({}))
        .await
        .data();
    assert_eq!(before["total_titles"], 0);
    assert!(f.app.run_job("files.scan:library").await);
    let after = call(&f.app, &f.owner, "find_local_media", json!({}))
        .await
        .data();
    assert_eq!(after["total_titles"], 4, "{after}");
}

/// Collects progress notifications.
#[derive(Default)]
struct Heard(Mutex<Vec<(f64, Option<f64>, String)>>);

impl report::Report for Heard {
    fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        self.0
            .lock()
            .unwrap()
            .push((done, total, message.to_owned()));
    }
    fn log(&self, _: report::Level, _: &str, _: &str) {}
}

#[tokio::test]
async fn a_scan_reports_progress_when_asked() {
    let f = fixture(Vec::new()).await;
    let heard = Arc::new(Heard::default());
    let line = Line {
        report: Some(heard.clone()),
        asker: None,
    };
    let called = f
        .app
        .call_reporting(
            &f.owner,
            "scan_library",
            json!({"instance_id": "library"}).as_object().cloned(),
            line,
        )
        .await;
    assert!(matches!(called, Called::Done(Ok(_))));
    let heard = heard.0.lock().unwrap();
    assert!(
        heard.iter().any(|(_, _, m)| m.contains("walking")),
        "{heard:?}"
    );
    let last = heard.last().unwrap();
    assert_eq!((last.0, last.1), (7.0, Some(7.0)), "{heard:?}");
}

#[tokio::test]
async fn the_tools_are_listed_for_a_files_read_grant() {
    let f = fixture(Vec::new()).await;
    let visible = f.app.visible(&f.kid);
    assert!(visible.contains(&"scan_library"));
    assert!(visible.contains(&"find_local_media"));
}
