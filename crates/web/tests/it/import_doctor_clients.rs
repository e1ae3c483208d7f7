//! The Import Doctor's download-client evidence against a real qbittorrent-nox: a torrent the
//! daemon holds without its data and without peers is `stalledDL` there; a Radarr fake's queue
//! item carries the same hash. `diagnose_queue` shows the client's own state beside the service's
//! messages, decides `stalled_download` from it, says so when the caller may not read the
//! download instance, and turns to `download_client_unreachable` once the daemon stops.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use domain::{Capability, InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::GrantSpec;
use test_support::arr::{ArrKind, FakeArr, Resource, Verdict};

use crate::peers::{Daemon, Fixture, QbRaw, poll, serve_file};
use crate::support::{Server, instance, outcome, server_with_instances};

struct Stack {
    qb: Option<Daemon>,
    radarr: Arc<FakeArr>,
    server: Server,
    /// A fine download by the service's account, whose torrent is stalled in qBittorrent.
    quiet: i64,
    /// A sample file: the service's own import message decides, whatever the client says.
    sample: i64,
    /// The service reports an error it does not explain; the torrent is in qBittorrent.
    failed: i64,
    fixture: Fixture,
}

/// qBittorrent holding one data-less torrent, Radarr holding three queue items, Marquee
/// reading both.
async fn stack() -> Stack {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"))
        .join()
        .unwrap();
    let fixture = Fixture::new(
        &qb.dir.path().join("fixtures"),
        "Heat.1995.1080p.mkv",
        200_000,
        None,
    );
    let raw = QbRaw::login(&qb).await;
    let url = serve_file(std::fs::read(&fixture.torrent).unwrap()).await;
    raw.post("torrents/add", &[("urls", url.as_str())]).await;

    let radarr = Arc::new(FakeArr::start(ArrKind::Radarr).await);
    let movie = radarr.insert(
        Resource::Movie,
        json!({ "title": "Heat", "tmdbId": 949, "year": 1995, "path": "/data/media/movies/Heat (1995)" }),
    );
    let hash = fixture.hash.to_uppercase();
    let quiet = radarr.start_download(movie, "Heat.1995.1080p.WEB-DL", 200_000);
    radarr.update(Resource::Queue, quiet, json!({ "downloadId": hash }));
    let failed = radarr.seed_stuck(movie, Verdict::Unknown);
    radarr.update(Resource::Queue, failed, json!({ "downloadId": hash }));
    let sample = radarr.seed_stuck(movie, Verdict::SampleFile);

    let mut arr = instance(
        "radarr",
        InstanceKind::Radarr,
        Some(&radarr.url()),
        Some(radarr.api_key()),
    );
    arr.default = true;
    let client = tools::InstanceSpec {
        id: "qb".into(),
        kind: InstanceKind::Qbittorrent,
        url: Some(qb.cred("QBITTORRENT_URL").parse().unwrap()),
        path: None,
        username: Some(qb.cred("QBITTORRENT_USER")),
        password: Some(Secret::new(qb.cred("QBITTORRENT_PASS"))),
        api_key: None,
        default: true,
    };
    let server = server_with_instances(vec![arr, client]).await;
    // remove_queue_item, which the verdict names, is destructive.
    server.host.app.settings().set_allow_destructive(true);
    Stack {
        qb: Some(qb),
        radarr,
        server,
        quiet,
        sample,
        failed,
        fixture,
    }
}

async fn diagnose(s: &Server, key: &str) -> Value {
    let (error, summary, data) = outcome(&s.call(key, "diagnose_queue", json!({})).await);
    assert!(!error, "{summary}");
    data
}

fn row(data: &Value, id: i64) -> Option<&Value> {
    data["stuck"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["queue_id"] == id)
}

