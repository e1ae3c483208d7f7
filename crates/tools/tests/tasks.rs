//! Scheduled tasks on a real SQLite store, driven by a manual clock: a date task with
//! delay_minutes, a cron task in a time zone with a time missed while the server was down, a
//! run cut short by a stop (interrupted, never re-run), the creator's authority read at run
//! time (a revoked key, a narrowed grant: the run fails, audited), who may create tasks and run
//! background jobs, and notifiers over real HTTP on 127.0.0.1 (a signed webhook, ntfy, one
//! that hangs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use chrono::{DateTime, Utc};
use domain::{Capability, Role, Secret};
use hmac::{Hmac, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;
use store::{AuditQuery, AuditStatus, GrantSpec, Store};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
    sync::mpsc,
};
use tools::{
    App, Called, Caller, Instances, Settings,
    tasks::{
        Scheduler, TasksConfig,
        notify::{Notifier, NotifierKind},
        schedule::ManualClock,
    },
};

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

struct Fixture {
    app: App,
    store: Store,
    clock: Arc<ManualClock>,
}

impl Fixture {
    async fn new(store: Store, now: &str) -> Fixture {
        Fixture::with_settings(store, now, Settings::new(false, None)).await
    }

    async fn with_settings(store: Store, now: &str, settings: Settings) -> Fixture {
        let app = tools::app(
            store.clone(),
            Arc::new(settings),
            Arc::new(Instances::default()),
        );
        let clock = ManualClock::new(at(now));
        let f = Fixture { app, store, clock };
        f.scheduler().set_clock(f.clock.clone());
        f.scheduler().configure(TasksConfig {
            zone: chrono_tz::Tz::UTC,
            notifiers: Vec::new(),
        });
        f
    }

    fn scheduler(&self) -> &Arc<Scheduler> {
        self.app.family::<Arc<Scheduler>>().unwrap()
    }

    /// A person of `role` with a key on `grant`: the caller and the key's id.
    async fn person(&self, name: &str, role: Role, grant: &str) -> (Caller, String) {
        let person = self.store.add_person(name, role).await.unwrap();
        let key = self
            .store
            .create_key(person.id, grant, None, None)
            .await
            .unwrap();
        let caller = self
            .app
            .authenticate(key.secret.expose())
            .await
            .unwrap()
            .unwrap();
        (caller, key.info.key_id)
    }

    async fn call(&self, caller: &Caller, tool: &str, args: Value) -> Result<Value, String> {
        let Value::Object(map) = args else { panic!() };
        match self.app.call(caller, tool, Some(map)).await {
            Called::Done(Ok(out)) => Ok(out.data()),
            Called::Done(Err(e)) => Err(format!("{}: {}", e.code.as_str(), e.message)),
            Called::UnknownTool => Err("unknown tool".into()),
        }
    }

    /// Waits (real time, briefly) for a run to leave `running`; answers get_task_run's data.
    async fn finished(&self, caller: &Caller, run: i64) -> Value {
        for _ in 0..500 {
            let got = self
                .call(caller, "get_task_run", json!({"run_id": run}))
                .await
                .unwrap();
            if got["status"] != "running" {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("run {run} did not finish");
    }

    async fn task(&self, caller: &Caller, id: i64) -> Value {
        let all = self.call(caller, "list_tasks", json!({})).await.unwrap();
        all["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task_id"] == id)
            .cloned()
            .unwrap()
    }
}

fn whoami_task(extra: Value) -> Value {
    let mut task = json!({
        "name": "who am I",
        "calls": [{"tool": "whoami", "arguments": {}}],
    });
    let (Value::Object(t), Value::Object(e)) = (&mut task, extra) else {
        panic!()
    };
    t.extend(e);
    task
}

#[tokio::test]
async fn a_date_task_with_delay_minutes_runs_once_when_the_clock_reaches_it() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;
    let created = f
        .call(
            &admin,
            "create_task",
            whoami_task(json!({"trigger_type": "date", "delay_minutes": 5})),
        )
        .await
        .unwrap();
    let id = created["task_id"].as_i64().unwrap();
    assert_eq!(created["next_run"], "2026-12-06T10:05:00Z");

