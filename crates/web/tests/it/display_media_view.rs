//! The `display_media` carousel view in a real headless Chromium (Debian's chromium and
//! chromium-driver): its HTML read through `resources/read`, embedded by a small host page that
//! speaks the MCP Apps postMessage protocol (answers `ui/initialize`, then posts the tool input
//! and a real `display_media` result), and opened on its own, where it shows its sample data.
//! Screenshots are kept under target/test-artefacts/display_media/; the console must stay clean.

use axum::{Router, response::Html, routing::get};
use domain::Role;
use serde_json::{Value, json};
use store::ContentLimits;

use crate::support::{builtin, outcome, server_with_instances};
use crate::webdriver::Browser;

const VIEW: &str = "ui://marquee/carousel";

/// A host page: embeds the view, answers its `ui/initialize`, then posts the tool's input and
/// result once the view says it is initialized; keeps what the view sent in `window.seen`.
const HOST: &str = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>host</title></head>
<body style="margin:0">
<iframe id="view" src="/view.html" style="border:0;width:100%;height:420px"></iframe>
<script>
window.seen = [];
var INPUT = __INPUT__;
var RESULT = __RESULT__;
var frame = document.getElementById("view");
window.addEventListener("message", function (event) {
  if (event.source !== frame.contentWindow) { return; }
  var m = event.data;
  window.seen.push(m.method || "response");
  var send = function (msg) { frame.contentWindow.postMessage(msg, "*"); };
  if (m.method === "ui/initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2026-01-26",
      hostInfo: { name: "marquee-test-host", version: "1" }, hostCapabilities: {},
      hostContext: { theme: "dark", displayMode: "inline" } } });
  } else if (m.method === "ui/notifications/initialized") {
    send({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: INPUT } });
    send({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: RESULT });
  } else if (m.method === "ui/notifications/size-changed") {
    frame.style.height = m.params.height + "px";
  }
});
</script>
</body></html>"#;

/// Serves the view and the host page on 127.0.0.1; answers the base URL.
async fn serve(view: String, host: String) -> String {
    let app = Router::new()
        .route("/view.html", get(move || async move { Html(view) }))
        .route("/host.html", get(move || async move { Html(host) }))
        // Browsers ask for one; a 404 would be a console error of the harness, not the view.
        .route(
            "/favicon.ico",
            get(|| async { axum::http::StatusCode::NO_CONTENT }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// Console entries at error level.
async fn errors(browser: &Browser) -> Vec<Value> {
    browser
        .console()
        .await
        .into_iter()
        .filter(|e| e["level"] == "SEVERE")
        .collect()
}

async fn card_names(browser: &Browser) -> Value {
    browser
        .execute(
            "return Array.from(document.querySelectorAll('.card .name')).map(e => e.textContent);",
            json!([]),
        )
        .await
}

#[tokio::test]
async fn a_host_posts_a_kids_real_result_and_the_carousel_shows_only_the_allowed_titles() {
    let s = server_with_instances(vec![builtin()]).await;
    let kid = s
        .key_with_limits(
            "kid",
            Role::Kid,
            "requester",
            ContentLimits {
                max_movie_cert: Some("PG".into()),
                rating_region: Some("US".into()),
                ..ContentLimits::default()
            },
        )
        .await;
    let (_, read) = s
        .rpc(
            &kid,
            json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri": VIEW}}),
        )
        .await;
    let view = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let input = json!({"heading": "Films for tonight", "titles": [
        {"media_source": "builtin", "media_id": "tt0034583", "media_type": "movie"},
        {"media_source": "builtin", "media_id": "tt0113277", "media_type": "movie"},
        {"media_source": "builtin", "media_id": "tt0033467", "media_type": "movie"},
        {"media_source": "builtin", "media_id": "tt0035279", "media_type": "movie"}
    ]});
    let result = s.call(&kid, "display_media", input.clone()).await;
    let (err, summary, data) = outcome(&result);
    assert!(!err, "{summary}");
    assert_eq!(data["hidden_by_limits"], 1, "Heat is rated R");
    let host = HOST
        .replace("__INPUT__", &input.to_string())
        .replace("__RESULT__", &result.to_string());
    let base = serve(view, host).await;

    let browser = Browser::start("display_media").await;
    browser.goto(&format!("{base}/host.html")).await;
    browser.frame(Some(0)).await;
    assert_eq!(browser.wait_text("#status", &summary).await, summary);
    assert_eq!(browser.text("#heading").await, "Films for tonight");
    assert_eq!(
        card_names(&browser).await,
        json!(["Casablanca", "Citizen Kane", "Saboteur"])
    );
    browser.frame(None).await;
    let seen = browser.execute("return window.seen;", json!([])).await;
    assert_eq!(seen[0], "ui/initialize", "{seen}");
    assert!(
        seen.as_array()
            .unwrap()
            .iter()
            .any(|m| m == "ui/notifications/initialized"),
        "{seen}"
    );
    let shot = browser.screenshot("carousel-in-host").await;
    println!("screenshot: {}", shot.display());
    assert_eq!(errors(&browser).await, Vec::<Value>::new());

    // Text from the data is shown as text, and only allowed image origins are loaded.
    let hostile = json!({"structuredContent": {"summary": "1 title in the carousel.", "data": {"titles": [
        {"title": "<img src=x onerror=alert(1)>", "poster_url": "javascript:alert(1)", "year": 2001}
    ]}}, "isError": false});
    browser
        .execute(
            "document.getElementById('view').contentWindow.postMessage({jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: arguments[0]}, '*');",
            json!([hostile]),
        )
        .await;
    browser.frame(Some(0)).await;
    assert_eq!(
        browser
            .wait_text("#status", "1 title in the carousel.")
            .await,
        "1 title in the carousel."
    );
    assert_eq!(
        card_names(&browser).await,
        json!(["<img src=x onerror=alert(1)>"])
    );
    let images = browser
        .execute("return document.querySelectorAll('img').length;", json!([]))
        .await;
    assert_eq!(images, 0);
    browser.frame(None).await;
    assert_eq!(errors(&browser).await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test]
async fn opened_on_its_own_the_view_shows_its_sample_titles_without_console_errors() {
    let s = server_with_instances(vec![builtin()]).await;
    let (_, read) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri": VIEW}}),
        )
        .await;
    let view = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let base = serve(view, String::new()).await;
    let browser = Browser::start("display_media").await;
    browser.goto(&format!("{base}/view.html")).await;
    let want = "Sample titles (a preview of the carousel).";
    assert_eq!(browser.wait_text("#status", want).await, want);
    let names = card_names(&browser).await;
    assert_eq!(names.as_array().unwrap().len(), 4, "{names}");
    assert_eq!(browser.text(".card .state").await, "In the library");
    let shot = browser.screenshot("carousel-sample").await;
    println!("screenshot: {}", shot.display());
    assert_eq!(errors(&browser).await, Vec::<Value>::new());
    browser.quit().await;
}
