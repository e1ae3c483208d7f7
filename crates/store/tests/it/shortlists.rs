//! Shortlist themes and rows: names unique, a row's theme must exist, a row moved to another
//! server or library forgets the collection a run made (that id means nothing there), and a
//! setup saves its theme and row together or neither.

use domain::Role;
use store::{Error, NewRow, NewTheme, Store};

use crate::person;

fn theme(name: &str) -> NewTheme {
    NewTheme {
        id: None,
        name: name.into(),
        description: String::new(),
        picks: "[]".into(),
        rules: "{}".into(),
    }
}

fn row(theme_id: i64, instance: &str, library: &str) -> NewRow {
    NewRow {
        id: None,
        theme_id,
        instance_id: instance.into(),
        library_id: library.into(),
        name: "Friday".into(),
        audience: Vec::new(),
        enabled: false,
        display: store::Display::default(),
    }
}

#[tokio::test]
async fn names_are_unique_and_a_moved_row_forgets_its_collection() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::Admin).await;
    let t = store.save_theme(&theme("Heists"), ana.id).await.unwrap();
    let taken = store.save_theme(&theme("heists"), ana.id).await;
    assert!(matches!(taken, Err(Error::Conflict(_))), "{taken:?}");
    let missing = store
        .save_shortlist_row(&row(99, "jf", "lib"), ana.id)
        .await;
    assert!(matches!(missing, Err(Error::NotFound(_))), "{missing:?}");

    let saved = store
        .save_shortlist_row(&row(t.id, "jf", "lib"), ana.id)
        .await
        .unwrap();
    store
        .set_row_collection(saved.id, Some("c1"))
        .await
        .unwrap();
    let again = store
        .save_shortlist_row(&row(t.id, "jf", "lib"), ana.id)
        .await;
    assert!(
        matches!(again, Err(Error::Conflict(_))),
        "the name is taken on that server"
    );

    let same = NewRow {
        id: Some(saved.id),
        enabled: true,
        ..row(t.id, "jf", "lib")
    };
    let kept = store.save_shortlist_row(&same, ana.id).await.unwrap();
    assert_eq!(
        (kept.enabled, kept.collection_id.as_deref()),
        (true, Some("c1"))
    );
    let resorted = NewRow {
        id: Some(saved.id),
        display: store::Display {
            sort: "title".into(),
            ..store::Display::default()
        },
        ..row(t.id, "jf", "lib")
    };
    let resorted = store.save_shortlist_row(&resorted, ana.id).await.unwrap();
    assert_eq!(
        (resorted.display.sort.as_str(), resorted.collection_id),
        ("title", None),
        "shown another way: the run makes the collection anew"
    );
    store
        .set_row_collection(saved.id, Some("c2"))
        .await
        .unwrap();
    let moved = NewRow {
        id: Some(saved.id),
        ..row(t.id, "plex", "1")
    };
    let moved = store.save_shortlist_row(&moved, ana.id).await.unwrap();
    assert_eq!(
        (moved.instance_id.as_str(), moved.collection_id),
        ("plex", None)
    );
}