    f.clock.set(at("2026-12-06T10:04:59Z"));
    assert!(f.scheduler().tick().await.is_empty(), "not due yet");
    f.clock.set(at("2026-12-06T10:05:00Z"));
    let runs = f.scheduler().tick().await;
    assert_eq!(runs.len(), 1);
    let run = f.finished(&admin, runs[0]).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["cause"], "scheduled");
    assert_eq!(run["results"][0]["tool"], "whoami");
    assert_eq!(run["results"][0]["ok"], true);
    // The result is kept with the run: whoami's data names the person.
    assert!(
        run["results"][0]["data"].to_string().contains("ann"),
        "{run}"
    );

    let task = f.task(&admin, id).await;
    assert_eq!(task["last_run"]["status"], "succeeded");
    assert!(
        task.get("next_run").is_none(),
        "a date task runs once: {task}"
    );
    f.clock.set(at("2026-12-06T10:06:00Z"));
    assert!(f.scheduler().tick().await.is_empty(), "never twice");
}

#[tokio::test]
async fn a_cron_task_runs_in_the_configured_zone_and_a_time_missed_while_down_is_reported() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-01-10T07:00:00Z",
    )
    .await;
    f.scheduler().configure(TasksConfig {
        zone: "Europe/Paris".parse().unwrap(),
        notifiers: Vec::new(),
    });
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;

    let refused = f
        .call(
            &admin,
            "create_task",
            whoami_task(json!({"trigger_type": "cron", "trigger": "61 * * * *"})),
        )
        .await
        .unwrap_err();
    assert!(refused.starts_with("invalid_argument"), "{refused}");
    assert!(refused.contains("is not valid"), "{refused}");

    // 09:00 in Paris is 08:00 UTC in January.
    let created = f
        .call(
            &admin,
            "create_task",
            whoami_task(
                json!({"trigger_type": "cron", "trigger": "0 9 * * *", "notify": "always"}),
            ),
        )
        .await
        .unwrap();
    let id = created["task_id"].as_i64().unwrap();
    assert_eq!(created["next_run"], "2026-01-10T08:00:00Z");

    f.clock.set(at("2026-01-10T07:59:00Z"));
    assert!(f.scheduler().tick().await.is_empty());
    f.clock.set(at("2026-01-10T08:00:10Z"));
    let runs = f.scheduler().tick().await;
    assert_eq!(runs.len(), 1);
    assert_eq!(f.finished(&admin, runs[0]).await["status"], "succeeded");
    assert_eq!(f.task(&admin, id).await["next_run"], "2026-01-11T08:00:00Z");
    assert!(f.scheduler().tick().await.is_empty(), "one run per time");

    // Down from before the 11th's time until the 12th: reported, not run late.
    f.clock.set(at("2026-01-12T07:00:00Z"));
    assert!(f.scheduler().tick().await.is_empty());
    let task = f.task(&admin, id).await;
    assert_eq!(task["missed"], "2026-01-11T08:00:00Z");
    assert_eq!(task["next_run"], "2026-01-12T08:00:00Z");
    assert_eq!(task["last_run"]["run_id"], runs[0]);

    // Paused, nothing runs; resumed, from the next time to come.
    f.call(
        &admin,
        "update_task",
        json!({"task_id": id, "enabled": false}),
    )
    .await
    .unwrap();
    f.clock.set(at("2026-01-12T08:00:30Z"));
    assert!(f.scheduler().tick().await.is_empty());
    let resumed = f
        .call(
            &admin,
            "update_task",
            json!({"task_id": id, "enabled": true}),
        )
        .await
        .unwrap();
    assert_eq!(resumed["next_run"], "2026-01-13T08:00:00Z");
}

#[tokio::test]
async fn a_run_another_live_process_began_is_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let f = Fixture::new(
        Store::open(dir.path()).await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;
    let created = f
        .call(
            &admin,
            "create_task",
            whoami_task(json!({"trigger_type": "date", "delay_minutes": 60})),
        )
        .await
        .unwrap();
    let task_id = created["task_id"].as_i64().unwrap();
    // Another server on the same data folder, on this machine, still running (a child process
    // stands for it): its run is under way, not cut short.
    let mut other = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let live = format!("{}:{}:00ff", store::machine(), other.id());
    // The run's status after a scheduler pass.
    let after_tick = async |run: i64| {
        f.scheduler().tick().await;
        let seen = f
            .call(&admin, "get_task_run", json!({"run_id": run}))
            .await
            .unwrap();
        seen["status"].as_str().unwrap().to_owned()
    };
    let run = f.store.begin_task_run(task_id, &live).await.unwrap();
    assert_eq!(after_tick(run).await, "running");
    // That process ends: its run was cut short.
    other.kill().unwrap();
    other.wait().unwrap();
    assert_eq!(after_tick(run).await, "interrupted");
    // A process of another machine that no live replica's heartbeat vouches for: cut short.
    let elsewhere = format!("othermachine0:{}:00ff", std::process::id());
    let run = f.store.begin_task_run(task_id, &elsewhere).await.unwrap();
    assert_eq!(after_tick(run).await, "interrupted");
}

