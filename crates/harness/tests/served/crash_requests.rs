//! `request_media` under SIGKILL: the owner's requests are handed to a Lidarr fake, a user's
//! wait under a music quota small enough to run out during the loop; the server is killed at
//! a random moment while four requests are under way, started again, and checked.

use std::{
    collections::BTreeMap,
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{
    KillClock, SeedNote, Served, assert_nothing_left_open, call_at, client, data, rounds, seed,
    summary,
};

fn album_id(n: usize) -> String {
    format!("rg-crash-{n}")
}

fn seed_albums(lidarr: &FakeArr, count: usize) {
    for n in 0..count {
        let artist = json!({"artistName": format!("Crash Artist {n}"), "foreignArtistId": format!("ar-crash-{n}")});
        let album = json!({"title": format!("Crash Album {n}"), "foreignAlbumId": album_id(n),
            "releaseDate": "1997-05-21T00:00:00Z", "artist": artist});
        lidarr.seed_lookup(Resource::Artist, artist.clone(), vec![album.clone()]);
        lidarr.seed_lookup(Resource::Album, album, vec![]);
    }
}

/// One call of the round and what it answered, if it answered before the kill.
struct Sent {
    by_owner: bool,
    album: String,
    answer: Option<Value>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_media_survives_sigkill_at_random_moments() {
    let seed = seed("crash-request-media");
    let mut note = SeedNote {
        name: "crash-request-media",
        seed,
        round: 0,
    };
    let mut g = harness::Gen::new(seed);
    let rounds = rounds();
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    seed_albums(&lidarr, 4 * rounds + 4);
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let config = format!(
        "[[instances]]\nid = \"lidarr\"\nkind = \"lidarr\"\nurl = \"{}\"\napi_key = \"{}\"\ndefault = true\n",
        lidarr.url(),
        lidarr.api_key()
    );
    let mut served = Served::first(dir.path(), &data_dir, &config).await;
    // The user's quota runs out about halfway: refusals are part of the loop.
    let quota = rounds.max(2);
    let ursula = served.person_with_key("ursula", "user", "requester");
    served.cli(&[
        "quotas",
        "set",
        "--person",
        "ursula",
        "--music",
        &quota.to_string(),
        "--days",
        "30",
    ]);
    let http = client();
    let mut clock = KillClock::new(Duration::from_millis(30));
    let mut next_album = 0;
    // Requests acknowledged as created: id -> (person name, album).
    let mut acked: BTreeMap<i64, (String, String)> = BTreeMap::new();
    let mut acked_handed: Vec<String> = Vec::new();
    let (mut cut, mut answered) = (0, 0);
    for round in 0..rounds {
        note.round = round;
        let mut plan = Vec::new();
        for by_owner in [true, false, false, true] {
            let album = if !by_owner && next_album > 0 && g.one_in(3) {
                album_id(g.below(next_album))
            } else {
                next_album += 1;
                album_id(next_album - 1)
            };
            plan.push((by_owner, album));
        }
        let started = Instant::now();
        let tasks: Vec<_> = plan
            .iter()
            .map(|(by_owner, album)| {
                let key = if *by_owner {
                    served.owner.clone()
                } else {
                    ursula.clone()
                };
                let (http, base) = (http.clone(), served.base.clone());
                let args = json!({"media_source": "musicbrainz", "media_id": album, "media_type": "music"});
                tokio::spawn(async move {
                    let r = call_at(&http, &base, &key, "request_media", args).await;
                    (r, started.elapsed())
                })
            })
            .collect();
        let kill_at = clock.pick(&mut g);
        tokio::time::sleep(kill_at).await;
        served.kill();
        let mut sent = Vec::new();
        for ((by_owner, album), task) in plan.into_iter().zip(tasks) {
            let (r, took) = task.await.unwrap();
            if r.is_ok() {
                clock.saw(took);
                answered += 1;
            } else {
                cut += 1;
            }
            sent.push(Sent {
                by_owner,
                album,
                answer: r.ok(),
            });
        }
        if sent.iter().all(|s| s.answer.is_none()) {
            clock.none_finished();
        }
        served.start().await;
        for s in &sent {
            let Some(answer) = &s.answer else { continue };
            let Some(d) = data(answer) else { continue };
            if let Some(id) = d["request"]["request_id"].as_i64() {
                let who = if s.by_owner { "owner" } else { "ursula" };
                acked.insert(id, (who.to_string(), s.album.clone()));
                if s.by_owner && summary(answer).contains("added to lidarr") {
                    acked_handed.push(s.album.clone());
                }
            }
        }
        check(&served, &lidarr, &acked, &acked_handed, quota).await;
    }
    let mut db = served.db().await;
    let (reconciled, unknown): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM audit WHERE tool = 'request_media' AND message LIKE 'reconciled at start:%'), \
                (SELECT count(*) FROM audit WHERE tool = 'request_media' AND status = 'outcome_unknown')",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    println!(
        "harness: crash-request-media {rounds} rounds, {answered} calls answered before the kill, {cut} cut by it, {} requests acknowledged, {reconciled} cut-off entries reconciled to applied from their proof, {unknown} outcome_unknown, seed {seed}",
        acked.len()
    );
}

