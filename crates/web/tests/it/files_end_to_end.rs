//! A household's downloads put where a media server reads them, end to end through the real
//! router and a real headless Chromium: a small tree on disk (a film made by
//! `../shared/media/make_sample.sh` with its subtitles, a sample clip, a two-episode season
//! with a subtitle, junk) in the folder instance `downloads`; `scan_library` indexes it,
//! `find_local_media` finds the film and the season, `probe_media_file` reads the real MKV's
//! streams, an operator plans a hard-link organise into the folder instance `library` (which
//! already holds a file of the household's own), the owner approves it on the review page
//! (screenshots kept among the test artefacts), `apply_change` places the files, and the disk
//! is checked: the same inode at each Jellyfin-layout destination, the subtitles beside their
//! video, the sample and the junk left where they are, the sources untouched and the
//! household's own file neither replaced nor changed.

use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    process::Command,
};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use tools::InstanceSpec;

use crate::support;
use crate::webdriver::Browser;

const PASSWORD: &str = "correct horse battery staple";
const HEAT: &str = "Heat.1995.1080p.BluRay.x264-GRP";
const WIRE: &str = "The.Wire.S01.720p.HDTV.x264-GRP";
const E01: &str = "The.Wire.S01E01.The.Target.720p.HDTV.x264-GRP";
const E02: &str = "The.Wire.S01E02.The.Detail.720p.HDTV.x264-GRP";
/// A file the household already keeps in its library, beside where the episodes go.
const OWN: &str = "The Wire/Season 01/The Wire - S01E03 - The Buys.mkv";

fn folder(id: &str, path: &Path) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind: InstanceKind::Folder,
        url: None,
        path: Some(path.display().to_string()),
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

/// `../shared` beside the checkout (`MARQUEE_SHARED` overrides).
fn shared() -> PathBuf {
    std::env::var_os("MARQUEE_SHARED")
        .map_or_else(|| test_support::beside_checkout("shared"), PathBuf::from)
}