#[tokio::test]
async fn a_run_going_when_the_server_stopped_is_interrupted_after_restart_and_never_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let (task_id, run_id) = {
        let f = Fixture::new(
            Store::open(dir.path()).await.unwrap(),
            "2026-12-06T10:00:00Z",
        )
        .await;
        let (admin, _) = f.person("ann", Role::Admin, "admin").await;
        let created = f
            .call(
                &admin,
                "create_task",
                whoami_task(json!({"trigger_type": "date", "delay_minutes": 60})),
            )
            .await
            .unwrap();
        let task_id = created["task_id"].as_i64().unwrap();
        // A run this process began and had not finished when it stopped.
        let run = f
            .store
            .begin_task_run(task_id, "a-stopped-process")
            .await
            .unwrap();
        let stored = f.store.task_run(run).await.unwrap().unwrap();
        assert_eq!(stored.status, "running");
        (task_id, run)
    };
    // The restart: a new process on the same database.
    let store = Store::open(dir.path()).await.unwrap();
    let f = Fixture::new(store, "2026-12-06T10:01:00Z").await;
    let person = f.store.person_by_name("ann").await.unwrap().unwrap();
    let key = f
        .store
        .create_key(person.id, "admin", None, None)
        .await
        .unwrap();
    let admin = f
        .app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    assert!(f.scheduler().tick().await.is_empty(), "nothing is re-run");
    let run = f
        .call(&admin, "get_task_run", json!({"run_id": run_id}))
        .await
        .unwrap();
    assert_eq!(run["status"], "interrupted", "{run}");
    assert!(run["error"].as_str().unwrap().contains("not run again"));
    let task = f.task(&admin, task_id).await;
    assert_eq!(task["last_run"]["status"], "interrupted");
    assert_eq!(
        task["next_run"], "2026-12-06T11:00:00Z",
        "its schedule stands"
    );
}

#[tokio::test]
async fn the_creators_authority_is_read_at_run_time_and_a_refusal_is_audited() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let spec = GrantSpec {
        capabilities: BTreeSet::from([Capability::Automation, Capability::Discover]),
        instances: None,
        allowances: Default::default(),
        expires_at: None,
        tools: None,
        groups: None,
    };
    f.store.create_grant("auto", &spec).await.unwrap();
    let (bob, bob_key) = f.person("bob", Role::User, "auto").await;
    let (owner, _) = f.person("olga", Role::Owner, "admin").await;
    let create =
        |minutes: u32| whoami_task(json!({"trigger_type": "date", "delay_minutes": minutes}));
    let narrowed = f.call(&bob, "create_task", create(5)).await.unwrap();
    let revoked = f.call(&bob, "create_task", create(10)).await.unwrap();

    // The grant loses discover: the first task's whoami is refused at run time.
    let mut less = spec.clone();
    less.capabilities.remove(&Capability::Discover);
    f.store.update_grant("auto", &less).await.unwrap();
    f.clock.set(at("2026-12-06T10:05:00Z"));
    let runs = f.scheduler().tick().await;
    let run = f.finished(&owner, runs[0]).await;
    assert_eq!(run["task_id"], narrowed["task_id"]);
    assert_eq!(run["status"], "failed", "{run}");
    assert!(
        run["error"]
            .as_str()
            .unwrap()
            .contains("capability \"discover\""),
        "{run}"
    );

    // The key is revoked: the second task's run fails, naming why.
    f.store.revoke_key(&bob_key).await.unwrap();
    f.clock.set(at("2026-12-06T10:10:00Z"));
    let runs = f.scheduler().tick().await;
    let run = f.finished(&owner, runs[0]).await;
    assert_eq!(run["task_id"], revoked["task_id"]);
    assert_eq!(run["status"], "failed");
    assert!(
        run["error"]
            .as_str()
            .unwrap()
            .contains("no longer valid (revoked or expired)"),
        "{run}"
    );
    assert_eq!(run["results"][0]["ok"], false);

    // Both refusals are in the audit, failed, naming the task's run, with bob's key.
    let audit = f.store.audit_page(&AuditQuery::default()).await.unwrap();
    let refused: Vec<_> = audit
        .iter()
        .filter(|e| e.tool == "whoami" && e.status == AuditStatus::Failed)
        .collect();
    assert_eq!(refused.len(), 2, "{audit:?}");
    assert!(
        refused
            .iter()
            .all(|e| e.person == "bob" && e.key_id.as_deref() == Some(bob_key.as_str()))
    );
    assert!(
        refused
            .iter()
            .any(|e| e.message.as_deref().unwrap().contains("revoked or expired"))
    );
    assert!(refused.iter().any(|e| {
        e.message
            .as_deref()
            .unwrap()
            .contains(&format!("task {} run", narrowed["task_id"]))
    }));
}

