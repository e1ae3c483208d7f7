//! People: adding, reading, limits, and the first-start owner.

use domain::{Capability, PersonId, Role};
use store::{ContentLimits, Error, Store};

use crate::{file_store, person};

#[tokio::test]
async fn add_and_read_people() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::Admin).await;
    let kid = person(&store, "léa", Role::Kid).await;
    assert_eq!(ana.role, Role::Admin);
    assert!(ana.limits.is_unlimited());
    assert!(kid.id > ana.id);

    assert_eq!(store.people().await.unwrap(), [ana.clone(), kid.clone()]);
    assert_eq!(
        store.person_by_name("léa").await.unwrap(),
        Some(kid.clone())
    );
    assert_eq!(store.person(ana.id).await.unwrap(), Some(ana));
    assert_eq!(store.person_by_name("Léa").await.unwrap(), None);
    assert_eq!(store.person(PersonId(999)).await.unwrap(), None);
}

#[tokio::test]
async fn a_taken_name_is_a_conflict() {
    let store = Store::open_in_memory().await.unwrap();
    person(&store, "ana", Role::User).await;
    let err = store.add_person("ana", Role::Kid).await.unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    assert_eq!(err.to_string(), "a person named \"ana\" already exists");
    assert_eq!(store.people().await.unwrap().len(), 1);
}

#[tokio::test]
async fn unusable_names_are_invalid() {
    let store = Store::open_in_memory().await.unwrap();
    let long = "x".repeat(65);
    for bad in [
        "",
        long.as_str(),
        "tab\there",
        "new\nline",
        "nul\0",
        " ana",
        "ana ",
    ] {
        let err = store.add_person(bad, Role::User).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{bad:?}: {err:?}");
        let err = store.bootstrap_owner(bad).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{bad:?}: {err:?}");
    }
    // The limit counts characters, not bytes.
    person(&store, &"é".repeat(64), Role::User).await;
    person(&store, "Ana Maria", Role::User).await;
    assert_eq!(store.people().await.unwrap().len(), 2);
}

#[tokio::test]
async fn limits_round_trip() {
    let store = Store::open_in_memory().await.unwrap();
    let kid = person(&store, "kid", Role::Kid).await;
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        max_tv_rating: Some("TV-Y7".into()),
        rating_region: Some("US".into()),
        block_unrated: true,
        blocked_genres: vec!["Horror".into(), "War".into()],
    };
    store.set_limits(kid.id, &limits).await.unwrap();
    let read = store.person(kid.id).await.unwrap().unwrap();
    assert_eq!(read.limits, limits);

    store
        .set_limits(kid.id, &ContentLimits::default())
        .await
        .unwrap();
    let read = store.person_by_name("kid").await.unwrap().unwrap();
    assert!(read.limits.is_unlimited());

    let err = store.set_limits(PersonId(999), &limits).await.unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
}

#[tokio::test]
async fn bootstrap_creates_the_owner_exactly_once() {
    let store = Store::open_in_memory().await.unwrap();
    let (owner, key) = store.bootstrap_owner("maria").await.unwrap().unwrap();
    assert_eq!((owner.name.as_str(), owner.role), ("maria", Role::Owner));
    assert_eq!(key.info.person, "maria");
    assert_eq!(key.info.grant, "owner");

    let authority = store
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(authority.person, owner);
    assert!(authority.grant.allows(Capability::DestructiveDirect));

    assert!(store.bootstrap_owner("maria").await.unwrap().is_none());
    assert!(store.bootstrap_owner("someone").await.unwrap().is_none());
    assert_eq!(store.people().await.unwrap().len(), 1);
    assert_eq!(store.keys().await.unwrap().len(), 1);
}

#[tokio::test]
async fn bootstrap_does_nothing_when_people_exist() {
    let store = Store::open_in_memory().await.unwrap();
    person(&store, "ana", Role::User).await;
    assert!(store.bootstrap_owner("owner").await.unwrap().is_none());
    assert_eq!(store.people().await.unwrap().len(), 1);
    assert!(store.keys().await.unwrap().is_empty());
}

/// Several first starts racing on one file create one owner and one key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_bootstraps_on_a_file_create_one_owner() {
    let (dir, first) = file_store().await;
    // Two separate stores (pools) on one file, like two processes, plus tasks sharing one pool.
    let second = Store::open(dir.path()).await.unwrap();
    let stores = [first.clone(), second, first.clone(), first];
    let tasks: Vec<_> = stores
        .into_iter()
        .enumerate()
        .map(|(i, s)| tokio::spawn(async move { s.bootstrap_owner(&format!("owner{i}")).await }))
        .collect();
    let mut created = 0;
    for task in tasks {
        if task.await.unwrap().unwrap().is_some() {
            created += 1;
        }
    }
    assert_eq!(created, 1);
    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(store.people().await.unwrap().len(), 1);
    assert_eq!(store.keys().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_bootstraps_in_memory_create_one_owner() {
    let store = Store::open_in_memory().await.unwrap();
    let tasks: Vec<_> = (0..2)
        .map(|i| {
            let s = store.clone();
            tokio::spawn(async move { s.bootstrap_owner(&format!("owner{i}")).await })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        created += usize::from(task.await.unwrap().unwrap().is_some());
    }
    assert_eq!(created, 1);
    assert_eq!(store.people().await.unwrap().len(), 1);
}
