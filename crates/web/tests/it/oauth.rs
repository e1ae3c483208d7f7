//! The OAuth authorization server through the real router on a real (in-memory) SQLite:
//! metadata, registration, consent with the owner's session, code exchange with S256 PKCE,
//! then MCP calls with the token; audience, header-only use, expiry, revocation, refresh
//! rotation and reuse detection.

use axum::{
    body::Body,
    http::{Request, header},
};
use serde_json::{Value, json};
use store::TokenLifetimes;

use crate::support::{self, Server, parse, server};

const BASE: &str = "http://127.0.0.1:8765";
const REDIRECT: &str = "http://127.0.0.1:5000/callback";
/// RFC 7636 appendix B's verifier and its S256 challenge.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const LIFE: TokenLifetimes = TokenLifetimes {
    access_ms: 600_000,
    refresh_ms: 86_400_000,
};

struct World {
    s: Server,
    /// The owner's session cookie and its CSRF token.
    cookie: String,
    csrf: String,
    client_id: String,
}

async fn world() -> World {
    let s = server().await;
    let settings = s.host.app.settings();
    settings.set_public_url(BASE);
    settings.set_oauth(Some(LIFE));
    let store = s.host.app.store();
    store.add_person("kim", domain::Role::Kid).await.unwrap();
    let owner = store.person_by_name("owner").await.unwrap().unwrap();
    let token = store.create_session(owner.id).await.unwrap();
    let csrf = store.session(token.expose()).await.unwrap().unwrap().csrf;
    let (status, body) = send(
        &s,
        form_or_json(
            "/register",
            None,
            json!({
                "client_name": "Test connector",
                "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_method": "none",
            }),
        ),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    World {
        cookie: format!("marquee_session={}", token.expose()),
        csrf,
        client_id: body["client_id"].as_str().unwrap().to_string(),
        s,
    }
}

fn get(path: &str) -> axum::http::request::Builder {
    Request::get(path).header(header::HOST, "127.0.0.1:8765")
}

/// A POST with a form body (`form` given) or a JSON body.
fn form_or_json(path: &str, form: Option<&[(&str, &str)]>, body: Value) -> Request<Body> {
    let b = Request::post(path).header(header::HOST, "127.0.0.1:8765");
    match form {
        Some(pairs) => {
            let text: String = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(pairs)
                .finish();
            b.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(text))
                .unwrap()
        }
        None => b
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap(),
    }
}

async fn send(s: &Server, r: Request<Body>) -> (u16, Value) {
    let (resp, bytes) = s.send(r).await;
    (resp.status().as_u16(), parse(&bytes))
}

/// The query of a redirect's Location, as pairs.
fn location(resp: &axum::http::Response<()>) -> (String, Vec<(String, String)>) {
    let loc = resp.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    let url =
        url::Url::parse(&loc).unwrap_or_else(|_| url::Url::parse(&format!("{BASE}{loc}")).unwrap());
    let pairs = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    (loc, pairs)
}

