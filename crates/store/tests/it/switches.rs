//! Tool switches.

use store::{Error, Store};

#[tokio::test]
async fn switches_default_empty_then_upsert() {
    let store = Store::open_in_memory().await.unwrap();
    assert!(store.tool_switches().await.unwrap().is_empty());

    store.set_tool_switch("delete_movie", false).await.unwrap();
    store.set_tool_switch("search", true).await.unwrap();
    store.set_tool_switch("delete_movie", false).await.unwrap();
    let switches = store.tool_switches().await.unwrap();
    assert_eq!(switches.len(), 2);
    assert!(!switches["delete_movie"]);
    assert!(switches["search"]);

    store.set_tool_switch("delete_movie", true).await.unwrap();
    assert!(store.tool_switches().await.unwrap()["delete_movie"]);

    for bad in ["", "bad\nname"] {
        let err = store.set_tool_switch(bad, false).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    }
}
