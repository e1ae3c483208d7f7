//! Real torrent daemons (Transmission, qBittorrent) behind the fault proxy, a second one beside
//! each: a read of the faulty one is an error naming it within its timeout, the other answers
//! meanwhile; the overview flags an instance that fails; a write (add, remove) is sent once
//! whatever the fault; and the daemon's password (echoed by a bad answer) reaches no answer and
//! no log line.

use std::time::{Duration, Instant};

use domain::InstanceKind;
use serde_json::{Value, json};
use test_support::{Fault, FaultProxy, peers::Daemon};
use tools::InstanceSpec;

use crate::support::{Marquee, WITHIN, marquee, marquee_with};

/// The faulty daemon's `timeout_seconds`, and the room a loaded machine needs beyond it.
const SHORT: Duration = Duration::from_secs(2);
const ROOM: Duration = Duration::from_secs(4);

fn transmission(id: &str, url: &str, d: &Daemon) -> InstanceSpec {
    client(id, InstanceKind::Transmission, url, d)
}

/// The `credentials` prefix of a daemon of `kind`.
fn prefix(kind: InstanceKind) -> &'static str {
    match kind {
        InstanceKind::Qbittorrent => "QBITTORRENT",
        _ => "TRANSMISSION",
    }
}

fn client(id: &str, kind: InstanceKind, url: &str, d: &Daemon) -> InstanceSpec {
    let p = prefix(kind);
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(url.parse().unwrap()),
        path: None,
        username: Some(d.cred(&format!("{p}_USER"))),
        password: Some(domain::Secret::new(d.cred(&format!("{p}_PASS")))),
        api_key: None,
        default: false,
    }
}

fn script(kind: InstanceKind) -> &'static str {
    match kind {
        InstanceKind::Qbittorrent => "qbittorrent.sh",
        _ => "transmission.sh",
    }
}

async fn daemons(kind: InstanceKind) -> (Daemon, Daemon) {
    tokio::task::spawn_blocking(move || (Daemon::start(script(kind)), Daemon::start(script(kind))))
        .await
        .unwrap()
}

fn url_of(kind: InstanceKind, d: &Daemon) -> String {
    d.cred(&format!("{}_URL", prefix(kind)))
}

/// The overview's entry for `id`.
fn entry<'v>(overview: &'v Value, id: &str) -> &'v Value {
    overview["structuredContent"]["data"]["instances"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["instance_id"] == id))
        .unwrap_or_else(|| panic!("no entry for {id} in the overview: {overview}"))
}

