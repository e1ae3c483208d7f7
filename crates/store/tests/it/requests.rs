//! Requests and quotas: duplicates, check-and-charge under concurrency on a file with a pool of
//! connections, refusals that create nothing, role defaults and personal overrides, refunds.

use domain::{MediaId, MediaSource, MediaType, Role};
use store::{Fit, NewRequest, QuotaScope, RequestOutcome, RequestQuery, RequestStatus, Store};

use crate::{file_store, person};

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

fn show(person: domain::PersonId, id: &str, seasons: &[u32]) -> NewRequest {
    NewRequest {
        media: MediaId::new(MediaSource::Tmdb, id),
        media_type: MediaType::Tv,
        seasons: seasons.to_vec(),
        ..movie(person, id)
    }
}

async fn all(store: &Store) -> Vec<store::MediaRequest> {
    store
        .requests_page(&RequestQuery {
            limit: 200,
            ..RequestQuery::default()
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn fifty_concurrent_requests_against_a_quota_of_ten_create_exactly_ten() {
    let (_dir, store) = file_store().await;
    let ana = person(&store, "ana", Role::User).await;
    store
        .set_quota(
            &QuotaScope::Role { role: Role::User },
            MediaType::Movie,
            10,
            7,
        )
        .await
        .unwrap();
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create_request(&movie(ana.id, &format!("tt{i:07}")))
                    .await
            })
        })
        .collect();
    let mut created = 0;
    let mut refused = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            RequestOutcome::Created { .. } => created += 1,
            RequestOutcome::QuotaExceeded(q) => {
                assert_eq!(q.allowances[0].used, 10);
                refused += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((created, refused), (10, 40));
    assert_eq!(all(&store).await.len(), 10);
    let check = store
        .quota_check(ana.id, MediaType::Movie, 1)
        .await
        .unwrap();
    assert_eq!(check.allowances[0].remaining, 0);
}

#[tokio::test]
async fn a_refusal_creates_nothing_and_says_when_it_fits() {
    let (_dir, store) = file_store().await;
    let kid = person(&store, "kid", Role::Kid).await;
    store
        .set_quota(
            &QuotaScope::Role { role: Role::Kid },
            MediaType::Movie,
            1,
            7,
        )
        .await
        .unwrap();
    let RequestOutcome::Created { request, .. } =
        store.create_request(&movie(kid.id, "tt1")).await.unwrap()
    else {
        panic!()
    };
    assert_eq!((request.status, request.units), (RequestStatus::Pending, 1));
    let RequestOutcome::QuotaExceeded(q) =
        store.create_request(&movie(kid.id, "tt2")).await.unwrap()
    else {
        panic!()
    };
    assert_eq!(q.fit, Fit::At(request.created_at + 7 * 86_400_000));
    assert_eq!(q.max_units_now, Some(0));
    assert_eq!(all(&store).await.len(), 1);

    // The same title again is already requested, for anyone, and charges nothing.
    let bo = person(&store, "bo", Role::User).await;
    assert!(matches!(
        store.create_request(&movie(bo.id, "tt1")).await.unwrap(),
        RequestOutcome::AlreadyRequested { open } if open.len() == 1
    ));

    // Rejecting gives the unit back.
    let owner = person(&store, "olga", Role::Owner).await;
    let decided = store
        .decide_request(request.id, owner.id, false, Some("not now"))
        .await
        .unwrap();
    assert_eq!(decided.status, RequestStatus::Rejected);
    assert_eq!(decided.decided_by.as_deref(), Some("olga"));
    let again = store
        .decide_request(request.id, owner.id, true, None)
        .await
        .unwrap_err();
    assert!(matches!(again, store::Error::Conflict(_)), "{again:?}");
    assert!(matches!(
        store.create_request(&movie(kid.id, "tt2")).await.unwrap(),
        RequestOutcome::Created { .. }
    ));
}

#[tokio::test]
async fn seasons_count_and_open_seasons_are_left_out() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let ben = person(&store, "ben", Role::User).await;
    store
        .set_quota(&QuotaScope::Role { role: Role::User }, MediaType::Tv, 3, 30)
        .await
        .unwrap();
    // Ben's own quota replaces the role's.
    let ben_scope = QuotaScope::Person {
        person: ben.id,
        name: "ben".into(),
    };
    store
        .set_quota(&ben_scope, MediaType::Tv, 10, 1)
        .await
        .unwrap();

    let RequestOutcome::QuotaExceeded(q) = store
        .create_request(&show(ana.id, "1399", &[1, 2, 3, 4]))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((q.requested_units, q.fit), (4, Fit::Never));
    let RequestOutcome::Created { request, .. } = store
        .create_request(&show(ana.id, "1399", &[1, 2]))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((request.seasons.clone(), request.units), (vec![1, 2], 2));
    let RequestOutcome::Created {
        request,
        already_covered,
        ..
    } = store
        .create_request(&show(ben.id, "1399", &[2, 3, 4, 5, 6]))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(already_covered, [2]);
    assert_eq!((request.seasons, request.units), (vec![3, 4, 5, 6], 4));
    let check = store.quota_check(ben.id, MediaType::Tv, 1).await.unwrap();
    assert_eq!(check.allowances.len(), 1);
    assert_eq!(check.allowances[0].rule.scope, ben_scope);
    assert_eq!(check.allowances[0].remaining, 6);

    // Admins are exempt: nothing charged, approved at once when asked.
    let boss = person(&store, "boss", Role::Admin).await;
    let mut own = show(boss.id, "82728", &[1, 2, 3]);
    own.auto_approve = true;
    let RequestOutcome::Created { request, quota, .. } = store.create_request(&own).await.unwrap()
    else {
        panic!()
    };
    assert!(quota.exempt);
    assert_eq!(
        (request.status, request.units),
        (RequestStatus::Approved, 0)
    );
    assert_eq!(
        store.count_requests(RequestStatus::Approved).await.unwrap(),
        1
    );

    assert_eq!(store.quota_rules().await.unwrap().len(), 2);
    assert_eq!(store.clear_quotas(&ben_scope, None, None).await.unwrap(), 1);
    let bad = store
        .set_quota(
            &QuotaScope::Role { role: Role::Kid },
            MediaType::Movie,
            1,
            3,
        )
        .await
        .unwrap_err();
    assert!(matches!(bad, store::Error::Invalid(_)), "{bad:?}");
}
