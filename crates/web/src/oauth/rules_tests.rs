//! Tables of what the authorization server's rules accept and refuse.

use expect_test::{Expect, expect};
use serde_json::json;

use super::*;

fn check_uris(expect: Expect) {
    let uris = [
        "https://claude.ai/api/mcp/auth_callback",
        "http://127.0.0.1:33418/callback",
        "http://[::1]:8080/cb",
        "http://localhost:9/cb",
        "http://127.8.0.1/cb",
        "http://192.168.1.4:8080/cb",
        "http://example.com/cb",
        "cursor://anysphere.cursor-retrieval/oauth",
        "https://app.example/cb#frag",
        "https://user:pw@app.example/cb",
        "/relative/cb",
        "https://app.example/cb\r\nX-Injected: 1",
        "https://app.example/\tcb",
    ];
    let out: Vec<String> = uris
        .iter()
        .map(|u| match check_redirect_uri(u) {
            Ok(_) => format!("ok      {u}"),
            Err(e) => format!("refused {e}"),
        })
        .collect();
    expect.assert_eq(&out.join("\n"));
}

#[test]
fn redirect_uris_are_https_or_loopback_http() {
    check_uris(expect![[r#"
        ok      https://claude.ai/api/mcp/auth_callback
        ok      http://127.0.0.1:33418/callback
        ok      http://[::1]:8080/cb
        ok      http://localhost:9/cb
        ok      http://127.8.0.1/cb
        refused redirect_uri "http://192.168.1.4:8080/cb" is refused; valid redirect URIs are https:// addresses, or http:// on the loopback (127.0.0.1, [::1], localhost)
        refused redirect_uri "http://example.com/cb" is refused; valid redirect URIs are https:// addresses, or http:// on the loopback (127.0.0.1, [::1], localhost)
        refused redirect_uri "cursor://anysphere.cursor-retrieval/oauth" is refused; valid redirect URIs are https:// addresses, or http:// on the loopback (127.0.0.1, [::1], localhost)
        refused redirect_uri "https://app.example/cb#frag" must not carry a fragment or user information
        refused redirect_uri "https://user:pw@app.example/cb" must not carry a fragment or user information
        refused redirect_uri "/relative/cb" is not an absolute URL
        refused a redirect_uri must be at most 2048 visible ASCII characters, without spaces or line breaks
        refused a redirect_uri must be at most 2048 visible ASCII characters, without spaces or line breaks"#]]);
    let long = format!("https://app.example/{}", "a".repeat(2100));
    assert!(check_redirect_uri(&long).is_err(), "a 2 KB redirect URI");
}

#[test]
fn a_loopback_redirect_may_change_its_port_and_nothing_else() {
    let reg = "http://127.0.0.1:5000/callback";
    assert!(redirect_matches(reg, "http://127.0.0.1:5000/callback"));
    assert!(redirect_matches(reg, "http://127.0.0.1:6123/callback"));
    assert!(!redirect_matches(reg, "http://127.0.0.1:6123/other"));
    assert!(!redirect_matches(reg, "http://localhost:5000/callback"));
    let https = "https://app.example/cb";
    assert!(!redirect_matches(https, "https://app.example:444/cb"));
    assert!(!redirect_matches(https, "https://app.example/cb?x=1"));
}

fn check_registration(body: serde_json::Value, expect: Expect) {
    let out = match client_metadata(&body) {
        Ok(c) => format!("ok {:?} {:?} {:?}", c.name, c.redirect_uris, c.grant_types),
        Err(r) => format!("{}: {}", r.error, r.description),
    };
    expect.assert_eq(&out);
}

#[test]
fn a_registration_is_validated_whole() {
    let cb = "http://127.0.0.1:1/cb";
    check_registration(
        json!({"redirect_uris":[cb],"client_name":"Claude","grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"client_secret_basic","logo_uri":"x"}),
        expect![[
            r#"ok "Claude" ["http://127.0.0.1:1/cb"] ["authorization_code", "refresh_token"]"#
        ]],
    );
    check_registration(
        json!({"redirect_uris":[cb]}),
        expect![[r#"ok "unnamed client" ["http://127.0.0.1:1/cb"] ["authorization_code"]"#]],
    );
    check_registration(
        json!({"redirect_uris":[]}),
        expect!["invalid_redirect_uri: redirect_uris must list 1 to 10 redirect URIs"],
    );
    check_registration(
        json!({"redirect_uris":[cb, "http://evil.example/cb"]}),
        expect![[
            r#"invalid_redirect_uri: redirect_uri "http://evil.example/cb" is refused; valid redirect URIs are https:// addresses, or http:// on the loopback (127.0.0.1, [::1], localhost)"#
        ]],
    );
    check_registration(
        json!({"redirect_uris":[cb],"grant_types":["implicit"]}),
        expect![[
            r#"invalid_client_metadata: grant type "implicit" is not supported; valid grant types: authorization_code, refresh_token"#
        ]],
    );
    check_registration(
        json!({"redirect_uris":[cb],"grant_types":["refresh_token"]}),
        expect!["invalid_client_metadata: grant_types must include authorization_code"],
    );
    check_registration(
        json!({"redirect_uris":[cb],"response_types":["token"]}),
        expect![[r#"invalid_client_metadata: response_types may only be ["code"]"#]],
    );
    check_registration(
        json!({"redirect_uris":"http://127.0.0.1/cb"}),
        expect!["invalid_client_metadata: redirect_uris must be a list of strings"],
    );
    check_registration(
        json!([1]),
        expect!["invalid_client_metadata: the registration must be a JSON object"],
    );
}

fn client() -> OAuthClient {
    OAuthClient {
        id: 1,
        client_id: "mqcl_a".into(),
        name: "app".into(),
        redirect_uris: vec!["http://127.0.0.1:5000/cb".into()],
        grant_types: vec!["authorization_code".into()],
        created_at: 0,
    }
}

const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

fn check_authorize(changes: &[(&str, Option<&str>)], expect: Expect) {
    let mut base: Vec<(String, String)> = [
        ("response_type", "code"),
        ("client_id", "mqcl_a"),
        ("redirect_uri", "http://127.0.0.1:5000/cb"),
        ("state", "s1"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in changes {
        base.retain(|(name, _)| name != k);
        if let Some(v) = v {
            base.push((k.to_string(), v.to_string()));
        }
    }
    let resources = ["http://m/mcp".to_string(), "http://m/api/v1".to_string()];
    let c = client();
    let known = base.iter().any(|(k, v)| k == "client_id" && v == "mqcl_a");
    let out = match params(&base) {
        Err(r) => format!("{}: {}", r.error, r.description),
        Ok(p) => match authorization(&p, known.then_some(&c), &resources) {
            Ok(a) => format!(
                "ok resource={} state={:?} scope={:?}",
                a.resource, a.state, a.scope
            ),
            Err(AuthorizeError::Page(m)) => format!("page: {m}"),
            Err(AuthorizeError::Redirect { refusal, state, .. }) => {
                format!(
                    "redirect {state:?} {}: {}",
                    refusal.error, refusal.description
                )
            }
        },
    };
    expect.assert_eq(&out);
}

#[test]
fn authorization_requests_need_s256_pkce() {
    check_authorize(
        &[],
        expect![[r#"ok resource=http://m/mcp state=Some("s1") scope=None"#]],
    );
    check_authorize(
        &[("code_challenge_method", Some("plain"))],
        expect![[
            r#"redirect Some("s1") invalid_request: code_challenge_method "plain" is refused; only S256 is accepted"#
        ]],
    );
    check_authorize(
        &[("code_challenge_method", None)],
        expect![[
            r#"redirect Some("s1") invalid_request: code_challenge_method is required and must be S256 (plain is refused)"#
        ]],
    );
    check_authorize(
        &[("code_challenge", Some("short"))],
        expect![[
            r#"redirect Some("s1") invalid_request: code_challenge is required: the base64url SHA-256 of the code verifier (43 characters)"#
        ]],
    );
}

#[test]
fn authorization_requests_are_checked_whole() {
    check_authorize(
        &[("client_id", Some("mqcl_unknown"))],
        expect![[
            r#"page: client_id "mqcl_unknown" is not registered here; start again from the application"#
        ]],
    );
    check_authorize(
        &[("redirect_uri", Some("https://evil.example/cb"))],
        expect![
            "page: redirect_uri is missing or not one this client registered; nothing is sent back"
        ],
    );
    check_authorize(
        &[("redirect_uri", None)],
        expect![[r#"ok resource=http://m/mcp state=Some("s1") scope=None"#]],
    );
    check_authorize(
        &[("response_type", Some("token"))],
        expect![[r#"redirect Some("s1") unsupported_response_type: response_type must be code"#]],
    );
    check_authorize(
        &[
            ("resource", Some("http://m/api/v1")),
            ("scope", Some("mcp offline_access")),
        ],
        expect![[
            r#"ok resource=http://m/api/v1 state=Some("s1") scope=Some("mcp offline_access")"#
        ]],
    );
    check_authorize(
        &[("resource", Some("http://other/mcp"))],
        expect![[
            r#"redirect Some("s1") invalid_target: resource "http://other/mcp" is not served here; valid resources: http://m/mcp, http://m/api/v1"#
        ]],
    );
    check_authorize(
        &[("scope", Some("mcp admin"))],
        expect![[
            r#"redirect Some("s1") invalid_scope: scope "admin" is not offered; valid scopes: mcp, offline_access"#
        ]],
    );
    check_authorize(
        &[("state", None)],
        expect!["ok resource=http://m/mcp state=None scope=None"],
    );
}

#[test]
fn a_repeated_parameter_is_refused() {
    let pairs = vec![
        ("state".to_string(), "a".to_string()),
        ("state".to_string(), "b".to_string()),
    ];
    let r = params(&pairs).unwrap_err();
    assert_eq!(r.description, "parameter \"state\" is given more than once");
}

#[test]
fn pkce_verifiers_hash_to_the_rfc_7636_example() {
    // RFC 7636 appendix B.
    assert_eq!(
        s256_of_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").unwrap(),
        CHALLENGE
    );
    assert!(s256_of_verifier("too-short").is_err());
    assert!(s256_of_verifier(&"a".repeat(129)).is_err());
    assert!(s256_of_verifier(&format!("{}+", "a".repeat(50))).is_err());
}
