//! A media id is checked against its `media_source` before any backend is asked: an id of
//! another source's shape (an IMDb `tt…` id given as tmdb, a TMDB number given as imdb or
//! musicbrainz) is refused with a sentence naming both, in discovery, the library, requests
//! and the media servers alike. Each backend sits behind the fault proxy, which counts every
//! request it is sent: a refused call sent none, and the same call with an id of the right
//! shape does reach it (so the count would see a call that slipped through); the media
//! servers, read into an index in the background, would have answered "not there".

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use domain::{InstanceKind, Secret};
use serde_json::{Value, json};
use store::Store;
use test_support::{
    ArrKind, FakeArr, FaultProxy, TmdbFake,
    arr::Resource,
    media::{FakeMedia, MEDIA_TOKEN, MediaKind},
};
use tools::{App, Called, Caller, InstanceSpec, Instances, Settings};

fn spec(id: &str, kind: InstanceKind, url: &str, key: &str) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: Some(url.parse().unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: Some(Secret::new(key.to_string())),
        default: false,
    }
}

struct World {
    app: App,
    owner: Caller,
    /// In front of TMDB, Radarr, Lidarr and Jellyfin, in that order.
    proxies: Vec<FaultProxy>,
    _fakes: (TmdbFake, FakeArr, FakeArr, FakeMedia),
}

async fn world() -> World {
    let tmdb = TmdbFake::start().await;
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.insert(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277", "monitored": true}),
    );
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    let lidarr = FakeArr::start(ArrKind::Lidarr).await;
    let jellyfin = FakeMedia::start(MediaKind::Jellyfin).await;
    let mut proxies = Vec::new();
    for url in [
        tmdb.base_url().to_string(),
        radarr.url(),
        lidarr.url(),
        jellyfin.url(),
    ] {
        proxies.push(FaultProxy::in_front_of(&url).await);
    }
    let list = vec![
        spec(
            "tmdb",
            InstanceKind::Tmdb,
            &proxies[0].url_for(tmdb.base_url()),
            TmdbFake::API_KEY,
        ),
        spec(
            "radarr",
            InstanceKind::Radarr,
            &proxies[1].url_for(&radarr.url()),
            radarr.api_key(),
        ),
        spec(
            "lidarr",
            InstanceKind::Lidarr,
            &proxies[2].url_for(&lidarr.url()),
            lidarr.api_key(),
        ),
        spec(
            "jellyfin",
            InstanceKind::Jellyfin,
            &proxies[3].url_for(&jellyfin.url()),
            MEDIA_TOKEN,
        ),
    ];
    let store = Store::open_in_memory().await.unwrap();
    let (_, owner_key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(list).unwrap()),
    );
    let owner = app
        .authenticate(owner_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    World {
        app,
        owner,
        proxies,
        _fakes: (tmdb, radarr, lidarr, jellyfin),
    }
}

impl World {
    /// The call's error message, or `None` when it succeeded.
    async fn error_of(&self, tool: &str, args: &Value) -> Option<String> {
        match self
            .app
            .call(&self.owner, tool, args.as_object().cloned())
            .await
        {
            Called::Done(Ok(_)) => None,
            Called::Done(Err(e)) => Some(e.message),
            Called::UnknownTool => panic!("unknown tool {tool}"),
        }
    }

    fn sent(&self) -> usize {
        self.proxies.iter().map(FaultProxy::requests).sum()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_of_another_sources_shape_is_refused_before_any_backend_is_asked() {
    let w = world().await;
    // (tool, arguments with a wrong-shaped id, what the refusal says, the same id right). The
    // media servers are read into an index in the background, not per call: there the refusal
    // itself is the point (the lookup would answer "no media server has it").
    let cases = [
        (
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "tt0113277", "media_type": "movie"}),
            "\"tt0113277\" is not an id at tmdb (imdb and builtin ids look like that); tmdb ids are digits",
            json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"}),
        ),
        (
            "get_history",
            json!({"media_source": "imdb", "media_id": "949", "media_type": "movie"}),
            "\"949\" is not an id at imdb (tmdb, tvdb, goodreads, anilist, myanimelist or lrclib ids look like that); imdb ids are tt and digits",
            json!({"media_source": "imdb", "media_id": "tt0113277", "media_type": "movie"}),
        ),
        (
            "rescan_media",
            json!({"media_source": "tmdb", "media_id": "tt0113277", "media_type": "movie"}),
            "\"tt0113277\" is not an id at tmdb",
            json!({"media_source": "tmdb", "media_id": "949", "media_type": "movie"}),
        ),
        (
            "request_media",
            json!({"media_source": "musicbrainz", "media_id": "603", "media_type": "music"}),
            "\"603\" is not an id at musicbrainz (tmdb, tvdb, goodreads, anilist, myanimelist or lrclib ids look like that); musicbrainz ids are a UUID",
            json!({"media_source": "musicbrainz", "media_id": "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f", "media_type": "music"}),
        ),
        (
            "query_library_exists",
            json!({"media_source": "tmdb", "media_id": "tt0078748", "media_type": "movie"}),
            "\"tt0078748\" is not an id at tmdb",
            json!({"media_source": "tmdb", "media_id": "348", "media_type": "movie"}),
        ),
        (
            "query_library_exists",
            json!({"media_source": "imdb", "media_id": "348", "media_type": "movie"}),
            "\"348\" is not an id at imdb",
            json!({"media_source": "imdb", "media_id": "tt0078748", "media_type": "movie"}),
        ),
    ];
    for (n, (tool, wrong, says, right)) in cases.into_iter().enumerate() {
        let asks = n < 4;
        for p in &w.proxies {
            p.clear();
        }
        let refused = w.error_of(tool, &wrong).await;
        assert!(
            refused.as_deref().is_some_and(|m| m.contains(says)),
            "{tool} {wrong}: {refused:?}"
        );
        assert_eq!(w.sent(), 0, "{tool} {wrong}: a backend was asked");
        // The same call with an id of the right shape is not refused for it and goes to its
        // backend (whatever it answers; the media servers' index, once read, is kept): the
        // count above would have seen a request.
        let answered = w.error_of(tool, &right).await;
        assert!(
            !answered
                .as_deref()
                .is_some_and(|m| m.contains("is not an id at")),
            "{tool} {right}: {answered:?}"
        );
        if asks {
            assert!(
                w.sent() > 0,
                "{tool} {right}: no backend was asked: {answered:?}"
            );
        }
    }
}
