//! Who a request comes from, and the per-address limits that key on it: a valid key goes
//! through whatever others failed from its address; behind a trusted proxy the forwarded
//! client is the address (and only then); owner-page passwords are throttled per name and
//! address; registration is throttled per address.

use std::sync::Arc;

use axum::{
    Router,
    body::Body,
    http::{Request, header},
};
use domain::Secret;
use serde_json::json;
use store::TokenLifetimes;
use web::{EdgeConfig, Metrics, Web};

use crate::support::{Server, parse, post, server};

const PROXY: &str = "10.0.0.2";

/// The server's router with `trusted_proxies` configured.
fn behind_proxy(s: &Server, trusted: &[&str]) -> Router {
    let web = Web::new(
        EdgeConfig {
            body_limit: 64 * 1024,
            trusted_proxies: mcp::forwarded::TrustedProxies::parse(trusted).unwrap(),
            ..EdgeConfig::default()
        },
        Arc::new(Metrics::default()),
    );
    web.set_ready(s.host.clone());
    web::router(web)
}

/// `request` as the listener hands it on: from `peer`, forwarding for `client` when given.
fn from(mut request: Request<Body>, peer: &str, client: Option<&str>) -> Request<Body> {
    let peer: std::net::SocketAddr = format!("{peer}:40000").parse().unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(peer));
    if let Some(c) = client {
        request.headers_mut().insert(
            "x-forwarded-for",
            format!("192.0.2.200, {c}").parse().unwrap(),
        );
    }
    request
}

fn ping(key: &str) -> Request<Body> {
    post("/mcp")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::from(
            json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string(),
        ))
        .unwrap()
}

async fn status(router: &Router, request: Request<Body>) -> u16 {
    crate::support::send(router, request)
        .await
        .0
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_valid_key_goes_through_from_an_address_blocked_for_failed_ones() {
    let s = server().await;
    for i in 1..=10 {
        s.send(from(ping(&format!("mq_stale{i}")), "203.0.113.5", None))
            .await;
    }
    let blocked = s
        .send(from(ping("mq_stale11"), "203.0.113.5", None))
        .await
        .0;
    assert_eq!(blocked.status(), 429, "wrong keys are throttled");
    assert_eq!(
        status(&s.router, from(ping(&s.owner_key), "203.0.113.5", None)).await,
        200,
        "the owner's key is not locked out by a stale key on the same address"
    );
    let rest = Request::get("/api/v1/tools")
        .header(header::HOST, "localhost")
        .header(header::AUTHORIZATION, format!("Bearer {}", s.owner_key))
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        status(&s.router, from(rest, "203.0.113.5", None)).await,
        200
    );
}

#[tokio::test]
async fn behind_a_trusted_proxy_failed_keys_count_against_the_forwarded_client() {
    let s = server().await;
    let router = behind_proxy(&s, &["10.0.0.0/24"]);
    for i in 1..=10 {
        status(
            &router,
            from(ping(&format!("mq_guess{i}")), PROXY, Some("203.0.113.5")),
        )
        .await;
    }
    assert_eq!(
        status(&router, from(ping("mq_guess"), PROXY, Some("203.0.113.5"))).await,
        429,
        "the guessing client waits"
    );
    assert_eq!(
        status(&router, from(ping("mq_stale"), PROXY, Some("198.51.100.7"))).await,
        401,
        "another client behind the same proxy is not blocked"
    );

    // Without trusted_proxies the header is ignored: every request is the proxy's.
    let plain = s.router.clone();
    for i in 1..=10 {
        status(
            &plain,
            from(ping(&format!("mq_guess{i}")), PROXY, Some("203.0.113.5")),
        )
        .await;
    }
    assert_eq!(
        status(&plain, from(ping("mq_stale"), PROXY, Some("198.51.100.7"))).await,
        429,
        "a forged or untrusted header names no one"
    );
}

fn sign_in(name: &str, password: &str) -> Request<Body> {
    Request::post("/sign-in")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("name={name}&password={password}")))
        .unwrap()
}

