//! An *arr instance behind the fault proxy, a second one of the same kind beside it: reads of
//! every kind, and a write (a command) of Radarr, Sonarr, Lidarr and Readarr under every fault.

use std::time::{Duration, Instant};

use domain::InstanceKind;
use serde_json::json;
use test_support::{ArrKind, FakeArr, Fault, FaultProxy, arr::Resource};

use crate::support::{Marquee, WITHIN, marquee, marquee_with, spec};

pub struct Two {
    pub m: Marquee,
    pub a: FakeArr,
    pub b: FakeArr,
    pub proxy: FaultProxy,
}

/// `radarr-a` reached through the proxy, `radarr-b` directly; both hold Heat.
pub async fn two_radarrs() -> Two {
    let a = FakeArr::start(ArrKind::Radarr).await;
    let b = FakeArr::start(ArrKind::Radarr).await;
    for f in [&a, &b] {
        f.insert(
            Resource::Movie,
            json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1, "monitored": true}),
        );
        f.seed_lookup(
            Resource::Movie,
            json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
            vec![],
        );
    }
    let proxy = FaultProxy::in_front_of(&a.url()).await;
    let mut first = spec(
        "radarr-a",
        InstanceKind::Radarr,
        &proxy.url_for(&a.url()),
        Some(a.api_key()),
    );
    first.default = true;
    let m = marquee(vec![
        first,
        spec(
            "radarr-b",
            InstanceKind::Radarr,
            &b.url(),
            Some(b.api_key()),
        ),
    ])
    .await;
    Two { m, a, b, proxy }
}

