//! A real Transmission daemon behind the fault proxy, a second one beside it: a read of the
//! faulty one is an error naming it within the timeout, the other answers meanwhile, and the
//! daemon's password (echoed by a bad answer) reaches no answer and no log line.

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

    // The daemon's password is the canary: an answer that echoes it (as a broken proxy in
    // front of a daemon might) must not carry it to the caller.
    let password = a.cred("TRANSMISSION_PASS");
    let echo = Fault::Answer {
        status: 200,
        body: json!({"result": format!("unauthorized: {password}"), "arguments": {"password": password}}).to_string(),
    };
    let mut answers = String::new();
    for fault in [Fault::Reset, Fault::GarbageBody, Fault::HalfOpen, echo] {
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
        answers.push_str(&alone.result.to_string());
        assert!(!other.error, "{fault:?}: tr-b: {}", other.summary);
        assert!(
            other.took < std::time::Duration::from_secs(5),
            "{fault:?}: tr-b waited {:?}",
            other.took
        );
    }

    proxy.set(Fault::None);
    let again = m
        .call("list_categories", json!({"instance_id": "tr-a"}))
        .await;
    assert!(!again.error, "after the fault: {}", again.summary);
    assert!(
        !answers.contains(&password),
        "the daemon's password in an answer: {answers}"
    );
    let log = crate::support::logs();
    assert!(!log.contains(&password), "the daemon's password in the log");
}
