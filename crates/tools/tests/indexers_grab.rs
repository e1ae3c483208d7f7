//! `grab_release` with `search_indexers` references, end to end on 127.0.0.1: a row found on a
//! Torznab feed (its .torrent fetched by Marquee from the feed's own host) goes into a real
//! transmission-daemon, one found on Prowlarr (a magnet) into a real qBittorrent, and both
//! show in `find_torrents`; a reference replayed after its grab, another person's, a made-up
//! one, a usenet row and a redirect to a refused address add nothing. A grab saves into the
//! `save_path` asked for when it lies beneath a folder the daemon saves into (refused otherwise),
//! links the torrent to its title and to the open request of that title in the download history,
//! and `find_torrents` and `get_download_history` show that link.

#![allow(clippy::unwrap_used)]

use std::{path::Path, process::Command, sync::Arc};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::{
    indexers::{FakeRelease, ProwlarrFake, TorznabFake, prowlarr::FakeIndexer},
    peers::Daemon,
};
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

/// A fresh .torrent of random data: its bytes and info hash.
fn torrent(dir: &Path, name: &str) -> (Vec<u8>, String) {
    let data = dir.join(name);
    let mut bytes = vec![0u8; 40_000];
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut bytes)
        .unwrap();
    std::fs::write(&data, bytes).unwrap();
    let file = dir.join(format!("{name}.torrent"));
    let out = Command::new("transmission-create")
        .arg("-o")
        .arg(&file)
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "transmission-create failed");
    let bytes = std::fs::read(&file).unwrap();
    let hash = adapters_downloads::info_hash_of_torrent(&bytes)
        .unwrap()
        .to_hex();
    (bytes, hash)
}

