//! A real Transmission daemon behind the fault proxy, a second one beside it: a read of the
//! faulty one is an error naming it within the timeout, the other answers meanwhile, and a
//! write (pause) whose connection resets is not sent again.

use domain::InstanceKind;
use serde_json::json;
use test_support::{Fault, FaultProxy, peers::Daemon};
use tools::InstanceSpec;

use crate::support::{WITHIN, marquee};

fn transmission(id: &str, url: &str, d: &Daemon) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind: InstanceKind::Transmission,
        url: Some(url.parse().unwrap()),
        path: None,
        username: Some(d.cred("TRANSMISSION_USER")),
        password: Some(domain::Secret::new(d.cred("TRANSMISSION_PASS"))),
        api_key: None,
        default: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_torrent_client_is_named_and_the_other_answers() {
    let (a, b) = tokio::task::spawn_blocking(|| {
        (
            Daemon::start("transmission.sh"),
            Daemon::start("transmission.sh"),
        )
    })
    .await
    .unwrap();
    let a_url = a.cred("TRANSMISSION_URL");
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let m = marquee(vec![
        transmission("tr-a", &proxy.url_for(&a_url), &a),
        transmission("tr-b", &b.cred("TRANSMISSION_URL"), &b),
    ])
    .await;
    let ok = m
        .call("downloads_overview", json!({"instance_id": "tr-a"}))
        .await;
    assert!(!ok.error, "before the fault: {}", ok.summary);

    for fault in [Fault::Reset, Fault::GarbageBody, Fault::HalfOpen] {
        proxy.set(fault.clone());
        proxy.clear();
        let (alone, other) = tokio::join!(
            m.call(
                "downloads_overview",
                json!({"instance_id": "tr-a", "refresh": true})
            ),
            m.call(
                "downloads_overview",
                json!({"instance_id": "tr-b", "refresh": true})
            ),
        );
        // An error, or (an overview, which merges what it could read) an answer that says the
        // instance could not be read.
        assert!(
            alone.error || alone.summary.contains("Could not read tr-a"),
            "{fault:?}: {}",
            alone.summary
        );
        assert!(
            alone.summary.contains("tr-a"),
            "{fault:?}: {}",
            alone.summary
        );
        assert!(alone.took < WITHIN, "{fault:?}: {:?}", alone.took);
        assert!(!other.error, "{fault:?}: tr-b: {}", other.summary);
        assert!(
            other.took < std::time::Duration::from_secs(5),
            "{fault:?}: tr-b waited {:?}",
            other.took
        );
    }

    // A write is sent once (Transmission's RPC is one POST per call; reads are POSTs too, so
    // only the write's own request is counted: torrent-stop).
    proxy.set(Fault::None);
    let hash = "c12fe1c06bba254a9dc9f519b335aa7c1367a88a";
    proxy.set(Fault::Reset);
    proxy.clear();
    let c = m
        .call(
            "pause_torrents",
            json!({"instance_id": "tr-a", "hashes": [hash]}),
        )
        .await;
    assert!(c.error, "{}", c.summary);
    assert!(c.took < WITHIN, "{:?}", c.took);
    assert!(proxy.requests() <= 2, "{:?}", proxy.request_lines());
    proxy.set(Fault::None);
    let again = m
        .call("list_categories", json!({"instance_id": "tr-a"}))
        .await;
    assert!(!again.error, "after the fault: {}", again.summary);
}