fn value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl World {
    fn authorize_query(&self, extra: &[(&str, &str)]) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.extend_pairs([
            ("response_type", "code"),
            ("client_id", &self.client_id),
            ("redirect_uri", REDIRECT),
            ("state", "st-42"),
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ]);
        q.extend_pairs(extra);
        q.finish()
    }

    /// The owner's answer on the consent form: the redirect back to the client, as pairs.
    async fn consent(
        &self,
        person: &str,
        grant: &str,
        extra: &[(&str, &str)],
        decision: &str,
    ) -> Vec<(String, String)> {
        let query = self.authorize_query(extra);
        let mut fields: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        for (k, v) in [
            ("csrf", self.csrf.as_str()),
            ("person", person),
            ("grant", grant),
            ("decision", decision),
        ] {
            fields.push((k.into(), v.into()));
        }
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&fields)
            .finish();
        let req = Request::post("/authorize")
            .header(header::HOST, "127.0.0.1:8765")
            .header(header::COOKIE, &self.cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        let (resp, _) = self.s.send(req).await;
        assert_eq!(resp.status().as_u16(), 303);
        let (loc, pairs) = location(&resp);
        assert!(loc.starts_with(REDIRECT), "{loc}");
        pairs
    }

    /// A code for `person` and `grant`, exchanged: the token answer.
    async fn connect(&self, person: &str, grant: &str, resource: &str) -> Value {
        let back = self
            .consent(person, grant, &[("resource", resource)], "allow")
            .await;
        assert_eq!(
            value(&back, "state"),
            Some("st-42"),
            "state is passed through"
        );
        assert_eq!(value(&back, "iss"), Some(BASE));
        let code = value(&back, "code").unwrap().to_string();
        let (status, body) = self.exchange(&code, VERIFIER, resource).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn exchange(&self, code: &str, verifier: &str, resource: &str) -> (u16, Value) {
        send(
            &self.s,
            form_or_json(
                "/token",
                Some(&[
                    ("grant_type", "authorization_code"),
                    ("code", code),
                    ("redirect_uri", REDIRECT),
                    ("client_id", &self.client_id),
                    ("code_verifier", verifier),
                    ("resource", resource),
                ]),
                Value::Null,
            ),
        )
        .await
    }

    async fn refresh(&self, refresh: &str) -> (u16, Value) {
        send(
            &self.s,
            form_or_json(
                "/token",
                Some(&[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", refresh),
                    ("client_id", &self.client_id),
                ]),
                Value::Null,
            ),
        )
        .await
    }

    /// `whoami` through MCP with the token as a bearer: the status, and the answer's data.
    async fn whoami(&self, token: &str) -> (u16, Value) {
        let (status, body) = self.s.rpc(token, json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}})).await;
        (status, body["result"]["structuredContent"]["data"].clone())
    }
}

fn mcp() -> String {
    format!("{BASE}/mcp")
}

