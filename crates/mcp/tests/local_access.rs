//! Key-less local access lets programs on this machine in without a key; a browser (any
//! request with an Origin) never: a page on another local port must not act as the household.

#![allow(clippy::unwrap_used)]

mod host;

use std::net::{IpAddr, Ipv4Addr};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use host::TestHost;
use mcp::{edge::authenticate, forwarded::Source, throttle::Throttle};

#[tokio::test]
async fn a_key_less_call_from_a_browser_is_refused_even_from_this_machine() {
    let host = TestHost::new(true);
    let throttle = Throttle::default();
    let loopback = Some(Source::direct(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    let program = HeaderMap::new();
    assert!(
        authenticate(&host, &throttle, &program, None, loopback, "/mcp")
            .await
            .is_ok(),
        "a program on this machine"
    );
    let mut browser = HeaderMap::new();
    browser.insert(
        header::ORIGIN,
        HeaderValue::from_static("http://localhost:5173"),
    );
    let refused = authenticate(&host, &throttle, &browser, None, loopback, "/mcp")
        .await
        .expect_err("a browser is refused");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let elsewhere = Some(Source::direct(IpAddr::from([192, 0, 2, 7])));
    assert!(
        authenticate(&host, &throttle, &program, None, elsewhere, "/mcp")
            .await
            .is_err(),
        "another machine"
    );
    let proxies = mcp::forwarded::TrustedProxies::parse(&["127.0.0.1"]).unwrap();
    let proxied = Some(proxies.source(IpAddr::V4(Ipv4Addr::LOCALHOST), &HeaderMap::new()));
    assert!(
        authenticate(&host, &throttle, &program, None, proxied, "/mcp")
            .await
            .is_err(),
        "a trusted proxy on this machine forwards others' requests: never local"
    );
}
