//! TMDB and MusicBrainz behind the fault proxy: a bad answer is an error naming the instance,
//! within the instance's own `timeout_seconds`, and nothing is kept from it (the kept-answer
//! cache holds remote answers for minutes: a kept failure would outlive the fault); another
//! catalogue of the kind answers meanwhile.

use std::time::Duration;

use domain::InstanceKind;
use serde_json::json;
use test_support::{Fault, FaultProxy, MusicBrainzFake, TmdbFake};

use crate::support::{marquee_with, spec};

/// The faulty catalogue's `timeout_seconds`, and the room a loaded machine needs beyond it
/// (MusicBrainz's one request a second included).
const SHORT: Duration = Duration::from_secs(2);
const ROOM: Duration = Duration::from_secs(4);

fn faults() -> Vec<Fault> {
    vec![
        Fault::Latency(SHORT + Duration::from_secs(2)),
        Fault::GarbageBody,
        Fault::Garbage,
        Fault::Reset,
        Fault::Truncate(60),
        Fault::TooManyRequests { retry_after: 30 },
        Fault::Answer {
            status: 503,
            body: "{\"status_message\": \"down for maintenance\"}".into(),
        },
        Fault::HalfOpen,
        Fault::SlowDrip(Duration::from_millis(400)),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_tmdb_answer_is_named_and_never_kept() {
    let fake = TmdbFake::start().await;
    let proxy = FaultProxy::in_front_of(fake.base_url()).await;
    let m = marquee_with(
        vec![spec(
            "tmdb-main",
            InstanceKind::Tmdb,
            &proxy.url_for(fake.base_url()),
            Some(TmdbFake::API_KEY),
        )],
        &[("tmdb-main", SHORT)],
    )
    .await;
    for (i, fault) in faults().into_iter().enumerate() {
        // A question of its own per fault: the good answer afterwards is to the same question.
        let query = json!({"query": "heat", "year": 1995 - i as i64});
        proxy.set(fault.clone());
        let bad = m.call("search_titles", query.clone()).await;
        assert!(bad.error, "{fault:?}: {}", bad.summary);
        assert!(
            bad.summary.contains("tmdb-main"),
            "{fault:?}: the instance is named: {}",
            bad.summary
        );
        assert!(bad.took < SHORT + ROOM, "{fault:?}: {:?}", bad.took);
        proxy.set(Fault::None);
        proxy.clear();
        let good = m.call("search_titles", query).await;
        assert!(!good.error, "{fault:?}: after the fault: {}", good.summary);
        assert!(proxy.requests() >= 1, "{fault:?}: asked afresh");
    }
}

/// Two MusicBrainz instances, `mb-a` behind the proxy: each fault is an error naming `mb-a`
/// within its timeout while `mb-b`, asked at the same moment, answers; afterwards the same
/// question to `mb-a` is asked of MusicBrainz again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_musicbrainz_answer_is_named_and_the_other_answers() {
    let (a, b) = (
        MusicBrainzFake::start().await,
        MusicBrainzFake::start().await,
    );
    let proxy = FaultProxy::in_front_of(a.base_url()).await;
    let m = marquee_with(
        vec![
            spec(
                "mb-a",
                InstanceKind::Musicbrainz,
                &proxy.url_for(a.base_url()),
                None,
            ),
            spec("mb-b", InstanceKind::Musicbrainz, b.base_url(), None),
        ],
        &[("mb-a", SHORT)],
    )
    .await;
    let ok = m
        .call(
            "search_music",
            json!({"query": "radiohead", "instance_id": "mb-a"}),
        )
        .await;
    assert!(!ok.error, "before the faults: {}", ok.summary);
    for (i, fault) in faults().into_iter().enumerate() {
        let query = format!("radiohead {i}");
        proxy.set(fault.clone());
        proxy.clear();
        let (bad, other) = tokio::join!(
            m.call(
                "search_music",
                json!({"query": query, "instance_id": "mb-a"})
            ),
            m.call(
                "search_music",
                json!({"query": query, "instance_id": "mb-b"})
            ),
        );
        assert!(bad.error, "{fault:?}: {}", bad.summary);
        assert!(
            bad.summary.contains("mb-a"),
            "{fault:?}: the instance is named: {}",
            bad.summary
        );
        assert!(bad.took < SHORT + ROOM, "{fault:?}: {:?}", bad.took);
        assert_eq!(
            proxy.requests(),
            1,
            "{fault:?}: asked once: {:?}",
            proxy.request_lines()
        );
        assert!(!other.error, "{fault:?}: mb-b: {}", other.summary);
        assert!(
            other.took < Duration::from_secs(5),
            "{fault:?}: mb-b waited {:?}",
            other.took
        );
        proxy.set(Fault::None);
        proxy.clear();
        let good = m
            .call(
                "search_music",
                json!({"query": query, "instance_id": "mb-a"}),
            )
            .await;
        assert!(!good.error, "{fault:?}: after the fault: {}", good.summary);
        assert_eq!(proxy.requests(), 1, "{fault:?}: asked afresh");
    }
}
