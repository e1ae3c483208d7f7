//! How a shortlist row shows, through the real MCP endpoint against the Jellyfin fake: a
//! collection ordered by title with its first title's artwork as poster; the same row renamed
//! and ordered by release has its old collection removed when the plan is applied, and the
//! next run makes the new one; a kid's playlist is owned by the kid's user on the server and
//! keeps to their limits; a playlist for several people, or for someone with no user there, is
//! refused when planned; cleanup removes the playlist.

use domain::{InstanceKind, Role};
use serde_json::{Value, json};
use store::ContentLimits;
use test_support::media::{FakeMedia, MediaKind, Shelf};

use crate::{
    media::serve,
    support::{Server, outcome},
};

async fn call(s: &Server, tool: &str, args: Value) -> (bool, String, Value) {
    outcome(&s.call(&s.owner_key, tool, args).await)
}

/// Plans with the owner's key and applies at once; the applied answer.
async fn planned(s: &Server, tool: &str, args: Value) -> Value {
    let (err, summary, data) = call(s, tool, args).await;
    assert!(!err, "{tool}: {summary} {data}");
    let change = data["change_id"].as_str().unwrap();
    let apply = json!({"change_id": change, "idempotency_key": format!("k-{change}")});
    let (err, summary, data) = call(s, "apply_change", apply).await;
    assert!(!err, "apply {tool}: {summary} {data}");
    data
}

fn movie(imdb: &str) -> Value {
    json!({"media_source": "builtin", "media_id": imdb, "media_type": "movie"})
}

/// The id of the row named `name`.
async fn row_named(s: &Server, name: &str) -> i64 {
    let (_, _, rows) = call(s, "list_rows", json!({})).await;
    let rows = rows["rows"].as_array().unwrap();
    let row = rows.iter().find(|r| r["name"] == name).unwrap();
    row["row_id"].as_i64().unwrap()
}

fn shelf<'f>(shelves: &'f [Shelf], name: &str) -> Option<&'f Shelf> {
    shelves.iter().find(|s| s.name == name)
}

#[tokio::test]
async fn a_row_shows_as_an_ordered_collection_with_a_poster_or_as_a_kids_playlist() {
    let fake = FakeMedia::start(MediaKind::Jellyfin).await;
    fake.add_movie("Zodiac", 2007, "tt0443706");
    fake.set_rating("Zodiac", "R");
    let s = serve(&[("jf", fake.url(), InstanceKind::Jellyfin)]).await;
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..ContentLimits::default()
    };
    s.key_with_limits("kid", Role::Kid, "reader", limits).await;
    s.key_with_limits("gran", Role::User, "reader", ContentLimits::default())
        .await;
    let store = s.host.app.store();
    let kid = store.person_by_name("kid").await.unwrap().unwrap();
    store.link_media_user(kid.id, "jf", "kid-jf").await.unwrap();

    // Paddington (2014, PG), Alien (1979, R), Zodiac (2007, R).
    let picks = json!([movie("tt1109624"), movie("tt0078748"), movie("tt0443706")]);
    planned(&s, "plan_theme", json!({"name": "Mixed", "picks": picks})).await;
    let (_, _, themes) = call(&s, "list_themes", json!({})).await;
    let theme_id = themes["themes"][0]["theme_id"].as_i64().unwrap();
    let (_, _, libraries) = call(&s, "list_libraries", json!({"instance_id": "jf"})).await;
    let movies = libraries["libraries"][0]["library_id"]
        .as_str()
        .unwrap()
        .to_string();

    // A collection by title, with a poster.
    let row = json!({"theme_id": theme_id, "instance_id": "jf", "library_id": movies,
        "name": "Friday", "enabled": true, "display": {"sort": "title"}});
    planned(&s, "plan_row", row).await;
    let row_id = row_named(&s, "Friday").await;
    let (_, _, shown) = call(&s, "get_row", json!({"row_id": row_id})).await;
    assert_eq!(
        shown["display"],
        json!({"kind": "collection", "sort": "title", "poster": true})
    );
    let (_, _, preview) = call(&s, "preview_row", json!({"row_id": row_id})).await;
    let order: Vec<&str> = preview["shown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["Alien", "Paddington", "Zodiac"], "{preview}");
    let ran = planned(
        &s,
        "plan_run",
        json!({"row_ids": [row_id], "dry_run": false}),
    )
    .await;
    assert_eq!(ran["result"]["rows"][0]["outcome"], "done", "{ran}");
    let shelves = fake.shelves();
    let friday = shelf(&shelves, "Friday").expect("the collection is made");
    assert_eq!(
        (friday.user.as_deref(), friday.order.as_deref()),
        (None, Some("SortName"))
    );
    assert_eq!(friday.items, ["Alien", "Paddington", "Zodiac"]);
    assert_eq!(friday.poster.as_deref(), Some("poster of Alien"));

    // Renamed and ordered by release: applying the plan removes the old collection first, and
    // the next run makes the new one, oldest first.
    let renamed = json!({"row_id": row_id, "theme_id": theme_id, "instance_id": "jf",
        "library_id": movies, "name": "Friday night", "enabled": true});
    let (err, summary, data) = call(&s, "plan_row", renamed).await;
    assert!(!err, "{summary}");
    let change = data["change_id"].as_str().unwrap().to_string();
    let (_, _, review) = call(&s, "get_change", json!({"change_id": change})).await;
    assert_eq!(review["plan"]["replaces"]["name"], "Friday", "{review}");
    assert!(
        review["summary"]
            .as_str()
            .unwrap()
            .contains("removing the old \"Friday\" Marquee made on jf first"),
        "the owner sees the removal before approving: {review}"
    );
    let apply = json!({"change_id": change, "idempotency_key": "k-rename"});
    let (err, summary, _) = call(&s, "apply_change", apply).await;
    assert!(!err, "{summary}");
    assert!(
        shelf(&fake.shelves(), "Friday").is_none(),
        "old one removed"
    );
    planned(
        &s,
        "plan_run",
        json!({"row_ids": [row_id], "dry_run": false}),
    )
    .await;
    let shelves = fake.shelves();
    let night = shelf(&shelves, "Friday night").expect("the new collection is made");
    assert_eq!(night.items, ["Alien", "Zodiac", "Paddington"]);
    assert_eq!(night.order.as_deref(), Some("PremiereDate"));
    assert_eq!(shelves.len(), 1, "{shelves:?}");

    // A playlist is one person's, and that person needs a user on the server.
    let playlist = |audience: Value| {
        json!({"theme_id": theme_id, "instance_id": "jf", "library_id": movies,
            "name": "Kid's picks", "audience": audience, "enabled": true,
            "display": {"kind": "playlist"}})
    };
    let (err, summary, _) = call(&s, "plan_row", playlist(json!(["kid", "gran"]))).await;
    assert!(err && summary.contains("exactly one person"), "{summary}");
    let (err, summary, _) = call(&s, "plan_row", playlist(json!(["gran"]))).await;
    assert!(
        err && summary.contains("gran has no user on jf"),
        "{summary}"
    );
    planned(&s, "plan_row", playlist(json!(["kid"]))).await;
    let kids_row = row_named(&s, "Kid's picks").await;
    let ran = planned(
        &s,
        "plan_run",
        json!({"row_ids": [kids_row], "dry_run": false}),
    )
    .await;
    assert_eq!(ran["result"]["rows"][0]["outcome"], "done", "{ran}");
    let shelves = fake.shelves();
    let kids = shelf(&shelves, "Kid's picks").expect("the playlist is made");
    assert_eq!(kids.user.as_deref(), Some("kid-jf"));
    assert_eq!(kids.items, ["Paddington"], "the kid's limits hold");
    assert_eq!(kids.poster.as_deref(), Some("poster of Paddington"));
    let again = planned(
        &s,
        "plan_run",
        json!({"row_ids": [kids_row], "dry_run": false}),
    )
    .await;
    assert_eq!(
        (
            again["result"]["rows"][0]["added"].clone(),
            fake.shelves().len()
        ),
        (json!(0), 2),
        "a second run changes nothing"
    );

    // Cleanup removes the playlist and leaves the collection.
    let cleaned = planned(
        &s,
        "plan_maintenance",
        json!({"action": "cleanup", "row_ids": [kids_row]}),
    )
    .await;
    assert_eq!(
        cleaned["result"]["steps"][0]["outcome"], "done",
        "{cleaned}"
    );
    let shelves = fake.shelves();
    assert_eq!(
        shelves.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Friday night"]
    );
}