fn spec(id: &str, kind: InstanceKind, url: &str) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(url.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Result<Output, String> {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => Ok(out),
        Called::Done(Err(e)) => Err(e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

/// The folder `instance` saves the torrent `hash` into, asked again for up to ten seconds.
async fn saved_in(app: &App, caller: &Caller, instance: &str, hash: &str) -> String {
    let mut last = String::new();
    for _ in 0..50 {
        if let Ok(out) = call(
            app,
            caller,
            "torrent_detail",
            json!({ "instance_id": instance, "info_hash": hash }),
        )
        .await
        {
            let data = out.data();
            last = data["torrent"]["save_path"]
                .as_str()
                .unwrap_or_default()
                .trim_end_matches('/')
                .to_string();
            if !last.is_empty() {
                return last;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    last
}

/// Whether find_torrents on `instance` shows `hash`, asked again for up to ten seconds (a
/// daemon lists a torrent it was just given on its own schedule).
async fn listed(app: &App, caller: &Caller, instance: &str, hash: &str) -> bool {
    for _ in 0..50 {
        let out = call(
            app,
            caller,
            "find_torrents",
            json!({ "instance_id": instance }),
        )
        .await
        .unwrap();
        if out.data().to_string().contains(hash) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    false
}

fn row_ref(out: &Output, title: &str) -> String {
    let d = out.data();
    let row = d["releases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["title"] == title)
        .unwrap_or_else(|| panic!("no {title} in {d}"));
    row["release_ref"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn grabs_go_into_real_transmission_and_qbittorrent_once_and_for_their_searcher_only() {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"));
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"));
    let (qb, tr) = (qb.join().unwrap(), tr.join().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let (bytes, feed_hash) = torrent(dir.path(), "matrix-feed.mkv");
    let mut from_feed =
        FakeRelease::torrent("The.Matrix.1999.1080p.BluRay.x264-GRP", 40_000, 30, 1);
    from_feed.info_hash = Some(feed_hash.clone());
    from_feed.imdb = Some("tt0133093".into());
    from_feed.torrent = Some(bytes);
    let mut usenet = FakeRelease::torrent("The.Matrix.1999.720p.WEB-NZB", 40_000, 0, 9);
    usenet.usenet = true;
    usenet.info_hash = None;
    usenet.imdb = Some("tt0133093".into());
    let feed = TorznabFake::start("Feed", vec![from_feed, usenet]).await;
    let magnet_hash = "ab".repeat(20);
    let mut from_prowlarr =
        FakeRelease::torrent("The.Matrix.1999.2160p.UHD.BluRay.x265-HDR", 60_000, 12, 2);
    from_prowlarr.info_hash = Some(magnet_hash.clone());
    from_prowlarr.imdb = Some("tt0133093".into());
    from_prowlarr.magnet = Some(format!("magnet:?xt=urn:btih:{magnet_hash}&dn=matrix"));
    let prowlarr =
        ProwlarrFake::start(vec![FakeIndexer::new(1, "Alpha", vec![from_prowlarr])]).await;

    let mut list = vec![spec("builtin", InstanceKind::Builtin, "http://127.0.0.1:1")];
    list[0].url = None;
    let mut f = spec("feed", InstanceKind::Torznab, &feed.url());
    f.api_key = Some(Secret::new(TorznabFake::API_KEY.to_string()));
    let mut p = spec("prowlarr", InstanceKind::Prowlarr, prowlarr.url());
    p.api_key = Some(Secret::new(ProwlarrFake::API_KEY.to_string()));
    let mut t = spec(
        "tr",
        InstanceKind::Transmission,
        &tr.cred("TRANSMISSION_URL"),
    );
    t.username = Some(tr.cred("TRANSMISSION_USER"));
    t.password = Some(Secret::new(tr.cred("TRANSMISSION_PASS")));
    t.default = true;
    let mut q = spec("qb", InstanceKind::Qbittorrent, &qb.cred("QBITTORRENT_URL"));
    q.username = Some(qb.cred("QBITTORRENT_USER"));
    q.password = Some(Secret::new(qb.cred("QBITTORRENT_PASS")));
    list.extend([f, p, t, q]);

    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let other = store.add_person("other", Role::Admin).await.unwrap();
    let other_key = store
        .create_key(other.id, "admin", None, None)
        .await
        .unwrap();
    let history = store.clone();
    // An approved request of the title: the grab serves it.
    let owner_id = store.person_by_name("owner").await.unwrap().unwrap().id;
    let request = match store
        .create_request(&store::NewRequest {
            person: owner_id,
            media: domain::MediaId::new(domain::MediaSource::Builtin, "tt0133093"),
            media_type: domain::MediaType::Movie,
            title: "The Matrix".into(),
            year: Some(1999),
            seasons: vec![],
            instance_id: None,
            auto_approve: true,
        })
        .await
        .unwrap()
    {
        store::RequestOutcome::Created { request, .. } => request.id,
        other => panic!("{other:?}"),
    };
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    // As `serve` does: the download catalogues refresh in the background, so a torrent a daemon
    // lists only after the first read still reaches find_torrents.
    app.start_jobs(std::future::pending());
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let other = app
        .authenticate(other_key.secret.expose())
        .await
        .unwrap()
        .unwrap();

    let search = json!({ "media_source": "builtin", "media_id": "tt0133093" });
    let found = call(&app, &owner, "search_indexers", search.clone())
        .await
        .unwrap();
    let feed_ref = row_ref(&found, "The.Matrix.1999.1080p.BluRay.x264-GRP");
    let prowlarr_ref = row_ref(&found, "The.Matrix.1999.2160p.UHD.BluRay.x265-HDR");
    let usenet_row = found.data()["releases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["protocol"] == "usenet")
        .cloned()
        .unwrap();
    assert_eq!(usenet_row["grabbable"], false);
    assert!(usenet_row["release_ref"].is_null());

    // Another person cannot use the owner's reference; nothing reaches the feed's link.
    let e = call(
        &app,
        &other,
        "grab_release",
        json!({ "release_ref": feed_ref, "download_instance_id": "tr" }),
    )
    .await
    .unwrap_err();
    assert!(
        e.starts_with("that release_ref is not one search_indexers gave you"),
        "{e}"
    );
    assert_eq!(feed.downloads(), 0);
    // A made-up reference, and *arr arguments beside an indexer reference, are refused.
    let e = call(&app, &owner, "grab_release", json!({ "release_ref": "idx:feed:00000000000000000000000000000000", "download_instance_id": "tr" }))
        .await
        .unwrap_err();
    assert!(
        e.starts_with("that release_ref is not one search_indexers gave you"),
        "{e}"
    );
    let e = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": feed_ref, "download_instance_id": "tr", "media_id": "603" }),
    )
    .await
    .unwrap_err();
    assert!(
        e.contains("takes only download_instance_id and category"),
        "{e}"
    );

    // A save_path outside the folders Transmission saves into, or climbing out of one: refused
    // before anything is fetched, and the reference is still good.
    let outside = dir.path().join("elsewhere");
    for bad in [
        outside.to_str().unwrap().to_string(),
        format!("{}/../escape", tr.downloads().display()),
        "movies/matrix".to_string(),
    ] {
        let e = call(
            &app,
            &owner,
            "grab_release",
            json!({ "release_ref": feed_ref, "download_instance_id": "tr", "save_path": bad }),
        )
        .await
        .unwrap_err();
        assert!(
            e.starts_with("invalid argument \"save_path\"") && e.ends_with("nothing was added"),
            "{e}"
        );
        assert!(e.contains(tr.downloads().to_str().unwrap()), "{e}");
    }
    assert_eq!(feed.downloads(), 0);

    // The feed's .torrent into Transmission, saved into a folder beneath its download folder.
    let wanted_dir = tr.downloads().join("matrix");
    let grabbed = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": feed_ref, "download_instance_id": "tr",
            "save_path": wanted_dir.to_str().unwrap() }),
    )
    .await
    .unwrap();
    assert_eq!(grabbed.data()["status"], "added", "{}", grabbed.data());
    assert_eq!(grabbed.data()["request_id"], request, "{}", grabbed.data());
    assert_eq!(grabbed.data()["recorded"], true);
    assert_eq!(grabbed.data()["info_hash"], feed_hash.as_str());
    assert_eq!(grabbed.data()["for"], "The Matrix (1999)");
    assert_eq!(
        feed.downloads(),
        1,
        "Marquee fetched the .torrent from the feed once"
    );
    let text = format!("{} {}", grabbed.summary, grabbed.data());
    assert!(
        !text.contains(TorznabFake::API_KEY) && !text.contains(TorznabFake::PASSKEY),
        "{text}"
    );
    assert!(
        listed(&app, &owner, "tr", &feed_hash).await,
        "find_torrents shows it on tr"
    );
    assert_eq!(
        saved_in(&app, &owner, "tr", &feed_hash).await,
        wanted_dir.to_str().unwrap(),
        "Transmission saves it where save_path said"
    );
    // find_torrents links the torrent to its title and request.
    let page = call(
        &app,
        &owner,
        "find_torrents",
        json!({ "instance_id": "tr" }),
    )
    .await
    .unwrap();
    let links = page.data()["grabbed_for"].as_array().unwrap().clone();
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0]["info_hash"], feed_hash.as_str());
    assert_eq!(links[0]["title"], "The Matrix (1999)");
    assert_eq!(links[0]["media"], "builtin tt0133093");
    assert_eq!(links[0]["request_id"], request);

    // The download history links the torrent to the title it was searched for.
    let grabs = history.grabs_of(&feed_hash).await.unwrap();
    assert_eq!(grabs.len(), 1);
    assert_eq!(grabs[0].instance_id, "tr");
    assert_eq!(grabs[0].title.as_deref(), Some("The Matrix (1999)"));
    assert_eq!(grabs[0].media.as_deref(), Some("builtin tt0133093"));
    assert_eq!(grabs[0].indexer, "feed");
    assert_eq!(grabs[0].release, "The.Matrix.1999.1080p.BluRay.x264-GRP");
    assert_eq!(grabs[0].request_id, Some(request));

    // Replayed after the grab: refused, nothing fetched or added again.
    let e = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": feed_ref, "download_instance_id": "qb" }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e,
        "that release_ref was already grabbed; nothing was added again"
    );
    assert_eq!(feed.downloads(), 1);

    // Prowlarr's magnet into qBittorrent, into a folder beneath its default save path; one
    // beneath Transmission's folder is not qBittorrent's.
    let e = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": prowlarr_ref, "download_instance_id": "qb",
            "save_path": wanted_dir.to_str().unwrap() }),
    )
    .await
    .unwrap_err();
    assert!(e.contains(qb.downloads().to_str().unwrap()), "{e}");
    let uhd = qb.downloads().join("uhd");
    let grabbed = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": prowlarr_ref, "download_instance_id": "qb",
            "save_path": uhd.to_str().unwrap() }),
    )
    .await
    .unwrap();
    assert_eq!(grabbed.data()["save_path"], uhd.to_str().unwrap());
    assert_eq!(
        grabbed.data()["info_hash"],
        magnet_hash.as_str(),
        "{}",
        grabbed.data()
    );
    assert!(
        listed(&app, &owner, "qb", &magnet_hash).await,
        "find_torrents shows it on qb"
    );
    assert_eq!(
        saved_in(&app, &owner, "qb", &magnet_hash).await,
        uhd.to_str().unwrap(),
        "qBittorrent saves it where save_path said"
    );
    let listed = call(
        &app,
        &owner,
        "find_torrents",
        json!({ "instance_id": "tr" }),
    )
    .await
    .unwrap();
    assert!(
        !listed.data().to_string().contains(&magnet_hash),
        "nothing else went to Transmission"
    );

    // A feed whose download link redirects to an address on this machine: refused by the
    // outbound rule, nothing added, and the reference is still good.
    let again = call(&app, &owner, "search_indexers", search).await.unwrap();
    let fresh = row_ref(&again, "The.Matrix.1999.1080p.BluRay.x264-GRP");
    feed.redirect_downloads("http://127.0.0.1:9/elsewhere.torrent");
    let e = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": fresh, "download_instance_id": "qb" }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e,
        format!("{}; nothing was added", httpx::outbound::REFUSAL)
    );
    feed.redirect_downloads("ftp://127.0.0.1/x.torrent");
    let e = call(
        &app,
        &owner,
        "grab_release",
        json!({ "release_ref": fresh, "download_instance_id": "qb" }),
    )
    .await
    .unwrap_err();
    assert!(
        e.contains("neither http(s) nor a magnet link; nothing was added"),
        "{e}"
    );
    let listed = call(
        &app,
        &owner,
        "find_torrents",
        json!({ "instance_id": "qb" }),
    )
    .await
    .unwrap();
    assert!(
        !listed.data().to_string().contains(&feed_hash),
        "{}",
        listed.data()
    );
    assert_eq!(
        history.recent_grabs(10).await.unwrap().len(),
        2,
        "refused grabs are not recorded"
    );

    // The download history, as a tool: both grabs for the title, newest first; narrowed to one
    // instance, one torrent or the request.
    let all = call(
        &app,
        &owner,
        "get_download_history",
        json!({ "media_source": "builtin", "media_id": "tt0133093" }),
    )
    .await
    .unwrap();
    let rows = all.data()["grabs"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["download_instance_id"], "qb");
    assert_eq!(rows[0]["info_hash"], magnet_hash.as_str());
    assert_eq!(rows[1]["download_instance_id"], "tr");
    assert_eq!(rows[1]["title"], "The Matrix (1999)");
    assert_eq!(rows[1]["request_id"], request);
    for (args, n) in [
        (json!({ "instance_id": "tr" }), 1),
        (json!({ "info_hash": magnet_hash }), 1),
        (json!({ "request_id": request }), 2),
        (
            json!({ "media_source": "builtin", "media_id": "tt0234215" }),
            0,
        ),
    ] {
        let out = call(&app, &owner, "get_download_history", args.clone())
            .await
            .unwrap();
        assert_eq!(out.data()["grabs"].as_array().unwrap().len(), n, "{args}");
    }
    // An admin sees everyone's grabs; an operator (downloads, not everyone's requests) only
    // their own: none here.
    let seen = call(&app, &other, "get_download_history", json!({}))
        .await
        .unwrap();
    assert_eq!(seen.data()["grabs"].as_array().unwrap().len(), 2);
    let op = history.add_person("olga", Role::User).await.unwrap();
    let op_key = history
        .create_key(op.id, "operator", None, None)
        .await
        .unwrap();
    let op = app
        .authenticate(op_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let seen = call(&app, &op, "get_download_history", json!({}))
        .await
        .unwrap();
    assert!(
        seen.data()["grabs"].as_array().unwrap().is_empty(),
        "{}",
        seen.data()
    );
}
