//! The store's lists page by keyset (`before_id`): a page from the middle is the same slice of
//! the whole list, newest first, and following `next_before_id` from the first page visits
//! every row exactly once, with 200-row pages as with small ones; one person's requests in one
//! status are the same rows as that filter over the whole list.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use serde_json::{Value, json};
use store::{NewAudit, Store};
use support::request;
use tools::{App, Called, Caller, Instances, Output, Settings};

/// Rows of each list: more than two 200-row pages.
const ROWS: usize = 450;

struct Fixture {
    app: App,
    owner: Caller,
    _dir: tempfile::TempDir,
}

/// The owner, `ROWS` requests (every third one rejected) and `ROWS` audit entries in a
/// database file (so answers are kept).
async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let owner = store.person_by_name("owner").await.unwrap().unwrap().id;
    for n in 0..ROWS {
        let id = request(&store, owner, n).await;
        if n % 3 == 0 {
            store.decide_request(id, owner, false, None).await.unwrap();
        }
        store
            .audit_begin(&NewAudit {
                person: owner,
                key_id: None,
                tool: format!("tool_{n}"),
                instance: None,
                args_digest: format!("sha256:{n}"),
            })
            .await
            .unwrap();
    }
    let app = tools::app(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::default()),
    );
    app.start_jobs(std::future::pending());
    let owner = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    Fixture {
        app,
        owner,
        _dir: dir,
    }
}

async fn call(f: &Fixture, name: &str, args: Value) -> Output {
    match f.app.call(&f.owner, name, args.as_object().cloned()).await {
        Called::Done(Ok(out)) => out,
        Called::Done(Err(e)) => panic!("{name} failed: {}", e.message),
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

/// A list tool: its name, the field listing its rows and the field naming a row's id.
struct List {
    tool: &'static str,
    rows: &'static str,
    id: &'static str,
}

const REQUESTS: List = List {
    tool: "list_requests",
    rows: "requests",
    id: "request_id",
};
const ACTIVITY: List = List {
    tool: "get_activity",
    rows: "entries",
    id: "id",
};

/// A page's rows and its `next_before_id`, asked with `args` and `before`.
async fn page_of(
    f: &Fixture,
    list: &List,
    mut args: Value,
    before: Option<i64>,
) -> (Vec<Value>, Option<i64>) {
    if let Some(b) = before {
        args["before_id"] = json!(b);
    }
    let data = call(f, list.tool, args).await.data();
    let rows = data[list.rows].as_array().unwrap().clone();
    (rows, data["next_before_id"].as_i64())
}

/// A page's ids and its `next_before_id`.
async fn page(
    f: &Fixture,
    list: &List,
    limit: u32,
    before: Option<i64>,
) -> (Vec<i64>, Option<i64>) {
    let (rows, next) = page_of(f, list, json!({ "limit": limit }), before).await;
    (
        rows.iter().map(|r| r[list.id].as_i64().unwrap()).collect(),
        next,
    )
}

/// Every row `args` selects, newest first, read by following `next_before_id`.
async fn walk_rows(f: &Fixture, list: &List, args: Value) -> Vec<Value> {
    let (mut all, mut next) = page_of(f, list, args.clone(), None).await;
    while let Some(before) = next {
        let (rows, after) = page_of(f, list, args.clone(), Some(before)).await;
        assert!(
            !rows.is_empty(),
            "{}: a next_before_id led to an empty page",
            list.tool
        );
        all.extend(rows);
        next = after;
    }
    all
}

/// Every row's id, newest first, read by following `next_before_id` with `limit`.
async fn walk(f: &Fixture, list: &List, limit: u32) -> Vec<i64> {
    let rows = walk_rows(f, list, json!({ "limit": limit })).await;
    rows.iter().map(|r| r[list.id].as_i64().unwrap()).collect()
}

async fn check_walks(list: &List) {
    let f = fixture().await;
    let by_200 = walk(&f, list, 200).await;
    assert_eq!(
        by_200.len(),
        ROWS,
        "{}: 200-row pages visit every row",
        list.tool
    );
    assert!(
        by_200.windows(2).all(|w| w[0] > w[1]),
        "{}: newest first",
        list.tool
    );
    assert_eq!(
        walk(&f, list, 7).await,
        by_200,
        "{}: small pages agree",
        list.tool
    );
}

async fn check_middle(list: &List) {
    let f = fixture().await;
    let all = walk(&f, list, 200).await;
    for (at, limit) in [
        (1, 200),
        (100, 200),
        (ROWS / 2, 200),
        (ROWS - 150, 200),
        (ROWS - 3, 20),
    ] {
        let (ids, next) = page(&f, list, limit, Some(all[at - 1])).await;
        let end = (at + limit as usize).min(ROWS);
        assert_eq!(ids, all[at..end], "{}: the page after row {at}", list.tool);
        let expected_next = (end < ROWS).then(|| all[end - 1]);
        assert_eq!(
            next, expected_next,
            "{}: next_before_id after row {at}",
            list.tool
        );
    }
}

#[tokio::test]
async fn following_next_before_id_visits_every_request_once_newest_first() {
    check_walks(&REQUESTS).await;
}

#[tokio::test]
async fn following_next_before_id_visits_every_activity_entry_once_newest_first() {
    check_walks(&ACTIVITY).await;
}

#[tokio::test]
async fn a_requests_page_from_the_middle_is_that_slice_of_the_whole_list() {
    check_middle(&REQUESTS).await;
}

#[tokio::test]
async fn an_activity_page_from_the_middle_is_that_slice_of_the_whole_list() {
    check_middle(&ACTIVITY).await;
}

#[tokio::test]
async fn one_persons_requests_in_one_status_are_that_filter_of_the_whole_list() {
    let f = fixture().await;
    let all = walk_rows(&f, &REQUESTS, json!({ "limit": 200 })).await;
    assert_eq!(all.len(), ROWS);
    for status in ["rejected", "pending"] {
        let expected: Vec<&Value> = all.iter().filter(|r| r["status"] == status).collect();
        assert!(expected.len() >= ROWS / 3, "{status}: {}", expected.len());
        for limit in [200, 9] {
            let args = json!({ "person": "owner", "status": status, "limit": limit });
            let rows = walk_rows(&f, &REQUESTS, args).await;
            assert_eq!(
                rows.iter().collect::<Vec<_>>(),
                expected,
                "the owner's {status} requests, {limit} a page"
            );
        }
    }
}
