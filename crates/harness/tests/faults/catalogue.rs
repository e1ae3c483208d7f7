//! TMDB behind the fault proxy: a bad answer is an error naming the instance, and nothing is
//! kept from it (the kept-answer cache holds remote answers for minutes: a kept failure would
//! outlive the fault).

use domain::InstanceKind;
use serde_json::json;
use test_support::{Fault, FaultProxy, TmdbFake};

use crate::support::{WITHIN, marquee, spec};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_tmdb_answer_is_named_and_never_kept() {
    let fake = TmdbFake::start().await;
    let proxy = FaultProxy::in_front_of(fake.base_url()).await;
    let m = marquee(vec![spec(
        "tmdb-main",
        InstanceKind::Tmdb,
        &proxy.url_for(fake.base_url()),
        Some(TmdbFake::API_KEY),
    )])
    .await;
    let faults = [
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
    ];
    for (i, fault) in faults.into_iter().enumerate() {
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
        assert!(bad.took < WITHIN, "{fault:?}: {:?}", bad.took);
        proxy.set(Fault::None);
        proxy.clear();
        let good = m.call("search_titles", query).await;
        assert!(!good.error, "{fault:?}: after the fault: {}", good.summary);
        assert!(proxy.requests() >= 1, "{fault:?}: asked afresh");
    }
}
