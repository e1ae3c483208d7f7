//! `marquee oauth clients list|remove`, run as the real binary on a data folder in which a
//! connector registered and was consented to.

#![allow(clippy::unwrap_used)]

use std::{path::Path, process::Command};

use domain::Role;
use store::{CodeExchange, NewClient, NewCode, Store, TokenLifetimes, TokenOutcome};

const MCP: &str = "http://127.0.0.1:8765/mcp";
const REDIRECT: &str = "http://127.0.0.1:9999/callback";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// `marquee ARGS --data-dir DATA`: (success, stdout, stderr).
fn marquee(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir)
        .env("MARQUEE_LOG", "error")
        .env_remove("MARQUEE_CONFIG")
        .args(args)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Registers a client named `name` and connects it for ana; the connection's access token.
async fn connected(store: &Store, name: &str) -> (String, String) {
    let client = store
        .register_client(&NewClient {
            name: name.into(),
            redirect_uris: vec![REDIRECT.into()],
            grant_types: vec!["authorization_code".into()],
        })
        .await
        .unwrap();
    let ana = match store.person_by_name("ana").await.unwrap() {
        Some(p) => p,
        None => store.add_person("ana", Role::User).await.unwrap(),
    };
    let code = store
        .create_code(&NewCode {
            client: &client,
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
    let life = TokenLifetimes {
        access_ms: 600_000,
        refresh_ms: 86_400_000,
    };
    match store.exchange_code(&exchange, life).await.unwrap() {
        TokenOutcome::Issued(t) => (client.client_id, t.access.expose().to_string()),
        TokenOutcome::Refused(why) => panic!("refused: {why}"),
    }
}

#[tokio::test]
async fn the_owner_lists_registered_clients_and_removes_one() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, _) = marquee(dir.path(), &["oauth", "clients", "list"]);
    assert!(ok);
    assert!(out.starts_with("no registered clients"), "{out}");

    let store = Store::open(&dir.path().join("data")).await.unwrap();
    let (claude, token) = connected(&store, "Claude\u{7}").await;
    let (other, _) = connected(&store, "Other connector").await;
    let (ok, out, err) = marquee(dir.path(), &["oauth", "clients", "list"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with(&claude), "{out}");
    assert!(
        lines[0].contains("Claude?"),
        "a control character is not printed: {out}"
    );
    assert!(lines[0].contains("connections: 1 live of 1"), "{out}");
    assert!(lines[1].starts_with(&other), "{out}");
    assert!(!out.contains(&token), "no secret is listed");

    let (ok, out, err) = marquee(dir.path(), &["oauth", "clients", "remove", &claude]);
    assert!(ok, "{err}");
    assert_eq!(
        out.trim(),
        format!("removed {claude}; 1 live connection(s) revoked")
    );
    assert!(
        store
            .authenticate_token_with_switches(&token, MCP)
            .await
            .unwrap()
            .is_none(),
        "the removed client's connection no longer works"
    );
    let (_, out, _) = marquee(dir.path(), &["oauth", "clients", "list"]);
    assert!(out.starts_with(&other) && !out.contains(&claude), "{out}");

    let (ok, _, err) = marquee(dir.path(), &["oauth", "clients", "remove", "mqcl_nope"]);
    assert!(!ok);
    assert!(
        err.contains("no registered client has the id \"mqcl_nope\""),
        "{err}"
    );
}
