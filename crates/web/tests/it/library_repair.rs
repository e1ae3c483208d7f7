//! Library repair through the real MCP endpoint against the Radarr and Sonarr fakes: release
//! references that hide every GUID and URL and grab exactly one release (bound to the person who
//! searched, expiring, naming their instance), refusals that grab nothing, and queue removal.

use std::sync::{Arc, Mutex};

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::InstanceKind;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource, Verdict};

use crate::support::{Server, instance, outcome, server_with_instances};

const CANARY: &str = "CANARY7731";

async fn radarr_with_heat() -> FakeArr {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    fake.seed_lookup(
        Resource::Movie,
        json!({ "title": "Heat", "year": 1995, "tmdbId": 949 }),
        vec![],
    );
    fake.insert(Resource::Movie, json!({ "title": "Heat", "year": 1995, "tmdbId": 949, "path": "/data/media/movies/Heat (1995)" }));
    fake.seed_lookup(
        Resource::Movie,
        json!({ "title": "Ronin", "year": 1998, "tmdbId": 8195 }),
        vec![],
    );
    fake.insert(
        Resource::Movie,
        json!({ "title": "Ronin", "year": 1998, "tmdbId": 8195 }),
    );
    for (n, unit) in [(1, 1), (2, 1), (3, 2)] {
        fake.seed_release(
            unit,
            json!({
                "title": format!("Release.{n}.1080p.BluRay-GRP"),
                "guid": format!("https://indexer.example/details/{n}?{CANARY}-guid"),
                "downloadUrl": format!("http://prowlarr:9696/1/download?apikey={CANARY}-dl&link={n}"),
                "magnetUrl": format!("magnet:?xt=urn:btih:{CANARY}{n}&tr=udp://t.example"),
                "infoUrl": format!("https://indexer.example/info/{CANARY}-{n}"),
                "infoHash": format!("{CANARY}{n}"),
            }),
        );
    }
    fake
}

async fn marquee(fakes: &[(&str, &FakeArr)]) -> Server {
    let specs = fakes
        .iter()
        .enumerate()
        .map(|(i, (id, fake))| {
            let kind = match fake.kind() {
                ArrKind::Radarr => InstanceKind::Radarr,
                ArrKind::Sonarr => InstanceKind::Sonarr,
                ArrKind::Lidarr => InstanceKind::Lidarr,
                ArrKind::Readarr => InstanceKind::Readarr,
            };
            let mut spec = instance(id, kind, Some(&fake.url()), Some(fake.api_key()));
            spec.default = i == 0;
            spec
        })
        .collect();
    server_with_instances(specs).await
}

fn heat(instance: &str) -> Value {
    json!({ "instance_id": instance, "media_source": "tmdb", "media_id": "949", "media_type": "movie" })
}

async fn search(s: &Server, scope: Value) -> Value {
    let result = s.call(&s.owner_key, "search_releases", scope).await;
    let (error, summary, data) = outcome(&result);
    assert!(!error, "{summary}");
    assert!(
        !result.to_string().contains(CANARY),
        "a GUID or URL leaked: {result}"
    );
    data
}

async fn grab(s: &Server, scope: Value, row: &Value) -> (bool, String) {
    let mut args = scope;
    args["release_ref"] = row["release_ref"].clone();
    args["indexer_id"] = row["indexer_id"].clone();
    let result = s.call(&s.owner_key, "grab_release", args).await;
    assert!(
        !result.to_string().contains(CANARY),
        "a GUID or URL leaked: {result}"
    );
    let (error, summary, _) = outcome(&result);
    (error, summary)
}

