//! The subtitles family through the core, against the OpenSubtitles and Bazarr contract fakes
//! on 127.0.0.1 and the sample MKV of `../shared/media/make_sample.sh` in a temporary folder
//! instance: a search by a builtin-catalogue identity; a search by the local file's movie hash;
//! an English subtitle downloaded beside the MKV (UTF-8, checked), a second download refused as
//! existing; a Latin-1 file converted; a file that is no subtitle refused with nothing written;
//! a spent quota and a refused key answered naming the instance; a reference of another person
//! refused; a Bazarr result downloaded by Bazarr, for a film and for an episode found through its
//! series; the videos lacking a language listed, with what Bazarr wants.

#![allow(clippy::unwrap_used)]

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::subtitles::{
    BazarrEpisode, BazarrFake, BazarrMovie, BazarrSeries, FakeSubtitle, OpenSubtitlesFake,
    QuotaMode,
};
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

const VIDEO: &str = "Movies/Test Movie (2020)/Test Movie (2020).mkv";
const ENGLISH: &[u8] =
    b"1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nWorld\n";
const LATIN1: &[u8] = b"1\r\n00:00:00,000 --> 00:00:01,000\r\n\xC7a d\xE9j\xE0 vu, Fran\xE7ois\r\n";

struct World {
    app: App,
    owner: Caller,
    operator: Caller,
    os: OpenSubtitlesFake,
    bazarr: BazarrFake,
    root: PathBuf,
    hash: String,
    _dir: tempfile::TempDir,
}

fn spec(
    id: &str,
    kind: InstanceKind,
    url: Option<&str>,
    path: Option<&Path>,
    key: Option<&str>,
) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| u.parse().unwrap()),
        path: path.map(|p| p.display().to_string()),
        username: None,
        password: None,
        api_key: key.map(|k| Secret::new(k.to_string())),
        default: false,
    }
}

/// The OpenSubtitles hash, written out here independently of the adapter: the size plus the
/// little-endian u64 words of the first and last 64 KiB.
fn reference_hash(path: &Path) -> String {
    let data = std::fs::read(path).unwrap();
    assert!(data.len() >= 65536, "the sample is larger than one chunk");
    let mut h = data.len() as u64;
    for part in [&data[..65536], &data[data.len() - 65536..]] {
        for w in part.chunks(8) {
            h = h.wrapping_add(u64::from_le_bytes(w.try_into().unwrap()));
        }
    }
    format!("{h:016x}")
}

