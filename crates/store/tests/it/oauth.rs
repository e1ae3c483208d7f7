//! OAuth clients, codes and tokens: single-use codes, PKCE, audience, rotation with reuse
//! detection, revocation, expiry, and that only verifiers are stored.

use domain::Role;
use sqlx::Row;
use store::{
    CodeExchange, IssuedTokens, NewClient, NewCode, OAuthClient, Revocation, Store, TokenLifetimes,
    TokenOutcome, TokenRefusal,
};

use crate::{file_store, person, raw};

const MCP: &str = "http://127.0.0.1:8765/mcp";
const REDIRECT: &str = "http://127.0.0.1:9999/callback";
/// The S256 challenge the tests pretend the client's verifier hashes to.
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const LIFE: TokenLifetimes = TokenLifetimes {
    access_ms: 600_000,
    refresh_ms: 86_400_000,
};

async fn client(store: &Store) -> OAuthClient {
    store
        .register_client(&NewClient {
            name: "Test client".into(),
            redirect_uris: vec![REDIRECT.into()],
            grant_types: vec!["authorization_code".into(), "refresh_token".into()],
        })
        .await
        .unwrap()
}

async fn code(store: &Store, client: &OAuthClient, grant: &str) -> String {
    let ana = match store.person_by_name("ana").await.unwrap() {
        Some(p) => p,
        None => person(store, "ana", Role::User).await,
    };
    store
        .create_code(&NewCode {
            client,
            person: ana.id,
            grant,
            redirect_uri: REDIRECT,
            code_challenge: CHALLENGE,
            resource: MCP,
        })
        .await
        .unwrap()
        .expose()
        .to_string()
}

fn exchange<'a>(code: &'a str, client: &'a OAuthClient) -> CodeExchange<'a> {
    CodeExchange {
        code,
        client_id: &client.client_id,
        redirect_uri: REDIRECT,
        challenge_of_verifier: CHALLENGE,
        resource: Some(MCP),
    }
}

fn issued(outcome: TokenOutcome) -> IssuedTokens {
    match outcome {
        TokenOutcome::Issued(t) => t,
        TokenOutcome::Refused(why) => panic!("refused: {why}"),
    }
}

fn refusal(outcome: TokenOutcome) -> TokenRefusal {
    match outcome {
        TokenOutcome::Issued(_) => panic!("expected a refusal"),
        TokenOutcome::Refused(why) => why,
    }
}