#[tokio::test]
async fn search_rows_carry_references_and_no_guid_or_url() {
    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let data = search(&s, heat("radarr")).await;
    let rows = data["releases"].as_array().unwrap();
    let titles: Vec<&str> = rows.iter().map(|r| r["title"].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        ["Release.1.1080p.BluRay-GRP", "Release.2.1080p.BluRay-GRP"]
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for r in rows {
        let text = r["release_ref"].as_str().unwrap();
        let parts: Vec<&str> = text.split(':').collect();
        assert_eq!(parts.len(), 4, "{text}");
        assert_eq!(
            (parts[0], parts[1]),
            ("arr", "radarr"),
            "a reference names its origin"
        );
        let until: u64 = parts[2].parse().unwrap();
        assert!(
            until > now + 3500 && until <= now + 3601,
            "valid for an hour: {text}"
        );
        assert_eq!(parts[3].len(), 32, "{text}");
    }
    assert_ne!(rows[0]["release_ref"], rows[1]["release_ref"]);
}

/// A reference is the searcher's own: another person's grab with it grabs nothing, and one
/// with its time pushed later (to outlive its hour) matches nothing either.
#[tokio::test]
async fn a_reference_is_bound_to_the_person_who_searched() {
    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let row = search(&s, heat("radarr")).await["releases"][0].clone();
    let other = s.key_for("olga", domain::Role::Admin, "admin").await;
    let mut args = heat("radarr");
    args["release_ref"] = row["release_ref"].clone();
    args["indexer_id"] = row["indexer_id"].clone();
    let (error, summary, _) = outcome(&s.call(&other, "grab_release", args.clone()).await);
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    let text = row["release_ref"].as_str().unwrap();
    let parts: Vec<&str> = text.split(':').collect();
    let later: u64 = parts[2].parse::<u64>().unwrap() + 86_400;
    args["release_ref"] = json!(format!("arr:radarr:{later}:{}", parts[3]));
    let (error, summary, _) = outcome(&s.call(&s.owner_key, "grab_release", args).await);
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    // An expired one is refused before any search.
    let searches = fake.requests_to("GET", "/release").len();
    let mut args = heat("radarr");
    args["release_ref"] = json!(format!("arr:radarr:1000:{}", parts[3]));
    args["indexer_id"] = row["indexer_id"].clone();
    let (error, summary, _) = outcome(&s.call(&s.owner_key, "grab_release", args).await);
    assert!(error && summary.contains("has expired"), "{summary}");
    assert_eq!(fake.requests_to("GET", "/release").len(), searches);
    assert!(fake.grabs().is_empty());
}

/// A live indexer search costs something outside the household: it is audited, spends a unit
/// of the grant's `searches` allowance, and is not offered to a reader.
#[tokio::test]
async fn search_releases_is_audited_counted_and_not_offered_to_readers() {
    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let reader = s.key_for("rita", domain::Role::User, "reader").await;
    let (_, listed) = s
        .rpc(
            &reader,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_queue"), "{names:?}");
    assert!(!names.contains(&"search_releases"), "{names:?}");
    let (error, summary, _) = outcome(&s.call(&reader, "search_releases", heat("radarr")).await);
    assert!(error && summary.contains("library.write"), "{summary}");

    // An operator with one search a day: one search, then a refusal naming the allowance.
    let spec = store::GrantSpec {
        capabilities: domain::Preset::Operator
            .capabilities()
            .iter()
            .copied()
            .collect(),
        allowances: [(
            domain::AllowanceKind::Searches,
            domain::AllowanceRule { count: 1, days: 1 },
        )]
        .into(),
        ..store::GrantSpec::default()
    };
    let store = s.host.app.store();
    store.create_grant("one-search", &spec).await.unwrap();
    let operator = s.key_for("otto", domain::Role::User, "one-search").await;
    let (error, summary, _) = outcome(&s.call(&operator, "search_releases", heat("radarr")).await);
    assert!(!error, "{summary}");
    let (error, summary, _) = outcome(&s.call(&operator, "search_releases", heat("radarr")).await);
    assert!(error && summary.contains("searches"), "{summary}");
    let audit = store
        .audit_page(&store::AuditQuery::default())
        .await
        .unwrap();
    let searches = audit.iter().filter(|e| e.tool == "search_releases").count();
    assert_eq!(
        searches, 1,
        "the search that ran is audited; the refused one never began"
    );
}

#[tokio::test]
async fn grab_release_grabs_exactly_the_referenced_release_once() {
    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let data = search(&s, heat("radarr")).await;
    let (error, summary) = grab(&s, heat("radarr"), &data["releases"][1]).await;
    assert!(!error, "{summary}");
    let grabs = fake.grabs();
    assert_eq!(grabs.len(), 1);
    assert_eq!(
        grabs[0]["guid"],
        format!("https://indexer.example/details/2?{CANARY}-guid")
    );
    assert_eq!(
        fake.all(Resource::Queue).len(),
        1,
        "the grab is downloading"
    );
}

#[tokio::test]
async fn a_reference_from_another_instance_or_scope_or_a_vanished_release_grabs_nothing() {
    let a = radarr_with_heat().await;
    let b = radarr_with_heat().await;
    let s = marquee(&[("radarr-a", &a), ("radarr-b", &b)]).await;
    let from_a = search(&s, heat("radarr-a")).await["releases"][0].clone();

    let (error, summary) = grab(&s, heat("radarr-b"), &from_a).await;
    assert!(
        error && summary.contains("no release of Heat on radarr-b matches"),
        "{summary}"
    );
    let ronin = json!({ "instance_id": "radarr-a", "media_source": "tmdb", "media_id": "8195", "media_type": "movie" });
    let (error, summary) = grab(&s, ronin, &from_a).await;
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    a.clear_releases();
    let (error, summary) = grab(&s, heat("radarr-a"), &from_a).await;
    assert!(
        error && summary.contains("nothing was grabbed"),
        "{summary}"
    );
    assert!(a.grabs().is_empty() && b.grabs().is_empty());
    assert!(
        a.requests_to("POST", "/release").is_empty()
            && b.requests_to("POST", "/release").is_empty()
    );
}

#[tokio::test]
async fn a_malformed_reference_is_refused_before_any_search() {
    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let (error, summary) = grab(
        &s,
        heat("radarr"),
        &json!({ "release_ref": "https://x/guid", "indexer_id": 1 }),
    )
    .await;
    assert!(error && summary.contains("release_ref"), "{summary}");
    assert!(fake.requests_to("GET", "/release").is_empty());
}

#[tokio::test]
async fn a_season_is_searched_on_sonarr_and_a_missing_season_is_refused() {
    let fake = FakeArr::start(ArrKind::Sonarr).await;
    let episodes = (1..=2)
        .map(|e| json!({ "seasonNumber": 1, "episodeNumber": e, "title": format!("E{e}") }))
        .collect();
    fake.seed_lookup(
        Resource::Series,
        json!({ "title": "Bluey", "tvdbId": 353546, "year": 2018 }),
        episodes,
    );
    let s = marquee(&[("sonarr", &fake)]).await;
    let add = json!({ "tvdbId": 353546, "title": "Bluey", "qualityProfileId": 1, "rootFolderPath": "/data/media/tv",
        "seasons": [{ "seasonNumber": 1, "monitored": true }] });
    let url = format!("{}/api/v3/series", fake.url());
    httpx::client(httpx::Timeouts::default()).unwrap();
    let status = httpx::reqwest::Client::new()
        .post(url)
        .header("X-Api-Key", fake.api_key())
        .json(&add)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 201);
    fake.seed_release(1, json!({ "title": "Bluey.S01.1080p.WEB-DL", "fullSeason": true, "guid": format!("{CANARY}-season") }));
    let scope =
        json!({ "media_source": "tvdb", "media_id": "353546", "media_type": "tv", "season": 1 });
    let data = search(&s, scope).await;
    assert_eq!(data["releases"][0]["title"], "Bluey.S01.1080p.WEB-DL");
    let missing =
        json!({ "media_source": "tvdb", "media_id": "353546", "media_type": "tv", "season": 4 });
    let (error, summary, _) = outcome(&s.call(&s.owner_key, "search_releases", missing).await);
    assert!(
        error && summary.contains("has no season 4; its seasons: 1"),
        "{summary}"
    );
}

#[tokio::test]
async fn remove_queue_item_blocklists_and_the_item_leaves_the_fakes_queue() {
    let fake = radarr_with_heat().await;
    let stuck = fake.seed_stuck(1, Verdict::SampleFile);
    let s = marquee(&[("radarr", &fake)]).await;
    s.host.app.settings().set_allow_destructive(true);
    let args = json!({ "instance_id": "radarr", "queue_ids": [stuck, 999], "action": "remove_and_blocklist" });
    let (error, summary, _) = outcome(&s.call(&s.owner_key, "remove_queue_item", args).await);
    assert!(
        error && summary.contains("has no item 999; nothing was removed"),
        "{summary}"
    );
    assert_eq!(fake.all(Resource::Queue).len(), 1);

    let args = json!({ "instance_id": "radarr", "queue_ids": [stuck], "action": "blocklist_only" });
    let (error, summary, data) = outcome(&s.call(&s.owner_key, "remove_queue_item", args).await);
    assert!(!error, "{summary}");
    assert_eq!(data["items"][0]["ok"], true);
    assert!(fake.all(Resource::Queue).is_empty());
    assert_eq!(fake.all(Resource::Blocklist).len(), 1);
    let removal = &fake.removals()[0];
    assert_eq!(
        (
            removal["blocklist"].clone(),
            removal["skipRedownload"].clone()
        ),
        (json!(true), json!(true))
    );
}

/// Removing downloads cannot be undone: the tool is destructive, refused while destructive
/// tools are off, and for anyone but the owner (or destructive.direct) stored as a plan that
/// removes nothing until the owner approves and it is applied.
#[tokio::test]
async fn remove_queue_item_is_destructive_and_planned_for_anyone_but_the_owner() {
    let fake = radarr_with_heat().await;
    let stuck = fake.seed_stuck(1, Verdict::SampleFile);
    let s = marquee(&[("radarr", &fake)]).await;
    let args = json!({ "instance_id": "radarr", "queue_ids": [stuck], "action": "remove" });
    let (error, summary, _) = outcome(
        &s.call(&s.owner_key, "remove_queue_item", args.clone())
            .await,
    );
    assert!(error && summary.contains("allow_destructive"), "{summary}");
    assert_eq!(fake.all(Resource::Queue).len(), 1);

    s.host.app.settings().set_allow_destructive(true);
    let operator = s.key_for("otto", domain::Role::Admin, "operator").await;
    let (error, summary, data) = outcome(&s.call(&operator, "remove_queue_item", args).await);
    assert!(!error, "{summary}");
    assert!(summary.contains("needs the owner's approval"), "{summary}");
    let change_id = data["change_id"].as_str().unwrap().to_string();
    assert_eq!(fake.all(Resource::Queue).len(), 1, "a plan removes nothing");

    let apply = json!({ "change_id": change_id, "idempotency_key": "remove-queue-1" });
    let (error, summary, _) = outcome(&s.call(&operator, "apply_change", apply.clone()).await);
    assert!(
        error && summary.contains("approv"),
        "not approved yet: {summary}"
    );
    assert_eq!(fake.all(Resource::Queue).len(), 1);

    let store = s.host.app.store();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let change = store.change(&change_id).await.unwrap().unwrap();
    store
        .decide_change(&change_id, owner.id, true, &change.content_hash)
        .await
        .unwrap();
    let (error, summary, _) = outcome(&s.call(&operator, "apply_change", apply).await);
    assert!(!error, "{summary}");
    assert!(
        fake.all(Resource::Queue).is_empty(),
        "applied once approved"
    );
    assert!(
        fake.all(Resource::Blocklist).is_empty(),
        "remove does not blocklist"
    );
}

/// Log lines written while the guard lives, at every level.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn grabs_are_audited_and_no_guid_or_url_reaches_a_log_line_an_audit_entry_or_metrics() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::info!("capturing");

    let fake = radarr_with_heat().await;
    let s = marquee(&[("radarr", &fake)]).await;
    let rows = search(&s, heat("radarr")).await["releases"].clone();
    assert!(!grab(&s, heat("radarr"), &rows[0]).await.0);
    fake.clear_releases();
    assert!(
        grab(&s, heat("radarr"), &rows[1]).await.0,
        "a vanished release is refused"
    );
    let (_, metrics) = s
        .send(
            Request::get("/metrics")
                .header(header::HOST, "localhost")
                .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
                .body(Body::empty())
                .unwrap(),
        )
        .await;

    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("capturing"), "the capture works");
    assert!(!logged.contains(CANARY), "{logged}");
    assert!(!String::from_utf8(metrics).unwrap().contains(CANARY));
    let audit = s
        .host
        .app
        .store()
        .audit_page(&store::AuditQuery::default())
        .await
        .unwrap();
    let grabs: Vec<_> = audit.iter().filter(|e| e.tool == "grab_release").collect();
    assert_eq!(grabs.len(), 2, "both grab attempts are audited");
    assert!(audit.iter().all(|e| !format!("{e:?}").contains(CANARY)));
}