fn sample(out: &Path) {
    let script = test_support::beside_checkout("shared").join("media/make_sample.sh");
    let status = Command::new("bash").arg(&script).arg(out).status().unwrap();
    assert!(status.success(), "{} failed", script.display());
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("library");
    let folder = root.join("Movies/Test Movie (2020)");
    std::fs::create_dir_all(&folder).unwrap();
    sample(&root.join(VIDEO));
    let hash = reference_hash(&root.join(VIDEO));

    let mut made_for_file = FakeSubtitle::movie(9001, "en", 999_001, "Test Movie", 2020, ENGLISH);
    made_for_file.moviehash = Some(hash.clone());
    let mut french_latin1 = FakeSubtitle::movie(9002, "fr", 999_001, "Test Movie", 2020, LATIN1);
    french_latin1.moviehash = Some(hash.clone());
    let mut broken = FakeSubtitle::movie(
        9003,
        "de",
        999_001,
        "Test Movie",
        2020,
        b"\x1A\x45\xDF\xA3\x00\x00binary",
    );
    broken.moviehash = Some(hash.clone());
    let mut html = FakeSubtitle::movie(
        9004,
        "es",
        999_001,
        "Test Movie",
        2020,
        b"<html><body>Daily limit</body></html>",
    );
    html.moviehash = Some(hash.clone());
    let matrix_en = FakeSubtitle::movie(1001, "en", 133_093, "The Matrix", 1999, ENGLISH);
    let mut matrix_en_hi = FakeSubtitle::movie(1002, "en", 133_093, "The Matrix", 1999, ENGLISH);
    matrix_en_hi.hearing_impaired = true;
    let matrix_pt = FakeSubtitle::movie(1003, "pt-BR", 133_093, "The Matrix", 1999, ENGLISH);
    let matrix_fr = FakeSubtitle::movie(1004, "fr", 133_093, "The Matrix", 1999, ENGLISH);
    let os = OpenSubtitlesFake::start(vec![
        made_for_file,
        french_latin1,
        broken,
        html,
        matrix_en,
        matrix_en_hi,
        matrix_pt,
        matrix_fr,
    ])
    .await;
    let wire = BazarrSeries {
        sonarr_series_id: 31,
        title: "The Wire".into(),
        tvdb_id: 79126,
        episodes: vec![
            BazarrEpisode {
                sonarr_episode_id: 301,
                season: 1,
                episode: 1,
                title: "The Target".into(),
                missing: vec![],
                offers: vec!["en".into()],
            },
            BazarrEpisode {
                sonarr_episode_id: 302,
                season: 1,
                episode: 2,
                title: "The Detail".into(),
                missing: vec!["en".into()],
                offers: vec!["en".into(), "de".into()],
            },
        ],
    };
    let bazarr = BazarrFake::start_with(
        vec![BazarrMovie {
            radarr_id: 7,
            title: "The Matrix".into(),
            year: 1999,
            imdb_id: "tt0133093".into(),
            missing: vec!["en".into(), "de".into()],
            offers: vec!["en".into(), "fr".into()],
        }],
        vec![wire],
    )
    .await;
    let list = vec![
        spec("builtin", InstanceKind::Builtin, None, None, None),
        spec("library", InstanceKind::Folder, None, Some(&root), None),
        spec(
            "opensubtitles",
            InstanceKind::Opensubtitles,
            Some(&os.url()),
            None,
            Some(OpenSubtitlesFake::API_KEY),
        ),
        spec(
            "bazarr",
            InstanceKind::Bazarr,
            Some(&bazarr.url()),
            None,
            Some(BazarrFake::API_KEY),
        ),
        spec(
            "os-badkey",
            InstanceKind::Opensubtitles,
            Some(&os.url()),
            None,
            Some("wrong-key-4d5e6f"),
        ),
    ];
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let op = store.add_person("op", Role::User).await.unwrap();
    let op_key = store
        .create_key(op.id, "operator", None, None)
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
    let operator = app
        .authenticate(op_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    World {
        app,
        owner,
        operator,
        os,
        bazarr,
        root,
        hash,
        _dir: dir,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Result<Output, String> {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => Ok(out),
        Called::Done(Err(e)) => Err(e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

fn shown(out: &Output) -> String {
    format!("{} {} {:?}", out.summary, out.data(), out.warnings)
}

fn assert_no_secrets(text: &str) {
    for secret in [
        OpenSubtitlesFake::API_KEY,
        BazarrFake::API_KEY,
        "wrong-key-4d5e6f",
        "/download/",
        "a1b2c3d4e5",
        "9001",
        "1001",
        "gASV",
        "file_id",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

async fn search_file(w: &World, languages: Value) -> Output {
    call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "instance_id": "library", "path": VIDEO, "languages": languages, "service": "opensubtitles" }),
    )
    .await
    .unwrap()
}

fn reference_of(out: &Output, language: &str) -> String {
    out.data()["subtitles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["language"] == language)
        .unwrap_or_else(|| panic!("no {language} row in {}", out.data()))["subtitle_ref"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_search_by_builtin_identity_asks_both_services_in_the_asked_languages() {
    let w = world().await;
    let out = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "languages": ["English", "pt_br"], "hearing_impaired": false }),
    )
    .await
    .unwrap();
    let d = out.data();
    assert_no_secrets(&shown(&out));
    assert_eq!(d["searched_for"], "The Matrix (1999)", "{d}");
    assert_eq!(d["languages"], json!(["en", "pt-BR"]));
    let rows = d["subtitles"].as_array().unwrap();
    let mut seen: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["service"].as_str().unwrap().to_owned(),
                r["language"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("bazarr".to_string(), "en".to_string()),
            ("opensubtitles".into(), "en".into()),
            ("opensubtitles".into(), "pt-BR".into()),
        ],
        "no French, no hearing-impaired: {d}"
    );
    for r in rows {
        let reference = r["subtitle_ref"].as_str().unwrap();
        let service = r["service"].as_str().unwrap();
        assert!(
            reference.starts_with(&format!("sub:{service}:")),
            "{reference}"
        );
    }
    // What OpenSubtitles was asked: the IMDb number, sorted lowercase languages, the key and a
    // user agent in headers.
    let asked =
        w.os.requests()
            .into_iter()
            .find(|r| r.path == "/api/v1/subtitles")
            .unwrap();
    assert_eq!(asked.param("imdb_id"), Some("133093"));
    assert_eq!(asked.param("languages"), Some("en,pt-br"));
    assert_eq!(asked.param("hearing_impaired"), Some("exclude"));
    assert_eq!(asked.header("api-key"), Some(OpenSubtitlesFake::API_KEY));
    assert!(asked.header("user-agent").unwrap().starts_with("Marquee/"));
    let providers = w
        .bazarr
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/providers/movies")
        .unwrap();
    assert_eq!(providers.param("radarrid"), Some("7"));
    assert_eq!(providers.header("x-api-key"), Some(BazarrFake::API_KEY));
}

/// OpenSubtitles answers in pages: every page its answer counts is read (up to a bound), each
/// asked with its `page` among the sorted parameters.
#[tokio::test]
async fn opensubtitles_pages_are_followed() {
    let w = world().await;
    w.os.set_per_page(1);
    let out = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "languages": ["en", "pt-BR", "fr"], "service": "opensubtitles" }),
    )
    .await
    .unwrap();
    let rows = out.data()["subtitles"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 4, "one row a page, four pages: {rows:?}");
    let pages: Vec<Option<String>> =
        w.os.requests()
            .into_iter()
            .filter(|r| r.path == "/api/v1/subtitles")
            .map(|r| r.param("page").map(str::to_owned))
            .collect();
    assert_eq!(
        pages,
        [None, Some("2".into()), Some("3".into()), Some("4".into())]
    );
    let second =
        w.os.requests()
            .into_iter()
            .find(|r| r.param("page") == Some("2"))
            .unwrap();
    let names: Vec<&str> = second.query.iter().map(|(k, _)| k.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "parameters sorted, page among them");
}

