//! The owner's side of OAuth clients: clients never consented to are forgotten within minutes,
//! the list shows each client with its connections, removing one revokes what it holds, and a
//! connection's use is stamped like a key's.

use domain::Role;
use store::{
    CodeExchange, IssuedTokens, NewClient, NewCode, OAuthClient, Store, TokenLifetimes,
    TokenOutcome,
};

use crate::{file_store, person, raw};

const MCP: &str = "http://127.0.0.1:8765/mcp";
const REDIRECT: &str = "http://127.0.0.1:9999/callback";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const LIFE: TokenLifetimes = TokenLifetimes {
    access_ms: 600_000,
    refresh_ms: 86_400_000,
};

async fn register(store: &Store, name: &str) -> OAuthClient {
    store
        .register_client(&NewClient {
            name: name.into(),
            redirect_uris: vec![REDIRECT.into()],
            grant_types: vec!["authorization_code".into(), "refresh_token".into()],
        })
        .await
        .unwrap()
}

/// The owner consents for ana and the client exchanges its code: one connection.
async fn connect(store: &Store, client: &OAuthClient) -> IssuedTokens {
    let ana = match store.person_by_name("ana").await.unwrap() {
        Some(p) => p,
        None => person(store, "ana", Role::User).await,
    };
    let code = store
        .create_code(&NewCode {
            client,
            person: ana.id,
            grant: "requester",
            redirect_uri: REDIRECT,
            code_challenge: CHALLENGE,
            resource: MCP,
        })
        .await
        .unwrap();
    let exchange = CodeExchange {
        code: code.expose(),
        client_id: &client.client_id,
        redirect_uri: REDIRECT,
        challenge_of_verifier: CHALLENGE,
        resource: Some(MCP),
    };
    match store.exchange_code(&exchange, LIFE).await.unwrap() {
        TokenOutcome::Issued(t) => t,
        TokenOutcome::Refused(why) => panic!("refused: {why}"),
    }
}

/// Moves a client's registration `minutes` into the past.
async fn age(store: &Store, client: &OAuthClient, minutes: i64) {
    let mut conn = raw(store).await;
    sqlx::query("UPDATE oauth_clients SET created_at = created_at - ? WHERE id = ?")
        .bind(minutes * 60_000)
        .bind(client.id)
        .execute(&mut conn)
        .await
        .unwrap();
}

fn ids(list: &[store::ClientListing]) -> Vec<&str> {
    list.iter().map(|c| c.client.client_id.as_str()).collect()
}

#[tokio::test]
async fn clients_never_consented_to_are_forgotten_after_ten_minutes() {
    let (_dir, store) = file_store().await;
    let stale = register(&store, "stale").await;
    let recent = register(&store, "recent").await;
    let consented = register(&store, "consented").await;
    connect(&store, &consented).await;
    age(&store, &stale, 11).await;
    age(&store, &recent, 9).await;
    age(&store, &consented, 11).await;
    // Registering sweeps, and so does listing.
    let fresh = register(&store, "fresh").await;
    assert!(
        store
            .oauth_client(&stale.client_id)
            .await
            .unwrap()
            .is_none()
    );
    let list = store.oauth_clients().await.unwrap();
    assert_eq!(
        ids(&list),
        [
            consented.client_id.as_str(),
            recent.client_id.as_str(),
            fresh.client_id.as_str()
        ]
    );
    age(&store, &recent, 2).await;
    assert_eq!(
        ids(&store.oauth_clients().await.unwrap()),
        [consented.client_id.as_str(), fresh.client_id.as_str()]
    );
}

#[tokio::test]
async fn a_client_with_a_code_waiting_for_its_exchange_is_kept() {
    let (_dir, store) = file_store().await;
    let slow = register(&store, "slow to consent").await;
    let ana = person(&store, "ana", Role::User).await;
    store
        .create_code(&NewCode {
            client: &slow,
            person: ana.id,
            grant: "requester",
            redirect_uri: REDIRECT,
            code_challenge: CHALLENGE,
            resource: MCP,
        })
        .await
        .unwrap();
    age(&store, &slow, 11).await;
    assert_eq!(
        ids(&store.oauth_clients().await.unwrap()),
        [slow.client_id.as_str()]
    );
}

#[tokio::test]
async fn the_list_counts_connections_and_removing_a_client_revokes_them() {
    let (_dir, store) = file_store().await;
    let client = register(&store, "Claude").await;
    let other = register(&store, "Other").await;
    let first = connect(&store, &client).await;
    let second = connect(&store, &client).await;
    let kept = connect(&store, &other).await;
    let list = store.oauth_clients().await.unwrap();
    assert_eq!(
        (
            list[0].client.name.as_str(),
            list[0].live_connections,
            list[0].connections
        ),
        ("Claude", 2, 2)
    );
    assert_eq!(list[1].live_connections, 1);
    assert_eq!(
        store.remove_oauth_client(&client.client_id).await.unwrap(),
        2
    );
    for tokens in [&first, &second] {
        assert!(
            store
                .authenticate_token_with_switches(tokens.access.expose(), MCP)
                .await
                .unwrap()
                .is_none(),
            "the removed client's tokens no longer work"
        );
    }
    assert!(
        store
            .authenticate_token_with_switches(kept.access.expose(), MCP)
            .await
            .unwrap()
            .is_some(),
        "another client's connection is untouched"
    );
    assert_eq!(
        ids(&store.oauth_clients().await.unwrap()),
        [other.client_id.as_str()]
    );
    let gone = store
        .remove_oauth_client(&client.client_id)
        .await
        .unwrap_err()
        .to_string();
    assert!(gone.contains("no registered client has the id"), "{gone}");
    // The revoked connections stay listed as revoked credentials.
    let revoked = store
        .keys()
        .await
        .unwrap()
        .iter()
        .filter(|k| k.revoked_at.is_some())
        .count();
    assert_eq!(revoked, 2);
}

#[tokio::test]
async fn a_connection_used_gets_its_last_use_stamped_and_no_version_moves() {
    let (_dir, store) = file_store().await;
    let client = register(&store, "Claude").await;
    let tokens = connect(&store, &client).await;
    let last_use = |store: &Store| {
        let store = store.clone();
        async move { store.oauth_clients().await.unwrap()[0].last_used_at }
    };
    assert_eq!(last_use(&store).await, None, "never used");
    let before = store.version().unwrap();
    assert!(
        store
            .authenticate_token_with_switches(tokens.access.expose(), MCP)
            .await
            .unwrap()
            .is_some()
    );
    let mut stamped = None;
    for _ in 0..100 {
        stamped = last_use(&store).await;
        if stamped.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(stamped.is_some(), "the use is stamped");
    assert_eq!(store.version().unwrap(), before, "a stamp moves no version");
}
