//! `scrape_metadata` through the core on a real folder: a film's `movie.nfo` planned from the
//! builtin catalogue (ids, title, year, escaped XML) and written by `apply_change`; a second
//! scrape replaces Marquee's own file; a file Marquee did not write is left alone unless the
//! call asks for `overwrite`, which the owner's review says. With TMDB (its contract fake):
//! fanart from the title's backdrop, and each episode's title, plot and air date where TMDB
//! has the episode (left out where it has not).

#![allow(clippy::unwrap_used)]

use std::{path::Path, sync::Arc};

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::TmdbFake;
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings, ToolError};

struct Fixture {
    app: App,
    store: Store,
    owner: Caller,
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

async fn fixture() -> Fixture {
    start(None).await
}

/// The library, with the builtin catalogue or (given a fake) only TMDB.
async fn start(tmdb: Option<&TmdbFake>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library");
    put(&library, "Heat (1995)/Heat (1995) - 1080p.mkv", b"video");
    put(
        &library,
        "Shows/Some Show/Season 01/Some Show - S01E01.mkv",
        b"episode",
    );
    let catalogue = match tmdb {
        None => spec("builtin", InstanceKind::Builtin, None),
        Some(fake) => InstanceSpec {
            url: Some(fake.base_url().parse().unwrap()),
            api_key: Some(Secret::new(TmdbFake::API_KEY.to_string())),
            ..spec("tmdb", InstanceKind::Tmdb, None)
        },
    };
    let list = vec![
        catalogue,
        spec("library", InstanceKind::Folder, Some(&library)),
    ];
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = tools::app(
        store.clone(),
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    Fixture {
        app,
        store,
        owner,
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

/// Plans a scrape of `path` and applies it; the operation.
async fn scrape(f: &Fixture, path: &str, overwrite: bool, key: &str) -> (Value, Value) {
    let planned = ok(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": path, "overwrite": overwrite}),
    )
    .await;
    let op = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": planned["change_id"], "idempotency_key": key}),
    )
    .await;
    (planned, op)
}

const NFO: &str = "Heat (1995)/movie.nfo";

#[tokio::test]
async fn a_films_nfo_is_planned_from_the_catalogue_and_written_once_approved() {
    let f = fixture().await;
    let planned = ok(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "Heat (1995)"}),
    )
    .await;
    let file = &planned["plan"]["files"][0];
    assert_eq!(file["path"], NFO);
    assert_eq!(file["action"], "create");
    assert!(!f.library.join(NFO).exists(), "planning writes nothing");
    let op = ok(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": planned["change_id"], "idempotency_key": "scrape-1"}),
    )
    .await;
    assert_eq!(op["status"], "succeeded", "{op}");
    let text = std::fs::read_to_string(f.library.join(NFO)).unwrap();
    assert!(
        text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\""),
        "{text}"
    );
    assert!(text.contains("<!-- written by Marquee -->"));
    assert!(
        text.contains("<movie>\n  <title>Heat</title>\n  <year>1995</year>"),
        "{text}"
    );
    assert!(
        text.contains("<uniqueid type=\"imdb\" default=\"true\">tt0113277</uniqueid>"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("</movie>"));

    // Marquee's own file is replaced by a later scrape.
    let (again, op) = scrape(&f, "Heat (1995)/Heat (1995) - 1080p.mkv", false, "scrape-2").await;
    assert_eq!(again["plan"]["files"][0]["action"], "replace");
    assert_eq!(op["status"], "succeeded", "{op}");
}

#[tokio::test]
async fn a_file_marquee_did_not_write_is_kept_unless_overwrite_is_asked() {
    let f = fixture().await;
    put(&f.library, NFO, b"<movie><title>mine</title></movie>");
    let e = call(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "Heat (1995)"}),
    )
    .await
    .err()
    .unwrap();
    assert!(e.message.contains("Marquee did not write"), "{}", e.message);
    assert_eq!(
        std::fs::read(f.library.join(NFO)).unwrap(),
        b"<movie><title>mine</title></movie>"
    );

    let planned = ok(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "Heat (1995)", "overwrite": true}),
    )
    .await;
    assert_eq!(planned["plan"]["files"][0]["replaces_foreign"], true);
    let change = f
        .store
        .change(planned["change_id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    let view = f.app.describe_plan(&change);
    assert!(
        view.effect
            .contains("Overwrite is on: 1 file that Marquee did not write is replaced"),
        "{}",
        view.effect
    );
    assert_eq!(
        view.tables[0].rows[0][1],
        "replace (not written by Marquee: overwrite)"
    );
    // Changed again after planning: the apply is refused, nothing is written.
    put(
        &f.library,
        NFO,
        b"<movie><title>mine, edited</title></movie>",
    );
    let e = call(
        &f.app,
        &f.owner,
        "apply_change",
        json!({"change_id": planned["change_id"], "idempotency_key": "scrape-stale"}),
    )
    .await
    .err()
    .unwrap();
    assert_eq!(e.code.as_str(), "stale_plan", "{}", e.message);
    assert_eq!(
        std::fs::read(f.library.join(NFO)).unwrap(),
        b"<movie><title>mine, edited</title></movie>"
    );
    let (_, op) = scrape(&f, "Heat (1995)", true, "scrape-overwrite").await;
    assert_eq!(op["status"], "succeeded", "{op}");
    assert!(
        std::fs::read_to_string(f.library.join(NFO))
            .unwrap()
            .contains("tt0113277")
    );
}

#[tokio::test]
async fn shows_need_a_catalogue_that_knows_them_and_paths_stay_beneath_the_root() {
    let f = fixture().await;
    let e = call(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "Shows/Some Show"}),
    )
    .await
    .err()
    .unwrap();
    assert!(e.message.contains("no NFO file to write"), "{}", e.message);
    let outside = call(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "../library"}),
    )
    .await
    .err()
    .unwrap();
    let missing = call(
        &f.app,
        &f.owner,
        "scrape_metadata",
        json!({"instance_id": "library", "path": "../elsewhere"}),
    )
    .await
    .err()
    .unwrap();
    assert_eq!(outside.code.as_str(), "not_found");
    assert_eq!(
        outside.message.replace("library\"", "X\""),
        missing.message.replace("elsewhere\"", "X\"")
    );
}