/// Diagnoses until the quiet item's client state is `state`, as the daemon and Marquee's cached
/// catalogue settle.
async fn diagnosed_when(stack: &Stack, verdict: &str) -> Value {
    let s = &stack.server;
    poll(60, &format!("the quiet item to be {verdict}"), async || {
        let data = diagnose(s, &s.owner_key).await;
        (row(&data, stack.failed)?["verdict"] == verdict).then_some(data)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torrent_stalled_in_the_client_is_stalled_download_with_the_clients_state_as_evidence() {
    let stack = stack().await;
    let data = diagnosed_when(&stack, "stalled_download").await;
    let quiet = row(&data, stack.quiet).expect("the client's stalled state makes it stuck");
    assert_eq!(quiet["verdict"], "stalled_download", "{quiet}");
    assert_eq!(quiet["evidence"]["status"], "downloading");
    let client = &quiet["evidence"]["client_state"];
    assert_eq!(
        (
            client["available"].clone(),
            client["instance_id"].clone(),
            client["state"].clone(),
            client["seeds"].clone(),
            client["name"].clone(),
        ),
        (
            json!(true),
            json!("qb"),
            json!("stalled"),
            json!(0),
            json!(stack.fixture.name)
        ),
        "{client}"
    );
    assert!(
        client["save_path"].as_str().unwrap().contains("downloads"),
        "{client}"
    );
    assert!(client["progress"].as_f64().unwrap() < 1.0);

    let sample = row(&data, stack.sample).unwrap();
    assert_eq!(sample["verdict"], "sample_file");
    assert_eq!(sample["evidence"]["client_state"]["available"], false);
    assert!(
        sample["evidence"]["client_state"]["reason"]
            .as_str()
            .unwrap()
            .contains("no download instance that could be read holds this download (searched qb)"),
        "{sample}"
    );

    let next = &quiet["next_call"];
    assert_eq!(next["tool"], "remove_queue_item", "{quiet}");
    let (error, summary, _) = outcome(
        &stack
            .server
            .call(
                &stack.server.owner_key,
                "remove_queue_item",
                next["arguments"].clone(),
            )
            .await,
    );
    assert!(!error, "{summary}");
    assert!(stack.radarr.get(Resource::Queue, stack.quiet).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_who_may_not_read_the_download_instance_is_told_the_client_state_is_not_available()
{
    let stack = stack().await;
    diagnosed_when(&stack, "stalled_download").await;
    let spec = GrantSpec {
        capabilities: BTreeSet::from([Capability::LibraryRead]),
        instances: None,
        allowances: BTreeMap::new(),
        ..GrantSpec::default()
    };
    let s = &stack.server;
    s.host
        .app
        .store()
        .create_grant("library-only", &spec)
        .await
        .unwrap();
    let key = s.key_for("lee", Role::User, "library-only").await;
    let result = s.call(&key, "diagnose_queue", json!({})).await;
    let (_, _, data) = outcome(&result);
    assert!(
        row(&data, stack.quiet).is_none(),
        "only the client says it is stuck: {data}"
    );
    let failed = row(&data, stack.failed).unwrap();
    assert_eq!(failed["verdict"], "unknown", "{failed}");
    assert_eq!(
        failed["evidence"]["client_state"],
        json!({ "available": false, "reason": "your grant does not let you read the download instances, so the download client's own state is not available to you" })
    );
    let text = result.to_string();
    assert!(
        !text.contains(&stack.fixture.name) && !text.contains("\"qb\""),
        "nothing of the client leaks: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_answering_makes_its_items_download_client_unreachable() {
    let mut stack = stack().await;
    diagnosed_when(&stack, "stalled_download").await;
    drop(stack.qb.take());
    let data = diagnosed_when(&stack, "download_client_unreachable").await;
    let failed = row(&data, stack.failed).unwrap();
    let client = &failed["evidence"]["client_state"];
    assert_eq!(client["available"], true, "the row as last seen: {client}");
    assert!(client["unreachable"].is_string(), "{client}");
    assert!(
        failed["sentence"]
            .as_str()
            .unwrap()
            .starts_with("The download client qb, which holds"),
        "{failed}"
    );
    let person = failed["next_call"]["person"].as_str().unwrap();
    assert!(
        person.starts_with("start the download client qb (Marquee's download instance"),
        "{person}"
    );
}
