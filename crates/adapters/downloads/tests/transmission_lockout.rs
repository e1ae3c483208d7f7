//! A real transmission-daemon that locked itself after too many failed sign-ins: the adapter
//! reports the lock-out as its own class, with the daemon's words and what to do, not as an
//! address-whitelist problem.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use adapters_downloads::{DownloadClient, ErrorClass, transmission::TrClient};
use common::Daemon;
use domain::Secret;

#[tokio::test]
async fn a_locked_daemon_is_reported_locked_in_its_own_words() {
    let d = Daemon::start("transmission.sh");
    let url: url::Url = d.cred("TRANSMISSION_URL").parse().unwrap();
    let rpc = d.cred("TRANSMISSION_RPC_URL");
    let user = d.cred("TRANSMISSION_USER");
    let raw = httpx::client(httpx::Timeouts::default()).unwrap();
    // transmission-daemon 3.00 locks its RPC after 100 failed sign-ins, until it restarts.
    let mut locked = false;
    for _ in 0..150 {
        let r = raw
            .post(&rpc)
            .basic_auth(&user, Some("wrong-password"))
            .body("{}")
            .send()
            .await
            .unwrap();
        if r.status() == 403 {
            locked = true;
            break;
        }
    }
    assert!(locked, "the daemon never locked itself");
    let timeouts = httpx::Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(10),
    };
    // The right password, after the lock-out: still refused, and said so.
    let client = DownloadClient::Transmission(
        TrClient::new(
            url,
            Some(user),
            Some(Secret::new(d.cred("TRANSMISSION_PASS"))),
            timeouts,
        )
        .unwrap(),
    );
    let e = client.check().await.unwrap_err();
    assert_eq!(e.class(), ErrorClass::LockedOut, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("Too many unsuccessful login attempts"),
        "{text}"
    );
    assert!(text.contains("restart the daemon"), "{text}");
    assert!(!text.contains("whitelist"), "{text}");
}
