//! Tool switches, for everyone and for one person.

use domain::Role;
use store::{Error, Store};

#[tokio::test]
async fn switches_default_empty_then_upsert() {
    let store = Store::open_in_memory().await.unwrap();
    assert!(store.tool_switches().await.unwrap().all.is_empty());

    store.set_tool_switch("delete_movie", false).await.unwrap();
    store.set_tool_switch("search", true).await.unwrap();
    store.set_tool_switch("delete_movie", false).await.unwrap();
    let switches = store.tool_switches().await.unwrap();
    assert_eq!(switches.all.len(), 2);
    assert_eq!(switches.for_all("delete_movie"), Some(false));
    assert_eq!(switches.for_all("search"), Some(true));

    store.set_tool_switch("delete_movie", true).await.unwrap();
    assert_eq!(
        store.tool_switches().await.unwrap().for_all("delete_movie"),
        Some(true)
    );

    for bad in ["", "bad\nname"] {
        let err = store.set_tool_switch(bad, false).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    }
}

#[tokio::test]
async fn a_person_switch_wins_over_the_switch_for_everyone() {
    let store = Store::open_in_memory().await.unwrap();
    let kid = store.add_person("kid", Role::Kid).await.unwrap();
    let ann = store.add_person("ann", Role::User).await.unwrap();
    store
        .set_person_tool_switch(kid.id, "search_titles", false)
        .await
        .unwrap();
    let s = store.tool_switches().await.unwrap();
    assert!(!s.enabled("search_titles", kid.id));
    assert!(s.enabled("search_titles", ann.id), "others keep it");
    assert!(s.enabled("whoami", kid.id), "other tools stay on");

    store.set_tool_switch("get_trending", false).await.unwrap();
    store
        .set_person_tool_switch(ann.id, "get_trending", true)
        .await
        .unwrap();
    let s = store.tool_switches().await.unwrap();
    assert!(!s.enabled("get_trending", kid.id));
    assert!(s.enabled("get_trending", ann.id));
    assert_eq!(s.for_people("get_trending"), [(ann.id, true)]);

    let err = store
        .set_person_tool_switch(domain::PersonId(999), "whoami", false)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
}