#[tokio::test]
async fn kids_create_no_tasks_and_only_admins_run_background_jobs() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let spec = GrantSpec {
        capabilities: BTreeSet::from([Capability::Automation, Capability::Discover]),
        instances: None,
        allowances: Default::default(),
        expires_at: None,
        tools: None,
        groups: None,
    };
    f.store.create_grant("auto", &spec).await.unwrap();
    let (kid, _) = f.person("kim", Role::Kid, "auto").await;
    let (user, _) = f.person("bob", Role::User, "auto").await;
    let (reader, _) = f.person("rae", Role::User, "requester").await;
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;

    let task = whoami_task(json!({"trigger_type": "date", "delay_minutes": 5}));
    let refused = f.call(&kid, "create_task", task.clone()).await.unwrap_err();
    assert!(refused.starts_with("denied: kids cannot"), "{refused}");
    // Without automation the tools are not even listed.
    let visible = f.app.visible(&reader);
    assert!(!visible.contains(&"create_task") && !visible.contains(&"list_schedulers"));
    let refused = f
        .call(&reader, "create_task", task.clone())
        .await
        .unwrap_err();
    assert!(refused.contains("automation"), "{refused}");

    // A task does not schedule tasks, and names tools that exist.
    let nested = json!({"name": "n", "calls": [{"tool": "run_task", "arguments": {"task_id": 1}}], "trigger_type": "date", "delay_minutes": 5});
    assert!(
        f.call(&user, "create_task", nested)
            .await
            .unwrap_err()
            .contains("tasks do not schedule tasks")
    );
    let unknown = json!({"name": "n", "calls": [{"tool": "no_such_tool"}], "trigger_type": "date", "delay_minutes": 5});
    assert!(
        f.call(&user, "create_task", unknown)
            .await
            .unwrap_err()
            .contains("no tool is named")
    );

    // Someone else's task is not found for a user; an admin sees everyone's.
    let mine = f.call(&user, "create_task", task).await.unwrap();
    let id = mine["task_id"].as_i64().unwrap();
    let (other, _) = f.person("cat", Role::User, "auto").await;
    let hidden = f
        .call(&other, "delete_task", json!({"task_id": id}))
        .await
        .unwrap_err();
    assert!(hidden.starts_with("not_found"), "{hidden}");
    assert_eq!(f.task(&admin, id).await["person_id"], mine["person_id"]);

    // Background jobs: listed for automation; run only by admins.
    let jobs = f.call(&user, "list_schedulers", json!({})).await.unwrap();
    assert!(
        jobs["jobs"].to_string().contains("tasks.schedule"),
        "{jobs}"
    );
    let refused = f
        .call(&user, "run_scheduler", json!({"job_id": "tasks.schedule"}))
        .await
        .unwrap_err();
    assert!(refused.starts_with("denied"), "{refused}");
    let unknown = f
        .call(&admin, "run_scheduler", json!({"job_id": "nope"}))
        .await
        .unwrap_err();
    assert!(
        unknown.contains("tasks.schedule"),
        "the jobs are named: {unknown}"
    );
    f.call(&admin, "run_scheduler", json!({"job_id": "tasks.schedule"}))
        .await
        .unwrap();
    for _ in 0..500 {
        let jobs = f.call(&admin, "list_schedulers", json!({})).await.unwrap();
        let job = jobs["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["job_id"] == "tasks.schedule")
            .cloned()
            .unwrap();
        if job["last_outcome"] == "ok" {
            assert!(job.get("last_run").is_some());
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the job did not run");
}

/// One HTTP request as a receiver on 127.0.0.1 saw it.
#[derive(Debug)]
struct Received {
    head: String,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// A receiver that reads each request and answers 200, or never answers when `hang`.
async fn receiver(hang: bool) -> (String, mpsc::UnboundedReceiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let n = socket.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_string();
                    let got = Received {
                        head,
                        body: Vec::new(),
                    };
                    let length: usize = got
                        .header("content-length")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                    if buf.len() < end + 4 + length {
                        continue;
                    }
                    let got = Received {
                        body: buf[end + 4..end + 4 + length].to_vec(),
                        ..got
                    };
                    let _ = tx.send(got);
                    if hang {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                    }
                    let _ = socket
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                    return;
                }
            });
        }
    });
    (url, rx)
}

