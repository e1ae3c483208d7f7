//! Reconciling at start: an audited call whose effect a stored row proves (a request created
//! or decided, an operation closed) is `applied` after a stop cut it off before its outcome
//! was recorded, and says it was reconciled; one without such a row stays `outcome_unknown`.

use domain::{MediaId, MediaSource, MediaType, Role};
use store::{
    AuditQuery, AuditStatus, ChangeStatus, NewAudit, NewChange, NewRequest, RequestOutcome, Store,
    under_audit,
};

use crate::{file_store, person};

fn entry(person: domain::PersonId, tool: &str) -> NewAudit {
    NewAudit {
        person,
        key_id: None,
        tool: tool.into(),
        instance: None,
        args_digest: format!("sha256:{tool}"),
    }
}

fn movie(person: domain::PersonId, id: &str) -> NewRequest {
    NewRequest {
        person,
        media: MediaId::new(MediaSource::Builtin, id),
        media_type: MediaType::Movie,
        title: format!("film {id}"),
        year: Some(1999),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: false,
    }
}

async fn entries(store: &Store) -> Vec<(String, AuditStatus, Option<String>)> {
    let mut all = store.audit_page(&AuditQuery::default()).await.unwrap();
    all.reverse();
    all.into_iter()
        .map(|e| (e.tool, e.status, e.message))
        .collect()
}

#[tokio::test]
async fn a_request_created_before_a_stop_reconciles_its_entry_at_the_next_start() {
    let (dir, store) = file_store().await;
    let kid = person(&store, "kid", Role::Kid).await;
    let owner = person(&store, "boss", Role::Owner).await;
    // The call created its request, then the process died before recording the outcome.
    let made = store
        .audit_begin(&entry(kid.id, "request_media"))
        .await
        .unwrap();
    let created = under_audit(made, store.create_request(&movie(kid.id, "m1")))
        .await
        .unwrap();
    let RequestOutcome::Created { request, .. } = created else {
        panic!("not created: {created:?}");
    };
    // A call that died before its effect: nothing proves it.
    let lost = store
        .audit_begin(&entry(kid.id, "request_media"))
        .await
        .unwrap();
    // A decision committed, then the stop.
    let decided = store
        .audit_begin(&entry(owner.id, "decide_request"))
        .await
        .unwrap();
    under_audit(
        decided,
        store.decide_request(request.id, owner.id, true, None),
    )
    .await
    .unwrap();
    // A request made outside any audited call proves nothing about another entry.
    store.create_request(&movie(kid.id, "m2")).await.unwrap();
    let _ = lost;
    drop(store);

    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 1);
    let seen = entries(&store).await;
    assert_eq!(seen[0].1, AuditStatus::Applied, "{seen:?}");
    assert_eq!(
        seen[0].2.as_deref(),
        Some(&*format!(
            "reconciled at start: request {} was created (the gateway stopped before the outcome was recorded)",
            request.id
        ))
    );
    assert_eq!(seen[1].1, AuditStatus::OutcomeUnknown, "{seen:?}");
    assert_eq!(seen[2].1, AuditStatus::Applied, "{seen:?}");
    assert!(
        seen[2]
            .2
            .as_deref()
            .unwrap()
            .contains(&format!("request {} was approved", request.id)),
        "{seen:?}"
    );
    // A second start changes nothing.
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 0);
    assert_eq!(entries(&store).await, seen);
}

#[tokio::test]
async fn a_finished_call_is_never_reconciled_and_a_failed_request_proves_nothing() {
    let (dir, store) = file_store().await;
    let kid = person(&store, "kid", Role::Kid).await;
    // Finished normally after its request was created: its own outcome stands.
    let done = store
        .audit_begin(&entry(kid.id, "request_media"))
        .await
        .unwrap();
    under_audit(done, store.create_request(&movie(kid.id, "m1")))
        .await
        .unwrap();
    store
        .audit_finish(done, AuditStatus::Failed, Some("the library refused it"))
        .await
        .unwrap();
    // Already requested: nothing was created, so nothing is proven.
    let again = store
        .audit_begin(&entry(kid.id, "request_media"))
        .await
        .unwrap();
    let out = under_audit(again, store.create_request(&movie(kid.id, "m1")))
        .await
        .unwrap();
    assert!(matches!(out, RequestOutcome::AlreadyRequested { .. }));
    drop(store);

    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 1);
    let seen = entries(&store).await;
    assert_eq!(seen[0].1, AuditStatus::Failed);
    assert_eq!(seen[0].2.as_deref(), Some("the library refused it"));
    assert_eq!(seen[1].1, AuditStatus::OutcomeUnknown);
}

#[tokio::test]
async fn an_operation_closed_before_a_stop_reconciles_the_call_that_closed_it() {
    let (dir, store) = file_store().await;
    let owner = person(&store, "boss", Role::Owner).await;
    let grant = store.grant_by_name("owner").await.unwrap().unwrap();
    let change = store
        .create_change(&NewChange {
            created_by: owner.id,
            grant_id: grant.id,
            grant_revision: grant.revision,
            tool: "delete_torrents".into(),
            summary: "delete 1 torrent".into(),
            content_hash: "sha256:x".into(),
            plan: "{}".into(),
            dependency_hashes: "{}".into(),
        })
        .await
        .unwrap();
    let apply = store
        .audit_begin(&entry(owner.id, "apply_change"))
        .await
        .unwrap();
    let begun = store
        .begin_operation(
            &change.id,
            "key-12345678",
            &[ChangeStatus::Pending],
            &entry(owner.id, "delete_torrents"),
            None,
        )
        .await
        .unwrap();
    let store::Begun::Started(op) = begun else {
        panic!("{begun:?}");
    };
    under_audit(
        apply,
        store.finish_operation(&op.id, true, "{}", "deleted 1"),
    )
    .await
    .unwrap();
    drop(store);

    let store = Store::open(dir.path()).await.unwrap();
    store.recover_unfinished_operations().await.unwrap();
    assert_eq!(store.recover_unfinished_audit().await.unwrap(), 0);
    let seen = entries(&store).await;
    let apply = seen.iter().find(|e| e.0 == "apply_change").unwrap();
    assert_eq!(apply.1, AuditStatus::Applied, "{seen:?}");
    assert!(
        apply.2.as_deref().unwrap().starts_with(&format!(
            "reconciled at start: operation {} became succeeded",
            op.id
        )),
        "{seen:?}"
    );
}