async fn check(
    served: &Served,
    lidarr: &FakeArr,
    acked: &BTreeMap<i64, (String, String)>,
    acked_handed: &[String],
    quota: usize,
) {
    assert_nothing_left_open(served).await;
    let mut db = served.db().await;
    // Nothing lost: every acknowledged request is there, for the same person and album.
    for (id, (who, album)) in acked {
        let row: Option<(String, String)> = sqlx::query_as(
            "SELECT p.name, r.media_id FROM requests r JOIN people p ON p.id = r.person_id WHERE r.id = ?",
        )
        .bind(id)
        .fetch_optional(&mut db)
        .await
        .unwrap();
        assert_eq!(
            row,
            Some((who.clone(), album.clone())),
            "acknowledged request {id}"
        );
    }
    // Nothing doubled: one request per album.
    let doubled: Vec<(String, i64)> = sqlx::query_as(
        "SELECT media_id, count(*) FROM requests GROUP BY media_id HAVING count(*) > 1",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    assert!(doubled.is_empty(), "albums requested twice: {doubled:?}");
    // Every request is proven by exactly one audit entry, applied (directly or reconciled at
    // start from the proof); no entry claims a request that is not there.
    let unproven: Vec<i64> = sqlx::query_scalar(
        "SELECT r.id FROM requests r WHERE (SELECT count(*) FROM audit a WHERE a.tool = 'request_media' \
         AND a.status = 'applied' AND a.proof = 'request ' || r.id || ' was created') != 1",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    assert!(
        unproven.is_empty(),
        "requests without exactly one applied audit entry: {unproven:?}"
    );
    let proofs: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit WHERE tool = 'request_media' AND proof LIKE 'request % was created'",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    let requests: i64 = sqlx::query_scalar("SELECT count(*) FROM requests")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(proofs, requests, "audit proofs and requests, one for one");
    // An entry left without proof is reported as outcome_unknown, never as applied.
    let unproven_applied: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit WHERE tool = 'request_media' AND status = 'outcome_unknown' AND proof IS NOT NULL",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(unproven_applied, 0, "a proven entry left outcome_unknown");
    // The quota: the charges are the requests' units, one charge per request, never over.
    let (charged, units, charges, user_requests): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT coalesce(sum(c.units), 0) FROM quota_charges c JOIN people p ON p.id = c.person_id WHERE p.name = 'ursula'), \
                (SELECT coalesce(sum(r.units), 0) FROM requests r JOIN people p ON p.id = r.person_id WHERE p.name = 'ursula'), \
                (SELECT count(*) FROM quota_charges c JOIN people p ON p.id = c.person_id WHERE p.name = 'ursula'), \
                (SELECT count(*) FROM requests r JOIN people p ON p.id = r.person_id WHERE p.name = 'ursula')",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    assert_eq!(charged, units, "quota charges and the requests' units");
    assert_eq!(charges, user_requests, "one charge per request");
    assert!(
        charged as usize <= quota,
        "{charged} units charged against a quota of {quota}"
    );
    // The library: one artist and one album per id, and every acknowledged hand-over there.
    let mut albums: BTreeMap<String, usize> = BTreeMap::new();
    for a in lidarr.all(Resource::Album) {
        if a["monitored"] == true {
            *albums
                .entry(a["foreignAlbumId"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
    }
    let twice: Vec<_> = albums.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "albums added to Lidarr twice: {twice:?}");
    let mut artists: BTreeMap<String, usize> = BTreeMap::new();
    for a in lidarr.all(Resource::Artist) {
        *artists
            .entry(
                a["foreignArtistId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
            .or_default() += 1;
    }
    let twice: Vec<_> = artists.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "artists added to Lidarr twice: {twice:?}");
    for album in acked_handed {
        assert!(
            albums.contains_key(album),
            "{album} was answered as added to lidarr but is not there"
        );
    }
}