fn webhook(id: &str, url: &str, secret: &str, timeout: Duration) -> Notifier {
    Notifier {
        id: id.into(),
        kind: NotifierKind::Webhook {
            url: url::Url::parse(url).unwrap(),
            secret: Secret::new(secret),
        },
        timeout,
    }
}

#[tokio::test]
async fn a_webhook_hears_each_run_signed_and_ntfy_gets_the_token() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (hook_url, mut hooks) = receiver(false).await;
    let (ntfy_url, mut ntfys) = receiver(false).await;
    f.scheduler().configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: vec![
            webhook("hook", &hook_url, "s3cret", Duration::from_secs(5)),
            Notifier {
                id: "phone".into(),
                kind: NotifierKind::Ntfy {
                    url: url::Url::parse(&ntfy_url).unwrap(),
                    token: Some(Secret::new("tk_123")),
                },
                timeout: Duration::from_secs(5),
            },
        ],
    });
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;
    let unknown = f
        .call(
            &admin,
            "create_task",
            whoami_task(json!({"trigger_type": "date", "delay_minutes": 5, "notifier": "pager"})),
        )
        .await
        .unwrap_err();
    assert!(unknown.contains("configured: hook, phone"), "{unknown}");
    let task = f
        .call(&admin, "create_task", whoami_task(json!({"trigger_type": "date", "delay_minutes": 5, "notify": "always", "notifier": "hook"})))
        .await
        .unwrap();
    let started = f
        .call(&admin, "run_task", json!({"task_id": task["task_id"]}))
        .await
        .unwrap();
    let run_id = started["run_id"].as_i64().unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), hooks.recv())
        .await
        .unwrap()
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(b"s3cret").unwrap();
    mac.update(&got.body);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(got.header("x-marquee-signature"), Some(expected));
    let body: Value = serde_json::from_slice(&got.body).unwrap();
    assert_eq!(body["run_id"], run_id);
    assert_eq!(body["status"], "succeeded");
    assert_eq!(body["task"]["name"], "who am I");
    assert!(
        body["summaries"][0]
            .as_str()
            .unwrap()
            .starts_with("whoami: ")
    );
    assert!(!String::from_utf8_lossy(&got.body).contains("s3cret"));

    // on_error: a run that succeeded is not told.
    let quiet = f
        .call(&admin, "create_task", whoami_task(json!({"trigger_type": "date", "delay_minutes": 5, "notify": "on_error", "notifier": "phone"})))
        .await
        .unwrap();
    let run = f
        .call(&admin, "run_task", json!({"task_id": quiet["task_id"]}))
        .await
        .unwrap();
    f.finished(&admin, run["run_id"].as_i64().unwrap()).await;
    f.call(
        &admin,
        "update_task",
        json!({"task_id": quiet["task_id"], "notify": "always"}),
    )
    .await
    .unwrap();
    f.call(&admin, "run_task", json!({"task_id": quiet["task_id"]}))
        .await
        .unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), ntfys.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        got.header("authorization").as_deref(),
        Some("Bearer tk_123")
    );
    assert_eq!(got.header("title").as_deref(), Some("who am I: succeeded"));
    assert!(ntfys.try_recv().is_err(), "the on_error run was not told");
}