#[tokio::test]
async fn tmdb_gives_fanart_and_each_known_episodes_plot_and_leaves_an_unknown_ones_out() {
    let tmdb = TmdbFake::start().await;
    let f = start(Some(&tmdb)).await;
    let season = "Game of Thrones/Season 01";
    put(
        &f.library,
        &format!("{season}/Game of Thrones - S01E01.mkv"),
        b"e1",
    );
    put(
        &f.library,
        &format!("{season}/Game of Thrones - S01E03.mkv"),
        b"e3",
    );

    let (planned, op) = scrape(&f, "Game of Thrones", false, "scrape-got").await;
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(
        planned["plan"]["files"].as_array().unwrap().len(),
        3,
        "{planned}"
    );
    assert_eq!(
        tmdb.requests_to("/tv/1399/season/1/episode/1").len(),
        1,
        "{:?}",
        tmdb.requests()
            .iter()
            .map(|r| r.path.clone())
            .collect::<Vec<_>>()
    );
    let read = |rel: &str| std::fs::read_to_string(f.library.join(rel)).unwrap();

    let show = read("Game of Thrones/tvshow.nfo");
    assert!(
        show.contains("  <fanart>\n    <thumb>https://image.tmdb.org/t/p/w1280/2OMB0ynKlyIenMJWI2Dy9IWT4c.jpg</thumb>\n  </fanart>\n"),
        "{show}"
    );

    let known = read(&format!("{season}/Game of Thrones - S01E01.nfo"));
    assert!(known.contains("<title>Winter Is Coming</title>"), "{known}");
    assert!(
        known.contains(
            "<plot>Lord Stark is troubled by reports of a Night&apos;s Watch deserter &amp; &lt;others&gt;.</plot>"
        ),
        "{known}"
    );
    assert!(known.contains("<aired>2011-04-17</aired>"), "{known}");

    // TMDB has no such episode (404): no plot, no air date, nothing invented.
    let unknown = read(&format!("{season}/Game of Thrones - S01E03.nfo"));
    assert!(unknown.contains("<title>Episode 3</title>"), "{unknown}");
    assert!(
        unknown.contains("<season>1</season>\n  <episode>3</episode>"),
        "{unknown}"
    );
    assert!(!unknown.contains("<plot>"), "{unknown}");
    assert!(!unknown.contains("<aired>"), "{unknown}");

    // A film's fanart, from its details' backdrop.
    let (_, op) = scrape(&f, "Heat (1995)", false, "scrape-heat").await;
    assert_eq!(op["status"], "succeeded", "{op}");
    let movie = read(NFO);
    assert!(
        movie.contains("<fanart>\n    <thumb>https://image.tmdb.org/t/p/w1280/rfEXNlql4CafRmtgp2VXQWQ5i5C.jpg</thumb>\n  </fanart>"),
        "{movie}"
    );
    assert!(
        movie.contains("<uniqueid type=\"tmdb\" default=\"true\">949</uniqueid>"),
        "{movie}"
    );
}
