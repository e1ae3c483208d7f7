//! Opening: migrations, WAL, seeded grants, reopening.

use std::collections::BTreeSet;

use domain::{Capability, Preset, Role};
use sqlx::Row;
use store::{Error, Store};

use crate::{file_store, person, raw};

#[tokio::test]
async fn open_creates_the_data_dir_and_reports_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let store = Store::open(&data).await.unwrap();
    store.ping().await.unwrap();
    assert_eq!(store.path().unwrap(), data.join("marquee.db"));
    assert!(data.join("marquee.db").exists());

    let memory = Store::open_in_memory().await.unwrap();
    memory.ping().await.unwrap();
    assert_eq!(memory.path(), None);
}

#[tokio::test]
async fn file_store_uses_wal_and_enforces_foreign_keys() {
    let (_dir, store) = file_store().await;
    let mut conn = raw(&store).await;
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    // An audit row for a person who does not exist is refused by the foreign key.
    let err = store
        .audit_begin(&store::NewAudit {
            person: domain::PersonId(999),
            key_id: None,
            tool: "pause_torrent".into(),
            instance: None,
            args_digest: "d".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
}

#[tokio::test]
async fn reopening_is_idempotent_and_keeps_data() {
    let (dir, store) = file_store().await;
    person(&store, "ana", Role::User).await;
    let grants_before = store.grants().await.unwrap();
    drop(store);

    for _ in 0..2 {
        let store = Store::open(dir.path()).await.unwrap();
        assert_eq!(store.people().await.unwrap().len(), 1);
        // Seeding again neither duplicates grants nor bumps their revision.
        assert_eq!(store.grants().await.unwrap(), grants_before);
        let mut conn = raw(&store).await;
        let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        let dir = std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
        let shipped = std::fs::read_dir(format!("{dir}/migrations"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "sql")
            })
            .count();
        assert_eq!(
            applied as usize, shipped,
            "each migration applied exactly once"
        );
    }
}

#[tokio::test]
async fn presets_and_owner_grant_are_seeded_as_builtin() {
    let store = Store::open_in_memory().await.unwrap();
    let grants = store.grants().await.unwrap();
    let names: Vec<&str> = grants.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["reader", "requester", "operator", "admin", "owner"]);
    for preset in Preset::ALL {
        let grant = store.grant_by_name(preset.name()).await.unwrap().unwrap();
        let want: BTreeSet<Capability> = preset.capabilities().iter().copied().collect();
        assert_eq!(grant.capabilities, want, "{}", preset.name());
        assert!(grant.builtin);
        assert_eq!(grant.instances, None);
        assert!(grant.allowances.is_empty());
        assert_eq!((grant.expires_at, grant.revision), (None, 1));
    }
    let owner = store.grant_by_name("owner").await.unwrap().unwrap();
    assert_eq!(owner.capabilities, Capability::ALL.into_iter().collect());
    assert!(owner.allows(Capability::DestructiveDirect));
    assert!(
        !grants[3].allows(Capability::DestructiveDirect),
        "admin is not owner"
    );
    assert_eq!(store.grant_by_name("nope").await.unwrap(), None);
}

#[tokio::test]
async fn builtin_grants_drifted_in_the_database_are_restored_with_a_new_revision() {
    let (dir, store) = file_store().await;
    let mut conn = raw(&store).await;
    sqlx::query(
        "UPDATE grants SET capabilities = '[\"discover\", \"made.up\"]' WHERE name = 'operator'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    // Unknown capability names are dropped on read: an old build sees less, never more.
    let drifted = store.grant_by_name("operator").await.unwrap().unwrap();
    assert_eq!(
        drifted.capabilities,
        [Capability::Discover].into_iter().collect()
    );
    drop(store);

    let store = Store::open(dir.path()).await.unwrap();
    let operator = store.grant_by_name("operator").await.unwrap().unwrap();
    let want: BTreeSet<Capability> = Preset::Operator.capabilities().iter().copied().collect();
    assert_eq!(operator.capabilities, want);
    assert_eq!(operator.revision, 2);
    let row = sqlx::query("SELECT capabilities FROM grants WHERE name = 'operator'")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let stored: String = row.get("capabilities");
    assert!(!stored.contains("made.up"), "{stored}");
}
