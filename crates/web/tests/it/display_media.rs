//! `display_media` through the real MCP endpoint: the carousel rows within content limits, each
//! title's standing (requested, in a real Radarr fake's library), the whole input checked
//! first, the tool linked to its `ui://` view and the view served only to callers who can see
//! the tool. The view itself is opened in a real browser in `display_media_view.rs`.

use domain::{Capability, InstanceKind, Role};
use serde_json::{Value, json};
use store::{ContentLimits, GrantSpec};
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{builtin, instance, outcome, server_with_instances};

const VIEW: &str = "ui://marquee/carousel";

fn movie(id: &str) -> Value {
    json!({"media_source": "builtin", "media_id": id, "media_type": "movie"})
}

fn pg_kid() -> ContentLimits {
    ContentLimits {
        max_movie_cert: Some("PG".into()),
        rating_region: Some("US".into()),
        ..ContentLimits::default()
    }
}

fn titles(data: &Value) -> Vec<String> {
    data["titles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn named_titles_come_back_verified_in_order_with_rating_and_catalogue() {
    let s = server_with_instances(vec![builtin()]).await;
    let args = json!({"titles": [movie("tt0034583"), movie("tt0113277"), movie("tt0034583")], "heading": "Friday night"});
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "display_media", args).await);
    assert!(!err, "{summary}");
    assert_eq!(summary, "2 titles in the carousel.");
    assert_eq!(titles(&data), ["Casablanca", "Heat"]);
    let heat = &data["titles"][1];
    assert_eq!(heat["year"], 1995);
    assert_eq!(heat["rating"], "R");
    assert_eq!(heat["instance_id"], "builtin");
    assert_eq!(heat["requested"], Value::Null);
    assert_eq!(
        heat["in_library"],
        Value::Null,
        "no library instance to ask"
    );
    assert_eq!(data["heading"], "Friday night");
    assert_eq!(data["view"], VIEW);
    assert_eq!(data["hidden_by_limits"], 0);
}

#[tokio::test]
async fn a_kid_never_sees_a_title_above_the_limit_and_only_the_count_is_told() {
    let s = server_with_instances(vec![builtin()]).await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", pg_kid())
        .await;
    let args = json!({"titles": [movie("tt0034583"), movie("tt0113277")]});
    let (err, summary, data) = outcome(&s.call(&kid, "display_media", args).await);
    assert!(!err, "{summary}");
    assert_eq!(titles(&data), ["Casablanca"]);
    assert_eq!(data["hidden_by_limits"], 1);
    assert_eq!(data["content_limits_applied"], true);
    assert!(!summary.contains("Heat") && !data.to_string().contains("tt0113277"));

    let query = json!({"query": "heat"});
    let (err, _, all) = outcome(&s.call(&s.owner_key, "display_media", query.clone()).await);
    assert!(!err);
    let (err, _, mine) = outcome(&s.call(&kid, "display_media", query).await);
    assert!(!err);
    for t in mine["titles"].as_array().unwrap() {
        assert!(
            matches!(
                t["rating"].as_str(),
                Some("G" | "PG" | "M" | "M/PG" | "GP" | "unrated") | None
            ),
            "{t}"
        );
    }
    let shown = mine["titles"].as_array().unwrap().len() as u64;
    let hidden = mine["hidden_by_limits"].as_u64().unwrap();
    assert!(hidden > 0, "some heat films are rated above PG: {all}");
    assert!(shown + hidden >= all["titles"].as_array().unwrap().len() as u64);
}

#[tokio::test]
async fn a_requested_title_in_radarr_shows_in_library_and_its_request_status() {
    let radarr = FakeArr::start(ArrKind::Radarr).await;
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Casablanca", "year": 1942, "tmdbId": 289, "imdbId": "tt0034583"}),
        vec![],
    );
    radarr.seed_lookup(
        Resource::Movie,
        json!({"title": "Heat", "year": 1995, "tmdbId": 949, "imdbId": "tt0113277"}),
        vec![],
    );
    let s = server_with_instances(vec![
        builtin(),
        instance(
            "radarr",
            InstanceKind::Radarr,
            Some(&radarr.url()),
            Some(radarr.api_key()),
        ),
    ])
    .await;
    let (err, summary, _) = outcome(
        &s.call(&s.owner_key, "request_media", movie("tt0034583"))
            .await,
    );
    assert!(!err, "{summary}");
    let args = json!({"titles": [movie("tt0034583"), movie("tt0113277")]});
    let (err, summary, data) = outcome(&s.call(&s.owner_key, "display_media", args).await);
    assert!(!err, "{summary}");
    let casablanca = &data["titles"][0];
    assert_eq!(casablanca["in_library"], true, "{data}");
    assert!(
        matches!(
            casablanca["requested"].as_str(),
            Some("approved" | "available")
        ),
        "{casablanca}"
    );
    let heat = &data["titles"][1];
    assert_eq!(heat["in_library"], false, "{data}");
    assert_eq!(heat["requested"], Value::Null);
}

