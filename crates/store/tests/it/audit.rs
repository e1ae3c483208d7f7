//! The audit trail: begin, finish, pages, and recovery after a stop.

use domain::{PersonId, Role};
use store::{AuditId, AuditQuery, AuditStatus, Error, NewAudit, Store};

use crate::{file_store, person};

fn entry(person: PersonId, key_id: Option<&str>, tool: &str) -> NewAudit {
    NewAudit {
        person,
        key_id: key_id.map(str::to_owned),
        tool: tool.into(),
        instance: Some("qbit-main".into()),
        args_digest: format!("sha256:{tool}"),
    }
}

fn page(person: Option<PersonId>, before_id: Option<i64>, limit: u32) -> AuditQuery {
    AuditQuery {
        person,
        before_id,
        limit,
    }
}

#[tokio::test]
async fn begin_finish_and_read_back() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::Admin).await;
    let key = store
        .create_key(ana.id, "operator", None, None)
        .await
        .unwrap();

    let id = store
        .audit_begin(&entry(ana.id, Some(&key.info.key_id), "pause_torrent"))
        .await
        .unwrap();
    let open = &store.audit_page(&AuditQuery::default()).await.unwrap()[0];
    assert_eq!(open.id, id.0);
    assert_eq!(open.status, AuditStatus::Executing);
    assert_eq!(open.finished_at, None);

    store
        .audit_finish(id, AuditStatus::Applied, Some("paused 1 torrent"))
        .await
        .unwrap();
    let done = &store.audit_page(&AuditQuery::default()).await.unwrap()[0];
    assert_eq!(done.person, "ana");
    assert_eq!(done.key_id.as_deref(), Some(key.info.key_id.as_str()));
    assert_eq!(done.tool, "pause_torrent");
    assert_eq!(done.instance.as_deref(), Some("qbit-main"));
    assert_eq!(done.args_digest, "sha256:pause_torrent");
    assert_eq!(done.status, AuditStatus::Applied);
    assert_eq!(done.message.as_deref(), Some("paused 1 torrent"));
    assert!(done.finished_at.unwrap() >= done.at);
}

#[tokio::test]
async fn finishing_is_checked() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::Admin).await;
    let id = store.audit_begin(&entry(ana.id, None, "t")).await.unwrap();

    let err = store
        .audit_finish(id, AuditStatus::Executing, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    store
        .audit_finish(id, AuditStatus::Failed, Some("boom"))
        .await
        .unwrap();
    let err = store
        .audit_finish(id, AuditStatus::Applied, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("audit entry {} is already finished as failed", id.0)
    );
    let err = store
        .audit_finish(AuditId(999), AuditStatus::Applied, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");

    let err = store
        .audit_begin(&entry(ana.id, Some("nosuchkey0"), "t"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    let err = store
        .audit_begin(&entry(PersonId(999), None, "t"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
}

/// On a file a page is read on the caller's thread, in memory through the pool: the same pages.
#[tokio::test]
async fn pages_are_newest_first_filtered_and_clamped() {
    let (_dir, on_file) = file_store().await;
    pages_on(on_file).await;
    pages_on(Store::open_in_memory().await.unwrap()).await;
}

async fn pages_on(store: Store) {
    let ana = person(&store, "ana", Role::Admin).await;
    let bo = person(&store, "bo", Role::User).await;
    let mut ana_ids = Vec::new();
    for i in 0..205 {
        let who = if i % 2 == 0 { ana.id } else { bo.id };
        let id = store
            .audit_begin(&entry(who, None, &format!("t{i}")))
            .await
            .unwrap();
        if who == ana.id {
            ana_ids.push(id.0);
        }
    }
    ana_ids.reverse();

    let ids =
        |entries: Vec<store::AuditEntry>| -> Vec<i64> { entries.iter().map(|e| e.id).collect() };
    let first = store
        .audit_page(&page(Some(ana.id), None, 10))
        .await
        .unwrap();
    assert!(first.iter().all(|e| e.person == "ana"));
    assert_eq!(first[0].tool, "t204");
    assert_eq!(first[0].status, AuditStatus::Executing);
    assert_eq!(
        (first[0].key_id.as_deref(), first[0].finished_at),
        (None, None)
    );
    assert_eq!(first[0].instance.as_deref(), Some("qbit-main"));
    let first = ids(first);
    assert_eq!(first, ana_ids[..10]);
    let second = ids(store
        .audit_page(&page(Some(ana.id), Some(first[9]), 10))
        .await
        .unwrap());
    assert_eq!(second, ana_ids[10..20]);

    let all = ids(store.audit_page(&page(None, None, 1000)).await.unwrap());
    assert_eq!(
        all.len(),
        201,
        "a page of 200 and the row that says more follow"
    );
    assert!(all.windows(2).all(|w| w[0] > w[1]));
    assert_eq!(
        store.audit_page(&page(None, None, 0)).await.unwrap().len(),
        1
    );
    let tail = store
        .audit_page(&page(None, Some(all[199]), 50))
        .await
        .unwrap();
    assert_eq!(tail.len(), 5);
    assert!(
        store
            .audit_page(&page(None, Some(1), 50))
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn recovery_marks_executing_entries_outcome_unknown() {
    let (dir, store) = file_store().await;
    let ana = person(&store, "ana", Role::Admin).await;
    let applied = store.audit_begin(&entry(ana.id, None, "a")).await.unwrap();
    store
        .audit_finish(applied, AuditStatus::Applied, None)
        .await
        .unwrap();
    store.audit_begin(&entry(ana.id, None, "b")).await.unwrap();
    store.audit_begin(&entry(ana.id, None, "c")).await.unwrap();
    drop(store);

    // The next start finds two entries cut off mid-call.
    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 2);
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 0);
    let entries = store.audit_page(&AuditQuery::default()).await.unwrap();
    let statuses: Vec<AuditStatus> = entries.iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [
            AuditStatus::OutcomeUnknown,
            AuditStatus::OutcomeUnknown,
            AuditStatus::Applied
        ]
    );
    assert!(entries[0].message.is_some() && entries[0].finished_at.is_some());
    // An unknown outcome is final: it is never finished later as if the call had completed.
    let err = store
        .audit_finish(AuditId(entries[0].id), AuditStatus::Applied, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
}

#[test]
fn status_names_round_trip() {
    for status in AuditStatus::ALL {
        assert_eq!(status.as_str().parse::<AuditStatus>(), Ok(status));
    }
    assert_eq!(AuditStatus::OutcomeUnknown.as_str(), "outcome_unknown");
    assert!("done".parse::<AuditStatus>().is_err());
}
