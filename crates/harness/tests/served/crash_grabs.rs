//! `grab_release` under SIGKILL: an operator with a `grabs` allowance small enough to run out
//! during the loop grabs releases from a Radarr fake, three at a time; the server is killed at
//! a random moment, started again, and the fake's grabs, the audit and the allowance's charges
//! are compared.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{
    KillClock, SeedNote, Served, assert_nothing_left_open, call_at, client, data, rounds, seed,
    summary,
};

fn heat() -> Value {
    json!({ "instance_id": "radarr", "media_source": "tmdb", "media_id": "949", "media_type": "movie" })
}

async fn radarr_with_releases() -> FakeArr {
    let fake = FakeArr::start(ArrKind::Radarr).await;
    fake.seed_lookup(
        Resource::Movie,
        json!({ "title": "Heat", "year": 1995, "tmdbId": 949 }),
        vec![],
    );
    fake.insert(
        Resource::Movie,
        json!({ "title": "Heat", "year": 1995, "tmdbId": 949, "path": "/data/media/movies/Heat (1995)" }),
    );
    for n in 1..=3 {
        fake.seed_release(
            1,
            json!({
                "title": format!("Heat.1995.Release.{n}.1080p.BluRay-GRP"),
                "guid": format!("https://indexer.example/details/{n}"),
                "downloadUrl": format!("http://prowlarr:9696/1/download?link={n}"),
            }),
        );
    }
    fake
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grab_release_survives_sigkill_at_random_moments() {
    let seed = seed("crash-grab-release");
    let mut note = SeedNote {
        name: "crash-grab-release",
        seed,
        round: 0,
    };
    let mut g = harness::Gen::new(seed);
    let rounds = rounds();
    let radarr = radarr_with_releases().await;
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let config = format!(
        "[[instances]]\nid = \"radarr\"\nkind = \"radarr\"\nurl = \"{}\"\napi_key = \"{}\"\ndefault = true\n",
        radarr.url(),
        radarr.api_key()
    );
    let mut served = Served::first(dir.path(), &data_dir, &config).await;
    // Three grabs a round; the allowance runs out about halfway.
    let allowance = (3 * rounds / 2).max(2);
    {
        let store = store::Store::open(&data_dir).await.unwrap();
        let spec = store::GrantSpec {
            capabilities: domain::Preset::Operator
                .capabilities()
                .iter()
                .copied()
                .collect(),
            allowances: [(
                domain::AllowanceKind::Grabs,
                domain::AllowanceRule {
                    count: allowance as u32,
                    days: 1,
                },
            )]
            .into(),
            ..store::GrantSpec::default()
        };
        store.create_grant("grabber", &spec).await.unwrap();
    }
    let otto = served.person_with_key("otto", "admin", "grabber");
    // The grabber searches: a release reference is bound to the person who searched, and holds
    // across restarts for its hour.
    let found = served.must(&otto, "search_releases", heat()).await;
    let releases: Vec<Value> = data(&found)
        .and_then(|d| d["releases"].as_array().cloned())
        .unwrap_or_else(|| panic!("search_releases: {found}"));
    assert_eq!(releases.len(), 3, "{found}");
    let http = client();
    let mut clock = KillClock::new(Duration::from_millis(30));
    let (mut acked_grabs, mut refused, mut cut) = (0i64, 0, 0);
    for round in 0..rounds {
        note.round = round;
        let started = Instant::now();
        let tasks: Vec<_> = (0..3)
            .map(|_| {
                let row = g.pick(&releases);
                let mut args = heat();
                args["release_ref"] = row["release_ref"].clone();
                args["indexer_id"] = row["indexer_id"].clone();
                let (http, base, key) = (http.clone(), served.base.clone(), otto.clone());
                tokio::spawn(async move {
                    let r = call_at(&http, &base, &key, "grab_release", args).await;
                    (r, started.elapsed())
                })
            })
            .collect();
        tokio::time::sleep(clock.pick(&mut g)).await;
        served.kill();
        let mut finished = false;
        for task in tasks {
            let (r, took) = task.await.unwrap();
            finished |= r.is_ok();
            match r {
                Ok(answer) => {
                    clock.saw(took);
                    if data(&answer).is_some() {
                        acked_grabs += 1;
                    } else {
                        assert!(
                            summary(&answer).contains("grabs"),
                            "a grab refused for another reason than the allowance: {answer}"
                        );
                        refused += 1;
                    }
                }
                Err(_) => cut += 1,
            }
        }
        if !finished {
            clock.none_finished();
        }
        served.start().await;
        check(&served, &radarr, acked_grabs, allowance as i64).await;
    }
    let mut db = served.db().await;
    let unknown: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit WHERE tool = 'grab_release' AND status = 'outcome_unknown'",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    println!(
        "harness: crash-grab-release {rounds} rounds, {acked_grabs} grabs acknowledged, {refused} refused (allowance spent), {cut} cut by the kill, {unknown} outcome_unknown, {} grabs reached Radarr, seed {seed}",
        radarr.requests_to("POST", "/release").len()
    );
}

async fn check(served: &Served, radarr: &FakeArr, acked: i64, allowance: i64) {
    assert_nothing_left_open(served).await;
    let mut db = served.db().await;
    let count = |status: &'static str| {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM audit WHERE tool = 'grab_release' AND status = ?",
        )
        .bind(status)
    };
    let applied = count("applied").fetch_one(&mut db).await.unwrap();
    let unknown = count("outcome_unknown").fetch_one(&mut db).await.unwrap();
    let posted = radarr.requests_to("POST", "/release").len() as i64;
    // Nothing lost: every acknowledged grab is audited as applied and reached Radarr.
    assert!(
        acked <= applied,
        "{acked} grabs acknowledged, {applied} audited as applied"
    );
    assert!(
        applied <= posted,
        "{applied} grabs audited as applied, {posted} reached Radarr"
    );
    // Nothing doubled, nothing unaccounted: every grab Radarr saw is an audited call, applied
    // or reported outcome_unknown.
    assert!(
        posted <= applied + unknown,
        "{posted} grabs reached Radarr; the audit accounts for {applied} applied and {unknown} outcome_unknown"
    );
    // The allowance: one charge per grab that may have happened, each on a grab's entry,
    // never more than the allowance.
    let stray: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM allowance_charges c LEFT JOIN audit a ON a.id = c.audit_id \
         WHERE c.kind = 'grabs' AND (a.id IS NULL OR a.tool != 'grab_release')",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(stray, 0, "grabs charged to entries that are not grabs");
    let uncharged: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit a WHERE a.tool = 'grab_release' AND a.status IN ('applied', 'outcome_unknown') \
         AND (SELECT count(*) FROM allowance_charges c WHERE c.audit_id = a.id AND c.kind = 'grabs') != 1",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(
        uncharged, 0,
        "grabs that may have happened without exactly one charge"
    );
    let charges: i64 =
        sqlx::query_scalar("SELECT count(*) FROM allowance_charges WHERE kind = 'grabs'")
            .fetch_one(&mut db)
            .await
            .unwrap();
    assert!(
        charges <= allowance,
        "{charges} grabs charged against an allowance of {allowance}"
    );
    assert!(
        applied + unknown <= charges,
        "{applied} applied and {unknown} unknown grabs, {charges} charges"
    );
}
