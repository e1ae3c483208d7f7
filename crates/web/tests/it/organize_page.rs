//! An organise approved on the owner's review page in a real headless Chromium: an operator
//! plans a hard-link organise of a download folder into the library folder, the owner reads
//! the source → destination table and approves it, and only `apply_change` then places the
//! files (the same inode on both sides). Screenshots are kept among the test artefacts.

use std::{os::unix::fs::MetadataExt, path::Path};

use domain::{InstanceKind, Role, Secret};
use serde_json::json;
use tools::InstanceSpec;

use crate::support;
use crate::webdriver::Browser;

const PASSWORD: &str = "correct horse battery staple";
const HEAT: &str = "Heat.1995.1080p.BluRay.x264-GRP";

fn folder(id: &str, path: &Path) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind: InstanceKind::Folder,
        url: None,
        path: Some(path.display().to_string()),
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_approves_an_organise_from_its_source_to_destination_table() {
    let dir = tempfile::tempdir().unwrap();
    let (downloads, library) = (dir.path().join("downloads"), dir.path().join("library"));
    std::fs::create_dir_all(downloads.join(HEAT)).unwrap();
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(downloads.join(format!("{HEAT}/{HEAT}.mkv")), b"video").unwrap();
    std::fs::write(downloads.join(format!("{HEAT}/{HEAT}.en.srt")), b"1\nhi\n").unwrap();
    let s = support::server_with_instances(vec![
        folder("downloads", &downloads),
        folder("library", &library),
    ])
    .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = s.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    s.host.app.settings().set_public_url(&base);
    s.host
        .app
        .store()
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let operator = s.key_for("olga", Role::User, "operator").await;
    let r = s
        .call(
            &operator,
            "plan_organize",
            json!({"instance_id": "downloads", "paths": [HEAT], "target_instance_id": "library", "mode": "hardlink"}),
        )
        .await;
    assert_eq!(r["isError"], false, "{r}");
    let data = &r["structuredContent"]["data"];
    assert!(data["missing_authority"].is_string(), "{data}");
    let (id, review) = (
        data["change_id"].as_str().unwrap().to_string(),
        data["review_url"].as_str().unwrap().to_string(),
    );

    let b = Browser::start("organize").await;
    b.goto(&review).await;
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    let url = b.wait_url("/changes").await;
    assert!(url.contains("/changes"), "not signed in: {url}");
    b.goto(&review).await;
    let table = b.text("#organize").await;
    for cell in [
        format!("{HEAT}/{HEAT}.mkv"),
        "Heat (1995)/Heat (1995) - 1080p.mkv".to_string(),
        format!("{HEAT}/{HEAT}.en.srt"),
        "Heat (1995)/Heat (1995) - 1080p.en.srt".to_string(),
    ] {
        assert!(table.contains(&cell), "{cell:?} not in {table}");
    }
    let effect = b.text("#effect").await;
    assert!(
        effect.contains("Hard-links 2 files") && effect.contains("from downloads into library"),
        "{effect}"
    );
    assert_eq!(b.text("#status").await, "pending");
    b.screenshot("1-organize-pending").await;
    b.click("#approve").await;
    assert_eq!(b.wait_text("#status", "approved").await, "approved");
    assert_eq!(
        std::fs::read_dir(&library).unwrap().count(),
        0,
        "approval alone places nothing"
    );

    let r = s
        .call(
            &operator,
            "apply_change",
            json!({"change_id": id, "idempotency_key": "browser-organize-1"}),
        )
        .await;
    assert_eq!(r["structuredContent"]["data"]["status"], "succeeded", "{r}");
    let (a, placed) = (
        std::fs::metadata(downloads.join(format!("{HEAT}/{HEAT}.mkv"))).unwrap(),
        std::fs::metadata(library.join("Heat (1995)/Heat (1995) - 1080p.mkv")).unwrap(),
    );
    assert_eq!((a.dev(), a.ino()), (placed.dev(), placed.ino()));
    assert!(
        library
            .join("Heat (1995)/Heat (1995) - 1080p.en.srt")
            .exists()
    );
    b.goto(&review).await;
    assert_eq!(b.wait_text("#status", "applied").await, "applied");
    assert!(b.text("#operation").await.contains("succeeded"));
    let shot = b.screenshot("2-organize-applied").await;
    b.quit().await;
    println!("screenshots in {}", shot.parent().unwrap().display());
}