#[tokio::test]
async fn on_plex_a_collection_is_sorted_and_a_playlist_is_made_with_the_kids_own_token() {
    let fake = FakeMedia::start(MediaKind::Plex).await;
    let s = serve(&[("px", fake.url(), InstanceKind::Plex)]).await;
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..ContentLimits::default()
    };
    s.key_with_limits("kid", Role::Kid, "reader", limits).await;
    let store = s.host.app.store();
    let kid = store.person_by_name("kid").await.unwrap().unwrap();
    store.link_media_user(kid.id, "px", "kid").await.unwrap();
    let picks = json!([movie("tt1109624"), movie("tt0078748")]);
    planned(&s, "plan_theme", json!({"name": "Two", "picks": picks})).await;
    let (_, _, themes) = call(&s, "list_themes", json!({})).await;
    let theme_id = themes["themes"][0]["theme_id"].as_i64().unwrap();

    for (name, audience, display) in [
        ("Everyone", json!([]), json!({"sort": "title"})),
        ("Kid's", json!(["kid"]), json!({"kind": "playlist"})),
    ] {
        let row = json!({"theme_id": theme_id, "instance_id": "px", "library_id": "1",
            "name": name, "audience": audience, "enabled": true, "display": display});
        planned(&s, "plan_row", row).await;
        let row_id = row_named(&s, name).await;
        let ran = planned(
            &s,
            "plan_run",
            json!({"row_ids": [row_id], "dry_run": false}),
        )
        .await;
        assert_eq!(ran["result"]["rows"][0]["outcome"], "done", "{ran}");
    }
    let shelves = fake.shelves();
    let everyone = shelf(&shelves, "Everyone").unwrap();
    assert_eq!(
        (everyone.order.as_deref(), everyone.poster.as_deref()),
        (Some("1"), Some("poster of Alien")),
        "sorted by title, the first title's artwork as poster"
    );
    let kids = shelf(&shelves, "Kid's").unwrap();
    assert_eq!(
        (kids.user.as_deref(), kids.items.clone()),
        (Some("kid"), vec!["Paddington".to_string()])
    );
}