/// One read under `fault`: the instance alone is an error naming it, within the timeout, while
/// the other instance answers at once; merged, the other's answer comes with the faulty one
/// named; afterwards, the same read is fresh and whole (nothing kept from the bad answer).
async fn a_read_survives(fault: Fault) {
    let t = two_radarrs().await;
    let ok =
        t.m.call("get_disk_space", json!({"instance_id": "radarr-a"}))
            .await;
    assert!(!ok.error, "{fault:?}: before the fault: {}", ok.summary);
    t.proxy.set(fault.clone());
    t.proxy.clear();

    let started = Instant::now();
    let (alone, other) = tokio::join!(
        t.m.call("get_disk_space", json!({"instance_id": "radarr-a"})),
        t.m.call("get_disk_space", json!({"instance_id": "radarr-b"})),
    );
    assert!(alone.error, "{fault:?}: {}", alone.summary);
    assert!(
        alone.summary.contains("radarr-a"),
        "{fault:?}: the instance is named: {}",
        alone.summary
    );
    assert!(
        alone.took < WITHIN,
        "{fault:?}: answered in {:?}",
        alone.took
    );
    assert!(!other.error, "{fault:?}: radarr-b: {}", other.summary);
    assert!(
        other.took < std::time::Duration::from_secs(5),
        "{fault:?}: radarr-b waited {:?} for radarr-a",
        other.took
    );
    let gets = t.proxy.requests_of("GET");
    assert!(
        (1..=2).contains(&gets),
        "{fault:?}: a read is tried at most twice: {:?}",
        t.proxy.request_lines()
    );

    let merged = t.m.call("get_disk_space", json!({})).await;
    assert!(!merged.error, "{fault:?}: merged: {}", merged.summary);
    let data = &merged.result["structuredContent"]["data"];
    assert_eq!(
        data["unreadable"][0]["instance_id"], "radarr-a",
        "{fault:?}: merged names the faulty instance: {data}"
    );
    assert!(
        merged.result["structuredContent"]["warnings"]
            .to_string()
            .contains("radarr-a"),
        "{fault:?}: and warns of it: {}",
        merged.result
    );
    assert!(started.elapsed() < WITHIN * 2);

    t.proxy.set(Fault::None);
    t.proxy.clear();
    let again =
        t.m.call("get_disk_space", json!({"instance_id": "radarr-a"}))
            .await;
    assert!(
        !again.error,
        "{fault:?}: after the fault: {}",
        again.summary
    );
    assert!(
        t.proxy.requests_of("GET") >= 1,
        "{fault:?}: read afresh, not from a kept answer"
    );
    drop(t.b);
    drop(t.a);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_is_named_and_the_other_instance_answers() {
    a_read_survives(Fault::Reset).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_open_connection_is_given_up_within_the_timeout() {
    a_read_survives(Fault::HalfOpen).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_answer_is_an_error() {
    a_read_survives(Fault::Truncate(120)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_is_an_error() {
    a_read_survives(Fault::Garbage).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_body_is_an_error() {
    a_read_survives(Fault::GarbageBody).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_is_named() {
    a_read_survives(Fault::TooManyRequests { retry_after: 120 }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_drip_is_given_up_within_the_timeout() {
    a_read_survives(Fault::SlowDrip(std::time::Duration::from_millis(400))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_is_named() {
    a_read_survives(Fault::Answer {
        status: 500,
        body: "{\"message\": \"database is locked\"}".into(),
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn added_latency_below_the_timeout_still_answers() {
    let t = two_radarrs().await;
    t.proxy
        .set(Fault::Latency(std::time::Duration::from_millis(300)));
    let c =
        t.m.call("get_disk_space", json!({"instance_id": "radarr-a"}))
            .await;
    assert!(!c.error, "{}", c.summary);
    assert!(
        c.took >= std::time::Duration::from_millis(300),
        "{:?}",
        c.took
    );
}

/// A write is sent once: a command whose connection is reset after it was sent may have been
/// carried out, so it is not sent again; the error names the instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_connection_resets_is_sent_once() {
    let t = two_radarrs().await;
    let heat = json!({"instance_id": "radarr-a", "media_source": "tmdb", "media_id": "949", "media_type": "movie"});
    for fault in [Fault::Reset, Fault::HalfOpen, Fault::Garbage] {
        t.proxy.set_for("POST", fault.clone());
        t.proxy.clear();
        let c = t.m.call("rescan_media", heat.clone()).await;
        assert!(c.error, "{fault:?}: {}", c.summary);
        assert!(c.summary.contains("radarr-a"), "{fault:?}: {}", c.summary);
        assert!(c.took < super::support::WITHIN, "{fault:?}: {:?}", c.took);
        assert_eq!(
            t.proxy.requests_of("POST"),
            1,
            "{fault:?}: the command is sent once: {:?}",
            t.proxy.request_lines()
        );
    }
    t.proxy.set(Fault::None);
    let c = t.m.call("rescan_media", heat).await;
    assert!(!c.error, "{}", c.summary);
}

/// The faulty instance's `timeout_seconds` in the tests of the other kinds, and the room a
/// loaded machine needs beyond it.
const SHORT: Duration = Duration::from_secs(2);
const ROOM: Duration = Duration::from_secs(4);

/// Every fault the proxy makes, latency beyond the instance's timeout among them.
fn every_fault() -> Vec<Fault> {
    vec![
        Fault::Latency(SHORT + Duration::from_secs(2)),
        Fault::Reset,
        Fault::HalfOpen,
        Fault::Truncate(120),
        Fault::Garbage,
        Fault::GarbageBody,
        Fault::TooManyRequests { retry_after: 120 },
        Fault::SlowDrip(Duration::from_millis(400)),
        Fault::Answer {
            status: 500,
            body: "{\"message\": \"database is locked\"}".into(),
        },
    ]
}

/// `<name>-a` of `kind` through the proxy with `timeout_seconds` = [`SHORT`], `<name>-b`
/// directly.
async fn two_of(kind: ArrKind, instance_kind: InstanceKind, name: &str) -> Two {
    let a = FakeArr::start(kind).await;
    let b = FakeArr::start(kind).await;
    let proxy = FaultProxy::in_front_of(&a.url()).await;
    let (ida, idb) = (format!("{name}-a"), format!("{name}-b"));
    let m = marquee_with(
        vec![
            spec(
                &ida,
                instance_kind,
                &proxy.url_for(&a.url()),
                Some(a.api_key()),
            ),
            spec(&idb, instance_kind, &b.url(), Some(b.api_key())),
        ],
        &[(ida.as_str(), SHORT)],
    )
    .await;
    Two { m, a, b, proxy }
}

/// Every fault in turn on `<name>-a`: alone, an error naming it within its own timeout (no
/// retry); `<name>-b`, asked at the same moment, answers at once; merged over both, `<name>-b`'s
/// answer with `<name>-a` named as unreadable and in a warning, within the timeout too;
/// afterwards the same read is fresh and whole.
async fn every_fault_on_a_read(kind: ArrKind, instance_kind: InstanceKind, name: &str) {
    let t = two_of(kind, instance_kind, name).await;
    let (ida, idb) = (format!("{name}-a"), format!("{name}-b"));
    let ok =
        t.m.call("get_disk_space", json!({"instance_id": ida}))
            .await;
    assert!(!ok.error, "{name}: before the faults: {}", ok.summary);
    for fault in every_fault() {
        t.proxy.set(fault.clone());
        t.proxy.clear();
        let (alone, other) = tokio::join!(
            t.m.call("get_disk_space", json!({"instance_id": ida})),
            t.m.call("get_disk_space", json!({"instance_id": idb})),
        );
        assert!(alone.error, "{name} {fault:?}: {}", alone.summary);
        assert!(
            alone.summary.contains(&ida),
            "{name} {fault:?}: the instance is named: {}",
            alone.summary
        );
        assert!(
            alone.took < SHORT + ROOM,
            "{name} {fault:?}: answered in {:?}, past its timeout_seconds",
            alone.took
        );
        assert!(!other.error, "{name} {fault:?}: {idb}: {}", other.summary);
        assert!(
            other.took < Duration::from_secs(5),
            "{name} {fault:?}: {idb} waited {:?}",
            other.took
        );
        assert_eq!(
            t.proxy.requests_of("GET"),
            1,
            "{name} {fault:?}: a read is sent once: {:?}",
            t.proxy.request_lines()
        );

        let merged = t.m.call("get_disk_space", json!({})).await;
        assert!(
            !merged.error,
            "{name} {fault:?}: merged: {}",
            merged.summary
        );
        assert!(
            merged.took < SHORT + ROOM,
            "{name} {fault:?}: merged in {:?}",
            merged.took
        );
        let data = &merged.result["structuredContent"]["data"];
        assert_eq!(
            data["unreadable"][0]["instance_id"], ida,
            "{name} {fault:?}: merged names the faulty instance: {data}"
        );
        assert!(
            data.to_string().contains(&idb),
            "{name} {fault:?}: merged holds {idb}'s answer: {data}"
        );
        assert!(
            merged.result["structuredContent"]["warnings"]
                .to_string()
                .contains(&ida),
            "{name} {fault:?}: and warns of it: {}",
            merged.result
        );

        t.proxy.set(Fault::None);
        t.proxy.clear();
        let again =
            t.m.call("get_disk_space", json!({"instance_id": ida}))
                .await;
        assert!(
            !again.error,
            "{name} {fault:?}: after the fault: {}",
            again.summary
        );
        assert_eq!(
            t.proxy.requests_of("GET"),
            1,
            "{name} {fault:?}: read afresh, not from a kept answer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sonarr_every_fault_is_named_within_its_timeout() {
    every_fault_on_a_read(ArrKind::Sonarr, InstanceKind::Sonarr, "sonarr").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lidarr_every_fault_is_named_within_its_timeout() {
    every_fault_on_a_read(ArrKind::Lidarr, InstanceKind::Lidarr, "lidarr").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readarr_every_fault_is_named_within_its_timeout() {
    every_fault_on_a_read(ArrKind::Readarr, InstanceKind::Readarr, "readarr").await;
}

/// A title the fake of `kind` holds, and a write on it through `<name>-a`: a rescan of a Sonarr
/// series, a search for a Lidarr album or a Readarr book (each a command the service runs).
fn held_write(kind: ArrKind, fake: &FakeArr, ida: &str) -> (&'static str, serde_json::Value) {
    match kind {
        ArrKind::Sonarr => {
            fake.insert(
                Resource::Series,
                json!({"title": "Game of Thrones", "year": 2011, "tvdbId": 121361, "tmdbId": 1399, "monitored": true}),
            );
            (
                "rescan_media",
                json!({"instance_id": ida, "media_source": "tvdb", "media_id": "121361", "media_type": "tv"}),
            )
        }
        ArrKind::Lidarr => {
            let mbid = "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f";
            let artist = fake.insert(
                Resource::Artist,
                json!({"artistName": "The Beatles", "foreignArtistId": "b10bbbfc-cf9e-42e0-be17-e2c3e1d2600d", "path": "/music/The Beatles", "monitored": true}),
            );
            fake.insert(
                Resource::Album,
                json!({"title": "Abbey Road", "foreignAlbumId": mbid, "artistId": artist, "monitored": true}),
            );
            (
                "trigger_search",
                json!({"instance_id": ida, "media_source": "musicbrainz", "media_id": mbid, "media_type": "music"}),
            )
        }
        ArrKind::Readarr => {
            let author = fake.insert(
                Resource::Author,
                json!({"authorName": "Frank Herbert", "foreignAuthorId": "58", "path": "/books/Frank Herbert", "monitored": true}),
            );
            fake.insert(
                Resource::Book,
                json!({"title": "Dune", "foreignBookId": "234225", "authorId": author, "monitored": true}),
            );
            fake.seed_lookup(
                Resource::Book,
                json!({"title": "Dune", "foreignBookId": "234225"}),
                vec![],
            );
            (
                "trigger_search",
                json!({"instance_id": ida, "media_source": "goodreads", "media_id": "234225", "media_type": "book"}),
            )
        }
        other => panic!("no write of {other:?} here"),
    }
}

/// Every fault in turn on the `POST` of a write to `<name>-a` (latency past the timeout
/// included: the command may have run): an error naming the instance within its timeout, the
/// command sent once (never retried), and the same write as before once the fault is gone.
async fn a_command_is_sent_once_whatever_the_fault(
    kind: ArrKind,
    instance_kind: InstanceKind,
    name: &str,
) {
    let t = two_of(kind, instance_kind, name).await;
    let ida = format!("{name}-a");
    let (tool, args) = held_write(kind, &t.a, &ida);
    let c = t.m.call(tool, args.clone()).await;
    assert!(!c.error, "{name}: before the faults: {}", c.summary);
    for fault in every_fault() {
        t.proxy.set_for("POST", fault.clone());
        t.proxy.clear();
        let c = t.m.call(tool, args.clone()).await;
        assert!(c.error, "{name} {fault:?}: {}", c.summary);
        assert!(c.summary.contains(&ida), "{name} {fault:?}: {}", c.summary);
        assert!(c.took < SHORT + ROOM, "{name} {fault:?}: {:?}", c.took);
        assert_eq!(
            t.proxy.requests_of("POST"),
            1,
            "{name} {fault:?}: the command is sent once: {:?}",
            t.proxy.request_lines()
        );
    }
    t.proxy.set(Fault::None);
    let c = t.m.call(tool, args).await;
    assert!(!c.error, "{name}: after the faults: {}", c.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sonarr_command_is_sent_once_whatever_the_fault() {
    a_command_is_sent_once_whatever_the_fault(ArrKind::Sonarr, InstanceKind::Sonarr, "sonarr")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lidarr_command_is_sent_once_whatever_the_fault() {
    a_command_is_sent_once_whatever_the_fault(ArrKind::Lidarr, InstanceKind::Lidarr, "lidarr")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_readarr_command_is_sent_once_whatever_the_fault() {
    a_command_is_sent_once_whatever_the_fault(ArrKind::Readarr, InstanceKind::Readarr, "readarr")
        .await;
}