/// Asks for the overview (from the catalogues, no refresh) until `done` holds of it, for at
/// most `within`.
async fn overview_until(m: &Marquee, within: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let c = m.call("downloads_overview", json!({})).await;
        assert!(!c.error, "{}", c.summary);
        if done(&c.result) {
            return c.result;
        }
        assert!(
            started.elapsed() < within,
            "the overview never came to the state waited for: {}",
            c.result
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
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

/// An instance that stops answering is flagged in the overview (status `ok: false`, its error,
/// a warning naming it), never silently left out; one that never answered is listed too, its
/// torrents said to be missing; the healthy one is `ok`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_torrent_client_is_flagged_in_the_overview() {
    let kind = InstanceKind::Transmission;
    let (a, b) = daemons(kind).await;
    let (a_url, b_url) = (url_of(kind, &a), url_of(kind, &b));
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let dead = FaultProxy::in_front_of(&b_url).await;
    dead.set(Fault::HalfOpen);
    let m = marquee_with(
        vec![
            client("tr-a", kind, &proxy.url_for(&a_url), &a),
            client("tr-b", kind, &b_url, &b),
            client("tr-dead", kind, &dead.url_for(&b_url), &b),
        ],
        &[("tr-a", SHORT), ("tr-dead", SHORT)],
    )
    .await;
    overview_until(&m, Duration::from_secs(20), |o| {
        entry(o, "tr-a")["status"]["ok"] == true && entry(o, "tr-b")["status"]["ok"] == true
    })
    .await;

    proxy.set(Fault::Reset);
    let o = overview_until(&m, Duration::from_secs(20), |o| {
        entry(o, "tr-a")["status"]["ok"] == false
            && !entry(o, "tr-dead")["status"]["error"].is_null()
    })
    .await;
    let summary = o["structuredContent"]["summary"].as_str().unwrap();
    let warnings = o["structuredContent"]["warnings"].to_string();
    for id in ["tr-a", "tr-dead"] {
        let e = entry(&o, id);
        assert_eq!(e["status"]["ok"], false, "{id}: {e}");
        assert!(
            e["status"]["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{id}: its error is shown: {e}"
        );
        assert!(warnings.contains(id), "{id} is warned of: {warnings}");
    }
    assert_eq!(entry(&o, "tr-b")["status"]["ok"], true, "{o}");
    assert!(summary.contains("tr-dead could not be read"), "{summary}");
    assert!(
        warnings.contains("its torrents are missing from this answer"),
        "{warnings}"
    );
}

/// Every fault on a qBittorrent instance: a full read of it names it as not read, within its
/// timeout, while the other answers meanwhile; afterwards it is read afresh and whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_qbittorrent_is_named_and_the_other_answers() {
    let kind = InstanceKind::Qbittorrent;
    let (a, b) = daemons(kind).await;
    let a_url = url_of(kind, &a);
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let m = marquee_with(
        vec![
            client("qb-a", kind, &proxy.url_for(&a_url), &a),
            client("qb-b", kind, &url_of(kind, &b), &b),
        ],
        &[("qb-a", SHORT)],
    )
    .await;
    let ok = m
        .call(
            "downloads_overview",
            json!({"instance_id": "qb-a", "refresh": true}),
        )
        .await;
    assert!(!ok.error, "before the faults: {}", ok.summary);
    let password = a.cred("QBITTORRENT_PASS");
    let mut answers = String::new();
    let faults = [
        Fault::Latency(SHORT + Duration::from_secs(2)),
        Fault::Reset,
        Fault::HalfOpen,
        Fault::Truncate(60),
        Fault::Garbage,
        Fault::GarbageBody,
        Fault::TooManyRequests { retry_after: 120 },
        Fault::SlowDrip(Duration::from_millis(400)),
        Fault::Answer {
            status: 500,
            body: json!({"error": format!("bad password {password}")}).to_string(),
        },
    ];
    // A good full read stands for 10 seconds (a failed one does not): wait that out once, so
    // the reads below are real ones.
    tokio::time::sleep(adapters_downloads::FULL_REFRESH_GAP).await;
    for fault in faults {
        proxy.set(fault.clone());
        proxy.clear();
        let (alone, other) = tokio::join!(
            m.call(
                "downloads_overview",
                json!({"instance_id": "qb-a", "refresh": true})
            ),
            m.call(
                "downloads_overview",
                json!({"instance_id": "qb-b", "refresh": true})
            ),
        );
        assert!(
            alone.error || alone.summary.contains("Could not read qb-a"),
            "{fault:?}: {}",
            alone.summary
        );
        let full = &alone.result["structuredContent"]["data"]["full_refresh"][0];
        assert_eq!(full["outcome"], "failed", "{fault:?}: {full}");
        assert!(
            full["error"].as_str().is_some_and(|e| e.contains("qb-a")),
            "{fault:?}: the error names the instance: {full}"
        );
        assert_eq!(
            entry(&alone.result, "qb-a")["status"]["ok"],
            false,
            "{fault:?}"
        );
        assert!(
            alone.took < SHORT * 2 + ROOM,
            "{fault:?}: answered in {:?}",
            alone.took
        );
        assert!(!other.error, "{fault:?}: qb-b: {}", other.summary);
        assert!(
            other.took < Duration::from_secs(5),
            "{fault:?}: qb-b waited {:?}",
            other.took
        );
        answers.push_str(&alone.result.to_string());
    }
    proxy.set(Fault::None);
    proxy.clear();
    let again = m
        .call(
            "downloads_overview",
            json!({"instance_id": "qb-a", "refresh": true}),
        )
        .await;
    assert!(!again.error, "after the faults: {}", again.summary);
    assert_eq!(
        again.result["structuredContent"]["data"]["full_refresh"][0]["outcome"], "read",
        "{}",
        again.result
    );
    assert_eq!(
        entry(&again.result, "qb-a")["status"]["ok"],
        true,
        "{}",
        again.result
    );
    assert!(proxy.requests() >= 1, "read afresh");
    assert!(
        !answers.contains(&password),
        "the daemon's password in an answer"
    );
    assert!(
        !crate::support::logs().contains(&password),
        "the daemon's password in the log"
    );
}

/// A magnet link of its own for each add (an info hash made of `n`).
fn magnet(n: u32) -> (String, String) {
    let hash = format!("{n:08x}").repeat(5);
    (format!("magnet:?xt=urn:btih:{hash}"), hash)
}

/// Adds and removes on a daemon of `kind` whose write request fails in each way: each is an
/// answer naming the instance within its timeout, and the daemon was sent the write once (no
/// retry of a write that may have been carried out); another instance answers meanwhile.
async fn a_write_is_sent_once(kind: InstanceKind, id: &str, add: &str, remove: &str) {
    let (a, b) = daemons(kind).await;
    let a_url = url_of(kind, &a);
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let other_id = format!("{id}-other");
    let m = marquee_with(
        vec![
            client(id, kind, &proxy.url_for(&a_url), &a),
            client(&other_id, kind, &url_of(kind, &b), &b),
        ],
        &[(id, SHORT)],
    )
    .await;
    // Latency past the timeout last: that add reaches the daemon.
    let faults = [
        Fault::Reset,
        Fault::HalfOpen,
        Fault::Garbage,
        Fault::Truncate(40),
        Fault::Latency(SHORT + Duration::from_secs(2)),
    ];
    for (n, fault) in faults.iter().enumerate() {
        let (link, _) = magnet(n as u32 + 1);
        proxy.set_when(add, fault.clone());
        proxy.clear();
        let (c, other) = tokio::join!(
            m.call(
                "add_torrent",
                json!({"source": link, "instance_id": id, "paused": true})
            ),
            m.call("find_torrents", json!({"instance_id": other_id})),
        );
        assert!(
            c.error || c.result["structuredContent"]["data"]["failed"] == 1,
            "{fault:?}: {}",
            c.result
        );
        assert!(c.summary.contains(id), "{fault:?}: {}", c.summary);
        assert!(c.took < SHORT + ROOM, "{fault:?}: {:?}", c.took);
        assert_eq!(
            proxy.requests_with(add),
            1,
            "{fault:?}: the add is sent once: {:?}",
            proxy.request_lines()
        );
        assert!(!other.error, "{fault:?}: {other_id}: {}", other.summary);
    }

    // Each removal of a torrent of its own, added with no fault (a removal that reached the
    // daemon, as latency and a cut answer do, removed it).
    for (n, fault) in faults.into_iter().enumerate() {
        proxy.set(Fault::None);
        let (link, hash) = magnet(100 + n as u32);
        let c = m
            .call(
                "add_torrent",
                json!({"source": link, "instance_id": id, "paused": true}),
            )
            .await;
        assert!(!c.error && c.summary.contains("Added"), "{}", c.summary);
        proxy.set_when(remove, fault.clone());
        proxy.clear();
        let c = m
            .call(
                "delete_torrents",
                json!({"info_hashes": [hash], "delete_data": false, "instance_id": id}),
            )
            .await;
        assert!(
            c.error || c.result["structuredContent"]["data"]["failed"] == 1,
            "{fault:?}: {}",
            c.result
        );
        assert!(c.result.to_string().contains(id), "{fault:?}: {}", c.result);
        assert!(c.took < SHORT + ROOM, "{fault:?}: {:?}", c.took);
        assert_eq!(
            proxy.requests_with(remove),
            1,
            "{fault:?}: the removal is sent once: {:?}",
            proxy.request_lines()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transmission_write_is_sent_once_whatever_the_fault() {
    a_write_is_sent_once(
        InstanceKind::Transmission,
        "tr-w",
        "\"torrent-add\"",
        "\"torrent-remove\"",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qbittorrent_write_is_sent_once_whatever_the_fault() {
    a_write_is_sent_once(
        InstanceKind::Qbittorrent,
        "qb-w",
        "/api/v2/torrents/add",
        "/api/v2/torrents/delete",
    )
    .await;
}

/// The request words of a daemon's writes: add, pause and resume.
struct Writes {
    add: &'static str,
    pause: &'static str,
    resume: &'static str,
}

/// Adds, pauses and resumes on a daemon of `kind` whose write is answered `429` with
/// `Retry-After` (not forwarded) or passed on and answered one byte at a time (the daemon acted,
/// its answer never arrives in time): each call answers within the instance's timeout with an
/// error naming the instance, the write sent once (no retry, no waiting out `Retry-After`), and
/// another instance answers meanwhile. `pause` and `resume` are the daemon's words for them
/// (qBittorrent's differ between WebAPI versions; they are read off a faultless call first).
async fn a_throttled_or_dripped_write_is_named(kind: InstanceKind, id: &str, add: &'static str) {
    let (a, b) = daemons(kind).await;
    let a_url = url_of(kind, &a);
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let other_id = format!("{id}-other");
    let m = marquee_with(
        vec![
            client(id, kind, &proxy.url_for(&a_url), &a),
            client(&other_id, kind, &url_of(kind, &b), &b),
        ],
        &[(id, SHORT)],
    )
    .await;
    // A torrent to pause and resume, and the words of those writes as this daemon takes them.
    let (link, hash) = magnet(500);
    let c = m
        .call(
            "add_torrent",
            json!({"source": link, "instance_id": id, "paused": true}),
        )
        .await;
    assert!(!c.error && c.summary.contains("Added"), "{}", c.summary);
    let words = {
        let word_of =
            |ops: &[&'static str]| ops.iter().copied().find(|w| proxy.requests_with(w) > 0);
        proxy.clear();
        let c = m
            .call(
                "pause_torrents",
                json!({"info_hashes": [hash], "instance_id": id}),
            )
            .await;
        assert!(!c.error, "{}", c.summary);
        let pause = word_of(&[
            "/api/v2/torrents/stop",
            "/api/v2/torrents/pause",
            "\"torrent-stop\"",
        ]);
        proxy.clear();
        let c = m
            .call(
                "resume_torrents",
                json!({"info_hashes": [hash], "instance_id": id}),
            )
            .await;
        assert!(!c.error, "{}", c.summary);
        let resume = word_of(&[
            "/api/v2/torrents/start",
            "/api/v2/torrents/resume",
            "\"torrent-start\"",
        ]);
        Writes {
            add,
            pause: pause.expect("the pause request was seen"),
            resume: resume.expect("the resume request was seen"),
        }
    };
    let faults = [
        Fault::TooManyRequests { retry_after: 120 },
        Fault::SlowDrip(Duration::from_millis(400)),
    ];
    for (n, fault) in faults.iter().enumerate() {
        let (link, _) = magnet(600 + n as u32);
        let calls = [
            (
                words.add,
                "add_torrent",
                json!({"source": link, "instance_id": id, "paused": true}),
            ),
            (
                words.pause,
                "pause_torrents",
                json!({"info_hashes": [hash], "instance_id": id}),
            ),
            (
                words.resume,
                "resume_torrents",
                json!({"info_hashes": [hash], "instance_id": id}),
            ),
        ];
        for (word, tool, args) in calls {
            proxy.set_when(word, fault.clone());
            proxy.clear();
            let (c, other) = tokio::join!(
                m.call(tool, args),
                m.call("find_torrents", json!({"instance_id": other_id})),
            );
            let data = &c.result["structuredContent"]["data"];
            assert!(
                c.error || data["failed"].as_u64().is_some_and(|f| f >= 1),
                "{tool} {fault:?}: {}",
                c.result
            );
            assert!(
                c.result.to_string().contains(id),
                "{tool} {fault:?}: the instance is named: {}",
                c.result
            );
            assert!(c.took < SHORT + ROOM, "{tool} {fault:?}: {:?}", c.took);
            assert_eq!(
                proxy.requests_with(word),
                1,
                "{tool} {fault:?}: the write is sent once: {:?}",
                proxy.request_lines()
            );
            assert!(
                !other.error,
                "{tool} {fault:?}: {other_id}: {}",
                other.summary
            );
        }
    }
    proxy.set(Fault::None);
    let c = m
        .call(
            "pause_torrents",
            json!({"info_hashes": [hash], "instance_id": id}),
        )
        .await;
    assert!(!c.error, "after the faults: {}", c.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transmission_write_answered_429_or_dripped_is_named_and_sent_once() {
    a_throttled_or_dripped_write_is_named(InstanceKind::Transmission, "tr-t", "\"torrent-add\"")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qbittorrent_write_answered_429_or_dripped_is_named_and_sent_once() {
    a_throttled_or_dripped_write_is_named(
        InstanceKind::Qbittorrent,
        "qb-t",
        "/api/v2/torrents/add",
    )
    .await;
}

/// A `sync/maindata` answer that is JSON but no torrent list (`{}`, an object without `rid`)
/// is a failed read naming the instance, never an empty list: the overview says qb-a could not
/// be read and keeps no empty catalogue for it; afterwards a real answer is read whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_maindata_answer_without_rid_is_an_error_not_an_empty_list() {
    let kind = InstanceKind::Qbittorrent;
    let (a, b) = daemons(kind).await;
    let a_url = url_of(kind, &a);
    let proxy = FaultProxy::in_front_of(&a_url).await;
    let m = marquee_with(
        vec![
            client("qb-a", kind, &proxy.url_for(&a_url), &a),
            client("qb-b", kind, &url_of(kind, &b), &b),
        ],
        &[("qb-a", SHORT)],
    )
    .await;
    let (link, hash) = magnet(700);
    let c = m
        .call(
            "add_torrent",
            json!({"source": link, "instance_id": "qb-a", "paused": true}),
        )
        .await;
    assert!(!c.error && c.summary.contains("Added"), "{}", c.summary);
    // A good full read stands for a while (a failed one does not): wait that out once.
    tokio::time::sleep(adapters_downloads::FULL_REFRESH_GAP).await;
    for body in ["{}", r#"{"server_state":{"free_space_on_disk":1}}"#] {
        proxy.set_when(
            "/api/v2/sync/maindata",
            Fault::Answer {
                status: 200,
                body: body.into(),
            },
        );
        proxy.clear();
        let c = m
            .call(
                "downloads_overview",
                json!({"instance_id": "qb-a", "refresh": true}),
            )
            .await;
        assert!(
            proxy.requests_with("/api/v2/sync/maindata") >= 1,
            "{body}: asked"
        );
        assert!(
            c.error || c.summary.contains("Could not read qb-a"),
            "{body}: {}",
            c.result
        );
        let full = &c.result["structuredContent"]["data"]["full_refresh"][0];
        assert_eq!(full["outcome"], "failed", "{body}: {full}");
        assert!(
            full["error"].as_str().is_some_and(|e| e.contains("qb-a")),
            "{body}: the error names the instance: {full}"
        );
        assert_eq!(entry(&c.result, "qb-a")["status"]["ok"], false, "{body}");
    }
    proxy.set(Fault::None);
    let c = m
        .call(
            "downloads_overview",
            json!({"instance_id": "qb-a", "refresh": true}),
        )
        .await;
    assert_eq!(
        c.result["structuredContent"]["data"]["full_refresh"][0]["outcome"], "read",
        "{}",
        c.result
    );
    let found = m
        .call("find_torrents", json!({"instance_id": "qb-a"}))
        .await;
    assert!(
        found.result.to_string().contains(&hash),
        "the torrent is listed again: {}",
        found.result
    );
}
