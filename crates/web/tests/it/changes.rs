//! Change control through the real MCP router against a real qbittorrent-nox: a destructive
//! call under the operator preset is a plan that touches nothing, apply waits for the owner's
//! approval, runs once per change whatever the keys and races, and refuses a stale plan.

use domain::{InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::{AuditQuery, AuditStatus, ChangeStatus};
use tools::InstanceSpec;

use crate::peers::{self, Daemon, Fixture, QbRaw, poll};
use crate::support::{self, Server, server_for};

const PUBLIC: &str = "http://marquee.test:8765";

struct World {
    _qb: Daemon,
    qraw: QbRaw,
    s: Server,
    /// A key of an admin person on the operator preset: may plan deletions, not act.
    operator: String,
    fix: std::path::PathBuf,
}

async fn world() -> World {
    let qb = std::thread::spawn(|| Daemon::start("qbittorrent.sh"))
        .join()
        .unwrap();
    let qraw = QbRaw::login(&qb).await;
    let spec = InstanceSpec {
        id: "qb".into(),
        kind: InstanceKind::Qbittorrent,
        url: Some(qb.cred("QBITTORRENT_URL").parse().unwrap()),
        path: None,
        username: Some(qb.cred("QBITTORRENT_USER")),
        password: Some(Secret::new(qb.cred("QBITTORRENT_PASS"))),
        api_key: None,
        default: true,
    };
    let s = server_for(vec![spec], true).await;
    s.host.app.settings().set_public_url(PUBLIC);
    let operator = s.key_for("ops", Role::Admin, "operator").await;
    let fix = qb.dir.path().join("fixtures");
    World {
        _qb: qb,
        qraw,
        s,
        operator,
        fix,
    }
}

impl World {
    /// A fresh torrent, added paused by the owner through Marquee and seen by the daemon.
    async fn torrent(&self, name: &str, size: usize) -> Fixture {
        let f = Fixture::new(&self.fix, name, size, None);
        let url = peers::serve_file(std::fs::read(&f.torrent).unwrap()).await;
        let r = self
            .s
            .call(
                &self.s.owner_key,
                "add_torrent",
                json!({"source": url, "paused": true}),
            )
            .await;
        assert_eq!(r["isError"], false, "{r}");
        poll(10, "the torrent on qbittorrent", async || {
            self.qraw.one(&f.hash).await.map(|_| ())
        })
        .await;
        // Marquee's catalogue learns of it on a refresh.
        poll(10, "the torrent in marquee's catalogue", async || {
            let r = self
                .s
                .call(
                    &self.s.owner_key,
                    "torrent_detail",
                    json!({"info_hash": f.hash}),
                )
                .await;
            (r["isError"] == false).then_some(())
        })
        .await;
        f
    }

    async fn call(&self, key: &str, tool: &str, args: Value) -> Value {
        self.s.call(key, tool, args).await
    }

    /// The operator's delete_torrents: must answer a plan; its data.
    async fn plan(&self, f: &Fixture) -> Value {
        let r = self
            .call(
                &self.operator,
                "delete_torrents",
                json!({"info_hashes": [f.hash], "delete_data": true}),
            )
            .await;
        assert_eq!(r["isError"], false, "{r}");
        r["structuredContent"]["data"].clone()
    }

    /// The owner's decision, as the owner pages record it: bound to the content hash.
    async fn decide(&self, change_id: &str, approve: bool) {
        let store = self.s.host.app.store();
        let owner = store.person_by_name("owner").await.unwrap().unwrap();
        let change = store.change(change_id).await.unwrap().unwrap();
        store
            .decide_change(change_id, owner.id, approve, &change.content_hash)
            .await
            .unwrap();
    }

    async fn apply(&self, change_id: &Value, key: &str) -> Value {
        self.call(
            &self.operator,
            "apply_change",
            json!({"change_id": change_id, "idempotency_key": key}),
        )
        .await
    }

    async fn audited_deletions(&self) -> Vec<AuditStatus> {
        let page = self
            .s
            .host
            .app
            .store()
            .audit_page(&AuditQuery::default())
            .await
            .unwrap();
        page.iter()
            .filter(|e| e.tool == "delete_torrents")
            .map(|e| e.status)
            .collect()
    }

    async fn status(&self, change_id: &Value) -> ChangeStatus {
        let store = self.s.host.app.store();
        let change = store.change(change_id.as_str().unwrap()).await;
        change.unwrap().unwrap().status
    }
}

fn text(r: &Value) -> String {
    r["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_call_under_operator_is_a_plan_that_touches_nothing() {
    let w = world().await;
    let f = w.torrent("plan-only.mkv", 120_000).await;
    let data = w.plan(&f).await;
    let id = data["change_id"].as_str().unwrap();
    assert!(id.starts_with("chg_"), "{data}");
    assert_eq!(data["missing_authority"], "destructive.direct");
    assert_eq!(data["review_url"], format!("{PUBLIC}/changes/{id}"));
    assert_eq!(data["status"], "pending");
    let planned = &data["plan"]["instances"][0];
    assert_eq!(planned["instance_id"], "qb");
    assert_eq!(planned["torrents"][0]["info_hash"], f.hash);
    assert_eq!(planned["torrents"][0]["name"], "plan-only.mkv");
    assert_eq!(planned["torrents"][0]["size"], 120_000);
    assert_eq!(data["plan"]["delete_data"], true);
    // No external call: the daemon still has the torrent, and nothing was audited as done.
    assert!(w.qraw.one(&f.hash).await.is_some());
    assert_eq!(w.audited_deletions().await, []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_preset_also_plans_and_the_owner_acts_at_once() {
    let w = world().await;
    let f = w.torrent("admin-plans.mkv", 80_000).await;
    let admin = w.s.key_for("ada", Role::Admin, "admin").await;
    let r = w
        .call(
            &admin,
            "delete_torrents",
            json!({"info_hashes": [f.hash], "delete_data": false}),
        )
        .await;
    assert_eq!(
        r["structuredContent"]["data"]["missing_authority"], "destructive.direct",
        "{r}"
    );
    assert!(w.qraw.one(&f.hash).await.is_some());
    let r = w
        .call(
            &w.s.owner_key,
            "delete_torrents",
            json!({"info_hashes": [f.hash], "delete_data": false}),
        )
        .await;
    assert_eq!(r["structuredContent"]["data"]["ok"], 1, "{r}");
    assert_eq!(w.audited_deletions().await, [AuditStatus::Applied]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_before_approval_is_refused_naming_the_missing_authority() {
    let w = world().await;
    let f = w.torrent("not-yet.mkv", 60_000).await;
    let data = w.plan(&f).await;
    let r = w.apply(&data["change_id"], "first-try-0001").await;
    assert_eq!(r["isError"], true, "{r}");
    let says = text(&r);
    assert!(says.contains("destructive.direct"), "{says}");
    assert!(
        says.contains(data["review_url"].as_str().unwrap()),
        "{says}"
    );
    assert!(w.qraw.one(&f.hash).await.is_some());
    assert_eq!(w.status(&data["change_id"]).await, ChangeStatus::Pending);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_change_is_never_applied() {
    let w = world().await;
    let f = w.torrent("rejected.mkv", 60_000).await;
    let data = w.plan(&f).await;
    w.decide(data["change_id"].as_str().unwrap(), false).await;
    let r = w.apply(&data["change_id"], "after-reject-01").await;
    assert!(text(&r).contains("rejected"), "{r}");
    assert!(w.qraw.one(&f.hash).await.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_approval_apply_runs_once_and_the_same_key_answers_the_same_operation() {
    let w = world().await;
    let f = w.torrent("approved.mkv", 90_000).await;
    let data = w.plan(&f).await;
    w.decide(data["change_id"].as_str().unwrap(), true).await;
    let first = w.apply(&data["change_id"], "apply-key-0001").await;
    assert_eq!(first["isError"], false, "{first}");
    let op = &first["structuredContent"]["data"];
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(op["result"]["ok"], 1, "{op}");
    assert_eq!(op["checkpoint"]["instance_id"], "qb", "{op}");
    poll(10, "the torrent gone from qbittorrent", async || {
        w.qraw.one(&f.hash).await.is_none().then_some(())
    })
    .await;
    let again = w.apply(&data["change_id"], "apply-key-0001").await;
    let same = &again["structuredContent"]["data"];
    assert_eq!(
        (&same["operation_id"], &same["status"]),
        (&op["operation_id"], &op["status"]),
        "{again}"
    );
    assert!(text(&again).contains("used before"), "{again}");
    let other_key = w.apply(&data["change_id"], "apply-key-0002").await;
    assert_eq!(other_key["isError"], true, "{other_key}");
    assert!(text(&other_key).contains("runs once"), "{other_key}");
    assert_eq!(w.audited_deletions().await, [AuditStatus::Applied]);
    assert_eq!(w.status(&data["change_id"]).await, ChangeStatus::Applied);
    let shown = w
        .call(
            &w.operator,
            "get_operation",
            json!({"change_id": data["change_id"]}),
        )
        .await;
    assert_eq!(
        shown["structuredContent"]["data"]["operation_id"],
        op["operation_id"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_applies_run_the_work_once() {
    let w = world().await;
    let f = w.torrent("raced.mkv", 70_000).await;
    let data = w.plan(&f).await;
    w.decide(data["change_id"].as_str().unwrap(), true).await;
    let (a, b) = tokio::join!(
        w.apply(&data["change_id"], "racer-key-000a"),
        w.apply(&data["change_id"], "racer-key-000b"),
    );
    // Each answer is the one operation, or (when it came after the first had finished) a
    // refusal saying the change runs once.
    let ids: Vec<&Value> = [&a, &b]
        .iter()
        .filter(|r| r["isError"] == false)
        .map(|r| &r["structuredContent"]["data"]["operation_id"])
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| id.is_string() && *id == ids[0]),
        "{a}\n{b}"
    );
    for r in [&a, &b].into_iter().filter(|r| r["isError"] == true) {
        assert!(text(r).contains("runs once"), "{r}");
    }
    assert_eq!(w.audited_deletions().await, [AuditStatus::Applied]);
    assert!(w.qraw.one(&f.hash).await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dependency_changed_after_approval_refuses_apply_and_changes_nothing() {
    let w = world().await;
    let f = w.torrent("moved-on.mkv", 50_000).await;
    let data = w.plan(&f).await;
    w.decide(data["change_id"].as_str().unwrap(), true).await;
    // Someone recategorises the torrent in qBittorrent itself after the owner approved.
    w.qraw
        .post("torrents/createCategory", &[("category", "keepers")])
        .await;
    w.qraw
        .post(
            "torrents/setCategory",
            &[("hashes", f.hash.as_str()), ("category", "keepers")],
        )
        .await;
    poll(10, "the category set", async || {
        (w.qraw.one(&f.hash).await?["category"] == "keepers").then_some(())
    })
    .await;
    let r = w.apply(&data["change_id"], "stale-key-0001").await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["structuredContent"]["data"]["code"], "stale_plan", "{r}");
    assert!(text(&r).contains(&format!("qb/{}", f.hash)), "{r}");
    assert!(w.qraw.one(&f.hash).await.is_some());
    assert_eq!(w.status(&data["change_id"]).await, ChangeStatus::Approved);
    assert_eq!(w.audited_deletions().await, []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_spends_the_destructive_allowance_and_refuses_when_it_is_used_up() {
    let w = world().await;
    // The operator preset with one destructive operation a week.
    let spec = store::GrantSpec {
        capabilities: domain::Preset::Operator
            .capabilities()
            .iter()
            .copied()
            .collect(),
        allowances: [(
            domain::AllowanceKind::Destructive,
            domain::AllowanceRule { count: 1, days: 7 },
        )]
        .into(),
        ..store::GrantSpec::default()
    };
    let store = w.s.host.app.store();
    store.create_grant("careful", &spec).await.unwrap();
    let careful = w.s.key_for("cara", Role::Admin, "careful").await;
    let plan = async |f: &Fixture| {
        let r = w
            .call(
                &careful,
                "delete_torrents",
                json!({"info_hashes": [f.hash], "delete_data": false}),
            )
            .await;
        assert_eq!(r["isError"], false, "{r}");
        r["structuredContent"]["data"]["change_id"].clone()
    };
    let (one, two) = (
        w.torrent("first-of-week.mkv", 40_000).await,
        w.torrent("second-of-week.mkv", 40_000).await,
    );
    // Planning spends nothing: both plans are made.
    let (first, second) = (plan(&one).await, plan(&two).await);
    for id in [&first, &second] {
        w.decide(id.as_str().unwrap(), true).await;
    }
    let apply = async |id: &Value, key: &str| {
        w.call(
            &careful,
            "apply_change",
            json!({"change_id": id, "idempotency_key": key}),
        )
        .await
    };
    let done = apply(&first, "weekly-key-0001").await;
    assert_eq!(
        done["structuredContent"]["data"]["status"], "succeeded",
        "{done}"
    );
    let refused = apply(&second, "weekly-key-0002").await;
    assert_eq!(refused["isError"], true, "{refused}");
    let data = &refused["structuredContent"]["data"];
    assert_eq!(data["code"], "allowance_exhausted", "{refused}");
    assert!(text(&refused).contains("destructive"), "{refused}");
    // Nothing happened for the second: the torrent is there, the change still approved, no
    // audit entry and no operation.
    assert!(w.qraw.one(&two.hash).await.is_some());
    assert_eq!(w.status(&second).await, ChangeStatus::Approved);
    assert_eq!(w.audited_deletions().await, [AuditStatus::Applied]);
    let second_id = second.as_str().unwrap();
    assert!(
        store
            .operation_for_change(second_id)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_with_a_progress_token_streams_its_progress_then_the_operation() {
    let w = world().await;
    let f = w.torrent("streamed.mkv", 90_000).await;
    let data = w.plan(&f).await;
    w.decide(data["change_id"].as_str().unwrap(), true).await;
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "apply_change",
        "arguments": {"change_id": data["change_id"], "idempotency_key": "stream-key-0001"},
        "_meta": {"progressToken": "apply-1"}}});
    let req = support::post("/mcp")
        .header("authorization", format!("Bearer {}", w.operator))
        .header("accept", "application/json, text/event-stream")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let (resp, bytes) = w.s.send(req).await;
    let stream = String::from_utf8_lossy(&bytes).into_owned();
    assert_eq!(resp.status(), 200, "{stream}");
    let kind = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/event-stream"), "{kind}: {stream}");
    let messages: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress in {stream}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "apply-1"),
        "{stream}"
    );
    let answer = messages.last().unwrap();
    assert_eq!(answer["id"], 9, "{stream}");
    let op = &answer["result"]["structuredContent"]["data"];
    assert_eq!(op["status"], "succeeded", "{stream}");
    poll(10, "the torrent gone from qbittorrent", async || {
        w.qraw.one(&f.hash).await.is_none().then_some(())
    })
    .await;
}
