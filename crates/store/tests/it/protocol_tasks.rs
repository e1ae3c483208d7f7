//! Protocol tasks: bound to the person who made the call, settled once, stale when their
//! server stopped beating, stopped by a cancel only when they only read, gone once expired.

use domain::Role;
use store::Store;

use crate::{file_store, person, raw};

const STOPPED: &str = r#"{"code":-32603,"message":"stopped"}"#;

#[tokio::test]
async fn a_task_is_read_by_its_person_only_and_settles_once() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let bob = person(&store, "bob", Role::Admin).await;
    let task = store
        .create_protocol_task(ana.id, "scan_library", true, 60_000)
        .await
        .unwrap();
    assert!(
        task.id.starts_with("mt-") && task.id.len() == 35,
        "{}",
        task.id
    );
    assert_eq!((task.status.as_str(), task.ttl_ms), ("working", 60_000));
    let read = |who| store.protocol_task(who, &task.id, 30_000, STOPPED);
    assert_eq!(read(ana.id).await.unwrap(), Some(task.clone()));
    assert_eq!(read(bob.id).await.unwrap(), None, "another person's");
    assert_eq!(
        store.cancel_protocol_task(bob.id, &task.id).await.unwrap(),
        None
    );

    assert!(
        store
            .beat_protocol_task(&task.id, Some("1/4: one"))
            .await
            .unwrap()
    );
    assert_eq!(
        read(ana.id).await.unwrap().unwrap().message.as_deref(),
        Some("1/4: one")
    );
    assert!(
        store
            .finish_protocol_task(&task.id, true, r#"{"content":[]}"#)
            .await
            .unwrap()
    );
    assert!(
        !store
            .finish_protocol_task(&task.id, false, STOPPED)
            .await
            .unwrap(),
        "once"
    );
    assert!(
        !store.beat_protocol_task(&task.id, None).await.unwrap(),
        "no longer working"
    );
    let done = read(ana.id).await.unwrap().unwrap();
    assert_eq!(done.status, "completed");
    assert_eq!(done.outcome.as_deref(), Some(r#"{"content":[]}"#));
    assert_eq!(done.message, None);
    // Cancelling a settled task stops nothing and changes nothing.
    assert_eq!(
        store.cancel_protocol_task(ana.id, &task.id).await.unwrap(),
        Some(false)
    );
    assert_eq!(read(ana.id).await.unwrap().unwrap().status, "completed");
}

#[tokio::test]
async fn a_cancel_stops_a_read_and_lets_a_write_run_to_its_end() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::Owner).await;
    let read = store
        .create_protocol_task(ana.id, "search_indexers", true, 60_000)
        .await
        .unwrap();
    let write = store
        .create_protocol_task(ana.id, "apply_change", false, 60_000)
        .await
        .unwrap();
    assert_eq!(
        store.cancel_protocol_task(ana.id, &read.id).await.unwrap(),
        Some(true)
    );
    assert!(
        !store.beat_protocol_task(&read.id, None).await.unwrap(),
        "its runner stops"
    );
    assert!(
        !store
            .finish_protocol_task(&read.id, true, "{}")
            .await
            .unwrap()
    );
    let got = store
        .protocol_task(ana.id, &read.id, 30_000, STOPPED)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.status, "cancelled");

    assert_eq!(
        store.cancel_protocol_task(ana.id, &write.id).await.unwrap(),
        Some(false)
    );
    let got = store
        .protocol_task(ana.id, &write.id, 30_000, STOPPED)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.status, "working");
    assert!(got.message.unwrap().contains("runs to its end"));
    assert!(
        store
            .finish_protocol_task(&write.id, true, "{}")
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn a_task_whose_server_stopped_beating_fails_and_an_expired_one_is_gone() {
    let (_dir, store) = file_store().await;
    let ana = person(&store, "ana", Role::User).await;
    let stale = store
        .create_protocol_task(ana.id, "scan_library", true, 60_000)
        .await
        .unwrap();
    let old = store
        .create_protocol_task(ana.id, "scan_library", true, 60_000)
        .await
        .unwrap();
    let mut raw = raw(&store).await;
    sqlx::query("UPDATE protocol_tasks SET beat_at = beat_at - 31000 WHERE id = ?")
        .bind(&stale.id)
        .execute(&mut raw)
        .await
        .unwrap();
    sqlx::query("UPDATE protocol_tasks SET expires_at = created_at - 1 WHERE id = ?")
        .bind(&old.id)
        .execute(&mut raw)
        .await
        .unwrap();
    let got = store
        .protocol_task(ana.id, &stale.id, 30_000, STOPPED)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (got.status.as_str(), got.outcome.as_deref()),
        ("failed", Some(STOPPED))
    );
    assert!(!store.beat_protocol_task(&stale.id, None).await.unwrap());
    assert_eq!(
        store
            .protocol_task(ana.id, &old.id, 30_000, STOPPED)
            .await
            .unwrap(),
        None
    );
    // The next task created drops the expired ones.
    store
        .create_protocol_task(ana.id, "scan_library", true, 60_000)
        .await
        .unwrap();
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM protocol_tasks WHERE id = ?")
        .bind(&old.id)
        .fetch_one(&mut raw)
        .await
        .unwrap();
    assert_eq!(left, 0);
}
