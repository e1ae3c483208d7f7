//! An *arr instance behind the fault proxy, a second one of the same kind beside it.

use std::time::Instant;

use domain::InstanceKind;
use serde_json::json;
use test_support::{ArrKind, FakeArr, Fault, FaultProxy, arr::Resource};

use crate::support::{Marquee, WITHIN, marquee, spec};

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
