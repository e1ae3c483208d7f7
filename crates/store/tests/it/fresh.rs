//! Per-request reads answered from memory must never outlive a change, whoever commits it:
//! this store, another store on the same file (as the CLI is), or a raw connection.

use domain::Role;
use sqlx::Executor;

use super::{file_store, raw};

#[tokio::test]
async fn authority_cache_sees_every_writer() {
    let (dir, server) = file_store().await;
    let (_, owner_key) = server.bootstrap_owner("owner").await.unwrap().unwrap();
    let key = owner_key.secret.expose().to_string();
    // Warm the cache.
    for _ in 0..3 {
        assert_eq!(
            server
                .authenticate(&key)
                .await
                .unwrap()
                .unwrap()
                .person
                .name,
            "owner"
        );
    }
    // Another process (a CLI run) changes the owner's limits, then revokes the key.
    let cli = store::Store::open(dir.path()).await.unwrap();
    let owner = cli.person_by_name("owner").await.unwrap().unwrap();
    let limits = store::ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..Default::default()
    };
    cli.set_limits(owner.id, &limits).await.unwrap();
    let seen = server.authenticate(&key).await.unwrap().unwrap();
    assert_eq!(seen.person.limits.max_movie_cert.as_deref(), Some("PG"));
    cli.revoke_key(&owner_key.info.key_id).await.unwrap();
    assert!(
        server.authenticate(&key).await.unwrap().is_none(),
        "revocation by another process is seen at once"
    );
    // A wrong secret for a cached key id is still refused.
    let p = server.add_person("bob", Role::User).await.unwrap();
    let bob = server
        .create_key(p.id, "requester", None, None)
        .await
        .unwrap();
    let bob_key = bob.secret.expose().to_string();
    assert!(server.authenticate(&bob_key).await.unwrap().is_some());
    let wrong = format!(
        "{}{}",
        &bob_key[..bob_key.len() - 1],
        if bob_key.ends_with('a') { 'b' } else { 'a' }
    );
    assert!(server.authenticate(&wrong).await.unwrap().is_none());
}

#[tokio::test]
async fn raw_sql_changes_are_seen_too() {
    let (_dir, server) = file_store().await;
    let (_, owner_key) = server.bootstrap_owner("owner").await.unwrap().unwrap();
    let key = owner_key.secret.expose().to_string();
    assert!(server.authenticate(&key).await.unwrap().is_some());
    assert!(server.tool_switches().await.unwrap().all.is_empty());
    let mut conn = raw(&server).await;
    conn.execute("UPDATE grants SET expires_at = 1 WHERE name = 'owner'")
        .await
        .unwrap();
    assert!(
        server.authenticate(&key).await.unwrap().is_none(),
        "an expired grant is seen at once"
    );
    conn.execute(
        "INSERT INTO tool_switches (tool_name, enabled, updated_at) VALUES ('whoami', 0, 0)",
    )
    .await
    .unwrap();
    assert_eq!(
        server.tool_switches().await.unwrap().for_all("whoami"),
        Some(false)
    );
    let other = store::Store::open(_dir.path()).await.unwrap();
    other.set_tool_switch("whoami", true).await.unwrap();
    assert_eq!(
        server.tool_switches().await.unwrap().for_all("whoami"),
        Some(true)
    );
}