async fn connected(store: &Store) -> (OAuthClient, IssuedTokens) {
    let client = client(store).await;
    let code = code(store, &client, "requester").await;
    let tokens = issued(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    (client, tokens)
}

async fn works(store: &Store, access: &str, resource: &str) -> bool {
    store
        .authenticate_token_with_switches(access, resource)
        .await
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn an_exchanged_code_gives_tokens_that_act_as_the_consented_person_and_grant() {
    let (_dir, store) = file_store().await;
    let (_, tokens) = connected(&store).await;
    let access = tokens.access.expose();
    assert!(
        access.starts_with("mqa_") && access.len() == 47,
        "{}",
        access.len()
    );
    assert_eq!(tokens.expires_in, 600);
    let authority = store
        .authenticate_token_with_switches(access, MCP)
        .await
        .unwrap()
        .unwrap()
        .authority;
    assert_eq!(authority.person.name, "ana");
    assert_eq!(authority.grant.name, "requester");
    let keys = store.keys().await.unwrap();
    assert_eq!(keys.len(), 1, "the connection is listed like a key");
    assert_eq!(keys[0].key_id, authority.key_id);
    assert_eq!(keys[0].label.as_deref(), Some("OAuth: Test client"));
}

#[tokio::test]
async fn a_token_for_another_resource_is_refused() {
    let (_dir, store) = file_store().await;
    let (_, tokens) = connected(&store).await;
    let access = tokens.access.expose();
    assert!(works(&store, access, MCP).await);
    assert!(!works(&store, access, "http://127.0.0.1:8765/api/v1").await);
    assert!(!works(&store, access, "http://evil.example/mcp").await);
}

#[tokio::test]
async fn tokens_and_keys_are_not_interchangeable() {
    let (_dir, store) = file_store().await;
    let (_, tokens) = connected(&store).await;
    assert!(
        store
            .authenticate(tokens.access.expose())
            .await
            .unwrap()
            .is_none()
    );
    let ana = store.person_by_name("ana").await.unwrap().unwrap();
    let key = store
        .create_key(ana.id, "reader", None, None)
        .await
        .unwrap();
    assert!(!works(&store, key.secret.expose(), MCP).await);
    let refresh = tokens.refresh.unwrap();
    assert!(
        !works(&store, refresh.expose(), MCP).await,
        "a refresh token is no access token"
    );
}

#[tokio::test]
async fn a_code_is_used_once_and_a_replay_revokes_what_it_gave() {
    let (_dir, store) = file_store().await;
    let client = client(&store).await;
    let code = code(&store, &client, "requester").await;
    let tokens = issued(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    let why = refusal(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    assert_eq!(why, TokenRefusal::CodeReused);
    assert!(why.to_string().contains("already used"), "{why}");
    assert!(!works(&store, tokens.access.expose(), MCP).await);
}

#[tokio::test]
async fn a_wrong_pkce_verifier_is_refused_and_burns_the_code() {
    let (_dir, store) = file_store().await;
    let client = client(&store).await;
    let code = code(&store, &client, "requester").await;
    let mut wrong = exchange(&code, &client);
    wrong.challenge_of_verifier = "x9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    let why = refusal(store.exchange_code(&wrong, LIFE).await.unwrap());
    assert_eq!(why, TokenRefusal::VerifierMismatch);
    assert_eq!(
        why.to_string(),
        "code_verifier does not match the code_challenge (S256)"
    );
    let why = refusal(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    assert_eq!(
        why,
        TokenRefusal::CodeReused,
        "the right verifier comes too late"
    );
}

#[tokio::test]
async fn a_code_is_bound_to_its_client_redirect_uri_and_resource() {
    let (_dir, store) = file_store().await;
    let client = client(&store).await;
    let other = self::client(&store).await;
    for (what, expected) in [
        ("client", TokenRefusal::CodeOtherClient),
        ("redirect", TokenRefusal::RedirectUriMismatch),
        (
            "resource",
            TokenRefusal::ResourceMismatch {
                authorized: MCP.to_owned(),
            },
        ),
    ] {
        let code = code(&store, &client, "requester").await;
        let mut x = exchange(&code, &client);
        match what {
            "client" => x.client_id = &other.client_id,
            "redirect" => x.redirect_uri = "http://127.0.0.1:9999/other",
            _ => x.resource = Some("http://127.0.0.1:8765/api/v1"),
        }
        let why = refusal(store.exchange_code(&x, LIFE).await.unwrap());
        assert_eq!(why, expected, "{what}");
    }
}

#[tokio::test]
async fn a_refresh_rotates_and_a_reused_refresh_token_revokes_the_connection() {
    let (_dir, store) = file_store().await;
    let (client, first) = connected(&store).await;
    let old = first.refresh.unwrap();
    let second = issued(
        store
            .refresh_tokens(old.expose(), &client.client_id, Some(MCP), LIFE)
            .await
            .unwrap(),
    );
    let new_refresh = second.refresh.unwrap();
    assert_ne!(new_refresh.expose(), old.expose(), "rotated");
    assert!(works(&store, second.access.expose(), MCP).await);
    let why = refusal(
        store
            .refresh_tokens(old.expose(), &client.client_id, None, LIFE)
            .await
            .unwrap(),
    );
    assert_eq!(why, TokenRefusal::RefreshReused);
    assert!(why.to_string().contains("already used"), "{why}");
    assert!(
        !works(&store, second.access.expose(), MCP).await,
        "the family is revoked"
    );
    let why = refusal(
        store
            .refresh_tokens(new_refresh.expose(), &client.client_id, None, LIFE)
            .await
            .unwrap(),
    );
    assert_eq!(why, TokenRefusal::RefreshRevoked);
    assert!(why.to_string().contains("revoked"), "{why}");
}

#[tokio::test]
async fn a_refresh_token_works_only_for_its_client() {
    let (_dir, store) = file_store().await;
    let (_, tokens) = connected(&store).await;
    let other = client(&store).await;
    let refresh = tokens.refresh.unwrap();
    let why = refusal(
        store
            .refresh_tokens(refresh.expose(), &other.client_id, None, LIFE)
            .await
            .unwrap(),
    );
    assert_eq!(why, TokenRefusal::RefreshOtherClient);
}

#[tokio::test]
async fn an_expired_access_token_is_refused() {
    let (_dir, store) = file_store().await;
    let client = client(&store).await;
    let code = code(&store, &client, "requester").await;
    let life = TokenLifetimes {
        access_ms: 0,
        refresh_ms: LIFE.refresh_ms,
    };
    let tokens = issued(
        store
            .exchange_code(&exchange(&code, &client), life)
            .await
            .unwrap(),
    );
    assert!(!works(&store, tokens.access.expose(), MCP).await);
}

#[tokio::test]
async fn revoking_an_access_token_stops_it_at_once() {
    let (_dir, store) = file_store().await;
    let (client, tokens) = connected(&store).await;
    let access = tokens.access.expose();
    assert!(works(&store, access, MCP).await, "cached now");
    let other = self::client(&store).await;
    assert_eq!(
        store.revoke_token(access, &other.client_id).await.unwrap(),
        Revocation::OtherClient
    );
    assert!(works(&store, access, MCP).await);
    assert_eq!(
        store.revoke_token(access, &client.client_id).await.unwrap(),
        Revocation::Revoked
    );
    assert!(!works(&store, access, MCP).await);
    assert_eq!(
        store
            .revoke_token("mqa_unknown", &client.client_id)
            .await
            .unwrap(),
        Revocation::Unknown
    );
}

#[tokio::test]
async fn revoking_a_refresh_token_revokes_its_connection() {
    let (_dir, store) = file_store().await;
    let (client, tokens) = connected(&store).await;
    let refresh = tokens.refresh.unwrap();
    store
        .revoke_token(refresh.expose(), &client.client_id)
        .await
        .unwrap();
    assert!(!works(&store, tokens.access.expose(), MCP).await);
}

#[tokio::test]
async fn revoking_the_connection_or_its_grant_stops_its_tokens_at_once() {
    let (_dir, store) = file_store().await;
    let (_, tokens) = connected(&store).await;
    let access = tokens.access.expose();
    let key_id = store.keys().await.unwrap()[0].key_id.clone();
    store.revoke_key(&key_id).await.unwrap();
    assert!(!works(&store, access, MCP).await, "connection revoked");

    store
        .create_grant(
            "kiosk",
            &store::GrantSpec::of(&store.grant_by_name("reader").await.unwrap().unwrap()),
        )
        .await
        .unwrap();
    let client = client(&store).await;
    let code = code(&store, &client, "kiosk").await;
    let tokens = issued(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    assert!(works(&store, tokens.access.expose(), MCP).await);
    store.revoke_grant("kiosk").await.unwrap();
    assert!(
        !works(&store, tokens.access.expose(), MCP).await,
        "grant revoked"
    );
}

#[tokio::test]
async fn codes_and_tokens_are_stored_only_as_verifiers() {
    let (_dir, store) = file_store().await;
    let client = client(&store).await;
    let code = code(&store, &client, "requester").await;
    let tokens = issued(
        store
            .exchange_code(&exchange(&code, &client), LIFE)
            .await
            .unwrap(),
    );
    let mut conn = raw(&store).await;
    let mut stored = Vec::new();
    for table in [
        "oauth_codes",
        "oauth_tokens",
        "credentials",
        "oauth_clients",
    ] {
        for row in sqlx::query(&format!("SELECT * FROM {table}"))
            .fetch_all(&mut conn)
            .await
            .unwrap()
        {
            for i in 0..row.len() {
                if let Ok(Some(text)) = row.try_get::<Option<String>, _>(i) {
                    stored.push(text);
                }
            }
        }
    }
    let refresh = tokens.refresh.unwrap();
    for secret in [code.as_str(), tokens.access.expose(), refresh.expose()] {
        assert!(
            !stored.iter().any(|s| s.contains(secret)),
            "{secret} is stored"
        );
    }
}