fn put(root: &Path, rel: &str, body: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

/// The tree the household drops into its downloads folder.
fn tree(downloads: &Path, library: &Path) {
    let heat = downloads.join(HEAT);
    std::fs::create_dir_all(heat.join("Sample")).unwrap();
    let script = shared().join("media/make_sample.sh");
    let made = Command::new("bash")
        .arg(&script)
        .arg(heat.join(format!("{HEAT}.mkv")))
        .status()
        .unwrap();
    assert!(made.success(), "{} failed", script.display());
    put(
        downloads,
        &format!("{HEAT}/{HEAT}.en.srt"),
        b"1\n00:00:00,000 --> 00:00:01,000\nHello\n",
    );
    put(
        downloads,
        &format!("{HEAT}/{HEAT}.fr.forced.srt"),
        b"1\n00:00:00,000 --> 00:00:01,000\nBonjour\n",
    );
    put(downloads, &format!("{HEAT}/Sample/heat-sample.mkv"), b"s");
    put(downloads, &format!("{HEAT}/RARBG.txt"), b"junk");
    put(downloads, &format!("{WIRE}/{E01}.mkv"), b"episode one");
    put(
        downloads,
        &format!("{WIRE}/{E01}.en.srt"),
        b"1\n00:00:00,000 --> 00:00:01,000\nHi\n",
    );
    put(downloads, &format!("{WIRE}/{E02}.mkv"), b"episode two");
    put(downloads, &format!("{WIRE}/readme.txt"), b"junk");
    put(library, OWN, b"the household's own copy");
}

/// Every file beneath `root`, relative, sorted.
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

fn data(r: &Value) -> &Value {
    assert_eq!(r["isError"], false, "{r}");
    &r["structuredContent"]["data"]
}

/// Where each source goes, and what the household's library holds afterwards.
const PLACED: [(&str, &str); 6] = [
    (
        "Heat (1995)/Heat (1995) - 1080p.en.srt",
        "Heat.1995.1080p.BluRay.x264-GRP/Heat.1995.1080p.BluRay.x264-GRP.en.srt",
    ),
    (
        "Heat (1995)/Heat (1995) - 1080p.fr.forced.srt",
        "Heat.1995.1080p.BluRay.x264-GRP/Heat.1995.1080p.BluRay.x264-GRP.fr.forced.srt",
    ),
    (
        "Heat (1995)/Heat (1995) - 1080p.mkv",
        "Heat.1995.1080p.BluRay.x264-GRP/Heat.1995.1080p.BluRay.x264-GRP.mkv",
    ),
    (
        "The Wire/Season 01/The Wire - S01E01 - The Target.en.srt",
        "The.Wire.S01.720p.HDTV.x264-GRP/The.Wire.S01E01.The.Target.720p.HDTV.x264-GRP.en.srt",
    ),
    (
        "The Wire/Season 01/The Wire - S01E01 - The Target.mkv",
        "The.Wire.S01.720p.HDTV.x264-GRP/The.Wire.S01E01.The.Target.720p.HDTV.x264-GRP.mkv",
    ),
    (
        "The Wire/Season 01/The Wire - S01E02 - The Detail.mkv",
        "The.Wire.S01.720p.HDTV.x264-GRP/The.Wire.S01E02.The.Detail.720p.HDTV.x264-GRP.mkv",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_are_scanned_found_probed_and_hard_linked_into_the_library_once_the_owner_approves()
 {
    let dir = tempfile::tempdir().unwrap();
    let (downloads, library) = (dir.path().join("downloads"), dir.path().join("library"));
    std::fs::create_dir_all(&library).unwrap();
    tree(&downloads, &library);
    let before = files_under(&downloads);
    let own = std::fs::metadata(library.join(OWN)).unwrap();
    let s = support::server_with_instances(vec![
        support::builtin(),
        folder("downloads", &downloads),
        folder("library", &library),
    ])
    .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    s.host.app.settings().set_public_url(&base);
    s.host
        .app
        .store()
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let operator = s.key_for("olga", Role::User, "operator").await;

    // Scan: every video and subtitle indexed; the sample and the junk are not media to list.
    let scanned = s
        .call(
            &operator,
            "scan_library",
            json!({"instance_id": "downloads"}),
        )
        .await;
    let report = data(&scanned);
    assert_eq!(report["instance_id"], "downloads", "{report}");
    assert_eq!(report["media_files"], 6, "{report}");
    assert_eq!(report["unrecognised"], 0, "{report}");

    // Find: the film and the season, with the season's two episodes.
    let found = s
        .call(
            &operator,
            "find_local_media",
            json!({"instance_id": "downloads"}),
        )
        .await;
    let found = data(&found);
    let titles: Vec<(&str, &str)> = found["titles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["title"].as_str().unwrap(),
                t["media_type"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(titles.contains(&("Heat", "movie")), "{found}");
    assert!(titles.contains(&("The Wire", "tv")), "{found}");
    let wire = found["titles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["title"] == "The Wire")
        .unwrap();
    assert_eq!(wire["seasons"][0]["season"], 1, "{wire}");
    assert_eq!(wire["seasons"][0]["episodes"], json!([1, 2]), "{wire}");
    let heat = found["titles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["title"] == "Heat")
        .unwrap();
    let heat_video = format!("{HEAT}/{HEAT}.mkv");
    assert!(
        heat["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == heat_video.as_str()),
        "{heat}"
    );

    // Probe: the real MKV's streams, and the subtitle files beside it.
    let probed = s
        .call(
            &operator,
            "probe_media_file",
            json!({"instance_id": "downloads", "path": heat_video}),
        )
        .await;
    let p = data(&probed);
    assert_eq!(p["container"], "mkv", "{p}");
    assert_eq!(p["video"]["codec"], "h264", "{p}");
    assert_eq!(
        (p["video"]["width"].as_u64(), p["video"]["height"].as_u64()),
        (Some(320), Some(240))
    );
    let audio: Vec<(&str, u64)> = p["audio"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["language"].as_str().unwrap(),
                a["channels"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(audio, [("en", 6), ("fr", 2)], "{p}");
    assert_eq!(p["subtitles"].as_array().unwrap().len(), 2, "{p}");
    assert_eq!(p["external_subtitles"].as_array().unwrap().len(), 2, "{p}");

    // Plan: the operator lacks nothing for files.write, yet an organise always waits for the
    // owner; planning writes nothing.
    let planned = s
        .call(
            &operator,
            "plan_organize",
            json!({"instance_id": "downloads", "paths": [HEAT, WIRE],
                   "target_instance_id": "library", "mode": "hardlink"}),
        )
        .await;
    let planned = data(&planned);
    let change = planned["change_id"].as_str().unwrap().to_string();
    let review = planned["review_url"].as_str().unwrap().to_string();
    let mut pairs: Vec<(&str, &str)> = planned["plan"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["destination"].as_str().unwrap(),
                f["source"].as_str().unwrap(),
            )
        })
        .collect();
    pairs.sort();
    assert_eq!(pairs, PLACED, "{planned}");
    assert_eq!(files_under(&library), [OWN], "planning writes nothing");
    let early = s
        .call(
            &operator,
            "apply_change",
            json!({"change_id": change, "idempotency_key": "e2e-organise-early"}),
        )
        .await;
    assert_eq!(early["isError"], true, "applied before approval: {early}");

    // Approve: the owner reads the source → destination table in the browser.
    let b = Browser::start("files-end-to-end").await;
    b.goto(&review).await;
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    let url = b.wait_url("/changes").await;
    assert!(url.contains("/changes"), "not signed in: {url}");
    b.goto(&review).await;
    let table = b.text("#organize").await;
    for (destination, source) in PLACED {
        assert!(table.contains(source), "{source:?} not in {table}");
        assert!(
            table.contains(destination),
            "{destination:?} not in {table}"
        );
    }
    let skipped = b.text("#organize-skipped").await;
    for left in ["Sample/heat-sample.mkv", "RARBG.txt", "readme.txt"] {
        assert!(skipped.contains(left), "{left:?} not in {skipped}");
    }
    assert!(
        b.text("#effect").await.contains("Hard-links 6 files"),
        "{}",
        b.text("#effect").await
    );
    b.screenshot("1-organize-review").await;
    b.click("#approve").await;
    assert_eq!(b.wait_text("#status", "approved").await, "approved");
    assert_eq!(
        files_under(&library),
        [OWN],
        "approval alone places nothing"
    );

    // Apply, then look at the disk.
    let applied = s
        .call(
            &operator,
            "apply_change",
            json!({"change_id": change, "idempotency_key": "e2e-organise-1"}),
        )
        .await;
    let op = data(&applied);
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(op["result"]["ok"], 6, "{op}");
    let mut expected: Vec<&str> = PLACED.iter().map(|(d, _)| *d).collect();
    expected.push(OWN);
    expected.sort();
    assert_eq!(files_under(&library), expected);
    for (destination, source) in PLACED {
        let (a, placed) = (
            std::fs::metadata(downloads.join(source)).unwrap(),
            std::fs::metadata(library.join(destination)).unwrap(),
        );
        assert_eq!(
            (a.dev(), a.ino()),
            (placed.dev(), placed.ino()),
            "{destination} is a hard link of {source}"
        );
        assert_eq!(a.nlink(), 2, "{source}");
    }
    assert_eq!(
        files_under(&downloads),
        before,
        "the sources stay as they were"
    );
    let own_after = std::fs::metadata(library.join(OWN)).unwrap();
    assert_eq!(
        (own_after.ino(), own_after.len(), own_after.mtime()),
        (own.ino(), own.len(), own.mtime()),
        "the household's own file is untouched"
    );
    assert_eq!(
        std::fs::read(library.join(OWN)).unwrap(),
        b"the household's own copy"
    );

    // The library, scanned, now lists the film under its new name.
    let scanned = s
        .call(&operator, "scan_library", json!({"instance_id": "library"}))
        .await;
    assert_eq!(data(&scanned)["media_files"], 7, "{scanned}");
    let found = s
        .call(
            &operator,
            "find_local_media",
            json!({"instance_id": "library", "query": "Heat"}),
        )
        .await;
    let found = data(&found);
    assert_eq!(found["titles"][0]["title"], "Heat", "{found}");
    assert_eq!(found["titles"][0]["media_id"], "tt0113277", "{found}");
    let mut paths: Vec<&str> = found["titles"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, [PLACED[0].0, PLACED[1].0, PLACED[2].0], "{found}");

    b.goto(&review).await;
    assert_eq!(b.wait_text("#status", "applied").await, "applied");
    assert!(b.text("#operation").await.contains("succeeded"));
    let shot = b.screenshot("2-organize-applied").await;
    b.quit().await;
    println!("screenshots in {}", shot.parent().unwrap().display());
}
