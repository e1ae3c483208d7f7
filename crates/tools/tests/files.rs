//! The files family through the core, as every call reaches it: `recognize_media` is listed
//! only where a folder instance exists (and the caller's grant holds files.read), reads names
//! into guessit's properties, names the builtin catalogue's identity, and answers an
//! unrecognisable name with `type: "unknown"` and a warning rather than an error.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::Store;
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

struct Fixture {
    app: App,
    owner: Caller,
    /// A person with the requester preset (files.read among its capabilities).
    member: Caller,
    /// A person whose grant holds discover only.
    outsider: Caller,
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

/// A core over a builtin catalogue, with a folder instance `library` when `folder`.
async fn fixture(folder: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut list = vec![spec("builtin", InstanceKind::Builtin, None)];
    if folder {
        let library = dir.path().join("library");
        std::fs::create_dir(&library).unwrap();
        list.push(spec(
            "library",
            InstanceKind::Folder,
            Some(library.display().to_string()),
        ));
    }
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let member = store.add_person("member", Role::User).await.unwrap();
    let member_key = store
        .create_key(member.id, "requester", None, None)
        .await
        .unwrap();
    let outsider = store.add_person("outsider", Role::User).await.unwrap();
    store
        .create_grant(
            "discover-only",
            &store::GrantSpec {
                capabilities: [domain::Capability::Discover].into(),
                ..store::GrantSpec::default()
            },
        )
        .await
        .unwrap();
    let outsider_key = store
        .create_key(outsider.id, "discover-only", None, None)
        .await
        .unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let who = |key: String| {
        let app = &app;
        async move { app.authenticate(&key).await.unwrap().unwrap() }
    };
    let owner = who(owner_key.secret.expose().to_owned()).await;
    let member = who(member_key.secret.expose().to_owned()).await;
    let outsider = who(outsider_key.secret.expose().to_owned()).await;
    Fixture {
        app,
        owner,
        member,
        outsider,
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

#[tokio::test]
async fn recognize_media_is_listed_only_where_a_folder_instance_exists() {
    let without = fixture(false).await;
    assert!(
        !without
            .app
            .visible(&without.owner)
            .contains(&"recognize_media")
    );
    let with = fixture(true).await;
    assert!(with.app.visible(&with.owner).contains(&"recognize_media"));
    assert!(with.app.visible(&with.member).contains(&"recognize_media"));
    assert!(
        !with
            .app
            .visible(&with.outsider)
            .contains(&"recognize_media"),
        "a grant without files.read does not see it"
    );
}

#[tokio::test]
async fn a_grant_without_files_read_is_refused() {
    let f = fixture(true).await;
    let args = json!({ "name": "Heat.1995.1080p.BluRay.x264-GRP.mkv" });
    match f
        .app
        .call(&f.outsider, "recognize_media", args.as_object().cloned())
        .await
    {
        Called::Done(Err(e)) => assert!(e.message.contains("files.read"), "{}", e.message),
        Called::Done(Ok(out)) => panic!("answered: {}", out.summary),
        Called::UnknownTool => panic!("unknown tool"),
    }
}

#[tokio::test]
async fn a_movie_path_reads_into_facts_and_the_builtin_identity() {
    let f = fixture(true).await;
    let out = call(
        &f.app,
        &f.member,
        "recognize_media",
        json!({ "name": "Movies/Heat (1995)/Heat.1080p.BluRay.DTS.x264-GRP.mkv" }),
    )
    .await;
    let d = out.data();
    assert_eq!(d["type"], "movie");
    assert_eq!(d["media_type"], "movie");
    assert_eq!(d["title"], "Heat");
    assert_eq!(d["year"], 1995);
    assert_eq!(d["screen_size"], "1080p");
    assert_eq!(d["source"], "Blu-ray");
    assert_eq!(d["audio_codec"], "DTS");
    assert_eq!(d["video_codec"], "H.264");
    assert_eq!(d["release_group"], "GRP");
    assert_eq!(d["container"], "mkv");
    assert_eq!(d["match"]["media_source"], "builtin");
    assert_eq!(d["match"]["media_id"], "tt0113277");
    assert!(d["match"]["confidence"].as_f64().unwrap() >= 0.9, "{d}");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

#[tokio::test]
async fn a_multi_episode_file_reads_seasons_episodes_and_languages() {
    let f = fixture(true).await;
    let out = call(
        &f.app,
        &f.owner,
        "recognize_media",
        json!({ "name": "Show.Name.S01E02E03.FRENCH.720p.WEB-DL.DD5.1.H.264.VOSTFR-GRP.mkv" }),
    )
    .await;
    let d = out.data();
    assert_eq!(d["type"], "episode");
    assert_eq!(d["media_type"], "tv");
    assert_eq!(d["title"], "Show Name");
    assert_eq!(d["season"], 1);
    assert_eq!(d["episode"], json!([2, 3]));
    assert_eq!(d["language"], "fr");
    assert_eq!(d["subtitle_language"], "fr");
    assert_eq!(d["audio_channels"], "5.1");
    // No catalogue that knows shows: no match, and the answer says why.
    assert_eq!(d["match"], Value::Null);
    assert!(
        out.warnings.iter().any(|w| w.contains("tmdb")),
        "{:?}",
        out.warnings
    );
}

#[tokio::test]
async fn nothing_recognisable_is_unknown_with_a_warning_not_an_error() {
    let f = fixture(true).await;
    let out = call(
        &f.app,
        &f.owner,
        "recognize_media",
        json!({ "name": "--- ..." }),
    )
    .await;
    assert_eq!(out.data()["type"], "unknown");
    assert_eq!(out.data()["media_type"], Value::Null);
    assert_eq!(out.data()["match"], Value::Null);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("nothing recognisable")),
        "{:?}",
        out.warnings
    );
}

#[tokio::test]
async fn an_empty_name_is_refused_with_an_example() {
    let f = fixture(true).await;
    match f
        .app
        .call(
            &f.owner,
            "recognize_media",
            json!({ "name": "  " }).as_object().cloned(),
        )
        .await
    {
        Called::Done(Err(e)) => assert!(e.message.contains("e.g."), "{}", e.message),
        Called::Done(Ok(out)) => panic!("answered: {}", out.summary),
        Called::UnknownTool => panic!("unknown tool"),
    }
}
