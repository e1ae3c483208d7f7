//! Collections on the three media servers' contract fakes: the libraries listed, a collection
//! created with items, filled, emptied of one, read back and deleted, each through the paths
//! and parameters the vendors document; ids that are not ids never reach a URL.

#![allow(clippy::unwrap_used)]

use adapters_media::{Error, MediaClient, Server};
use domain::Secret;
use test_support::media::{FakeMedia, MEDIA_TOKEN, MediaKind};

async fn on(kind: MediaKind) -> (FakeMedia, MediaClient) {
    let fake = FakeMedia::start(kind).await;
    let server = match kind {
        MediaKind::Jellyfin => Server::Jellyfin,
        MediaKind::Emby => Server::Emby,
        MediaKind::Plex => Server::Plex,
    };
    let client = MediaClient::new(
        server,
        fake.url().parse().unwrap(),
        Secret::new(MEDIA_TOKEN),
        Vec::new(),
        httpx::Timeouts::default(),
    )
    .unwrap();
    (fake, client)
}

#[tokio::test]
async fn a_collection_is_made_filled_emptied_and_deleted_on_each_server() {
    for kind in [MediaKind::Jellyfin, MediaKind::Emby, MediaKind::Plex] {
        let (fake, client) = on(kind).await;
        let libraries = client.libraries().await.unwrap();
        let movies = libraries
            .iter()
            .find(|l| l.kind == "movies")
            .unwrap()
            .clone();
        assert!(
            libraries.iter().any(|l| l.kind == "shows"),
            "{kind:?}: {libraries:?}"
        );

        // The library's own item ids, as its reads hand them out.
        let items = client.all_items().await.unwrap();
        let id_of = |name: &str| items.iter().find(|i| i.title == name).unwrap().id.clone();
        let (paddington, alien) = (id_of("Paddington"), id_of("Alien"));

        let id = client
            .create_collection(&movies, "Friday night", std::slice::from_ref(&paddington))
            .await
            .unwrap();
        client
            .add_to_collection(&id, std::slice::from_ref(&alien))
            .await
            .unwrap();
        assert_eq!(
            client.collection_items(&id).await.unwrap(),
            [paddington.clone(), alien.clone()],
            "{kind:?}"
        );
        assert_eq!(
            fake.collections(),
            [(
                "Friday night".to_string(),
                vec!["Paddington".to_string(), "Alien".to_string()]
            )]
        );
        client
            .remove_from_collection(&id, std::slice::from_ref(&alien))
            .await
            .unwrap();
        assert_eq!(
            client.collection_items(&id).await.unwrap(),
            vec![paddington.clone()]
        );
        client.delete_collection(&movies, &id).await.unwrap();
        assert!(fake.collections().is_empty(), "{kind:?}");

        // A deleted collection is gone: the server says so, by status.
        let gone = client.collection_items(&id).await;
        assert!(
            matches!(gone, Err(Error::Http { .. })),
            "{kind:?}: {gone:?}"
        );
        // Ids that are not ids are refused before any request.
        let before = fake.requests().len();
        for bad in ["../Users", "a,b", "x?y=1"] {
            assert!(
                client
                    .add_to_collection(bad, std::slice::from_ref(&paddington))
                    .await
                    .is_err()
            );
            assert!(
                client
                    .add_to_collection(&id, &[bad.to_string()])
                    .await
                    .is_err()
            );
        }
        assert_eq!(fake.requests().len(), before, "{kind:?}");
    }
}