#[tokio::test]
async fn a_search_by_local_file_sends_its_movie_hash_and_marks_the_match() {
    let w = world().await;
    let out = search_file(&w, json!(["en"])).await;
    let d = out.data();
    assert_no_secrets(&shown(&out));
    assert_eq!(d["movie_hash"], w.hash.as_str(), "{d}");
    let asked =
        w.os.requests()
            .into_iter()
            .find(|r| r.path == "/api/v1/subtitles")
            .unwrap();
    assert_eq!(asked.param("moviehash"), Some(w.hash.as_str()));
    let rows = d["subtitles"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{d}");
    assert_eq!(rows[0]["hash_match"], true);
    assert_eq!(rows[0]["language"], "en");
}

#[tokio::test]
async fn an_english_subtitle_is_written_beside_the_video_once() {
    let w = world().await;
    let out = search_file(&w, json!(["en"])).await;
    let reference = reference_of(&out, "en");
    let args = json!({ "subtitle_ref": reference, "instance_id": "library", "path": VIDEO });
    let done = call(&w.app, &w.owner, "download_subtitle", args.clone())
        .await
        .unwrap();
    assert_no_secrets(&shown(&done));
    let d = done.data();
    let written = "Movies/Test Movie (2020)/Test Movie (2020).en.srt";
    assert_eq!(d["written"], written, "{d}");
    assert_eq!(d["format"], "srt");
    assert_eq!(d["cues"], 2);
    assert_eq!(d["remaining_downloads"], OpenSubtitlesFake::DAILY - 1);
    let on_disk = std::fs::read(w.root.join(written)).unwrap();
    assert_eq!(on_disk, ENGLISH);
    assert!(std::str::from_utf8(&on_disk).is_ok());
    let downloads = |w: &World| {
        w.os.requests()
            .iter()
            .filter(|r| r.path == "/api/v1/download")
            .count()
    };
    assert_eq!(downloads(&w), 1);

    let again = call(&w.app, &w.owner, "download_subtitle", args)
        .await
        .unwrap_err();
    assert!(
        again.contains("already exists") && again.contains(written),
        "{again}"
    );
    assert_eq!(
        downloads(&w),
        1,
        "no download is spent on a name that is taken"
    );
    assert_eq!(
        std::fs::read(w.root.join(written)).unwrap(),
        ENGLISH,
        "nothing replaced"
    );
}

#[tokio::test]
async fn a_latin1_subtitle_is_converted_to_utf8() {
    let w = world().await;
    let out = search_file(&w, json!(["French"])).await;
    let reference = reference_of(&out, "fr");
    let done = call(
        &w.app,
        &w.owner,
        "download_subtitle",
        json!({ "subtitle_ref": reference, "instance_id": "library", "path": VIDEO }),
    )
    .await
    .unwrap();
    assert_eq!(done.data()["converted_from"], "Windows-1252");
    let text = std::fs::read_to_string(
        w.root
            .join("Movies/Test Movie (2020)/Test Movie (2020).fr.srt"),
    )
    .unwrap();
    assert!(text.contains("Ça déjà vu, François"), "{text}");
}

#[tokio::test]
async fn a_file_that_is_no_subtitle_is_refused_and_nothing_is_written() {
    let w = world().await;
    let out = search_file(&w, json!(["de", "es"])).await;
    for (language, why) in [("de", "not text"), ("es", "neither SubRip")] {
        let reference = reference_of(&out, language);
        let e = call(
            &w.app,
            &w.owner,
            "download_subtitle",
            json!({ "subtitle_ref": reference, "instance_id": "library", "path": VIDEO }),
        )
        .await
        .unwrap_err();
        assert!(e.contains(why) && e.contains("nothing was written"), "{e}");
        let name = format!("Movies/Test Movie (2020)/Test Movie (2020).{language}.srt");
        assert!(!w.root.join(&name).exists(), "{name} was written");
    }
    let left: Vec<String> = std::fs::read_dir(w.root.join("Movies/Test Movie (2020)"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        left,
        ["Test Movie (2020).mkv"],
        "no stray or temporary file"
    );
}

#[tokio::test]
async fn a_spent_quota_and_a_refused_key_are_answered_naming_the_instance() {
    let w = world().await;
    let out = search_file(&w, json!(["en"])).await;
    let reference = reference_of(&out, "en");
    w.os.set_quota(QuotaMode::Exhausted);
    let e = call(
        &w.app,
        &w.owner,
        "download_subtitle",
        json!({ "subtitle_ref": reference, "instance_id": "library", "path": VIDEO }),
    )
    .await
    .unwrap_err();
    assert!(
        e.contains("\"opensubtitles\"") && e.contains("no downloads left today"),
        "{e}"
    );
    assert!(
        e.contains("renewed in 07 hours"),
        "the service's own sentence: {e}"
    );
    assert!(
        !w.root
            .join("Movies/Test Movie (2020)/Test Movie (2020).en.srt")
            .exists()
    );

    let e = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "languages": ["en"], "service": "os-badkey" }),
    )
    .await
    .unwrap_err();
    assert!(
        e.contains("\"os-badkey\"") && e.contains("refused the API key") && e.contains("api_key"),
        "{e}"
    );
    assert_no_secrets(&e);
    // Searching every service: the refusing one is a warning, the others answer.
    let out = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "languages": ["en"] }),
    )
    .await
    .unwrap();
    assert!(
        out.warnings.iter().any(|x| x.contains("\"os-badkey\"")),
        "{:?}",
        out.warnings
    );
    assert!(!out.data()["subtitles"].as_array().unwrap().is_empty());
    assert_no_secrets(&shown(&out));
}

