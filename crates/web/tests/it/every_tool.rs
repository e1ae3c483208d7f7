//! Every tool of the server, downloads, discover, requests, library and changes families called
//! through the real MCP endpoint, against the contract fakes of the library services and the
//! catalogues and a real transmission-daemon (behind a fault proxy, so that an operation can be
//! held under way and cancelled). Each answer must succeed, and `Server::call` checks it against
//! the output schema its tool declares; every tool of those families must be called here, but
//! the few named with their reason.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use test_support::{
    MusicBrainzFake, TmdbFake,
    arr::{ArrKind, FakeArr, Resource, Verdict},
    fault::{Fault, FaultProxy},
};

use crate::peers::{Daemon, Fixture, TrRaw, poll};
use crate::support::{Server, builtin, instance, server_with_instances};

/// Families whose tools this test calls, every one of them.
const FAMILIES: &[&str] = &[
    "server",
    "downloads",
    "discover",
    "requests",
    "library",
    "changes",
];

/// Tools of those families not called here, each with its reason.
const NOT_CALLED_HERE: &[(&str, &str)] = &[
    (
        "find_tools",
        "it finds what a grant's tools/list leaves out, and the owner lists every group: tool_groups.rs calls it as an operator, each answer checked against its schema",
    ),
    (
        "get_lyrics",
        "lyrics need an LRCLIB instance: sources.rs reads them by MusicBrainz recording, by song and by LRCLIB id, each answer checked against its schema",
    ),
    (
        "grab_release",
        "a grab needs a release seeded in the fake and searched first: library_repair.rs and library_repair_music_books.rs grab through every library kind, each answer checked against its schema",
    ),
    (
        "search_releases",
        "a search spends the searches allowance: library_repair.rs and library_repair_music_books.rs search every library kind, each answer checked against its schema",
    ),
];

/// The tools a successful call was made to.
struct Calls {
    s: Arc<Server>,
    ok: BTreeSet<String>,
}

impl Calls {
    /// Calls `tool` as `key`: it must succeed (and conform to its schema); its data.
    async fn as_(&mut self, key: &str, tool: &str, args: Value) -> Value {
        let r = self.s.call(key, tool, args.clone()).await;
        assert_eq!(r["isError"], false, "{tool} {args}: {r}");
        self.ok.insert(tool.to_string());
        r["structuredContent"]["data"].clone()
    }

    async fn owner(&mut self, tool: &str, args: Value) -> Value {
        let key = self.s.owner_key.clone();
        self.as_(&key, tool, args).await
    }
}

fn library(id: &str, kind: InstanceKind, fake: &FakeArr) -> tools::InstanceSpec {
    let mut spec = instance(id, kind, Some(&fake.url()), Some(fake.api_key()));
    spec.default = true;
    spec
}

