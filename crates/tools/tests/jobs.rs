//! The families' background work is named jobs, started by `serve` with the shutdown future
//! (`App::start_jobs`), never from a request: loading the builtin catalogue, and each library
//! instance's held-ids refresh, beside the download catalogues' refreshers.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use domain::InstanceKind;
use store::Store;
use tools::{Instances, Settings};

fn spec(id: &str, kind: InstanceKind, url: Option<&str>) -> tools::InstanceSpec {
    tools::InstanceSpec {
        id: id.into(),
        kind,
        url: url.map(|u| url::Url::parse(u).unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: Some(domain::Secret::new("k")),
        default: false,
    }
}

#[tokio::test]
async fn the_builtin_load_and_each_librarys_held_refresh_are_named_jobs() {
    let instances = Instances::new(vec![
        spec("builtin", InstanceKind::Builtin, None),
        // Never reached: nothing asks it for its held ids.
        spec("radarr", InstanceKind::Radarr, Some("http://127.0.0.1:9/")),
        spec("sonarr", InstanceKind::Sonarr, Some("http://127.0.0.1:9/")),
    ])
    .unwrap();
    let store = Store::open_in_memory().await.unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
    );
    let mut names: Vec<&str> = app.jobs().iter().map(|j| j.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "discover.builtin",
            "library.held:radarr",
            "library.held:sonarr",
            "requests.follow",
            "tasks.notices",
            "tasks.schedule"
        ]
    );
    // A held refresh nobody asked for reads nothing and ends at once.
    assert!(app.run_job("library.held:radarr").await);
    assert!(app.run_job("discover.builtin").await);
}

#[tokio::test]
async fn without_a_builtin_catalogue_or_library_only_the_task_jobs_run() {
    let store = Store::open_in_memory().await.unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::default()),
    );
    let names: Vec<&str> = app.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["tasks.schedule", "tasks.notices"]);
}
