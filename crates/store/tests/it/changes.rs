//! Planned changes and their operations: decisions bound to the content, one operation per
//! change, idempotency keys, checkpoints, cancellation and recovery after a stop.

use domain::{AllowanceKind, AllowanceRule, PersonId, Role};
use store::{
    AuditQuery, AuditStatus, Begun, Change, ChangeStatus, NewAudit, NewChange, OperationStatus,
    Store,
};

use crate::person;

struct Fixture {
    store: Store,
    owner: PersonId,
    ana: PersonId,
}

async fn fixture() -> Fixture {
    let store = Store::open_in_memory().await.unwrap();
    let owner = person(&store, "olga", Role::Owner).await.id;
    let ana = person(&store, "ana", Role::Admin).await.id;
    Fixture { store, owner, ana }
}

impl Fixture {
    async fn change(&self) -> Change {
        let grant = self.store.grant_by_name("operator").await.unwrap().unwrap();
        self.store
            .create_change(&NewChange {
                created_by: self.ana,
                grant_id: grant.id,
                grant_revision: grant.revision,
                tool: "delete_torrents".into(),
                summary: "delete 1 torrent".into(),
                plan: r#"{"hashes":["aa"]}"#.into(),
                dependency_hashes: r#"{"qb/aa":"sha256:1"}"#.into(),
                content_hash: "sha256:content".into(),
            })
            .await
            .unwrap()
    }

    async fn approved(&self) -> Change {
        let c = self.change().await;
        self.store
            .decide_change(&c.id, self.owner, true, &c.content_hash)
            .await
            .unwrap()
    }

    async fn begin(&self, change: &str, key: &str) -> Begun {
        self.begin_charging(change, key, None).await
    }

    async fn begin_charging(
        &self,
        change: &str,
        key: &str,
        allowance: Option<(AllowanceKind, AllowanceRule)>,
    ) -> Begun {
        let entry = NewAudit {
            person: self.ana,
            key_id: None,
            tool: "delete_torrents".into(),
            instance: None,
            args_digest: "sha256:content".into(),
        };
        self.store
            .begin_operation(change, key, &[ChangeStatus::Approved], &entry, allowance)
            .await
            .unwrap()
    }

    async fn destructive_left(&self, rule: AllowanceRule) -> u32 {
        let rules = [(AllowanceKind::Destructive, rule)].into_iter().collect();
        self.store.allowances_left(self.ana, &rules).await.unwrap()[0].left
    }
}

fn started(b: Begun) -> store::Operation {
    match b {
        Begun::Started(op) => op,
        other => panic!("expected a new operation, got {other:?}"),
    }
}

const ONE_A_WEEK: AllowanceRule = AllowanceRule { count: 1, days: 7 };

