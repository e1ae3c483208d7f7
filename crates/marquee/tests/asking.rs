//! The official Python SDK answers Marquee's questions: `request_media` given a title three
//! films share asks which one, by legacy-era elicitation on the call's stream and by a
//! 2026-07-28 `input_required` result the SDK answers on a retry, against the real binary
//! (`marquee serve` on the embedded default's builtin catalogue).

#![allow(clippy::unwrap_used)]

mod kit;

use kit::features;
use serde_json::{Value, json};

/// `mcp_features.py --ask request_media` for a film by title, picking `pick`.
fn ask(url: &str, key: &str, mode: &str, title: &str, pick: &str) -> Value {
    let args = json!({"title": title, "media_type": "movie"}).to_string();
    let header = format!("Authorization: Bearer {key}");
    features(&[
        "--url",
        url,
        "--header",
        &header,
        "--mode",
        mode,
        "--ask",
        "request_media",
        "--ask-args",
        &args,
        "--pick",
        pick,
    ])
}

#[tokio::test]
async fn the_python_sdk_answers_which_title_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let (config, data) = (dir.path().join("marquee.toml"), dir.path().join("data"));
    let port = kit::free_port();
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    let key = kit::person_key(&config, &data, "ana", "user", "requester");
    let serving = kit::serve(&config, &data, port).await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    let legacy = {
        let (url, key) = (url.clone(), key.clone());
        tokio::task::spawn_blocking(move || {
            ask(
                &url,
                &key,
                "legacy",
                "Beauty and the Beast",
                "builtin:tt0101414",
            )
        })
        .await
        .unwrap()
    };
    assert_eq!(
        legacy["asked"],
        json!([
            "Several titles are called \"Beauty and the Beast\"; which one should be requested?"
        ]),
        "{legacy}"
    );
    assert_eq!(
        legacy["offered"],
        json!([[
            "builtin:tt2316801",
            "builtin:tt0101414",
            "builtin:tt0038348"
        ]])
    );
    assert_eq!(legacy["is_error"], false, "{legacy}");
    assert_eq!(legacy["data"]["request"]["media_id"], "tt0101414");
    assert_eq!(legacy["data"]["request"]["status"], "pending");

    let modern = {
        let (url, key) = (url.clone(), key.clone());
        tokio::task::spawn_blocking(move || {
            ask(&url, &key, "2026-07-28", "Carrie", "builtin:tt0074285")
        })
        .await
        .unwrap()
    };
    assert_eq!(
        modern["offered"][0].as_array().unwrap().len(),
        3,
        "{modern}"
    );
    assert_eq!(modern["is_error"], false, "{modern}");
    assert_eq!(modern["data"]["request"]["media_id"], "tt0074285");

    // Declining leaves nothing requested.
    let declined =
        tokio::task::spawn_blocking(move || ask(&url, &key, "legacy", "Hamlet", "decline"))
            .await
            .unwrap();
    assert_eq!(declined["is_error"], true, "{declined}");
    assert_eq!(declined["data"]["code"], "declined");
    drop(serving);
}