#[tokio::test]
async fn a_reference_of_another_person_is_refused() {
    let w = world().await;
    let out = search_file(&w, json!(["en"])).await;
    let reference = reference_of(&out, "en");
    let e = call(
        &w.app,
        &w.operator,
        "download_subtitle",
        json!({ "subtitle_ref": reference, "instance_id": "library", "path": VIDEO }),
    )
    .await
    .unwrap_err();
    assert!(e.contains("not one of your"), "{e}");
    assert!(w.os.requests().iter().all(|r| r.path != "/api/v1/download"));
    assert!(
        !w.root
            .join("Movies/Test Movie (2020)/Test Movie (2020).en.srt")
            .exists()
    );
    // The operator's own search gives a reference that works.
    let mine = call(
        &w.app,
        &w.operator,
        "search_subtitles",
        json!({ "instance_id": "library", "path": VIDEO, "languages": ["en"], "service": "opensubtitles" }),
    )
    .await
    .unwrap();
    let r = reference_of(&mine, "en");
    call(
        &w.app,
        &w.operator,
        "download_subtitle",
        json!({ "subtitle_ref": r, "instance_id": "library", "path": VIDEO }),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_bazarr_result_is_downloaded_by_bazarr() {
    let w = world().await;
    let out = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "builtin", "media_id": "tt0133093", "languages": ["en"], "service": "bazarr" }),
    )
    .await
    .unwrap();
    let reference = reference_of(&out, "en");
    let done = call(
        &w.app,
        &w.owner,
        "download_subtitle",
        json!({ "subtitle_ref": reference }),
    )
    .await
    .unwrap();
    assert_eq!(done.data()["by_bazarr"], true);
    assert_no_secrets(&shown(&done));
    let post = w
        .bazarr
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path == "/api/providers/movies")
        .unwrap();
    assert_eq!(post.param("radarrid"), Some("7"));
    let form = String::from_utf8(post.body.clone()).unwrap();
    assert!(
        form.contains("provider=opensubtitlescom") && form.contains("subtitle=gASVPICKLED-7-en"),
        "{form}"
    );
}

