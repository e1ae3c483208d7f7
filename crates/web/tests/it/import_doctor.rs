//! The Import Doctor through the real MCP endpoint: the Radarr, Sonarr, Lidarr and Readarr fakes
//! hold one stuck queue item per verdict, shaped as the services report them; `diagnose_queue`
//! gives each its verdict, and every `next_call` that is a tool call, when made, clears the item
//! in the fake (the others name what a person must do).

use std::{sync::Arc, time::Duration};

use domain::InstanceKind;
use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource, Verdict};

use crate::support::{Server, instance, outcome, server_with_instances};

struct Stack {
    radarr: Arc<FakeArr>,
    sonarr: Arc<FakeArr>,
    server: Server,
    /// (instance, queue id, the verdict it was seeded as)
    seeded: Vec<(&'static str, i64, Verdict)>,
}

async fn stack() -> Stack {
    let radarr = Arc::new(FakeArr::start(ArrKind::Radarr).await);
    let sonarr = Arc::new(FakeArr::start(ArrKind::Sonarr).await);
    let movie = radarr.insert(Resource::Movie, json!({ "title": "Heat", "tmdbId": 949, "year": 1995, "path": "/data/media/movies/Heat (1995)" }));
    let series = sonarr.insert(
        Resource::Series,
        json!({ "title": "Bluey", "tvdbId": 353546, "path": "/data/media/tv/Bluey" }),
    );
    let episode = sonarr.insert(
        Resource::Episode,
        json!({ "seriesId": series, "seasonNumber": 1, "episodeNumber": 4, "title": "Hospital" }),
    );
    let mut seeded = Vec::new();
    for verdict in Verdict::ALL {
        seeded.push(("radarr", radarr.seed_stuck(movie, verdict), verdict));
    }
    seeded.push((
        "sonarr",
        sonarr.seed_stuck(episode, Verdict::WrongEpisodeMapping),
        Verdict::WrongEpisodeMapping,
    ));
    radarr.start_download(movie, "Heat.1995.2160p.UHD", 4_000_000_000);
    let mut specs = vec![
        instance(
            "radarr",
            InstanceKind::Radarr,
            Some(&radarr.url()),
            Some(radarr.api_key()),
        ),
        instance(
            "sonarr",
            InstanceKind::Sonarr,
            Some(&sonarr.url()),
            Some(sonarr.api_key()),
        ),
    ];
    specs.iter_mut().for_each(|s| s.default = true);
    let server = server_with_instances(specs).await;
    // remove_queue_item, which several verdicts name, is destructive.
    server.host.app.settings().set_allow_destructive(true);
    Stack {
        radarr,
        sonarr,
        server,
        seeded,
    }
}

async fn diagnose(s: &Server) -> Value {
    let (error, summary, data) = outcome(&s.call(&s.owner_key, "diagnose_queue", json!({})).await);
    assert!(!error, "{summary}");
    data
}

fn row<'a>(data: &'a Value, instance: &str, id: i64) -> &'a Value {
    data["stuck"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["instance_id"] == instance && r["queue_id"] == id)
        .unwrap_or_else(|| panic!("{instance} {id} is not listed: {data}"))
}

#[tokio::test]
async fn each_stuck_item_gets_its_verdict_and_the_fine_one_is_only_counted() {
    let stack = stack().await;
    let data = diagnose(&stack.server).await;
    assert_eq!(data["fine"], 1);
    assert_eq!(data["stuck"].as_array().unwrap().len(), stack.seeded.len());
    for (instance, id, verdict) in &stack.seeded {
        let row = row(&data, instance, *id);
        assert_eq!(row["verdict"], verdict.name(), "{row}");
        assert!(!row["sentence"].as_str().unwrap().is_empty());
        assert!(
            row["next_call"]["tool"].is_string() || row["next_call"]["person"].is_string(),
            "{row}"
        );
    }
    let sample = row(&data, "radarr", stack.seeded[0].1);
    assert_eq!(sample["evidence"]["status_messages"], json!(["Sample"]));
}

#[tokio::test]
async fn with_destructive_tools_off_a_removal_is_what_a_person_does_not_a_call() {
    let stack = stack().await;
    stack
        .server
        .host
        .app
        .settings()
        .set_allow_destructive(false);
    let data = diagnose(&stack.server).await;
    let mut removals = 0;
    for (instance, id, _) in &stack.seeded {
        let next = &row(&data, instance, *id)["next_call"];
        assert_ne!(next["tool"], "remove_queue_item", "{next}");
        let said = next["person"].as_str().unwrap_or_default();
        if said.starts_with("remove ") {
            removals += 1;
            assert!(said.contains("allow_destructive"), "{said}");
        }
    }
    assert!(removals > 0, "no stuck item called for a removal: {data}");
}

