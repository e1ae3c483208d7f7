//! Completion of prompt arguments through the real MCP endpoint: genres from the catalogues
//! (TMDB's lists read once, not per completion),
//! the US film and TV certification ladders, and people's names for admins only.

use domain::{InstanceKind, Role};
use serde_json::json;
use store::ContentLimits;
use test_support::TmdbFake;

use crate::support::{Server, builtin, instance, server, server_with_instances};

async fn complete(s: &Server, key: &str, prompt: &str, argument: &str, typed: &str) -> Vec<String> {
    let (status, body) = s
        .rpc(
            key,
            json!({"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{
                "ref":{"type":"ref/prompt","name":prompt},
                "argument":{"name":argument,"value":typed}}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value::<Vec<String>>(body["result"]["completion"]["values"].clone()).unwrap()
}

#[tokio::test]
async fn genres_come_from_the_builtin_catalogue() {
    let s = server().await;
    let genres = complete(&s, &s.owner_key, "kids-setup", "blocked_genre", "hor").await;
    assert_eq!(genres, ["Horror"]);
    let all = complete(&s, &s.owner_key, "kids-setup", "blocked_genre", "").await;
    assert!(
        all.len() > 10 && all.contains(&"Animation".to_string()),
        "{all:?}"
    );
}

#[tokio::test]
async fn tmdb_genres_complete_from_a_list_read_once_not_per_completion() {
    let fake = TmdbFake::start().await;
    let tmdb = instance(
        "tmdb",
        InstanceKind::Tmdb,
        Some(fake.base_url()),
        Some(TmdbFake::API_KEY),
    );
    let s = server_with_instances(vec![builtin(), tmdb]).await;
    for _ in 0..3 {
        let genres = complete(&s, &s.owner_key, "kids-setup", "blocked_genre", "sci").await;
        assert!(
            genres.contains(&"Sci-Fi & Fantasy".to_string()),
            "TMDB's tv genres are offered: {genres:?}"
        );
    }
    assert_eq!(fake.requests_to("/genre/movie/list").len(), 1);
    assert_eq!(fake.requests_to("/genre/tv/list").len(), 1);
}

#[tokio::test]
async fn certifications_complete_from_the_us_ladders() {
    let s = server().await;
    let films = complete(&s, &s.owner_key, "kids-setup", "max_rating", "").await;
    assert_eq!(films, ["G", "PG", "PG-13", "R", "NC-17"]);
    let tv = complete(&s, &s.owner_key, "kids-setup", "max_tv_rating", "tv-y").await;
    assert_eq!(tv, ["TV-Y", "TV-Y7"]);
}

#[tokio::test]
async fn a_kid_gets_no_names_and_no_admin_prompt_values() {
    let s = server().await;
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", ContentLimits::default())
        .await;
    let boss = s.key_for("boss", Role::Admin, "admin").await;
    let names = complete(&s, &boss, "kids-setup", "person", "").await;
    assert!(names.contains(&"kid".to_string()), "{names:?}");
    for argument in ["person", "blocked_genre", "max_rating"] {
        let got: Vec<String> = complete(&s, &kid, "kids-setup", argument, "").await;
        assert_eq!(got, Vec::<String>::new(), "{argument}");
    }
}
