//! `probe_media_file` through the core on real files: the sample MKV made by
//! `../shared/media/make_sample.sh` (two audio languages, English and forced French
//! subtitles) read by the real ffprobe, stream by stream; subtitle files beside it; an HDR10
//! video made by ffmpeg; the answer kept while size and mtime hold; and one not-found answer
//! for a missing path and every path that would leave the root; a kid probes only files the
//! index holds as titles within the kid's limits.

#![allow(clippy::unwrap_used)]

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
    time::{Duration, SystemTime},
};

use domain::{InstanceKind, Role};
use governance::ToolError;
use serde_json::{Value, json};
use store::{ContentLimits, Store};
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

struct Fixture {
    app: App,
    owner: Caller,
    /// A person whose limits allow films up to PG.
    kid: Caller,
    /// The folder instance `library`'s root.
    root: PathBuf,
    dir: tempfile::TempDir,
}

/// `../shared` beside the checkout (the nearest folder above this package with a Cargo.lock).
fn shared() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let checkout = here
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap()
        .to_path_buf();
    std::env::var_os("MARQUEE_SHARED").map_or_else(|| checkout.join("../shared"), PathBuf::from)
}

/// The sample MKV at `out`: video h264 320x240 25 fps, audio aac 5.1 eng "English 5.1"
/// (default) and aac stereo fre, subtitles srt eng and srt fre (forced).
fn sample(out: &Path) {
    let script = shared().join("media/make_sample.sh");
    let status = Command::new("bash").arg(&script).arg(out).status().unwrap();
    assert!(status.success(), "{} failed", script.display());
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("library");
    std::fs::create_dir(&root).unwrap();
    let spec = |id: &str, kind, path: Option<String>| InstanceSpec {
        id: id.into(),
        kind,
        url: None,
        path,
        username: None,
        password: None,
        api_key: None,
        default: false,
    };
    let list = vec![
        spec("builtin", InstanceKind::Builtin, None),
        spec(
            "library",
            InstanceKind::Folder,
            Some(root.display().to_string()),
        ),
    ];
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
        dir,
    }
}

async fn probe(f: &Fixture, path: &str) -> Result<Output, ToolError> {
    probe_as(f, &f.owner, path).await
}

async fn probe_as(f: &Fixture, caller: &Caller, path: &str) -> Result<Output, ToolError> {
    let args = json!({ "instance_id": "library", "path": path });
    match f
        .app
        .call(caller, "probe_media_file", args.as_object().cloned())
        .await
    {
        Called::Done(done) => done,
        Called::UnknownTool => panic!("probe_media_file is not a tool"),
    }
}

