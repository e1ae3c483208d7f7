//! The OAuth consent page in a real headless Chromium (Debian's chromium and chromium-driver)
//! over real HTTP: sign in on the way, choose person and grant, allow; the browser lands on the
//! client's redirect URI with the code and state (so the page's CSP lets the form end there),
//! and the code gives a token that acts as the chosen person. Screenshots are kept.

use axum::{
    body::Body,
    http::{Request, header},
};
use domain::{Role, Secret};
use serde_json::json;
use store::{NewClient, TokenLifetimes};

use crate::support::{parse, server};
use crate::webdriver::Browser;

const PASSWORD: &str = "correct horse battery staple";
/// RFC 7636 appendix B's verifier and its S256 challenge.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

#[tokio::test]
async fn the_owner_allows_a_connector_on_the_consent_page_in_a_real_browser() {
    let s = server().await;
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
    let settings = s.host.app.settings();
    settings.set_public_url(&base);
    settings.set_oauth(Some(TokenLifetimes {
        access_ms: 600_000,
        refresh_ms: 86_400_000,
    }));
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    store.add_person("kim", Role::Kid).await.unwrap();
    // Nothing listens there: the browser only has to arrive.
    let redirect = "http://127.0.0.1:9/callback";
    let client = store
        .register_client(&NewClient {
            name: "Browser test connector".into(),
            redirect_uris: vec![redirect.into()],
            grant_types: vec!["authorization_code".into()],
        })
        .await
        .unwrap();
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", redirect),
            ("state", "browser-state"),
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
            ("resource", &format!("{base}/mcp")),
        ])
        .finish();

    let b = Browser::start("oauth-consent").await;
    b.goto(&format!("{base}/authorize?{query}")).await;
    let at = b.wait_url("/sign-in?next=").await;
    assert!(at.contains("/sign-in?next="), "{at}");
    b.type_into("#name", "owner").await;
    b.type_into("#password", PASSWORD).await;
    b.click("#sign-in").await;
    let at = b.wait_url("/authorize?").await;
    assert!(at.contains("/authorize?"), "{at}");
    assert!(b.text("#client").await.contains("Browser test connector"));
    assert_eq!(b.text("#resource").await, format!("{base}/mcp"));
    b.execute(
        "document.getElementById('person').value = arguments[0]; document.getElementById('grant').value = arguments[1];",
        json!(["kim", "requester"]),
    )
    .await;
    b.screenshot("1-consent").await;
    b.click("#allow").await;
    let mut landed = b.url().await;
    for _ in 0..50 {
        if landed.starts_with(redirect) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        landed = b.url().await;
    }
    let shot = b.screenshot("2-redirected").await;
    b.quit().await;
    println!("screenshots in {}", shot.parent().unwrap().display());
    assert!(
        landed.starts_with(redirect),
        "the browser stayed at {landed}"
    );
    let url = url::Url::parse(&landed).unwrap();
    let get = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    assert_eq!(get("state").as_deref(), Some("browser-state"));
    assert_eq!(get("iss").as_deref(), Some(base.as_str()));
    let code = get("code").expect("a code");

    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect),
            ("client_id", client.client_id.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .finish();
    let host = base.trim_start_matches("http://").to_string();
    let req = Request::post("/token")
        .header(header::HOST, &host)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let (resp, bytes) = s.send(req).await;
    let tokens = parse(&bytes);
    assert_eq!(resp.status().as_u16(), 200, "{tokens}");
    let call = Request::post("/mcp")
        .header(header::HOST, &host)
        .header(header::CONTENT_TYPE, "application/json")
        .header(
            header::AUTHORIZATION,
            format!("Bearer {}", tokens["access_token"].as_str().unwrap()),
        )
        .body(Body::from(
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}})
                .to_string(),
        ))
        .unwrap();
    let (_, bytes) = s.send(call).await;
    let me = parse(&bytes);
    assert_eq!(
        me["result"]["structuredContent"]["data"]["person"]["name"], "kim",
        "{me}"
    );
}