#[tokio::test]
async fn an_album_is_searched_and_grabbed_on_lidarr() {
    let fake = FakeArr::start(ArrKind::Lidarr).await;
    let artist = fake.insert(Resource::Artist, json!({ "artistName": "The Beatles", "foreignArtistId": "b10bbbfc", "path": "/music/The Beatles" }));
    let album = fake.insert(
        Resource::Album,
        json!({ "title": "Abbey Road", "foreignAlbumId": "9162580e", "artistId": artist }),
    );
    fake.seed_release(album, json!({ "title": "The Beatles - Abbey Road (1969) [FLAC]", "guid": format!("{CANARY}-album") }));
    let s = marquee(&[("lidarr", &fake)]).await;
    let scope =
        json!({ "media_source": "musicbrainz", "media_id": "9162580e", "media_type": "music" });
    let data = search(&s, scope.clone()).await;
    assert_eq!(
        data["releases"][0]["title"],
        "The Beatles - Abbey Road (1969) [FLAC]"
    );
    let (error, summary) = grab(&s, scope, &data["releases"][0]).await;
    assert!(!error, "{summary}");
    assert_eq!(fake.grabs()[0]["guid"], format!("{CANARY}-album"));
    assert_eq!(fake.all(Resource::Queue)[0]["albumId"], album);
}