#[tokio::test]
async fn owner_page_passwords_are_throttled_per_name_and_address() {
    const PASSWORD: &str = "correct-horse-battery-staple";
    let s = server().await;
    let store = s.host.app.store();
    store
        .set_password("owner", &Secret::new(PASSWORD))
        .await
        .unwrap();
    let attacker = "203.0.113.5";
    let mut statuses = Vec::new();
    for _ in 0..10 {
        statuses.push(status(&s.router, from(sign_in("owner", "guess"), attacker, None)).await);
    }
    assert_eq!(statuses[..9], [401; 9]);
    assert_eq!(statuses[9], 429);
    assert_eq!(
        status(&s.router, from(sign_in("owner", PASSWORD), attacker, None)).await,
        429,
        "the right password waits too: it is not even checked"
    );
    assert_eq!(
        status(
            &s.router,
            from(sign_in("owner", PASSWORD), "198.51.100.7", None)
        )
        .await,
        303,
        "the owner signs in from another address"
    );
    assert_eq!(
        status(&s.router, from(sign_in("ana", "guess"), attacker, None)).await,
        401,
        "another name from the same address is checked"
    );
    assert_eq!(
        status(&s.router, from(ping(&s.owner_key), attacker, None)).await,
        200,
        "keys from that address are not affected"
    );
}

fn registration() -> Request<Body> {
    Request::post("/register")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({
                "client_name": "Connector",
                "redirect_uris": ["http://127.0.0.1:5000/callback"],
                "token_endpoint_auth_method": "none",
            })
            .to_string(),
        ))
        .unwrap()
}

#[tokio::test]
async fn registration_is_throttled_per_address() {
    let s = server().await;
    s.host.app.settings().set_oauth(Some(TokenLifetimes {
        access_ms: 600_000,
        refresh_ms: 86_400_000,
    }));
    let router = behind_proxy(&s, &[PROXY]);
    for i in 0..web::REGISTRATIONS {
        let (resp, body) =
            crate::support::send(&router, from(registration(), PROXY, Some("203.0.113.5"))).await;
        assert_eq!(resp.status(), 201, "registration {i}: {}", parse(&body));
    }
    let (resp, body) =
        crate::support::send(&router, from(registration(), PROXY, Some("203.0.113.5"))).await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()[header::RETRY_AFTER], "600");
    assert_eq!(parse(&body)["error"], "slow_down");
    assert_eq!(
        status(&router, from(registration(), PROXY, Some("198.51.100.7"))).await,
        201,
        "another client behind the same proxy registers"
    );
    let listed = s.host.app.store().oauth_clients().await.unwrap();
    assert_eq!(listed.len() as u32, web::REGISTRATIONS + 1);
}

/// A form POST to `/token` from `peer`.
fn token_request(pairs: &[(&str, &str)], peer: &str) -> Request<Body> {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let request = Request::post("/token")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap();
    from(request, peer, None)
}

#[tokio::test]
async fn a_valid_code_goes_through_from_an_address_blocked_for_failed_ones() {
    // RFC 7636 appendix B's verifier and its S256 challenge.
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    const REDIRECT: &str = "http://127.0.0.1:5000/callback";
    const RESOURCE: &str = "http://127.0.0.1:8765/mcp";
    let s = server().await;
    let settings = s.host.app.settings();
    settings.set_public_url("http://127.0.0.1:8765");
    settings.set_oauth(Some(TokenLifetimes {
        access_ms: 600_000,
        refresh_ms: 86_400_000,
    }));
    let store = s.host.app.store();
    let client = store
        .register_client(&store::NewClient {
            name: "Connector".into(),
            redirect_uris: vec![REDIRECT.into()],
            grant_types: vec!["authorization_code".into()],
        })
        .await
        .unwrap();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let code = store
        .create_code(&store::NewCode {
            client: &client,
            person: owner.id,
            grant: "reader",
            redirect_uri: REDIRECT,
            code_challenge: CHALLENGE,
            resource: RESOURCE,
        })
        .await
        .unwrap();
    let exchange = |code: &str| {
        token_request(
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT),
                ("client_id", &client.client_id),
                ("code_verifier", VERIFIER),
                ("resource", RESOURCE),
            ],
            "203.0.113.5",
        )
    };
    let mut statuses = Vec::new();
    for i in 0..10 {
        statuses.push(status(&s.router, exchange(&format!("mqc_stale{i}"))).await);
    }
    assert_eq!(statuses[9], 429, "failed codes are throttled: {statuses:?}");
    assert_eq!(
        status(&s.router, exchange("mqc_another")).await,
        429,
        "and keep failing with 429"
    );
    let (resp, body) = crate::support::send(&s.router, exchange(code.expose())).await;
    assert_eq!(resp.status(), 200, "{}", parse(&body));
    assert!(parse(&body)["access_token"].is_string());
}
