//! More metadata sources as catalogue instances: TVDB (rows with IMDb and TMDB ids mapped, and
//! playable on the household's media server by TVDB id), AniList (read by MyAnimeList id too),
//! and LRCLIB's lyrics (by a MusicBrainz recording or by track and artist), each through a
//! kid's content limits.

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::{
    AniListFake, LrclibFake, MusicBrainzFake, TvdbFake,
    media::{FakeMedia, MEDIA_TOKEN, MediaKind},
};

use crate::support::{builtin, instance, outcome, server_with_instances};

/// Bluey's item id on the Jellyfin fake.
const BLUEY: &str = "a0000000-0000-4000-8000-000000000010";

/// A key for a kid with these limits.
async fn kid(s: &crate::support::Server, name: &str, limits: ContentLimits) -> String {
    s.key_with_limits(name, Role::Kid, "requester", limits)
        .await
}

fn titles(data: &Value) -> Vec<String> {
    data["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn tvdb_answers_searches_and_details_with_playable_on_and_kid_limits() {
    let tvdb = TvdbFake::start().await;
    let jellyfin = FakeMedia::start(MediaKind::Jellyfin).await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tvdb",
            InstanceKind::Tvdb,
            Some(tvdb.base_url()),
            Some(TvdbFake::API_KEY),
        ),
        instance(
            "jellyfin",
            InstanceKind::Jellyfin,
            Some(&jellyfin.url()),
            Some(MEDIA_TOKEN),
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s
        .call(
            &alice,
            "search_titles",
            json!({"query": "bluey", "media_type": "tv", "instance_id": "tvdb"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    let row = &data["results"][0];
    assert_eq!(
        (row["media_source"].as_str(), row["media_id"].as_str()),
        (Some("tvdb"), Some("353546")),
        "{r}"
    );
    assert_eq!(row["playable_on"][0]["instance_id"], "jellyfin", "{r}");
    assert_eq!(row["playable_on"][0]["item_id"], BLUEY, "{r}");

    // A TMDB id read through TVDB's mapping, when TVDB is the only catalogue of shows.
    let r = s
        .call(
            &alice,
            "get_title_details",
            json!({"media_source": "tmdb", "media_id": "82728", "media_type": "tv"}),
        )
        .await;
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(
        (data["media_source"].as_str(), data["media_id"].as_str()),
        (Some("tvdb"), Some("353546")),
        "{r}"
    );
    assert_eq!(data["rating"], "TV-Y", "{r}");
    assert!(summary.contains("Playable now on jellyfin"), "{summary}");

    let kid = kid(
        &s,
        "kid",
        ContentLimits {
            max_tv_rating: Some("TV-Y7".into()),
            ..ContentLimits::default()
        },
    )
    .await;
    let r = s
        .call(
            &kid,
            "search_titles",
            json!({"query": "the", "media_type": "tv", "instance_id": "tvdb"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert!(!titles(&data).contains(&"The Expanse".to_string()), "{r}");
    assert_eq!(data["hidden_by_limits"], 1, "{r}");
    let r = s
        .call(
            &kid,
            "get_title_details",
            json!({"media_source": "tvdb", "media_id": "280619", "media_type": "tv"}),
        )
        .await;
    let (err, summary, _) = outcome(&r);
    assert!(err, "{r}");
    assert_eq!(
        summary, "That title is not available for this account.",
        "{r}"
    );
    assert!(!r.to_string().contains(TvdbFake::API_KEY));
}

#[tokio::test]
async fn anilist_titles_are_found_and_read_by_myanimelist_id_and_kept_from_a_limited_kid() {
    let anilist = AniListFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "anilist",
            InstanceKind::Anilist,
            Some(anilist.base_url()),
            None,
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s
        .call(
            &alice,
            "search_titles",
            json!({"query": "cowboy", "instance_id": "anilist"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert!(titles(&data).contains(&"Cowboy Bebop".to_string()), "{r}");
    assert!(!titles(&data).contains(&"Cowboy Nights".to_string()), "{r}");
    let r = s
        .call(
            &alice,
            "get_title_details",
            json!({"media_source": "myanimelist", "media_id": "1", "media_type": "tv"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(
        (data["media_source"].as_str(), data["title"].as_str()),
        (Some("anilist"), Some("Cowboy Bebop")),
        "{r}"
    );
    assert!(
        r.to_string().contains("myanimelist"),
        "the mapping is shown: {r}"
    );

    // AniList rates nothing: a kid whose limits hide unrated titles sees none of it.
    let strict = kid(
        &s,
        "strict",
        ContentLimits {
            block_unrated: true,
            ..ContentLimits::default()
        },
    )
    .await;
    let r = s
        .call(
            &strict,
            "search_titles",
            json!({"query": "cowboy", "media_type": "tv", "instance_id": "anilist"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert!(titles(&data).is_empty(), "{r}");
    assert_eq!(data["hidden_by_limits"], 1, "{r}");
    // A title AniList marks adult is beyond any rating cap, even read by its id.
    let capped = kid(
        &s,
        "capped",
        ContentLimits {
            max_tv_rating: Some("TV-PG".into()),
            ..ContentLimits::default()
        },
    )
    .await;
    let r = s
        .call(
            &capped,
            "get_title_details",
            json!({"media_source": "anilist", "media_id": "900001", "media_type": "tv"}),
        )
        .await;
    let (err, summary, _) = outcome(&r);
    assert!(err, "{r}");
    assert_eq!(
        summary, "That title is not available for this account.",
        "{r}"
    );
    let r = s
        .call(
            &capped,
            "get_title_details",
            json!({"media_source": "anilist", "media_id": "1", "media_type": "tv"}),
        )
        .await;
    assert!(
        !outcome(&r).0,
        "an unrated title passes a cap unless unrated titles are hidden: {r}"
    );
}

#[tokio::test]
async fn get_lyrics_finds_a_musicbrainz_recording_or_a_named_song() {
    let mb = MusicBrainzFake::start().await;
    let lrclib = LrclibFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "musicbrainz",
            InstanceKind::Musicbrainz,
            Some(mb.base_url()),
            None,
        ),
        instance(
            "lrclib",
            InstanceKind::Lrclib,
            Some(lrclib.base_url()),
            None,
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s
        .call(
            &alice,
            "get_lyrics",
            json!({"media_source": "musicbrainz", "media_id": "2a4b6c8d-0e1f-4a3b-8c5d-7e9f1a3b5c06"}),
        )
        .await;
    let (err, summary, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(
        (data["media_source"].as_str(), data["media_id"].as_str()),
        (Some("lrclib"), Some("3002")),
        "{r}"
    );
    assert_eq!(data["format"], "plain", "{r}");
    assert!(
        summary.starts_with("\"Paranoid Android\" by Radiohead"),
        "{summary}"
    );
    let sent = lrclib.requests();
    let asked = sent.last().unwrap();
    assert_eq!(
        asked.param("track_name"),
        Some("Paranoid Android"),
        "{asked:?}"
    );

    let r = s
        .call(
            &alice,
            "get_lyrics",
            json!({"track": "Dancing Queen", "artist": "ABBA", "synced": true}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["format"], "synced", "{r}");
    assert!(data["lyrics"].as_str().unwrap().starts_with('['), "{r}");

    let r = s
        .call(
            &alice,
            "search_music",
            json!({"query": "paranoid", "kind": "recording", "instance_id": "lrclib"}),
        )
        .await;
    let (err, _, data) = outcome(&r);
    assert!(!err, "{r}");
    assert_eq!(data["results"][0]["album"], "OK Computer", "{r}");

    for bad in [
        json!({"media_source": "tmdb", "media_id": "603"}),
        json!({"track": "Dancing Queen"}),
        json!({"media_source": "lrclib", "media_id": "3001", "artist": "ABBA"}),
    ] {
        let r = s.call(&alice, "get_lyrics", bad.clone()).await;
        assert!(outcome(&r).0, "{bad} is refused: {r}");
    }

    let kid = kid(
        &s,
        "kid",
        ContentLimits {
            block_unrated: true,
            ..ContentLimits::default()
        },
    )
    .await;
    let r = s
        .call(
            &kid,
            "get_lyrics",
            json!({"media_source": "lrclib", "media_id": "3001"}),
        )
        .await;
    assert!(outcome(&r).0, "{r}");
    assert!(
        r.to_string().contains("not available for this account"),
        "{r}"
    );
}

#[tokio::test]
async fn a_source_that_is_down_is_named_and_the_others_answer() {
    let anilist = AniListFake::start().await;
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "tvdb",
            InstanceKind::Tvdb,
            Some("http://127.0.0.1:9/v4"),
            Some("a-key"),
        ),
        instance(
            "anilist",
            InstanceKind::Anilist,
            Some(anilist.base_url()),
            None,
        ),
    ])
    .await;
    let alice = s.key_for("alice", Role::User, "requester").await;
    let r = s
        .call(
            &alice,
            "search_titles",
            json!({"query": "bluey", "instance_id": "tvdb"}),
        )
        .await;
    let (err, summary, _) = outcome(&r);
    assert!(err, "{r}");
    assert!(
        summary.contains("\"tvdb\"") && summary.contains("diagnose"),
        "{summary}"
    );
    assert!(!r.to_string().contains("a-key"), "{r}");
    let r = s
        .call(
            &alice,
            "search_titles",
            json!({"query": "spirited", "instance_id": "anilist"}),
        )
        .await;
    assert!(!outcome(&r).0, "{r}");
    let r = s.call(&s.owner_key, "list_instances", json!({})).await;
    let listed = &r["structuredContent"]["data"]["instances"];
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == "tvdb" && i["family"] == "metadata"),
        "{listed}"
    );
    let r = s
        .call(
            &alice,
            "get_title_details",
            json!({"media_source": "trakt", "media_id": "1", "media_type": "tv"}),
        )
        .await;
    assert!(
        r.to_string().contains("`anilist`, `myanimelist`, `lrclib`"),
        "the valid sources are listed: {r}"
    );
}