#[tokio::test]
async fn the_metadata_names_this_server_and_offers_s256_only() {
    let w = world().await;
    let (status, prm) = send(
        &w.s,
        get("/.well-known/oauth-protected-resource/mcp")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(prm["resource"], mcp());
    assert_eq!(prm["authorization_servers"], json!([BASE]));
    let (_, rest) = send(
        &w.s,
        get("/.well-known/oauth-protected-resource/api/v1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(rest["resource"], format!("{BASE}/api/v1"));
    let (status, asm) = send(
        &w.s,
        get("/.well-known/oauth-authorization-server")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(asm["issuer"], BASE);
    assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(asm["token_endpoint"], format!("{BASE}/token"));
    assert_eq!(asm["registration_endpoint"], format!("{BASE}/register"));
    assert_eq!(asm["revocation_endpoint"], format!("{BASE}/revoke"));
}

#[tokio::test]
async fn a_401_at_mcp_points_at_its_resource_metadata() {
    let w = world().await;
    let (resp, _) =
        w.s.send(support::post("/mcp").body(Body::from("{}")).unwrap())
            .await;
    assert_eq!(resp.status().as_u16(), 401);
    assert_eq!(
        resp.headers()[header::WWW_AUTHENTICATE],
        format!("Bearer resource_metadata=\"{BASE}/.well-known/oauth-protected-resource/mcp\"")
    );
}

#[tokio::test]
async fn a_token_acts_as_the_person_and_grant_chosen_at_consent() {
    let w = world().await;
    let tokens = w.connect("kim", "reader", &mcp()).await;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 600);
    let access = tokens["access_token"].as_str().unwrap();
    let (status, me) = w.whoami(access).await;
    assert_eq!(status, 200);
    assert_eq!(me["person"]["name"], "kim");
    assert_eq!(me["grant"]["name"], "reader");
    let (_, listed) =
        w.s.rpc(
            access,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        )
        .await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"search_titles") && !names.contains(&"diagnose"),
        "{names:?}"
    );
    assert_eq!(
        w.s.rpc(
            &w.s.owner_key,
            json!({"jsonrpc":"2.0","id":3,"method":"ping"})
        )
        .await
        .0,
        200,
        "keys keep working"
    );
}

#[tokio::test]
async fn a_token_is_accepted_only_in_the_authorization_header() {
    let w = world().await;
    let tokens = w.connect("owner", "owner", &mcp()).await;
    let access = tokens["access_token"].as_str().unwrap();
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string();
    let header = support::post("/mcp")
        .header("x-api-key", access)
        .body(Body::from(ping.clone()))
        .unwrap();
    assert_eq!(w.s.send(header).await.0.status().as_u16(), 401);
    let query = support::post(&format!("/mcp?apikey={access}"))
        .body(Body::from(ping))
        .unwrap();
    assert_eq!(w.s.send(query).await.0.status().as_u16(), 401);
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let w = world().await;
    let rest = w.connect("owner", "owner", &format!("{BASE}/api/v1")).await;
    let rest_token = rest["access_token"].as_str().unwrap();
    assert_eq!(
        w.whoami(rest_token).await.0,
        401,
        "a REST mirror token at /mcp"
    );
    let list = |token: &str| {
        get("/api/v1/tools")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(w.s.send(list(rest_token)).await.0.status().as_u16(), 200);
    let mcp_tokens = w.connect("owner", "owner", &mcp()).await;
    let mcp_token = mcp_tokens["access_token"].as_str().unwrap();
    assert_eq!(
        w.s.send(list(mcp_token)).await.0.status().as_u16(),
        401,
        "an MCP token at the REST mirror"
    );
    let back = w
        .consent(
            "owner",
            "owner",
            &[("resource", "https://other.example/mcp")],
            "allow",
        )
        .await;
    assert_eq!(value(&back, "error"), Some("invalid_target"));
}

#[tokio::test]
async fn plain_pkce_is_refused() {
    let w = world().await;
    let query = w
        .authorize_query(&[])
        .replace("code_challenge_method=S256", "code_challenge_method=plain");
    let req = get(&format!("/authorize?{query}"))
        .header(header::COOKIE, &w.cookie)
        .body(Body::empty())
        .unwrap();
    let (resp, _) = w.s.send(req).await;
    assert_eq!(resp.status().as_u16(), 303);
    let (loc, back) = location(&resp);
    assert!(loc.starts_with(REDIRECT), "{loc}");
    assert_eq!(value(&back, "error"), Some("invalid_request"));
    assert_eq!(
        value(&back, "error_description"),
        Some("code_challenge_method \"plain\" is refused; only S256 is accepted")
    );
    assert_eq!(value(&back, "state"), Some("st-42"));
}

#[tokio::test]
async fn a_code_with_the_wrong_verifier_gives_no_token() {
    let w = world().await;
    let back = w.consent("owner", "owner", &[], "allow").await;
    let code = value(&back, "code").unwrap();
    let wrong = "x".repeat(43);
    let (status, body) = w.exchange(code, &wrong, &mcp()).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let (status, _) = w.exchange(code, VERIFIER, &mcp()).await;
    assert_eq!(status, 400, "the code is burnt");
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_reused_one_revokes_the_connection() {
    let w = world().await;
    let first = w.connect("owner", "owner", &mcp()).await;
    let old = first["refresh_token"].as_str().unwrap();
    let (status, second) = w.refresh(old).await;
    assert_eq!(status, 200, "{second}");
    let new_access = second["access_token"].as_str().unwrap();
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    assert_eq!(w.whoami(new_access).await.0, 200);
    let (status, reuse) = w.refresh(old).await;
    assert_eq!(
        (status, reuse["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    assert_eq!(
        w.whoami(new_access).await.0,
        401,
        "the whole connection is revoked"
    );
}

#[tokio::test]
async fn a_revoked_token_gets_401_at_once() {
    let w = world().await;
    let tokens = w.connect("owner", "owner", &mcp()).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(w.whoami(access).await.0, 200);
    let (status, _) = send(
        &w.s,
        form_or_json(
            "/revoke",
            Some(&[("token", access), ("client_id", &w.client_id)]),
            Value::Null,
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(w.whoami(access).await.0, 401);
}

#[tokio::test]
async fn an_expired_token_gets_401() {
    let w = world().await;
    w.s.host.app.settings().set_oauth(Some(TokenLifetimes {
        access_ms: 0,
        refresh_ms: LIFE.refresh_ms,
    }));
    let tokens = w.connect("owner", "owner", &mcp()).await;
    assert_eq!(
        w.whoami(tokens["access_token"].as_str().unwrap()).await.0,
        401
    );
}

#[tokio::test]
async fn revoking_the_connection_like_a_key_stops_its_token() {
    let (w, access) = connected().await;
    let store = w.s.host.app.store();
    let connection = store
        .keys()
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.label.as_deref() == Some("OAuth: Test connector"))
        .unwrap();
    store.revoke_key(&connection.key_id).await.unwrap();
    assert_eq!(w.whoami(&access).await.0, 401);
}

async fn connected() -> (World, String) {
    let w = world().await;
    let tokens = w.connect("owner", "owner", &mcp()).await;
    let access = tokens["access_token"].as_str().unwrap().to_string();
    (w, access)
}

#[tokio::test]
async fn denying_sends_access_denied_with_the_state() {
    let w = world().await;
    let back = w.consent("owner", "owner", &[], "deny").await;
    assert_eq!(value(&back, "error"), Some("access_denied"));
    assert_eq!(value(&back, "state"), Some("st-42"));
    assert_eq!(value(&back, "code"), None);
}

#[tokio::test]
async fn the_consent_needs_the_owner_signed_in_and_the_csrf_token() {
    let w = world().await;
    let query = w.authorize_query(&[]);
    let (resp, _) =
        w.s.send(
            get(&format!("/authorize?{query}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 303);
    let (loc, _) = location(&resp);
    assert!(loc.starts_with("/sign-in?next=%2Fauthorize%3F"), "{loc}");
    let (resp, page) =
        w.s.send(
            get(&format!("/authorize?{query}"))
                .header(header::COOKIE, &w.cookie)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 200);
    let page = String::from_utf8(page).unwrap();
    assert!(
        page.contains("Test connector") && page.contains("kim (kid)"),
        "{page}"
    );
    let csp = resp.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        csp.contains("form-action 'self' http://127.0.0.1:5000;"),
        "{csp}"
    );
    let forged = format!("{query}&person=owner&grant=owner&decision=allow");
    let req = Request::post("/authorize")
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::COOKIE, &w.cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(forged))
        .unwrap();
    assert_eq!(w.s.send(req).await.0.status().as_u16(), 403);
}

#[tokio::test]
async fn registration_refuses_redirect_uris_off_the_loopback_without_https() {
    let w = world().await;
    let (status, body) = send(
        &w.s,
        form_or_json(
            "/register",
            None,
            json!({"redirect_uris":["http://192.168.1.9/cb"]}),
        ),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_redirect_uri"))
    );
}

#[tokio::test]
async fn with_oauth_off_nothing_is_offered_and_no_token_works() {
    let w = world().await;
    let tokens = w.connect("owner", "owner", &mcp()).await;
    w.s.host.app.settings().set_oauth(None);
    assert_eq!(
        w.whoami(tokens["access_token"].as_str().unwrap()).await.0,
        401
    );
    let (status, _) = send(
        &w.s,
        get("/.well-known/oauth-authorization-server")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404);
    let (_, prm) = send(
        &w.s,
        get("/.well-known/oauth-protected-resource")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(prm["authorization_servers"], json!([]));
}