#[tokio::test]
async fn bad_input_is_refused_whole_naming_the_field() {
    let s = server_with_instances(vec![builtin()]).await;
    let cases = [
        (json!({}), "give either titles"),
        (
            json!({"titles": [movie("tt0034583")], "query": "heat"}),
            "give either titles",
        ),
        (
            json!({"titles": []}),
            "\"titles\": 0 items; give at least 1",
        ),
        (
            json!({"titles": vec![movie("tt0034583"); 21]}),
            "\"titles\": 21 items; give at most 20",
        ),
        (
            json!({"titles": [movie("tt0034583"), {"media_source": "musicbrainz", "media_id": "x", "media_type": "movie"}]}),
            "titles[1]: media_source \"musicbrainz\" cannot name a movie title here",
        ),
        (
            json!({"titles": [movie("  ")]}),
            "titles[0]: media_id is empty",
        ),
        (
            json!({"query": "heat", "heading": "x".repeat(81)}),
            "\"heading\": 81 characters; give at most 80",
        ),
        (
            json!({"titles": [movie("tt0034583")], "media_type": "movie"}),
            "media_type goes with query",
        ),
        (
            json!({"query": "  "}),
            "\"query\": give 1 to 200 characters",
        ),
    ];
    for (args, want) in cases {
        let (err, summary, _) = outcome(&s.call(&s.owner_key, "display_media", args.clone()).await);
        assert!(err, "{args}");
        assert!(summary.contains(want), "{args}: {summary}");
    }
}

#[tokio::test]
async fn the_tool_links_its_view_and_the_view_is_served_as_an_mcp_app() {
    let s = server_with_instances(vec![builtin()]).await;
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let tool = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "display_media")
        .unwrap()
        .clone();
    assert_eq!(tool["_meta"]["ui"]["resourceUri"], VIEW);
    assert_eq!(tool["_meta"]["ui/resourceUri"], VIEW);
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":2,"method":"resources/list"}),
        )
        .await;
    let listed: Vec<&Value> = body["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["uri"] == VIEW)
        .collect();
    assert_eq!(listed.len(), 1, "{body}");
    assert_eq!(listed[0]["mimeType"], "text/html;profile=mcp-app");
    let (_, body) = s
        .rpc(
            &s.owner_key,
            json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri": VIEW}}),
        )
        .await;
    let contents = &body["result"]["contents"][0];
    assert_eq!(contents["uri"], VIEW);
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        contents["_meta"]["ui"]["csp"]["resourceDomains"],
        json!(["https://image.tmdb.org"])
    );
    let html = contents["text"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("ui/notifications/tool-result"));
}

#[tokio::test]
async fn a_grant_without_discover_neither_lists_the_tool_nor_reads_its_view() {
    let s = server_with_instances(vec![builtin()]).await;
    let spec = GrantSpec {
        capabilities: [Capability::DownloadsRead].into_iter().collect(),
        ..GrantSpec::default()
    };
    s.host
        .app
        .store()
        .create_grant("fetcher", &spec)
        .await
        .unwrap();
    let key = s.key_for("fetch", Role::User, "fetcher").await;
    let (_, body) = s
        .rpc(&key, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    assert!(!body.to_string().contains("display_media"), "{body}");
    let (_, body) = s
        .rpc(
            &key,
            json!({"jsonrpc":"2.0","id":2,"method":"resources/list"}),
        )
        .await;
    assert!(!body.to_string().contains(VIEW), "{body}");
    let (_, body) = s
        .rpc(
            &key,
            json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri": VIEW}}),
        )
        .await;
    assert!(body["error"].is_object(), "{body}");
    let r = s
        .call(&key, "display_media", json!({"query": "heat"}))
        .await;
    assert_eq!(r["isError"], true, "{r}");
}