#[tokio::test]
async fn every_next_call_that_is_a_tool_clears_its_item_in_the_fake() {
    let stack = stack().await;
    let data = diagnose(&stack.server).await;
    // The fakes run commands (a manual import) when their clock moves.
    let ticking = {
        let (radarr, sonarr) = (stack.radarr.clone(), stack.sonarr.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                radarr.advance(Duration::from_secs(1));
                sonarr.advance(Duration::from_secs(1));
            }
        })
    };
    let mut made = Vec::new();
    for (instance, id, verdict) in &stack.seeded {
        let next = row(&data, instance, *id)["next_call"].clone();
        let Some(tool) = next["tool"].as_str() else {
            continue;
        };
        let result = stack
            .server
            .call(&stack.server.owner_key, tool, next["arguments"].clone())
            .await;
        let (error, summary, _) = outcome(&result);
        assert!(!error, "{} via {tool}: {summary}", verdict.name());
        let fake = if *instance == "radarr" {
            &stack.radarr
        } else {
            &stack.sonarr
        };
        assert!(
            fake.get(Resource::Queue, *id).is_none(),
            "{} still queued after {tool}",
            verdict.name()
        );
        made.push(format!("{instance} {} -> {tool}", verdict.name()));
    }
    ticking.abort();
    expect_test::expect![[r#"
        [
            "radarr sample_file -> remove_queue_item",
            "radarr wrong_episode_mapping -> execute_manual_import",
            "radarr not_an_upgrade -> remove_queue_item",
            "radarr no_eligible_files -> remove_queue_item",
            "radarr stalled_download -> remove_queue_item",
            "sonarr wrong_episode_mapping -> execute_manual_import",
        ]
    "#]]
    .assert_debug_eq(&made);
    let imported = stack.sonarr.get(Resource::Episode, 1).unwrap();
    assert_eq!(
        imported["hasFile"], true,
        "the wrongly mapped file was imported as the grabbed episode"
    );
}

#[tokio::test]
async fn manual_import_candidates_show_the_services_parse_and_rejections() {
    let stack = stack().await;
    let queue_id = stack.seeded.last().unwrap().1;
    let args = json!({ "instance_id": "sonarr", "queue_id": queue_id });
    let (error, summary, data) = outcome(
        &stack
            .server
            .call(
                &stack.server.owner_key,
                "get_manual_import_candidates",
                args,
            )
            .await,
    );
    assert!(!error, "{summary}");
    let file = &data["files"][0];
    assert_eq!(
        (
            file["season"].clone(),
            file["episodes"][0]["episode"].clone()
        ),
        (json!(1), json!(4))
    );
    assert!(
        file["rejections"][0]
            .as_str()
            .unwrap()
            .contains("was unexpected considering the")
    );
}

#[tokio::test]
async fn a_manual_import_of_a_path_that_is_no_candidate_imports_nothing() {
    let stack = stack().await;
    let queue_id = stack.seeded.last().unwrap().1;
    let args = json!({ "instance_id": "sonarr", "queue_id": queue_id,
        "files": [{ "path": "/etc/passwd", "item_id": 1, "episode_ids": [1] }] });
    let (error, summary, _) = outcome(
        &stack
            .server
            .call(&stack.server.owner_key, "execute_manual_import", args)
            .await,
    );
    assert!(
        error && summary.contains("is not a candidate of this download; nothing was imported"),
        "{summary}"
    );
    assert!(stack.sonarr.requests_to("POST", "/command").is_empty());
}

#[tokio::test]
async fn one_unreadable_instance_is_named_and_the_other_still_diagnosed() {
    let stack = stack().await;
    stack
        .sonarr
        .set_mode(test_support::arr::Mode::Unavailable)
        .await;
    let result = stack
        .server
        .call(&stack.server.owner_key, "diagnose_queue", json!({}))
        .await;
    let (error, summary, data) = outcome(&result);
    assert!(!error, "{summary}");
    assert!(summary.contains("Could not be read: sonarr"), "{summary}");
    assert_eq!(data["stuck"].as_array().unwrap().len(), Verdict::ALL.len());
}

/// One fake of `kind` holding one stuck item per verdict, and a Marquee reading it.
async fn single(kind: ArrKind) -> (Arc<FakeArr>, Server, Vec<(i64, Verdict)>) {
    let fake = Arc::new(FakeArr::start(kind).await);
    let (unit, instance_kind) = match kind {
        ArrKind::Radarr => (
            fake.insert(
                Resource::Movie,
                json!({ "title": "Heat", "tmdbId": 949, "path": "/data/media/movies/Heat (1995)" }),
            ),
            InstanceKind::Radarr,
        ),
        ArrKind::Sonarr => {
            let series = fake.insert(
                Resource::Series,
                json!({ "title": "Bluey", "tvdbId": 353546, "path": "/data/media/tv/Bluey" }),
            );
            let episode = fake.insert(
                Resource::Episode,
                json!({ "seriesId": series, "seasonNumber": 1, "episodeNumber": 4, "title": "Hospital" }),
            );
            (episode, InstanceKind::Sonarr)
        }
        ArrKind::Lidarr => {
            let artist = fake.insert(
                Resource::Artist,
                json!({ "artistName": "The Beatles", "path": "/music/The Beatles" }),
            );
            let album = fake.insert(
                Resource::Album,
                json!({ "title": "Abbey Road", "artistId": artist }),
            );
            (album, InstanceKind::Lidarr)
        }
        ArrKind::Readarr => {
            let author = fake.insert(
                Resource::Author,
                json!({ "authorName": "Frank Herbert", "path": "/books/Frank Herbert" }),
            );
            let book = fake.insert(
                Resource::Book,
                json!({ "title": "Dune", "authorId": author }),
            );
            (book, InstanceKind::Readarr)
        }
    };
    let seeded = Verdict::ALL
        .into_iter()
        .map(|v| (fake.seed_stuck(unit, v), v))
        .collect();
    let mut spec = instance(
        "arr",
        instance_kind,
        Some(&fake.url()),
        Some(fake.api_key()),
    );
    spec.default = true;
    let server = server_with_instances(vec![spec]).await;
    // remove_queue_item, which several verdicts name, is destructive.
    server.host.app.settings().set_allow_destructive(true);
    (fake, server, seeded)
}

#[tokio::test]
async fn on_every_service_each_verdict_is_given_and_each_tool_next_call_clears_its_item() {
    let mut made = Vec::new();
    for kind in [
        ArrKind::Radarr,
        ArrKind::Sonarr,
        ArrKind::Lidarr,
        ArrKind::Readarr,
    ] {
        let (fake, server, seeded) = single(kind).await;
        let data = diagnose(&server).await;
        let ticking = {
            let fake = fake.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    fake.advance(Duration::from_secs(1));
                }
            })
        };
        for (id, verdict) in &seeded {
            let row = row(&data, "arr", *id);
            assert_eq!(row["verdict"], verdict.name(), "{}: {row}", kind.name());
            let next = &row["next_call"];
            let Some(tool) = next["tool"].as_str() else {
                assert!(next["person"].is_string(), "{row}");
                made.push(format!("{} {} -> a person", kind.name(), verdict.name()));
                continue;
            };
            let result = server
                .call(&server.owner_key, tool, next["arguments"].clone())
                .await;
            let (error, summary, _) = outcome(&result);
            assert!(
                !error,
                "{} {} via {tool}: {summary}",
                kind.name(),
                verdict.name()
            );
            assert!(
                fake.get(Resource::Queue, *id).is_none(),
                "{} {} still queued after {tool}",
                kind.name(),
                verdict.name()
            );
            made.push(format!("{} {} -> {tool}", kind.name(), verdict.name()));
        }
        ticking.abort();
    }
    expect_test::expect![[r#"
        [
            "Radarr sample_file -> remove_queue_item",
            "Radarr needs_unpacking -> a person",
            "Radarr wrong_episode_mapping -> execute_manual_import",
            "Radarr not_an_upgrade -> remove_queue_item",
            "Radarr missing_remote_path_mapping -> a person",
            "Radarr no_eligible_files -> remove_queue_item",
            "Radarr stalled_download -> remove_queue_item",
            "Radarr download_client_unreachable -> a person",
            "Radarr unknown -> a person",
            "Sonarr sample_file -> remove_queue_item",
            "Sonarr needs_unpacking -> a person",
            "Sonarr wrong_episode_mapping -> execute_manual_import",
            "Sonarr not_an_upgrade -> remove_queue_item",
            "Sonarr missing_remote_path_mapping -> a person",
            "Sonarr no_eligible_files -> remove_queue_item",
            "Sonarr stalled_download -> remove_queue_item",
            "Sonarr download_client_unreachable -> a person",
            "Sonarr unknown -> a person",
            "Lidarr sample_file -> remove_queue_item",
            "Lidarr needs_unpacking -> a person",
            "Lidarr wrong_episode_mapping -> execute_manual_import",
            "Lidarr not_an_upgrade -> remove_queue_item",
            "Lidarr missing_remote_path_mapping -> a person",
            "Lidarr no_eligible_files -> remove_queue_item",
            "Lidarr stalled_download -> remove_queue_item",
            "Lidarr download_client_unreachable -> a person",
            "Lidarr unknown -> a person",
            "Readarr sample_file -> remove_queue_item",
            "Readarr needs_unpacking -> a person",
            "Readarr wrong_episode_mapping -> execute_manual_import",
            "Readarr not_an_upgrade -> remove_queue_item",
            "Readarr missing_remote_path_mapping -> a person",
            "Readarr no_eligible_files -> remove_queue_item",
            "Readarr stalled_download -> remove_queue_item",
            "Readarr download_client_unreachable -> a person",
            "Readarr unknown -> a person",
        ]
    "#]]
    .assert_debug_eq(&made);
}
