//! Answers that say no more than the code knows: book searches pass a limited person's content
//! limits, `in_library` is unknown (not false) while the library cannot be read, a merged read
//! answers without the instance that did not answer in time, and approved requests are handed
//! over once a library serves them.

use domain::{InstanceKind, Role};
use serde_json::json;
use store::ContentLimits;
use test_support::arr::{ArrKind, FakeArr, Resource};

use crate::support::{builtin, instance, outcome, server_with_instances};

fn arr(id: &str, kind: InstanceKind, fake: &FakeArr) -> tools::InstanceSpec {
    instance(id, kind, Some(&fake.url()), Some(fake.api_key()))
}

#[tokio::test]
async fn search_books_hides_and_counts_what_a_limited_person_may_not_see() {
    let readarr = FakeArr::start(ArrKind::Readarr).await;
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit", "foreignBookId": "5907", "genres": ["Fantasy"], "author": {"authorName": "J.R.R. Tolkien", "foreignAuthorId": "656983"}}),
        vec![],
    );
    readarr.seed_lookup(
        Resource::Book,
        json!({"title": "The Hobbit Horror", "foreignBookId": "6666", "genres": ["Horror"], "author": {"authorName": "Someone Else", "foreignAuthorId": "1"}}),
        vec![],
    );
    let s = server_with_instances(vec![
        builtin(),
        arr("readarr", InstanceKind::Readarr, &readarr),
    ])
    .await;
    let no_horror = ContentLimits {
        blocked_genres: vec!["horror".into()],
        ..ContentLimits::default()
    };
    let kid = s
        .key_with_limits("kid", Role::Kid, "requester", no_horror)
        .await;
    let strict = ContentLimits {
        block_unrated: true,
        ..ContentLimits::default()
    };
    let strict_kid = s
        .key_with_limits("strict", Role::Kid, "requester", strict)
        .await;
    let args = json!({"query": "hobbit"});
    let (err, summary, all) = outcome(&s.call(&s.owner_key, "search_books", args.clone()).await);
    assert!(!err, "{summary}");
    assert_eq!(all["results"].as_array().unwrap().len(), 2, "{all}");
    assert_eq!(all["hidden_by_limits"], 0);
    let (err, summary, seen) = outcome(&s.call(&kid, "search_books", args.clone()).await);
    assert!(!err, "{summary}");
    let titles: Vec<&str> = seen["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["The Hobbit"], "{seen}");
    assert_eq!(seen["hidden_by_limits"], 1);
    assert_eq!(seen["content_limits_applied"], true);
    assert!(summary.contains("1 result was hidden"), "{summary}");
    assert!(!seen.to_string().contains("Horror"), "{seen}");
    // Books carry no rating: limits that hide unrated titles hide them all.
    let (err, summary, none) = outcome(&s.call(&strict_kid, "search_books", args).await);
    assert!(!err, "{summary}");
    assert_eq!(none["results"], json!([]), "{none}");
    assert_eq!(none["hidden_by_limits"], 2);
}
