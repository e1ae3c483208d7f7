//! A request approved while no library served its media type waits, and `diagnose` counts it;
//! when Marquee starts again with a Radarr configured (instances are read at start: adding one
//! needs a restart), the background job `requests.follow` hands it over on its first pass, run
//! as `serve` runs it (`App::start_jobs`), without anyone asking: the Radarr contract fake
//! receives the movie, and `diagnose` no longer counts it as waiting.

#![allow(clippy::unwrap_used)]

use std::{sync::Arc, time::Duration};

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::{ArrKind, FakeArr, arr::Resource};
use tools::{App, Called, Caller, InstanceSpec, Instances, Output, Settings};

fn spec(id: &str, kind: InstanceKind, url: Option<&str>, key: Option<&str>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| u.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: key.map(|k| Secret::new(k.to_string())),
        default: false,
    }
}

fn app(store: &Store, instances: Vec<InstanceSpec>) -> App {
    tools::app(
        store.clone(),
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(instances).unwrap()),
    )
}

async fn call(app: &App, caller: &Caller, name: &str, args: Value) -> Output {
    match app.call(caller, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => out,
        Called::Done(Err(e)) => panic!("{name}: {}", e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

async fn notes(app: &App, owner: &Caller) -> String {
    call(app, owner, "diagnose", json!({})).await.data()["notes"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_approved_with_no_library_is_handed_over_when_marquee_starts_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let ana = store.add_person("ana", Role::User).await.unwrap();
    let ana_key = store
        .create_key(ana.id, "requester", None, None)
        .await
        .unwrap();

    // No library: the approval waits, and diagnose counts it.
    let before = app(
        &store,
        vec![spec("builtin", InstanceKind::Builtin, None, None)],
    );
    let owner = before
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let requester = before
        .authenticate(ana_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    let asked = call(
        &before,
        &requester,
        "request_media",
        json!({"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"}),
    )
    .await;
    let id = asked.data()["request"]["request_id"].as_i64().unwrap();
    let decided = call(
        &before,
        &owner,
        "decide_request",
        json!({"request_id": id, "decision": "approve"}),
    )
    .await;
    assert!(decided.summary.contains("It waits"), "{}", decided.summary);
    let said = notes(&before, &owner).await;
    assert!(said.contains("(1 approved request waiting)"), "{said}");
    drop(before);

    // Started again with a Radarr: counted as waiting until the first pass, which starting
    // the jobs runs at once.
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    let after = app(
        &store,
        vec![
            spec("builtin", InstanceKind::Builtin, None, None),
            spec(
                "radarr",
                InstanceKind::Radarr,
                Some(&radarr.url()),
                Some(radarr.api_key()),
            ),
        ],
    );
    let said = notes(&after, &owner).await;
    assert!(
        said.contains("1 approved request not handed to a library yet"),
        "{said}"
    );
    assert!(radarr.all(Resource::Movie).is_empty());
    after.start_jobs(std::future::pending());
    let started = std::time::Instant::now();
    let movies = loop {
        let movies = radarr.all(Resource::Movie);
        if !movies.is_empty() || started.elapsed() > Duration::from_secs(20) {
            break movies;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(movies.len(), 1, "handed over at start: {movies:?}");
    assert_eq!(movies[0]["imdbId"], "tt0113277");
    let link = loop {
        let link = store.library_link(id).await.unwrap();
        if link.as_ref().is_some_and(|l| l.item_id.is_some())
            || started.elapsed() > Duration::from_secs(20)
        {
            break link.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(link.instance_id, "radarr");
    assert!(link.item_id.is_some() && link.failure.is_none(), "{link:?}");
    let said = notes(&after, &owner).await;
    assert!(!said.contains("not handed"), "{said}");
    assert!(!said.contains("waiting"), "{said}");
}
