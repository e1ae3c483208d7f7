//! A shortlist run that acquires missing titles, against the Jellyfin and Prowlarr fakes and a
//! real qBittorrent: a dry run names what it would acquire; the run grabs the best-seeded
//! release of one missing title into qBittorrent (a magnet) and says of the other that no
//! release was found; more acquisitions than a run allows are refused. A schedule with an
//! acquisition allowance acquires on its run too.

use std::sync::Arc;

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use test_support::{
    indexers::{FakeRelease, ProwlarrFake, prowlarr::FakeIndexer},
    media::{FakeMedia, MEDIA_TOKEN, MediaKind},
};
use tools::{
    InstanceSpec,
    shortlists::Schedules,
    tasks::{Scheduler, TasksConfig, schedule::ManualClock},
};

use crate::peers::{Daemon, QbRaw, poll};
use crate::support::{Server, builtin, instance, outcome, server_with_instances};

async fn planned(s: &Server, tool: &str, args: Value) -> Value {
    let (err, summary, data) = outcome(&s.call(&s.owner_key, tool, args).await);
    assert!(!err, "{tool}: {summary}");
    let change = data["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "apply_change", apply).await);
    assert!(!err, "apply {tool}: {summary}");
    data
}

fn movie(imdb: &str) -> Value {
    json!({"media_source": "builtin", "media_id": imdb, "media_type": "movie"})
}

#[tokio::test]
async fn a_run_acquires_missing_titles_within_its_allowance() {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"))
        .join()
        .unwrap();
    let qraw = QbRaw::login(&qb).await;
    let media = FakeMedia::start(MediaKind::Jellyfin).await;
    let hash = "cd".repeat(20);
    let mut heat = FakeRelease::torrent("Heat.1995.1080p.BluRay.x264-GRP", 80_000, 40, 3);
    heat.info_hash = Some(hash.clone());
    heat.imdb = Some("tt0113277".into());
    heat.magnet = Some(format!("magnet:?xt=urn:btih:{hash}&dn=heat"));
    let mut worse = FakeRelease::torrent("Heat.1995.720p.WEB-LOW", 40_000, 2, 4);
    worse.info_hash = Some("ef".repeat(20));
    worse.imdb = Some("tt0113277".into());
    worse.magnet = Some(format!("magnet:?xt=urn:btih:{}&dn=heat", "ef".repeat(20)));
    let prowlarr = ProwlarrFake::start(vec![FakeIndexer::new(1, "Alpha", vec![heat, worse])]).await;
    let qb_spec = InstanceSpec {
        id: "qb".into(),
        kind: InstanceKind::Qbittorrent,
        url: Some(qb.cred("QBITTORRENT_URL").parse().unwrap()),
        path: None,
        username: Some(qb.cred("QBITTORRENT_USER")),
        password: Some(Secret::new(qb.cred("QBITTORRENT_PASS"))),
        api_key: None,
        default: true,
    };
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "jf",
            InstanceKind::Jellyfin,
            Some(&media.url()),
            Some(MEDIA_TOKEN),
        ),
        instance(
            "prowlarr",
            InstanceKind::Prowlarr,
            Some(prowlarr.url()),
            Some(ProwlarrFake::API_KEY),
        ),
        qb_spec,
    ])
    .await;
    let owner = s.owner_key.clone();
    let (_, _, libraries) = outcome(&s.call(&owner, "list_libraries", json!({})).await);
    let movies = libraries["libraries"][0]["library_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Paddington is on the server; Heat (on the indexer) and Beauty and the Beast are not.
    let picks = json!([movie("tt1109624"), movie("tt0113277"), movie("tt0101414")]);
    let setup = json!({"theme": {"name": "Wanted", "picks": picks},
        "row": {"instance_id": "jf", "library_id": movies, "name": "Wanted"}});
    let done = planned(&s, "plan_setup", setup).await;
    let row_id = done["result"]["row_id"].as_i64().unwrap();
    let theme_id = done["result"]["theme_id"].as_i64().unwrap();
    let enable = json!({"row_id": row_id, "theme_id": theme_id, "instance_id": "jf",
        "library_id": movies, "name": "Wanted", "enabled": true});
    planned(&s, "plan_row", enable).await;

    let too_many = json!({"row_ids": [row_id], "dry_run": true, "max_acquisitions": 11});
    let (err, summary, _) = outcome(&s.call(&owner, "plan_run", too_many).await);
    assert!(
        err && summary.contains("\"max_acquisitions\": 11 is above the maximum 10"),
        "{summary}"
    );
    let dry = json!({"row_ids": [row_id], "dry_run": true, "max_acquisitions": 3});
    let (err, summary, dry) = outcome(&s.call(&owner, "plan_run", dry).await);
    assert!(!err, "{summary}");
    let would: Vec<&str> = dry["rows"][0]["acquisitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(would, ["would_acquire", "would_acquire"], "{dry}");
    assert!(qraw.one(&hash).await.is_none(), "a dry run grabs nothing");

    let run = json!({"row_ids": [row_id], "dry_run": false, "max_acquisitions": 2});
    let done = planned(&s, "plan_run", run).await;
    let acquisitions = &done["result"]["rows"][0]["acquisitions"];
    let heat = acquisitions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Heat")
        .unwrap_or_else(|| panic!("{done}"));
    assert_eq!(heat["outcome"], "acquired", "{done}");
    assert!(
        heat["message"]
            .as_str()
            .unwrap()
            .contains("Heat.1995.1080p"),
        "the best-seeded release: {heat}"
    );
    let other = acquisitions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] != "Heat")
        .unwrap();
    assert_eq!(other["outcome"], "not_found", "{done}");
    poll(20, "the magnet in qBittorrent", async || {
        qraw.one(&hash).await
    })
    .await;

    // A schedule acquires too, within its own allowance: its run tries the first missing title.
    let clock = ManualClock::new(at("2026-12-04T17:00:00Z"));
    let scheduler = s.host.app.family::<Arc<Scheduler>>().unwrap().clone();
    scheduler.set_clock(clock.clone());
    scheduler.configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: Vec::new(),
    });
    let schedule = json!({"row_id": row_id, "cron": "0 18 * * *", "max_acquisitions": 1});
    planned(&s, "plan_schedule", schedule).await;
    let (_, _, row) = outcome(&s.call(&owner, "get_row", json!({"row_id": row_id})).await);
    assert_eq!(row["schedule"]["max_acquisitions"], 1, "{row}");
    clock.set(at("2026-12-04T18:00:30Z"));
    let schedules = s.host.app.family::<Arc<Schedules>>().unwrap().clone();
    schedules.tick().await;
    let (_, _, runs) = outcome(&s.call(&owner, "list_runs", json!({"row_id": row_id})).await);
    let newest = runs["runs"][0]["run_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{runs}"))
        .to_owned();
    let report = poll(20, "the scheduled run's report", async || {
        let args = json!({"run_id": newest});
        let (_, _, report) = outcome(&s.call(&owner, "get_run_report", args).await);
        (report["status"] == "succeeded").then_some(report)
    })
    .await;
    let tried = report["rows"][0]["acquisitions"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(tried.len(), 1, "{report}");
    assert_eq!(tried[0]["title"], "Heat", "{report}");
}

fn at(text: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&chrono::Utc)
}