#[tokio::test]
async fn a_hanging_webhook_never_holds_a_run_up() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (url, mut hooks) = receiver(true).await;
    f.scheduler().configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: vec![webhook("hook", &url, "s", Duration::from_secs(1))],
    });
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;
    let task = f
        .call(&admin, "create_task", whoami_task(json!({"trigger_type": "date", "delay_minutes": 5, "notify": "always", "notifier": "hook"})))
        .await
        .unwrap();
    let mut args = Map::new();
    args.insert("task_id".into(), task["task_id"].clone());
    let first = f
        .call(&admin, "run_task", Value::Object(args.clone()))
        .await
        .unwrap();
    // The webhook has the request and hangs; the run is finished all the same, and the next
    // run is not held up either.
    tokio::time::timeout(Duration::from_secs(10), hooks.recv())
        .await
        .unwrap()
        .unwrap();
    let run = f.finished(&admin, first["run_id"].as_i64().unwrap()).await;
    assert_eq!(run["status"], "succeeded");
    let second = f
        .call(&admin, "run_task", Value::Object(args))
        .await
        .unwrap();
    let run = f.finished(&admin, second["run_id"].as_i64().unwrap()).await;
    assert_eq!(run["status"], "succeeded");
}

#[tokio::test]
async fn two_looks_at_the_same_due_time_begin_one_run() {
    let dir = tempfile::tempdir().unwrap();
    // A file store: the two looks run on connections of their own.
    let f = Fixture::new(
        Store::open(dir.path()).await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (admin, _) = f.person("ann", Role::Admin, "admin").await;
    f.call(
        &admin,
        "create_task",
        whoami_task(json!({"trigger_type": "cron", "trigger": "*/5 * * * *"})),
    )
    .await
    .unwrap();
    f.clock.set(at("2026-12-06T10:05:01Z"));
    let (a, b) = tokio::join!(f.scheduler().tick(), f.scheduler().tick());
    assert_eq!(a.len() + b.len(), 1, "{a:?} {b:?}");
}

#[tokio::test]
async fn only_the_creator_changes_what_a_task_calls_and_a_passed_date_is_not_resumed() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (ann, _) = f.person("ann", Role::Admin, "admin").await;
    let (bob, _) = f.person("bob", Role::Admin, "admin").await;
    let created = f
        .call(
            &ann,
            "create_task",
            whoami_task(json!({"trigger_type": "date", "delay_minutes": 5})),
        )
        .await
        .unwrap();
    let id = created["task_id"].as_i64().unwrap();
    // Another admin may not make ann's task call something else, or at another time: it would
    // run under ann's authority.
    for change in [
        json!({"task_id": id, "calls": [{"tool": "list_instances", "arguments": {}}]}),
        json!({"task_id": id, "delay_minutes": 1}),
    ] {
        let e = f.call(&bob, "update_task", change).await.unwrap_err();
        assert!(
            e.contains("only they may change its calls or its trigger"),
            "{e}"
        );
    }
    // But may pause it; ann's calls are unchanged.
    let paused = f
        .call(
            &bob,
            "update_task",
            json!({"task_id": id, "enabled": false}),
        )
        .await
        .unwrap();
    assert_eq!(paused["enabled"], false, "{paused}");
    assert_eq!(paused["calls"][0]["tool"], "whoami", "{paused}");
    // Its time passes while paused: resuming it is refused, asking for a new trigger.
    f.clock.set(at("2026-12-06T10:10:00Z"));
    let e = f
        .call(&ann, "update_task", json!({"task_id": id, "enabled": true}))
        .await
        .unwrap_err();
    assert!(e.contains("give it a new trigger"), "{e}");
    let resumed = f
        .call(
            &ann,
            "update_task",
            json!({"task_id": id, "enabled": true, "delay_minutes": 5}),
        )
        .await
        .unwrap();
    assert_eq!(resumed["enabled"], true, "{resumed}");
}