#[tokio::test]
async fn starting_an_operation_charges_the_allowance_with_its_audit_entry() {
    let f = fixture().await;
    let first = f.approved().await;
    let charge = Some((AllowanceKind::Destructive, ONE_A_WEEK));
    let op = started(f.begin_charging(&first.id, "key-00001", charge).await);
    assert_eq!(f.destructive_left(ONE_A_WEEK).await, 0);
    let audit = f.store.audit_page(&AuditQuery::default()).await.unwrap();
    assert_eq!((audit.len(), audit[0].id), (1, op.audit_id.unwrap()));

    // The next change finds the allowance spent: nothing is written, the change stays approved.
    let second = f.approved().await;
    let Begun::Exhausted(left) = f.begin_charging(&second.id, "key-00002", charge).await else {
        panic!("a spent allowance must not start an operation")
    };
    assert_eq!((left.used, left.left), (1, 0));
    assert!(left.refills_at.is_some());
    assert!(
        f.store
            .operation_for_change(&second.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        f.store
            .operation_by_key(f.ana, "key-00002")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        f.store.change(&second.id).await.unwrap().unwrap().status,
        ChangeStatus::Approved
    );
    assert_eq!(
        f.store
            .audit_page(&AuditQuery::default())
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn an_operation_cancelled_before_any_call_gives_its_unit_back() {
    let f = fixture().await;
    let c = f.approved().await;
    let charge = Some((AllowanceKind::Destructive, ONE_A_WEEK));
    let op = started(f.begin_charging(&c.id, "key-00001", charge).await);
    assert_eq!(f.destructive_left(ONE_A_WEEK).await, 0);
    f.store.cancel_operation(&op.id, "cancelled").await.unwrap();
    assert_eq!(f.destructive_left(ONE_A_WEEK).await, 1);
}

#[tokio::test]
async fn an_operation_past_its_checkpoint_keeps_its_unit() {
    let f = fixture().await;
    let c = f.approved().await;
    let charge = Some((AllowanceKind::Destructive, ONE_A_WEEK));
    let op = started(f.begin_charging(&c.id, "key-00001", charge).await);
    assert!(
        f.store
            .checkpoint(&op.id, r#"{"call":"delete"}"#)
            .await
            .unwrap()
    );
    f.store
        .finish_operation(&op.id, false, "{}", "the instance answered 500")
        .await
        .unwrap();
    assert_eq!(f.destructive_left(ONE_A_WEEK).await, 0);
}

#[tokio::test]
async fn an_approval_is_bound_to_the_content_the_owner_saw() {
    let f = fixture().await;
    let c = f.change().await;
    let e = f
        .store
        .decide_change(&c.id, f.owner, true, "sha256:other")
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("not the content that was reviewed"),
        "{e}"
    );
    let approved = f
        .store
        .decide_change(&c.id, f.owner, true, &c.content_hash)
        .await
        .unwrap();
    assert_eq!(
        (approved.status, approved.decided_by.as_deref()),
        (ChangeStatus::Approved, Some("olga"))
    );
    assert!(approved.approval_holds(c.grant_id.unwrap(), c.grant_revision));
    assert!(!approved.approval_holds(c.grant_id.unwrap(), c.grant_revision + 1));
}

#[tokio::test]
async fn a_pending_change_cannot_start_an_operation() {
    let f = fixture().await;
    let c = f.change().await;
    let entry = NewAudit {
        person: f.ana,
        key_id: None,
        tool: "delete_torrents".into(),
        instance: None,
        args_digest: "d".into(),
    };
    let e = f
        .store
        .begin_operation(&c.id, "key-00001", &[ChangeStatus::Approved], &entry, None)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("is pending"), "{e}");
    assert!(f.store.operation_for_change(&c.id).await.unwrap().is_none());
}

#[tokio::test]
async fn the_same_key_and_a_second_apply_find_the_one_operation() {
    let f = fixture().await;
    let c = f.approved().await;
    let op = started(f.begin(&c.id, "key-00001").await);
    let again = f.begin(&c.id, "key-00001").await;
    let other = f.begin(&c.id, "key-00002").await;
    for b in [again, other] {
        let Begun::Existing(o) = b else {
            panic!("a second begin must not start work")
        };
        assert_eq!(o.id, op.id);
    }
    let audit = f.store.audit_page(&AuditQuery::default()).await.unwrap();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(
        f.store.change(&c.id).await.unwrap().unwrap().status,
        ChangeStatus::Applying
    );
}

#[tokio::test]
async fn finishing_closes_operation_audit_and_change_together() {
    let f = fixture().await;
    let c = f.approved().await;
    let op = started(f.begin(&c.id, "key-00001").await);
    assert!(
        f.store
            .checkpoint(&op.id, r#"{"call":"delete"}"#)
            .await
            .unwrap()
    );
    let done = f
        .store
        .finish_operation(&op.id, true, r#"{"ok":1}"#, "1 torrent deleted")
        .await
        .unwrap();
    assert_eq!(done.status, OperationStatus::Succeeded);
    let audit = &f.store.audit_page(&AuditQuery::default()).await.unwrap()[0];
    assert_eq!(audit.status, AuditStatus::Applied);
    assert_eq!(
        f.store.change(&c.id).await.unwrap().unwrap().status,
        ChangeStatus::Applied
    );
}

#[tokio::test]
async fn a_cancelled_operation_refuses_its_checkpoint() {
    let f = fixture().await;
    let c = f.approved().await;
    let op = started(f.begin(&c.id, "key-00001").await);
    f.store
        .cancel_operation(&op.id, "cancelled by ana")
        .await
        .unwrap();
    assert!(!f.store.checkpoint(&op.id, "{}").await.unwrap());
    assert!(f.store.cancel_operation(&op.id, "again").await.is_err());
}

#[tokio::test]
async fn an_operation_under_way_is_cancelled_between_steps() {
    let f = fixture().await;
    let c = f.approved().await;
    let op = started(f.begin(&c.id, "key-00001").await);
    assert!(f.store.checkpoint(&op.id, "{\"step\":1}").await.unwrap());
    // Under way: the cancellation is noted, the step under way ends, the next is refused.
    let asked = f
        .store
        .cancel_operation(&op.id, "cancelled by ana")
        .await
        .unwrap();
    assert_eq!(asked.status, OperationStatus::Cancelling);
    assert!(!asked.status.is_finished());
    assert!(!f.store.checkpoint(&op.id, "{\"step\":2}").await.unwrap());
    let again = f.store.cancel_operation(&op.id, "twice").await.unwrap_err();
    assert!(again.to_string().contains("cancelling"), "{again}");
    // The work stops and finishes: the operation ends cancelled with what it did.
    let done = f
        .store
        .finish_operation(
            &op.id,
            true,
            "{\"ok\":1,\"not_done\":[2]}",
            "1 done; 1 not done",
        )
        .await
        .unwrap();
    assert_eq!(done.status, OperationStatus::Cancelled);
    assert_eq!(
        done.message.as_deref(),
        Some("cancelled by ana; 1 done; 1 not done")
    );
    assert_eq!(done.result.as_deref(), Some("{\"ok\":1,\"not_done\":[2]}"));
    let change = f.store.change(&c.id).await.unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Cancelled);
    // What was done was applied.
    let entry = &f.store.audit_page(&AuditQuery::default()).await.unwrap()[0];
    assert_eq!(entry.status, AuditStatus::Applied);
    // A finished operation cannot be cancelled.
    let e = f.store.cancel_operation(&op.id, "late").await.unwrap_err();
    assert!(e.to_string().contains("cancelled"), "{e}");
}

#[tokio::test]
async fn an_operation_cut_off_while_cancelling_has_an_unknown_outcome() {
    let f = fixture().await;
    let c = f.approved().await;
    let op = started(f.begin(&c.id, "key-00001").await);
    assert!(f.store.checkpoint(&op.id, "{}").await.unwrap());
    f.store.cancel_operation(&op.id, "cancelled").await.unwrap();
    assert_eq!(
        f.store.recover_unfinished_operations().await.unwrap(),
        (1, 0)
    );
    let op = f.store.operation(&op.id).await.unwrap().unwrap();
    assert_eq!(op.status, OperationStatus::OutcomeUnknown);
}

#[tokio::test]
async fn recovery_marks_past_checkpoint_unknown_and_the_rest_failed() {
    let f = fixture().await;
    let flying = f.approved().await;
    let waiting = f.approved().await;
    let a = started(f.begin(&flying.id, "key-00001").await);
    let b = started(f.begin(&waiting.id, "key-00002").await);
    assert!(f.store.checkpoint(&a.id, "{}").await.unwrap());
    assert_eq!(
        f.store.recover_unfinished_operations().await.unwrap(),
        (1, 1)
    );
    let a = f.store.operation(&a.id).await.unwrap().unwrap();
    let b = f.store.operation(&b.id).await.unwrap().unwrap();
    assert_eq!(
        (a.status, b.status),
        (OperationStatus::OutcomeUnknown, OperationStatus::Failed)
    );
    let change = f.store.change(&flying.id).await.unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::OutcomeUnknown);
    let statuses: Vec<AuditStatus> = f
        .store
        .audit_page(&AuditQuery::default())
        .await
        .unwrap()
        .iter()
        .map(|e| e.status)
        .collect();
    assert_eq!(statuses, [AuditStatus::Failed, AuditStatus::OutcomeUnknown]);
    // Nothing is retried: a second recovery finds nothing.
    assert_eq!(
        f.store.recover_unfinished_operations().await.unwrap(),
        (0, 0)
    );
}