fn heat() -> Value {
    json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_within_its_own_schema() {
    // The library services, with a movie, a series and stuck downloads.
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    let sonarr = FakeArr::start(ArrKind::Sonarr).await;
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    let heat_id = radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1,
               "monitored": true, "path": "/data/media/movies/Heat (1995)"}),
    );
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    radarr.start_download(heat_id, "Heat.1995.1080p.BluRay", 8_000_000_000);
    let stuck = radarr.seed_stuck(heat_id, Verdict::SampleFile);
    radarr.insert(
        Resource::QualityProfile,
        json!({
            "name": "Movies", "upgradeAllowed": true, "cutoff": 7,
            "items": [{ "quality": { "id": 7, "name": "Bluray-1080p", "source": "bluray", "resolution": 1080, "modifier": "none" },
                        "items": [], "allowed": true }],
            "minFormatScore": 0, "cutoffFormatScore": 0, "minUpgradeFormatScore": 1,
            "formatItems": [], "language": { "id": 1, "name": "English" }
        }),
    );
    let series = sonarr.insert(
        Resource::Series,
        json!({"title": "Bluey", "year": 2018, "tvdbId": 353546, "tmdbId": 82728, "path": "/data/media/tv/Bluey",
               "seasons": [{"seasonNumber": 1, "monitored": true}]}),
    );
    let episode = sonarr.insert(
        Resource::Episode,
        json!({"seriesId": series, "seasonNumber": 1, "episodeNumber": 4, "title": "Hospital",
               "airDateUtc": "2018-10-01T01:00:00Z"}),
    );
    let mapped = sonarr.seed_stuck(episode, Verdict::WrongEpisodeMapping);
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "releaseDate": "1937-09-21T00:00:00Z",
               "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    let tmdb = TmdbFake::start().await;
    let mb = MusicBrainzFake::start().await;

    // A transmission-daemon behind a proxy that can slow it down, holding two torrents.
    let tr = std::thread::spawn(|| Daemon::start("transmission.sh"))
        .join()
        .unwrap();
    let traw = TrRaw::new(&tr);
    let url = tr.cred("TRANSMISSION_URL");
    let proxy = FaultProxy::in_front_of(&url).await;
    let tr_spec = tools::InstanceSpec {
        id: "tr".into(),
        kind: InstanceKind::Transmission,
        url: Some(proxy.url_for(&url).parse().unwrap()),
        path: None,
        username: Some(tr.cred("TRANSMISSION_USER")),
        password: Some(Secret::new(tr.cred("TRANSMISSION_PASS"))),
        api_key: None,
        default: true,
    };
    let fix = tr.dir.path().join("fixtures");
    let movies = tr.downloads().join("movies");
    let tv = tr.downloads().join("tv");
    let one = Fixture::new(&fix, "every-one.mkv", 64_000, None);
    let two = Fixture::new(&fix, "every-two.mkv", 64_000, None);
    one.place_data(&movies);
    std::fs::create_dir_all(&tv).unwrap();
    traw.add(&one, &movies, &["mcp"]).await;
    traw.add(&two, &movies, &[]).await;
    // A torrent in tv makes tv a category there.
    let three = Fixture::new(&fix, "every-three.mkv", 16_000, None);
    traw.add(&three, &tv, &[]).await;
    let steps: Vec<Fixture> = (0..6)
        .map(|n| Fixture::new(&fix, &format!("every-step-{n}.mkv"), 16_000, None))
        .collect();
    for f in &steps {
        traw.add(f, &tr.downloads(), &[]).await;
    }
    let added = Fixture::new(&fix, "every-added.mkv", 16_000, None);

    let tmdb_spec = instance(
        "tmdb",
        InstanceKind::Tmdb,
        Some(tmdb.base_url()),
        Some(TmdbFake::API_KEY),
    );
    let s = Arc::new(
        server_with_instances(vec![
            builtin(),
            tmdb_spec,
            instance("mb", InstanceKind::Musicbrainz, Some(mb.base_url()), None),
            library("radarr", InstanceKind::Radarr, &radarr),
            library("sonarr", InstanceKind::Sonarr, &sonarr),
            library("lidarr", InstanceKind::Lidarr, &lidarr),
            library("readarr", InstanceKind::Readarr, &readarr),
            tr_spec,
        ])
        .await,
    );
    s.host.app.settings().set_allow_destructive(true);
    let member = s.key_for("mia", Role::User, "requester").await;
    let operator = s.key_for("ops", Role::Admin, "operator").await;
    let mut c = Calls {
        s: s.clone(),
        ok: BTreeSet::new(),
    };

    // server
    c.owner("whoami", json!({})).await;
    c.owner("get_guide", json!({"topic": "setup"})).await;
    c.owner("list_instances", json!({})).await;
    c.owner("diagnose", json!({})).await;
    c.owner("get_activity", json!({"limit": 5})).await;

    // discover
    c.owner(
        "search_titles",
        json!({"query": "matrix", "instance_id": "builtin"}),
    )
    .await;
    let matrix = json!({"media_source": "tmdb", "media_id": "603", "media_type": "movie",
                        "instance_id": "tmdb"});
    c.owner("get_title_details", matrix.clone()).await;
    c.owner("get_recommendations", matrix).await;
    c.owner("get_trending", json!({"instance_id": "tmdb"}))
        .await;
    c.owner(
        "browse_titles",
        json!({"media_type": "movie", "instance_id": "tmdb"}),
    )
    .await;
    c.owner(
        "search_collections",
        json!({"query": "toy", "instance_id": "tmdb"}),
    )
    .await;
    c.owner("search_music", json!({"query": "Radiohead"})).await;
    c.owner(
        "display_media",
        json!({"query": "matrix", "instance_id": "builtin"}),
    )
    .await;

    // requests: a member's request waits for a decision, the owner's does not.
    let tv_request =
        json!({"media_source": "tmdb", "media_id": "82728", "media_type": "tv", "seasons": [1]});
    c.as_(&member, "get_request_options", tv_request.clone())
        .await;
    let asked = c.as_(&member, "request_media", tv_request).await;
    let request_id = asked["request"]["request_id"].as_i64().unwrap();
    c.as_(
        &member,
        "check_request_status",
        json!({"request_id": request_id}),
    )
    .await;
    c.owner("list_requests", json!({})).await;
    c.owner(
        "decide_request",
        json!({"request_id": request_id, "decision": "reject", "note": "not tonight"}),
    )
    .await;

    // library reads and writes
    c.owner("get_library", json!({"instance_id": "radarr"}))
        .await;
    c.owner("get_queue", json!({})).await;
    c.owner("get_calendar", json!({"days_back": 30, "days_ahead": 30}))
        .await;
    c.owner("get_history", json!({})).await;
    c.owner("get_history", heat()).await;
    c.owner("get_disk_space", json!({})).await;
    c.owner("get_health", json!({})).await;
    c.owner(
        "get_episode_timeline",
        json!({"media_source": "tvdb", "media_id": "353546", "season": 1}),
    )
    .await;
    c.owner("get_media_file_details", heat()).await;
    c.owner("get_service_config", json!({"instance_id": "radarr"}))
        .await;
    c.owner("get_item_timeline", heat()).await;
    c.owner("get_quality_profiles", json!({"media_type": "movie"}))
        .await;
    c.owner("get_custom_formats", json!({"instance_id": "radarr"}))
        .await;
    c.owner("search_books", json!({"query": "hobbit"})).await;
    c.owner("trigger_search", heat()).await;
    c.owner("rescan_media", heat()).await;
    let diagnosis = c.owner("diagnose_queue", json!({})).await;
    c.owner(
        "get_manual_import_candidates",
        json!({"instance_id": "sonarr", "queue_id": mapped}),
    )
    .await;
    let import = diagnosis["stuck"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["next_call"]["tool"] == "execute_manual_import")
        .unwrap_or_else(|| panic!("a wrong mapping's fix is an import: {diagnosis}"))["next_call"]
        .clone();
    c.owner("execute_manual_import", import["arguments"].clone())
        .await;
    c.owner(
        "remove_queue_item",
        json!({"instance_id": "radarr", "queue_ids": [stuck], "action": "remove"}),
    )
    .await;
    c.owner(
        "upsert_custom_format",
        json!({"instance_id": "radarr", "name": "x264", "specifications": [
            {"name": "x264", "implementation": "ReleaseTitleSpecification", "fields": {"value": "x264"}}]}),
    )
    .await;
    let profile = c
        .owner(
            "plan_profile_change",
            json!({"instance_id": "radarr", "profile": "Movies", "upgrade_allowed": false}),
        )
        .await;
    let profile_change = profile["change_id"].as_str().unwrap().to_string();
    c.owner(
        "apply_change",
        json!({"change_id": profile_change, "idempotency_key": "every-tool-profile-1"}),
    )
    .await;
    c.owner("get_change", json!({"change_id": profile_change}))
        .await;
    c.owner("revert_change", json!({"change_id": profile_change}))
        .await;

    // downloads
    c.owner("downloads_overview", json!({})).await;
    let found = c.owner("find_torrents", json!({})).await;
    assert!(!found["rows"].as_array().unwrap().is_empty(), "{found}");
    c.owner("torrent_detail", json!({"info_hash": one.hash}))
        .await;
    c.owner("torrent_files", json!({"info_hash": one.hash}))
        .await;
    c.owner("tracker_errors", json!({})).await;
    c.owner("list_categories", json!({})).await;
    c.owner("add_torrent", json!({"source": added.magnet()}))
        .await;
    let hashes = json!([two.hash]);
    c.owner("pause_torrents", json!({"info_hashes": hashes}))
        .await;
    c.owner("resume_torrents", json!({"info_hashes": hashes}))
        .await;
    c.owner("recheck_torrents", json!({"info_hashes": hashes}))
        .await;
    c.owner("reannounce_torrents", json!({"info_hashes": [one.hash]}))
        .await;
    c.owner("set_tags", json!({"info_hashes": hashes, "tags": ["mcp"]}))
        .await;
    c.owner(
        "set_category",
        json!({"info_hashes": hashes, "category": "tv"}),
    )
    .await;
    c.owner(
        "move_to_category",
        json!({"info_hashes": [one.hash], "category": "tv"}),
    )
    .await;
    c.owner(
        "delete_torrents",
        json!({"info_hashes": [added.hash], "delete_data": false}),
    )
    .await;

    // changes: an operator's deletion, approved, applied slowly, followed and cancelled.
    let step_hashes: Vec<&str> = steps.iter().map(|f| f.hash.as_str()).collect();
    let planned = poll(20, "a plan of the step torrents", async || {
        let r = s
            .call(
                &operator,
                "delete_torrents",
                json!({"info_hashes": step_hashes, "delete_data": false}),
            )
            .await;
        (r["isError"] == false).then(|| r["structuredContent"]["data"].clone())
    })
    .await;
    let change_id = planned["change_id"].as_str().unwrap().to_string();
    let store = s.host.app.store();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let change = store.change(&change_id).await.unwrap().unwrap();
    store
        .decide_change(&change_id, owner.id, true, &change.content_hash)
        .await
        .unwrap();
    proxy.set(Fault::Latency(Duration::from_millis(400)));
    let applying = {
        let (s, operator, change_id) = (s.clone(), operator.clone(), change_id.clone());
        tokio::spawn(async move {
            s.call(
                &operator,
                "apply_change",
                json!({"change_id": change_id, "idempotency_key": "every-tool-steps-1"}),
            )
            .await
        })
    };
    let op = poll(20, "the deletion under way", async || {
        store.operation_for_change(&change_id).await.unwrap()
    })
    .await;
    c.owner("get_operation", json!({"operation_id": op.id}))
        .await;
    c.owner("cancel_operation", json!({"operation_id": op.id}))
        .await;
    let applied = applying.await.unwrap();
    assert_eq!(applied["isError"], false, "{applied}");
    proxy.set(Fault::None);

    // Every tool of the families was called, but the few named.
    let mut missing = Vec::new();
    for family in tools::families() {
        if !FAMILIES.contains(&family.name()) {
            continue;
        }
        for tool in family.tools() {
            let name = tool.meta().name;
            let exempt = NOT_CALLED_HERE.iter().any(|(n, _)| *n == name);
            if !exempt && !c.ok.contains(name) {
                missing.push(name);
            }
        }
    }
    assert!(missing.is_empty(), "not called: {missing:?}");
    // And each answered from a typed data type: its declared `data` is not any JSON value.
    for name in &c.ok {
        let def = serde_json::to_value(s.host.definition(name).unwrap()).unwrap();
        let data = &def["outputSchema"]["properties"]["data"];
        let own = data["anyOf"].get(0).unwrap_or(data);
        assert_ne!(own, &json!({}), "{name} declares no typed data");
    }
    for (name, _) in NOT_CALLED_HERE {
        assert!(
            !c.ok.contains(*name),
            "{name} is called here: take it off the list"
        );
    }
}