#[tokio::test]
async fn a_task_made_through_local_access_runs_only_while_it_names_the_same_person() {
    let store = Store::open_in_memory().await.unwrap();
    let mut settings = Settings::new(false, None);
    // The config now lets this machine in as bob; the task was made when it named ann.
    settings.local_access = Some(tools::LocalAccess {
        person: "bob".into(),
        grant: "admin".into(),
    });
    let f = Fixture::with_settings(store, "2026-12-06T10:00:00Z", settings).await;
    let (ann, _) = f.person("ann", Role::Admin, "admin").await;
    let (_bob, _) = f.person("bob", Role::Admin, "admin").await;
    let ann_id = f.store.person_by_name("ann").await.unwrap().unwrap().id;
    let now = at("2026-12-06T10:00:00Z").timestamp_millis();
    let id = f
        .store
        .create_task(&store::Task {
            id: 0,
            name: "made locally".into(),
            person_id: ann_id,
            key_id: "local".into(),
            calls: r#"[{"tool": "whoami", "arguments": {}}]"#.into(),
            notify: "always".into(),
            notifier: None,
            trigger_type: "date".into(),
            schedule: "2026-12-06T11:00:00Z".into(),
            enabled: true,
            next_run_at: Some(now + 3_600_000),
            missed_at: None,
            created_at: now,
            updated_at: now,
            last_run: None,
        })
        .await
        .unwrap();
    let started = f
        .call(&ann, "run_task", json!({"task_id": id}))
        .await
        .unwrap();
    let run_id = started["run_id"].as_i64().unwrap();
    let run = loop {
        let run = f
            .call(&ann, "get_task_run", json!({"run_id": run_id}))
            .await
            .unwrap();
        if run["status"] != "running" {
            break run;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(run["status"], "failed", "{run}");
    assert!(
        run.to_string().contains("now stands for another person"),
        "{run}"
    );
}

#[tokio::test]
async fn chosen_notices_are_told_once_to_whoever_chose_them() {
    let f = Fixture::new(
        Store::open_in_memory().await.unwrap(),
        "2026-12-06T10:00:00Z",
    )
    .await;
    let (hook_url, mut hooks) = receiver(false).await;
    f.scheduler().configure(TasksConfig {
        zone: chrono_tz::Tz::UTC,
        notifiers: vec![webhook("hook", &hook_url, "s3cret", Duration::from_secs(5))],
    });
    let (owner, _) = f.person("olga", Role::Owner, "admin").await;
    let (bob, _) = f.person("bob", Role::User, "requester").await;
    let owner_id = owner.authority.person.id;
    let bob_id = bob.authority.person.id;
    assert!(
        f.store
            .set_notify(owner_id, "approvals", "hook", true)
            .await
            .unwrap()
    );
    // A user who chose it (the CLI refuses that) hears nothing: only those who decide do.
    f.store
        .set_notify(bob_id, "approvals", "hook", true)
        .await
        .unwrap();
    let unknown = f
        .store
        .set_notify(owner_id, "gossip", "hook", true)
        .await
        .unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("valid notices: approvals, downloads"),
        "{unknown}"
    );
    let grant = f.store.grant_by_name("requester").await.unwrap().unwrap();
    let propose = |summary: &str| store::NewChange {
        created_by: bob_id,
        grant_id: grant.id,
        grant_revision: grant.revision,
        tool: "delete_torrents".into(),
        summary: summary.into(),
        plan: "{}".into(),
        dependency_hashes: "{}".into(),
        content_hash: format!("sha256:{summary}"),
    };
    f.app.settings().set_public_url("https://marquee.example/");
    // Proposed before the first pass: the pass only marks where it starts.
    f.store.create_change(&propose("an old one")).await.unwrap();
    assert_eq!(f.scheduler().notices().await.unwrap(), 0);
    tokio::time::sleep(Duration::from_millis(5)).await;
    let change = f
        .store
        .create_change(&propose("Delete 1 torrent"))
        .await
        .unwrap();
    assert_eq!(f.scheduler().notices().await.unwrap(), 1);
    let got = tokio::time::timeout(Duration::from_secs(10), hooks.recv())
        .await
        .unwrap()
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(b"s3cret").unwrap();
    mac.update(&got.body);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(got.header("x-marquee-signature"), Some(expected));
    let body: Value = serde_json::from_slice(&got.body).unwrap();
    assert_eq!(body["event"], "approval_waiting");
    assert_eq!(body["change_id"], change.id.as_str());
    assert_eq!(
        body["review"],
        format!("https://marquee.example/changes/{}", change.id),
        "{body}"
    );
    assert_eq!(
        (body["person"].as_str(), body["tool"].as_str()),
        (Some("bob"), Some("delete_torrents"))
    );
    // Told once: the next pass has nothing new, and nothing else arrives.
    assert_eq!(f.scheduler().notices().await.unwrap(), 0);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(hooks.try_recv().is_err(), "one notice for one change");
    // Turned off: nothing more.
    assert!(
        f.store
            .set_notify(owner_id, "approvals", "hook", false)
            .await
            .unwrap()
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    f.store
        .create_change(&propose("Delete 2 torrents"))
        .await
        .unwrap();
    assert_eq!(f.scheduler().notices().await.unwrap(), 0);

    // A request that became available is told to its requester, if they chose it.
    f.store
        .set_notify(bob_id, "downloads", "hook", true)
        .await
        .unwrap();
    let created = f
        .store
        .create_request(&store::NewRequest {
            person: bob_id,
            media: domain::MediaId::new(domain::MediaSource::Tmdb, "949"),
            media_type: domain::MediaType::Movie,
            title: "Heat".into(),
            year: Some(1995),
            seasons: Vec::new(),
            instance_id: None,
            auto_approve: true,
        })
        .await
        .unwrap();
    let store::RequestOutcome::Created { request, .. } = created else {
        panic!("created: {created:?}")
    };
    tokio::time::sleep(Duration::from_millis(5)).await;
    f.store.mark_available(request.id).await.unwrap();
    assert_eq!(f.scheduler().notices().await.unwrap(), 1);
    let got = tokio::time::timeout(Duration::from_secs(10), hooks.recv())
        .await
        .unwrap()
        .unwrap();
    let body: Value = serde_json::from_slice(&got.body).unwrap();
    assert_eq!(body["event"], "available", "{body}");
    assert_eq!(
        (body["title"].as_str(), body["year"].as_i64()),
        (Some("Heat"), Some(1995))
    );
    assert_eq!(f.scheduler().notices().await.unwrap(), 0);
}

/// A one-message SMTP relay on 127.0.0.1: answers the dialogue and hands over what DATA held.
async fn smtp_sink() -> (u16, mpsc::UnboundedReceiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let Ok((socket, _)) = listener.accept().await else {
            return;
        };
        let (read, mut write) = socket.into_split();
        let mut lines = tokio::io::BufReader::new(read).lines();
        write.write_all(b"220 sink ESMTP\r\n").await.unwrap();
        while let Ok(Some(line)) = lines.next_line().await {
            let verb = line
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            let answer: &[u8] = match verb.as_str() {
                "EHLO" | "HELO" => b"250-sink\r\n250 8BITMIME\r\n",
                "DATA" => {
                    write.write_all(b"354 end with .\r\n").await.unwrap();
                    let mut mail = String::new();
                    while let Ok(Some(l)) = lines.next_line().await {
                        if l == "." {
                            break;
                        }
                        mail.push_str(&l);
                        mail.push('\n');
                    }
                    let _ = tx.send(mail);
                    b"250 queued\r\n"
                }
                "QUIT" => {
                    let _ = write.write_all(b"221 bye\r\n").await;
                    return;
                }
                _ => b"250 OK\r\n",
            };
            write.write_all(answer).await.unwrap();
        }
    });
    (port, rx)
}

#[tokio::test]
async fn an_email_notifier_mails_the_notice_through_smtp() {
    let (port, mut mails) = smtp_sink().await;
    let notifier = Notifier {
        id: "mail".into(),
        kind: NotifierKind::Email(Box::new(tools::tasks::notify::Email {
            host: "127.0.0.1".into(),
            port,
            security: tools::tasks::notify::SmtpSecurity::Plain,
            login: None,
            from: "Marquee <marquee@home.invalid>".into(),
            to: vec!["olga@home.invalid".into()],
        })),
        timeout: Duration::from_secs(5),
    };
    let notice = tools::tasks::notify::ApprovalWaiting {
        event: "approval_waiting",
        change_id: "chg_abc".into(),
        tool: "delete_torrents".into(),
        person: "bob".into(),
        summary: "Delete 1 torrent".into(),
        review: None,
    };
    tools::tasks::notify::send(&notifier, &notice.payload()).await;
    let mail = tokio::time::timeout(Duration::from_secs(10), mails.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        mail.contains("Subject: Approval waiting: delete_torrents"),
        "{mail}"
    );
    assert!(mail.contains("To: olga@home.invalid"), "{mail}");
    assert!(mail.contains("bob asked: Delete 1 torrent"), "{mail}");
}