#[tokio::test]
async fn the_sample_mkv_is_read_stream_by_stream_with_the_subtitle_files_beside_it() {
    let f = fixture().await;
    let folder = f.root.join("Movies/Test Movie (2020)");
    std::fs::create_dir_all(&folder).unwrap();
    sample(&folder.join("Test Movie (2020).mkv"));
    for name in [
        "Test Movie (2020).en.srt",
        "Test Movie (2020).French.forced.srt",
        "Test Movie (2020).eng.sdh.vtt",
        // Not its subtitles: another stem, or not a subtitle.
        "Test Movie (2020) Extras.srt",
        "Other.en.srt",
        "Test Movie (2020).nfo",
    ] {
        std::fs::write(folder.join(name), "1\n00:00:00,000 --> 00:00:01,000\nHi\n").unwrap();
    }
    let path = "Movies/Test Movie (2020)/Test Movie (2020).mkv";
    let out = probe(&f, path).await.unwrap();
    let d = out.data();
    assert_eq!(d["instance_id"], "library");
    assert_eq!(d["path"], path);
    let size = std::fs::metadata(folder.join("Test Movie (2020).mkv"))
        .unwrap()
        .len();
    assert_eq!(d["size"], size);
    assert!(d["modified"].as_str().unwrap().ends_with('Z'), "{d}");
    assert_eq!(d["container"], "mkv");
    assert_eq!(d["format_name"], "matroska,webm");
    assert_eq!(d["title"], "Test Movie (2020)");
    let duration = d["duration_seconds"].as_f64().unwrap();
    assert!((1.9..2.2).contains(&duration), "{duration}");
    assert!(d["bit_rate"].as_u64().unwrap() > 0);

    let v = &d["video"];
    assert_eq!(v["codec"], "h264");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(320), Some(240))
    );
    assert_eq!(v["screen_size"], "240p");
    assert_eq!(v["frame_rate"], 25.0);
    assert_eq!(v["hdr"], json!([]));
    assert_eq!(v["dolby_vision_profile"], Value::Null);

    let audio = d["audio"].as_array().unwrap();
    assert_eq!(audio.len(), 2, "{d}");
    assert_eq!(audio[0]["codec"], "aac");
    assert_eq!(audio[0]["channels"], 6);
    assert_eq!(audio[0]["channel_layout"], "5.1");
    assert_eq!(audio[0]["language"], "en");
    assert_eq!(audio[0]["title"], "English 5.1");
    assert_eq!(
        (audio[0]["default"].as_bool(), audio[0]["forced"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(audio[1]["codec"], "aac");
    assert_eq!(audio[1]["channels"], 2);
    assert_eq!(audio[1]["channel_layout"], "stereo");
    assert_eq!(audio[1]["language"], "fr");
    assert_eq!(
        (audio[1]["default"].as_bool(), audio[1]["forced"].as_bool()),
        (Some(false), Some(false))
    );

    let subs = d["subtitles"].as_array().unwrap();
    assert_eq!(subs.len(), 2, "{d}");
    assert_eq!(subs[0]["codec"], "subrip");
    assert_eq!(subs[0]["language"], "en");
    assert_eq!(
        (subs[0]["default"].as_bool(), subs[0]["forced"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(subs[1]["codec"], "subrip");
    assert_eq!(subs[1]["language"], "fr");
    assert_eq!(
        (subs[1]["default"].as_bool(), subs[1]["forced"].as_bool()),
        (Some(false), Some(true))
    );

    let dir = "Movies/Test Movie (2020)";
    assert_eq!(
        d["external_subtitles"],
        json!([
            {"path": format!("{dir}/Test Movie (2020).French.forced.srt"), "format": "srt",
             "language": "fr", "forced": true, "hearing_impaired": false, "default": false},
            {"path": format!("{dir}/Test Movie (2020).en.srt"), "format": "srt",
             "language": "en", "forced": false, "hearing_impaired": false, "default": false},
            {"path": format!("{dir}/Test Movie (2020).eng.sdh.vtt"), "format": "vtt",
             "language": "en", "forced": false, "hearing_impaired": true, "default": false},
        ])
    );
    assert!(out.summary.contains("fr forced"), "{}", out.summary);
    assert!(out.summary.contains("3 subtitle files"), "{}", out.summary);
}

#[tokio::test]
async fn an_hdr10_video_says_so() {
    let f = fixture().await;
    let made = Command::new("ffmpeg")
        .args(["-y", "-hide_banner", "-loglevel", "error", "-f", "lavfi"])
        .args(["-i", "testsrc=duration=0.2:size=320x240:rate=25"])
        .args([
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p10le",
        ])
        .args([
            "-color_primaries",
            "bt2020",
            "-color_trc",
            "smpte2084",
            "-colorspace",
            "bt2020nc",
        ])
        .arg(f.root.join("hdr.mkv"))
        .status()
        .unwrap();
    assert!(made.success());
    let d = probe(&f, "hdr.mkv").await.unwrap().data();
    assert_eq!(d["video"]["hdr"], json!(["HDR10"]), "{d}");
    assert_eq!(d["external_subtitles"], json!([]));
}

#[tokio::test]
async fn a_probe_is_kept_while_size_and_mtime_hold() {
    let f = fixture().await;
    let file = f.root.join("movie.mkv");
    sample(&file);
    let first = probe(&f, "movie.mkv").await.unwrap().data();
    assert_eq!(first["audio"].as_array().unwrap().len(), 2);

    // The same size and mtime, other bytes: the kept probe is answered (ffprobe is not run,
    // or it would fail on these bytes).
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    let len = std::fs::metadata(&file).unwrap().len() as usize;
    std::fs::write(&file, vec![b'x'; len]).unwrap();
    set_mtime(&file, mtime);
    let kept = probe(&f, "movie.mkv").await.unwrap().data();
    assert_eq!(kept["audio"], first["audio"]);

    // A new mtime: probed again, and these bytes are no media.
    set_mtime(&file, mtime + Duration::from_secs(60));
    let e = probe(&f, "movie.mkv").await.unwrap_err();
    assert_eq!(e.code.as_str(), "unsupported", "{}", e.message);
    assert!(
        e.message.contains("ffprobe could not read it as media"),
        "{}",
        e.message
    );
    assert!(e.message.contains("movie.mkv"), "{}", e.message);
}

fn set_mtime(path: &Path, at: SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(at).unwrap();
}

#[tokio::test]
async fn a_missing_path_and_every_path_leaving_the_root_get_the_same_not_found() {
    let f = fixture().await;
    // A real media file outside the root, reached every way a path could try.
    let outside = f.dir.path().join("outside.mkv");
    sample(&outside);
    std::os::unix::fs::symlink(&outside, f.root.join("link.mkv")).unwrap();
    std::os::unix::fs::symlink(f.dir.path(), f.root.join("up")).unwrap();
    let fifo = f.root.join("fifo.mkv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let outside_abs = outside.display().to_string();

    let missing = probe(&f, "missing.mkv").await.unwrap_err();
    assert_eq!(missing.code.as_str(), "not_found");
    let shape =
        |e: &ToolError, path: &str| (e.code, e.message.replace(path, "<path>"), e.data.clone());
    let expected = shape(&missing, "missing.mkv");
    for path in [
        "../outside.mkv",
        "Movies/../../outside.mkv",
        outside_abs.as_str(),
        "link.mkv",
        "up/outside.mkv",
        "fifo.mkv",
        "/dev/zero",
        "movie\0.mkv",
        ".",
    ] {
        let e = probe(&f, path).await.unwrap_err();
        assert_eq!(shape(&e, path), expected, "{path:?}: {}", e.message);
    }
}

#[tokio::test]
async fn an_unknown_instance_names_the_valid_ones() {
    let f = fixture().await;
    let args = json!({ "instance_id": "nas", "path": "a.mkv" });
    let Called::Done(Err(e)) = f
        .app
        .call(&f.owner, "probe_media_file", args.as_object().cloned())
        .await
    else {
        panic!("an unknown instance was not refused");
    };
    assert_eq!(e.code.as_str(), "unknown_instance");
    assert!(e.message.contains("library"), "{}", e.message);
}

#[tokio::test]
async fn a_kid_probes_only_files_the_index_holds_within_the_kids_limits() {
    let f = fixture().await;
    // Heat is rated R, Toy Story G (the builtin catalogue); both real MKVs.
    for (folder, name) in [
        ("Movies/Heat (1995)", "Heat.1995.1080p.BluRay.x264-GRP.mkv"),
        (
            "Movies/Toy Story (1995)",
            "Toy.Story.1995.720p.WEB-DL.x264-GRP.mkv",
        ),
    ] {
        std::fs::create_dir_all(f.root.join(folder)).unwrap();
        sample(&f.root.join(folder).join(name));
    }
    let heat = "Movies/Heat (1995)/Heat.1995.1080p.BluRay.x264-GRP.mkv";
    let toy = "Movies/Toy Story (1995)/Toy.Story.1995.720p.WEB-DL.x264-GRP.mkv";
    let args = json!({ "instance_id": "library" });
    let Called::Done(Ok(_)) = f
        .app
        .call(&f.owner, "scan_library", args.as_object().cloned())
        .await
    else {
        panic!("the scan failed");
    };

    // Within the limits: probed as for anyone.
    let d = probe_as(&f, &f.kid, toy).await.unwrap().data();
    assert_eq!(d["audio"].as_array().unwrap().len(), 2, "{d}");

    // Over the limits: discovery's answer for a forbidden title, word for word, naming
    // nothing; the owner probes the same file.
    let refused = probe_as(&f, &f.kid, heat).await.unwrap_err();
    assert_eq!(
        refused.code.as_str(),
        "not_available",
        "{}",
        refused.message
    );
    assert_eq!(
        refused.message,
        "That title is not available for this account."
    );
    assert!(!refused.message.contains("Heat"));
    assert_eq!(probe(&f, heat).await.unwrap().data()["container"], "mkv");

    // A file the index does not hold cannot be rated, and a missing path reads the same (no
    // existence oracle); the owner still tells them apart.
    let later = "Movies/Later (2020)/Later.2020.mkv";
    std::fs::create_dir_all(f.root.join("Movies/Later (2020)")).unwrap();
    sample(&f.root.join(later));
    let unindexed = probe_as(&f, &f.kid, later).await.unwrap_err();
    let missing = probe_as(&f, &f.kid, "Movies/missing.mkv")
        .await
        .unwrap_err();
    assert_eq!(
        (unindexed.code, &unindexed.message),
        (refused.code, &refused.message)
    );
    assert_eq!(
        (missing.code, &missing.message),
        (refused.code, &refused.message)
    );
    assert!(probe(&f, later).await.is_ok());
    assert_eq!(
        probe(&f, "Movies/missing.mkv")
            .await
            .unwrap_err()
            .code
            .as_str(),
        "not_found"
    );
}
