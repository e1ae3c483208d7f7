//! A fresh start makes the embedded default's folder instance real: `<data dir>/library` is
//! created, empty, by `marquee serve`, and `recognize_media` (listed because that folder
//! instance exists) answers over the REST mirror of the real binary.

#![allow(clippy::unwrap_used)]

mod kit;

use httpx::reqwest;
use serde_json::{Value, json};

#[tokio::test]
async fn a_fresh_start_makes_the_library_folder_and_recognizes_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let (config, data) = (dir.path().join("marquee.toml"), dir.path().join("data"));
    let port = kit::free_port();
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    let key = kit::person_key(&config, &data, "ana", "user", "requester");
    let library = data.join("library");
    assert!(!library.exists(), "the command line creates no folder");
    let _serving = kit::serve(&config, &data, port).await;
    assert!(library.is_dir(), "serve made {}", library.display());
    assert_eq!(std::fs::read_dir(&library).unwrap().count(), 0, "empty");

    let http = httpx::builder(httpx::Timeouts::default()).build().unwrap();
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let answer: Value = http
        .post(format!("{base}/tools/call"))
        .bearer_auth(&key)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(
            json!({
                "tool_name": "recognize_media",
                "arguments": { "name": "Movies/Heat (1995)/heat.1080p.mkv" }
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["data"]["data"]["type"], "movie", "{answer}");
    assert_eq!(answer["data"]["data"]["year"], 1995, "{answer}");
    assert_eq!(
        answer["data"]["data"]["match"]["media_id"], "tt0113277",
        "{answer}"
    );
}