#[tokio::test]
async fn an_episode_is_found_through_its_series_and_downloaded_by_bazarr() {
    let w = world().await;
    let out = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "tvdb", "media_id": "79126", "season": 1, "episode": 2, "languages": ["de"], "service": "bazarr" }),
    )
    .await
    .unwrap();
    let rows = out.data()["subtitles"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 1, "only the German offer: {}", out.data());
    let reference = reference_of(&out, "de");
    let asked: Vec<_> = w
        .bazarr
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| (r.path.clone(), r.query.clone()))
        .collect();
    assert!(
        asked.iter().any(|(p, q)| p == "/api/episodes"
            && q.contains(&("seriesid[]".to_string(), "31".to_string()))),
        "the series' episodes are read by its Sonarr id: {asked:?}"
    );
    // Another episode of the show, or one Bazarr does not know: said, nothing offered.
    let unknown = call(
        &w.app,
        &w.owner,
        "search_subtitles",
        json!({ "media_source": "tvdb", "media_id": "79126", "season": 1, "episode": 9, "languages": ["en"], "service": "bazarr" }),
    )
    .await;
    match unknown {
        Ok(out) => assert!(
            out.data()["subtitles"].as_array().unwrap().is_empty()
                && out.warnings.join(" ").contains("does not know"),
            "{} {:?}",
            out.data(),
            out.warnings
        ),
        Err(e) => assert!(e.contains("does not know"), "{e}"),
    }
    let done = call(
        &w.app,
        &w.owner,
        "download_subtitle",
        json!({ "subtitle_ref": reference }),
    )
    .await
    .unwrap();
    assert_eq!(done.data()["by_bazarr"], true);
    assert_no_secrets(&shown(&done));
    let post = w
        .bazarr
        .requests()
        .into_iter()
        .find(|r| r.method == "POST" && r.path == "/api/providers/episodes")
        .unwrap();
    assert_eq!(post.param("seriesid"), Some("31"));
    assert_eq!(post.param("episodeid"), Some("302"));
    let form = String::from_utf8(post.body.clone()).unwrap();
    assert!(
        form.contains("language=de") && form.contains("subtitle=gASVPICKLED-302-de"),
        "{form}"
    );
}

#[tokio::test]
async fn the_videos_lacking_a_language_are_listed_with_streams_and_bazarr_wants() {
    let w = world().await;
    call(
        &w.app,
        &w.owner,
        "scan_library",
        json!({ "instance_id": "library" }),
    )
    .await
    .unwrap();
    let out = call(
        &w.app,
        &w.owner,
        "list_missing_subtitles",
        json!({ "languages": ["en", "German", "fr"] }),
    )
    .await
    .unwrap();
    let d = out.data();
    assert_no_secrets(&shown(&out));
    let missing = d["missing"].as_array().unwrap();
    assert_eq!(missing.len(), 1, "{d}");
    // The sample holds English and French subtitle streams: only German is lacking.
    assert_eq!(missing[0]["path"], VIDEO);
    assert_eq!(missing[0]["missing"], json!(["de"]));
    assert_eq!(missing[0]["streams"], json!(["en", "fr"]));
    assert_eq!(missing[0]["probed"], true);
    let wanted = d["bazarr_wanted"].as_array().unwrap();
    assert_eq!(wanted.len(), 2, "{d}");
    assert_eq!(wanted[0]["title"], "The Matrix");
    assert_eq!(wanted[0]["missing"], json!(["en", "de"]));
    assert_eq!(wanted[1]["kind"], "episode");
    assert_eq!(wanted[1]["title"], "The Wire 1x02 The Detail");
    assert_eq!(wanted[1]["missing"], json!(["en"]));

    // A German file beside it: nothing lacks any more.
    std::fs::write(
        w.root
            .join("Movies/Test Movie (2020)/Test Movie (2020).de.srt"),
        ENGLISH,
    )
    .unwrap();
    call(
        &w.app,
        &w.owner,
        "scan_library",
        json!({ "instance_id": "library" }),
    )
    .await
    .unwrap();
    let out = call(
        &w.app,
        &w.owner,
        "list_missing_subtitles",
        json!({ "languages": ["en", "de", "fr"], "instance_id": "library" }),
    )
    .await
    .unwrap();
    assert_eq!(out.data()["missing"], json!([]), "{}", out.data());
}
