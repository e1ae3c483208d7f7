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

#[tokio::test]
async fn quota_reads_see_every_writer() {
    use domain::{MediaId, MediaSource, MediaType};
    use store::{NewRequest, QuotaScope};
    let (dir, server) = file_store().await;
    server.bootstrap_owner("owner").await.unwrap();
    let kid = server.add_person("kid", Role::Kid).await.unwrap();
    let role = QuotaScope::Role { role: Role::Kid };
    server
        .set_quota(&role, MediaType::Movie, 3, 7)
        .await
        .unwrap();
    let remaining =
        |c: store::QuotaCheck| c.allowances.iter().map(|a| a.remaining).collect::<Vec<_>>();
    for _ in 0..3 {
        let check = server
            .quota_check(kid.id, MediaType::Movie, 0)
            .await
            .unwrap();
        assert_eq!(remaining(check), [3]);
    }
    // Another process (a CLI run) charges a request, then lowers the quota.
    let cli = store::Store::open(dir.path()).await.unwrap();
    let request = NewRequest {
        person: kid.id,
        media: MediaId::new(MediaSource::Builtin, "603"),
        media_type: MediaType::Movie,
        title: "The Matrix".into(),
        year: Some(1999),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: false,
    };
    cli.create_request(&request).await.unwrap();
    let check = server
        .quota_check(kid.id, MediaType::Movie, 0)
        .await
        .unwrap();
    assert_eq!(
        remaining(check),
        [2],
        "a charge by another process is seen at once"
    );
    cli.set_quota(&role, MediaType::Movie, 1, 7).await.unwrap();
    let check = server
        .quota_check(kid.id, MediaType::Movie, 1)
        .await
        .unwrap();
    assert_eq!(
        remaining(check.clone()),
        [0],
        "a changed quota is seen at once"
    );
    assert!(!check.fits_now());
    // A raw connection clearing the charges is seen too.
    let mut conn = raw(&server).await;
    conn.execute("DELETE FROM quota_charges").await.unwrap();
    let check = server
        .quota_check(kid.id, MediaType::Movie, 0)
        .await
        .unwrap();
    assert_eq!(remaining(check), [1]);
}

#[tokio::test]
async fn allowance_reads_see_every_writer() {
    use std::collections::BTreeMap;

    use domain::{AllowanceKind, AllowanceRule};
    use store::{NewAudit, Reserved};
    let (dir, server) = file_store().await;
    let (owner, _) = server.bootstrap_owner("owner").await.unwrap().unwrap();
    let rule = AllowanceRule { count: 2, days: 1 };
    let rules = BTreeMap::from([(AllowanceKind::Grabs, rule)]);
    let left = |all: Vec<store::AllowanceLeft>| all.iter().map(|a| a.left).collect::<Vec<_>>();
    for _ in 0..3 {
        assert_eq!(
            left(server.allowances_left(owner.id, &rules).await.unwrap()),
            [2]
        );
    }
    // Another process spends a unit.
    let cli = store::Store::open(dir.path()).await.unwrap();
    let entry = NewAudit {
        person: owner.id,
        key_id: None,
        tool: "grab_release".into(),
        instance: Some("radarr".into()),
        args_digest: "d".into(),
    };
    let Reserved::Begun(id) = cli
        .audit_begin_reserving(&entry, AllowanceKind::Grabs, rule)
        .await
        .unwrap()
    else {
        panic!("a unit is left");
    };
    assert_eq!(
        left(server.allowances_left(owner.id, &rules).await.unwrap()),
        [1],
        "a unit spent by another process is seen at once"
    );
    // It gives the unit back: seen at once too.
    cli.audit_fail_released(id, "nothing was done")
        .await
        .unwrap();
    assert_eq!(
        left(server.allowances_left(owner.id, &rules).await.unwrap()),
        [2]
    );
    // A wider window is its own read.
    let week = BTreeMap::from([(AllowanceKind::Grabs, AllowanceRule { count: 5, days: 7 })]);
    assert_eq!(
        left(server.allowances_left(owner.id, &week).await.unwrap()),
        [5]
    );
}

/// Which groups a write changes: only those whose tables it touched, whoever wrote it.
#[tokio::test]
async fn a_write_changes_the_version_of_its_own_group_only() {
    use store::Group::{Audit, Authority, Changes, Requests};
    let (_dir, server) = file_store().await;
    let (owner, key) = server.bootstrap_owner("owner").await.unwrap().unwrap();
    let changed = |before: store::Version, after: store::Version| -> Vec<store::Group> {
        store::Group::ALL
            .into_iter()
            .filter(|g| !before.same(&after, &[*g]))
            .collect()
    };
    let v0 = server.version().unwrap();
    // An owner-page sign-in writes a session: no group reads it.
    server.create_session(owner.id).await.unwrap();
    let v1 = server.version().unwrap();
    assert_eq!(v1, v0, "a session changes no version");
    let mut conn = raw(&server).await;
    // A key's last-use stamp is no part of its authority.
    conn.execute("UPDATE credentials SET last_used_at = 5")
        .await
        .unwrap();
    let v2 = server.version().unwrap();
    assert_eq!(v2, v1);
    server.set_tool_switch("whoami", false).await.unwrap();
    let v3 = server.version().unwrap();
    assert_eq!(changed(v2, v3), [Authority]);
    conn.execute(&*format!(
        "UPDATE credentials SET revoked_at = 1 WHERE key_id = '{}'",
        key.info.key_id
    ))
    .await
    .unwrap();
    let v4 = server.version().unwrap();
    assert_eq!(
        changed(v3, v4),
        [Authority],
        "a revocation by another writer"
    );
    server
        .audit_begin(&store::NewAudit {
            person: owner.id,
            key_id: None,
            tool: "whoami".into(),
            instance: None,
            args_digest: "sha256:0".into(),
        })
        .await
        .unwrap();
    let v5 = server.version().unwrap();
    assert_eq!(changed(v4, v5), [Audit]);
    server
        .create_change(&store::NewChange {
            created_by: owner.id,
            grant_id: 1,
            grant_revision: 1,
            tool: "delete_torrents".into(),
            summary: "s".into(),
            plan: "{}".into(),
            dependency_hashes: "{}".into(),
            content_hash: "sha256:0".into(),
        })
        .await
        .unwrap();
    let v6 = server.version().unwrap();
    assert_eq!(changed(v5, v6), [Changes]);
    assert_eq!(
        v6.only(&[Requests]),
        v0.only(&[Requests]),
        "requests never changed"
    );
    server
        .set_quota(
            &store::QuotaScope::Role { role: Role::User },
            domain::MediaType::Movie,
            5,
            7,
        )
        .await
        .unwrap();
    let v7 = server.version().unwrap();
    assert_eq!(changed(v6, v7), [Requests]);
    assert_ne!(v7.only(&[Requests]), v0.only(&[Requests]));
    assert_eq!(v7.only(&[Audit]), v5.only(&[Audit]));
    assert!(
        store::Store::open_in_memory()
            .await
            .unwrap()
            .version()
            .is_none()
    );
}
