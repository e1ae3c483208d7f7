//! External MCP servers behind Marquee's governance, against real servers: the official
//! `@modelcontextprotocol/server-everything` (npm) over stdio and over Streamable HTTP, and a
//! tiny server written with the official Python SDK (`tests/federated/tiny_server.py`) over
//! stdio. scripts/test.sh installs both (the client kit's venv has the Python SDK); a test
//! whose tool is absent on this machine says so and passes without running.

#![allow(clippy::unwrap_used)]

use std::{
    collections::BTreeSet,
    path::PathBuf,
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use domain::{Capability, InstanceKind, Role, Secret};
use serde_json::{Value, json};
use store::{GrantSpec, Store};
use tools::{
    App, Called, Caller, ErrorCode, InstanceSpec, Instances, Launch, Output, Settings, ToolError,
};

/// The client kit's cache folder (`../shared-cache/mcp-clients`, or `$MCP_CLIENTS_HOME`).
fn kit() -> PathBuf {
    std::env::var_os("MCP_CLIENTS_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| test_support::beside_checkout("shared-cache/mcp-clients"))
}

/// `node` and the everything server's entry point, when both are here.
fn everything() -> Option<(String, String)> {
    let entry =
        kit().join("everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = which("node")?;
    if entry.is_file() {
        Some((node, entry.display().to_string()))
    } else {
        eprintln!(
            "SKIP: {} is not installed (scripts/test.sh installs it)",
            entry.display()
        );
        None
    }
}

/// The client kit's Python with the official SDK, when it is here.
fn python() -> Option<String> {
    let py = kit().join("venv/bin/python");
    if py.is_file() {
        Some(py.display().to_string())
    } else {
        eprintln!(
            "SKIP: the client kit's venv ({}) is not installed (scripts/test.sh installs it)",
            py.display()
        );
        None
    }
}

fn which(name: &str) -> Option<String> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        eprintln!("SKIP: {name} is not installed (scripts/test.sh installs it)");
    }
    found.map(|p| p.display().to_string())
}

fn tiny_server() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/federated/tiny_server.py")
        .display()
        .to_string()
}

fn mcp_spec(id: &str, url: Option<&str>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind: InstanceKind::Mcp,
        url: url.map(|u| url::Url::parse(u).unwrap()),
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

fn stdio(command: &str, args: &[&str], env: Vec<(String, Secret, bool)>) -> Launch {
    Launch {
        command: Some(command.into()),
        args: args.iter().map(|a| a.to_string()).collect(),
        env,
        headers: Vec::new(),
    }
}

struct Household {
    app: Arc<App>,
    owner: Caller,
    store: Store,
    _dir: tempfile::TempDir,
}

impl Household {
    async fn new(servers: Vec<(InstanceSpec, Option<Launch>)>) -> Household {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
        let launches: Vec<(String, Launch)> = servers
            .iter()
            .filter_map(|(s, l)| Some((s.id.clone(), l.clone()?)))
            .collect();
        let specs = servers.into_iter().map(|(s, _)| s).collect();
        let instances = Instances::new(specs)
            .unwrap()
            .with_timeouts([("slow".to_string(), Duration::from_secs(2))])
            .with_launches(launches);
        let app = tools::app(
            store.clone(),
            Arc::new(Settings::new(true, None)),
            Arc::new(instances),
        );
        app.start_jobs(std::future::pending());
        let owner = app
            .authenticate(key.secret.expose())
            .await
            .unwrap()
            .unwrap();
        Household {
            app: Arc::new(app),
            owner,
            store,
            _dir: dir,
        }
    }

    /// A person with `role` and a grant of `capabilities`, narrowed to `instances` when given.
    async fn person(
        &self,
        name: &str,
        role: Role,
        capabilities: &[Capability],
        instances: Option<Vec<String>>,
    ) -> Caller {
        let person = self.store.add_person(name, role).await.unwrap();
        let spec = GrantSpec {
            capabilities: capabilities.iter().copied().collect::<BTreeSet<_>>(),
            instances,
            ..GrantSpec::default()
        };
        self.store.create_grant(name, &spec).await.unwrap();
        let key = self
            .store
            .create_key(person.id, name, None, None)
            .await
            .unwrap();
        self.app
            .authenticate(key.secret.expose())
            .await
            .unwrap()
            .unwrap()
    }

    async fn call(&self, caller: &Caller, tool: &str, args: Value) -> Result<Output, ToolError> {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        match self.app.call(caller, tool, Some(args)).await {
            Called::Done(r) => r,
            Called::UnknownTool => panic!("unknown tool {tool}"),
        }
    }

    /// Waits (at most 60 s) until `tool` is listed for the owner, or no longer when `listed`
    /// is false.
    async fn until_listed(&self, tool: &str, listed: bool) {
        let started = Instant::now();
        while self.app.visible(&self.owner).contains(&tool) != listed {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{tool} listed = {} after 60 s; status: {:?}",
                !listed,
                tool.split_once("__")
                    .and_then(|(id, _)| tools::federated::status(&self.app, id))
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn external(names: &[&'static str]) -> Vec<&'static str> {
    names.iter().copied().filter(|n| n.contains("__")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_stdio_is_listed_prefixed_and_echoes() {
    let Some((node, entry)) = everything() else {
        return;
    };
    let h = Household::new(vec![(
        mcp_spec("ev", None),
        Some(stdio(&node, &[&entry, "stdio"], Vec::new())),
    )])
    .await;
    h.until_listed("ev__echo", true).await;
    let view = h.app.tool_view("ev__echo").unwrap();
    assert_eq!(view.meta.title, "Echo Tool");
    let a = view.meta.annotations();
    assert!(
        a.read_only && !a.destructive && a.idempotent && !a.open_world,
        "{a:?}"
    );
    assert_eq!(view.input_schema["properties"]["message"]["type"], "string");
    assert_eq!(view.meta.capability, Capability::Federated);
    let out = h
        .call(
            &h.owner,
            "ev__echo",
            json!({"message": "hello from marquee"}),
        )
        .await
        .unwrap();
    assert_eq!(out.summary, "Echo: hello from marquee");
    assert_eq!(out.data()["content"][0]["text"], "Echo: hello from marquee");
    // Checked against its schema before it leaves: the server never sees it.
    let refused = h
        .call(&h.owner, "ev__echo", json!({"message": 3}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert_eq!(
        refused.message,
        "invalid argument \"message\": expected string, got number"
    );
    let missing = h.call(&h.owner, "ev__echo", json!({})).await.unwrap_err();
    assert_eq!(missing.message, "missing argument \"message\"");
}

/// The everything server over HTTP (`mode`: `streamableHttp`, or the older `sse`) on a free
/// port of this machine: the child (killed on drop) and its port.
fn everything_on_http(node: &str, entry: &str, mode: &str) -> (tokio::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = tokio::process::Command::new(node)
        .args([entry, mode])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    (child, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_streamable_http_echoes() {
    let Some((node, entry)) = everything() else {
        return;
    };
    let (mut child, port) = everything_on_http(&node, &entry, "streamableHttp");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let h = Household::new(vec![(mcp_spec("web", Some(&url)), None)]).await;
    h.until_listed("web__echo", true).await;
    let out = h
        .call(&h.owner, "web__echo", json!({"message": "over http"}))
        .await
        .unwrap();
    assert_eq!(out.summary, "Echo: over http");
    let _ = child.kill().await;
}

/// A server older than Streamable HTTP (the everything server's `sse` mode: GET /sse, POST
/// /message): the POST Streamable HTTP starts with is refused, and the older transport is used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_the_older_http_sse_transport_echoes() {
    let Some((node, entry)) = everything() else {
        return;
    };
    let (mut child, port) = everything_on_http(&node, &entry, "sse");
    let url = format!("http://127.0.0.1:{port}/sse");
    let h = Household::new(vec![(mcp_spec("old", Some(&url)), None)]).await;
    h.until_listed("old__echo", true).await;
    let out = h
        .call(&h.owner, "old__echo", json!({"message": "over sse"}))
        .await
        .unwrap();
    assert_eq!(out.summary, "Echo: over sse");
    // Its progress comes back on the event stream too, while a long call runs.
    let out = h
        .call(
            &h.owner,
            "old__trigger-long-running-operation",
            json!({"duration": 0.4, "steps": 2}),
        )
        .await
        .unwrap();
    assert!(out.summary.contains("Steps: 2"), "{}", out.summary);
    // The server gone, it is down; its tools leave the list.
    let _ = child.kill().await;
    h.until_listed("old__echo", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_is_governed_like_marquees_own_tools() {
    let Some(py) = python() else { return };
    let h = Household::new(vec![(
        mcp_spec("tiny", None),
        Some(stdio(&py, &[&tiny_server()], Vec::new())),
    )])
    .await;
    h.until_listed("tiny__shout", true).await;
    assert_eq!(
        h.app.tool_view("tiny__shout").unwrap().meta.effect,
        policy::Effect::Read
    );
    // Unannotated: destructive, by the specification's default.
    assert_eq!(
        h.app.tool_view("tiny__forget").unwrap().meta.effect,
        policy::Effect::Destructive
    );
    let out = h
        .call(&h.owner, "tiny__shout", json!({"text": "quiet"}))
        .await
        .unwrap();
    assert!(out.summary.contains("QUIET"), "{}", out.summary);

    // A kid's list is unchanged by the server, even with `federated`, unless a grant names it.
    let kid = h
        .person(
            "kid",
            Role::Kid,
            &[Capability::Discover, Capability::Federated],
            None,
        )
        .await;
    let seen = h.app.visible(&kid);
    assert_eq!(external(&seen), Vec::<&str>::new(), "{seen:?}");
    let refused = h
        .call(&kid, "tiny__shout", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Denied);
    let named = h
        .person(
            "kid2",
            Role::Kid,
            &[Capability::Federated],
            Some(vec!["tiny".into()]),
        )
        .await;
    assert_eq!(
        external(&h.app.visible(&named)),
        [
            "tiny__big",
            "tiny__forget",
            "tiny__grow",
            "tiny__nap",
            "tiny__shout"
        ]
    );

    // A user needs `federated`; with it, a destructive call becomes a plan for the owner,
    // with the exact arguments, and the server is not called.
    let plain = h
        .person("ann", Role::User, &[Capability::Discover], None)
        .await;
    assert_eq!(external(&h.app.visible(&plain)), Vec::<&str>::new());
    let user = h
        .person("bob", Role::User, &[Capability::Federated], None)
        .await;
    assert_eq!(
        external(&h.app.visible(&user)),
        [
            "tiny__big",
            "tiny__forget",
            "tiny__grow",
            "tiny__nap",
            "tiny__shout"
        ]
    );
    let planned = h
        .call(&user, "tiny__forget", json!({"item": "the keys"}))
        .await
        .unwrap();
    let data = planned.data();
    assert_eq!(data["status"], "pending", "{data}");
    assert_eq!(
        data["plan"],
        json!({"server": "tiny", "tool": "forget", "arguments": {"item": "the keys"}})
    );
    let change_id = data["change_id"].as_str().unwrap().to_string();
    let change = h.store.change(&change_id).await.unwrap().unwrap();
    let review = h.app.describe_plan(&change);
    assert_eq!(
        review.tables[0].rows,
        vec![vec!["item".to_string(), "\"the keys\"".to_string()]]
    );

    // The owner's own call acts, and is audited with the server as its instance.
    let done = h
        .call(&h.owner, "tiny__forget", json!({"item": "the keys"}))
        .await
        .unwrap();
    assert_eq!(done.summary, "forgot the keys");
    assert_eq!(done.data()["arguments_bytes"], 19);
    let audit = h.store.audit_page(&Default::default()).await.unwrap();
    let entry = audit
        .iter()
        .find(|e| e.tool == "tiny__forget")
        .expect("an audit entry");
    assert_eq!(entry.instance.as_deref(), Some("tiny"));
    assert_eq!(entry.status, store::AuditStatus::Applied);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_disappears_answers_that_it_is_down_and_comes_back_after_back_off() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-token-value\n").unwrap();
    let env = vec![
        (
            "PID_FILE".to_string(),
            Secret::new(pid_file.display().to_string()),
            false,
        ),
        (
            "TINY_TOKEN".to_string(),
            Secret::new("s3cret-token-value"),
            true,
        ),
    ];
    let h = Household::new(vec![(
        mcp_spec("tiny", None),
        Some(stdio(&py, &[&tiny_server()], env)),
    )])
    .await;
    h.until_listed("tiny__shout", true).await;
    let status = tools::federated::status(&h.app, "tiny").unwrap();
    assert!(status.up && status.tools == 5, "{status:?}");
    // Its stderr is kept (and logged) with the secret it was handed scrubbed.
    let said = status.stderr.join("\n");
    assert!(
        said.contains("tiny server starting with token ***"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");

    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    h.until_listed("tiny__shout", false).await;
    let down = h
        .call(&h.owner, "tiny__shout", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(down.code, ErrorCode::BackendUnavailable);
    assert!(
        down.message.starts_with("the MCP server tiny is down"),
        "{}",
        down.message
    );
    // Started again after its back-off, with a new process.
    h.until_listed("tiny__shout", true).await;
    let again = std::fs::read_to_string(&pid_file).unwrap();
    assert_ne!(again.trim(), pid.trim());
    let out = h
        .call(&h.owner, "tiny__shout", json!({"text": "back"}))
        .await
        .unwrap();
    assert!(out.summary.contains("BACK"), "{}", out.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_once_is_down_with_its_last_stderr_lines() {
    let Some(py) = python() else { return };
    let script =
        "import sys; print('no config for hunter2-key here', file=sys.stderr); sys.exit(3)";
    let env = vec![("KEY".to_string(), Secret::new("hunter2-key"), true)];
    let h = Household::new(vec![(
        mcp_spec("broken", None),
        Some(stdio(&py, &["-c", script], env)),
    )])
    .await;
    let started = Instant::now();
    let status = loop {
        let s = tools::federated::status(&h.app, "broken").unwrap();
        if s.last_error.is_some() && !s.stderr.is_empty() {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{s:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!status.up);
    assert_eq!(status.stderr, ["no config for *** here"]);
    let down = h
        .call(&h.owner, "broken__anything", json!({}))
        .await
        .unwrap_err();
    assert!(
        down.message.contains("the MCP server broken is down"),
        "{}",
        down.message
    );
    assert!(!down.message.contains("hunter2"), "{}", down.message);
    // A name the server never listed is counted under the server's one label, never kept as
    // its own: a caller cannot grow the metrics or the names kept by making names up.
    for made_up in ["broken__anything", "broken__something-else"] {
        assert_eq!(h.app.tool_label(made_up), Some("broken__*"));
    }
    assert_eq!(h.app.tool_label("nosuch__anything"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_list_changed_notification_refreshes_its_tools() {
    let Some(py) = python() else { return };
    let h = Household::new(vec![(
        mcp_spec("tiny", None),
        Some(stdio(&py, &[&tiny_server()], Vec::new())),
    )])
    .await;
    h.until_listed("tiny__shout", true).await;
    assert!(!h.app.visible(&h.owner).contains(&"tiny__extra"));
    // A write that is not destructive: the owner's call acts at once.
    let grown = h.call(&h.owner, "tiny__grow", json!({})).await.unwrap();
    assert_eq!(grown.summary, "grown");
    h.until_listed("tiny__extra", true).await;
    let out = h.call(&h.owner, "tiny__extra", json!({})).await.unwrap();
    assert_eq!(out.summary, "extra");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_answer_times_out_and_a_large_one_is_refused() {
    let Some(py) = python() else { return };
    // `slow` has a 2 s timeout (see `Household::new`).
    let h = Household::new(vec![(
        mcp_spec("slow", None),
        Some(stdio(&py, &[&tiny_server()], Vec::new())),
    )])
    .await;
    h.until_listed("slow__nap", true).await;
    let late = h
        .call(&h.owner, "slow__nap", json!({"seconds": 10}))
        .await
        .unwrap_err();
    assert_eq!(late.code, ErrorCode::BackendUnreachable);
    assert_eq!(
        late.message,
        "the MCP server slow did not answer within 2 s"
    );
    let large = h
        .call(&h.owner, "slow__big", json!({"size": 2_000_000}))
        .await
        .unwrap_err();
    assert_eq!(large.code, ErrorCode::BackendError);
    assert!(
        large.message.contains("more than the 1048576 accepted"),
        "{}",
        large.message
    );
    let fits = h
        .call(&h.owner, "slow__big", json!({"size": 1000}))
        .await
        .unwrap();
    assert_eq!(fits.summary.len(), 1000);
}

/// The owner approves `change_id` as the review page would.
async fn approve(h: &Household, change_id: &str) {
    let change = h.store.change(change_id).await.unwrap().unwrap();
    h.store
        .decide_change(
            change_id,
            h.owner.authority.person.id,
            true,
            &change.content_hash,
        )
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_external_plan_is_applied_once_and_audited_under_its_server() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("forgotten");
    let env = vec![(
        "FORGET_LOG".to_string(),
        Secret::new(log.display().to_string()),
        false,
    )];
    let h = Household::new(vec![(
        mcp_spec("tiny", None),
        Some(stdio(&py, &[&tiny_server()], env)),
    )])
    .await;
    h.until_listed("tiny__forget", true).await;
    let forgotten = || std::fs::read_to_string(&log).unwrap_or_default();
    let bob = h
        .person(
            "bob",
            Role::User,
            &[Capability::Federated],
            Some(vec!["tiny".into()]),
        )
        .await;
    let apply =
        |change_id: &str, key: &str| json!({"change_id": change_id, "idempotency_key": key});

    let planned = h
        .call(&bob, "tiny__forget", json!({"item": "the keys"}))
        .await
        .unwrap();
    let change_id = planned.data()["change_id"].as_str().unwrap().to_string();
    // Before the owner approves, the change waits and the server is not called.
    let waits = h
        .call(&bob, "apply_change", apply(&change_id, "forget-early"))
        .await
        .unwrap_err();
    assert_eq!(waits.code, ErrorCode::NeedsPlan, "{}", waits.message);
    assert_eq!(forgotten(), "");

    approve(&h, &change_id).await;
    let op = h
        .call(&bob, "apply_change", apply(&change_id, "forget-keys-1"))
        .await
        .unwrap()
        .data();
    assert_eq!(op["status"], "succeeded", "{op}");
    assert_eq!(
        op["result"]["content"][0]["text"], "forgot the keys",
        "{op}"
    );
    assert_eq!(forgotten(), "the keys\n");
    // The same key answers the same operation; the server is called once.
    let again = h
        .call(&bob, "apply_change", apply(&change_id, "forget-keys-1"))
        .await
        .unwrap()
        .data();
    assert_eq!(again["operation_id"], op["operation_id"]);
    assert_eq!(forgotten(), "the keys\n");
    // Audited under the server, with the arguments' size and the answer's isError.
    let audit = h.store.audit_page(&Default::default()).await.unwrap();
    let entries: Vec<_> = audit.iter().filter(|e| e.tool == "tiny__forget").collect();
    assert_eq!(entries.len(), 1, "{audit:?}");
    assert_eq!(entries[0].instance.as_deref(), Some("tiny"));
    assert_eq!(entries[0].person, "bob");
    assert_eq!(entries[0].status, store::AuditStatus::Applied);
    assert_eq!(
        entries[0].message.as_deref(),
        Some("forgot the keys [arguments: 19 bytes; isError: false]")
    );

    // A grant narrowed between the approval and the apply refuses it: the server is not called.
    let planned = h
        .call(&bob, "tiny__forget", json!({"item": "the wallet"}))
        .await
        .unwrap();
    let second = planned.data()["change_id"].as_str().unwrap().to_string();
    approve(&h, &second).await;
    h.store
        .update_grant(
            "bob",
            &GrantSpec {
                capabilities: [Capability::Federated].into(),
                instances: Some(vec!["elsewhere".into()]),
                ..GrantSpec::default()
            },
        )
        .await
        .unwrap();
    let refused = h
        .call(&bob, "apply_change", apply(&second, "forget-wallet-1"))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Denied, "{}", refused.message);
    assert!(
        refused
            .message
            .contains("your grant does not reach the MCP server \"tiny\""),
        "{}",
        refused.message
    );
    assert_eq!(forgotten(), "the keys\n");
    assert_eq!(
        h.store.change(&second).await.unwrap().unwrap().status,
        store::ChangeStatus::Approved
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_write_is_audited_with_its_arguments_size_and_is_error() {
    let Some(py) = python() else { return };
    let h = Household::new(vec![(
        mcp_spec("tiny", None),
        Some(stdio(&py, &[&tiny_server()], Vec::new())),
    )])
    .await;
    h.until_listed("tiny__forget", true).await;
    let failed = h
        .call(&h.owner, "tiny__forget", json!({"item": ""}))
        .await
        .unwrap_err();
    assert_eq!(failed.code, ErrorCode::BackendError);
    assert!(
        failed
            .message
            .starts_with("tiny__forget answered with an error"),
        "{}",
        failed.message
    );
    h.call(&h.owner, "tiny__grow", json!({})).await.unwrap();
    let audit = h.store.audit_page(&Default::default()).await.unwrap();
    let message = |tool: &str| {
        let entry = audit.iter().find(|e| e.tool == tool).unwrap();
        (entry.status, entry.message.clone().unwrap())
    };
    let (status, said) = message("tiny__forget");
    assert_eq!(status, store::AuditStatus::Failed);
    assert!(
        said.ends_with("[arguments: 11 bytes; isError: true]"),
        "{said}"
    );
    assert_eq!(
        message("tiny__grow"),
        (
            store::AuditStatus::Applied,
            "grown [arguments: 2 bytes; isError: false]".to_string()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_resources_and_prompts_pass_through_prefixed_and_governed() {
    let Some((node, entry)) = everything() else {
        return;
    };
    let h = Household::new(vec![(
        mcp_spec("ev", None),
        Some(stdio(&node, &[&entry, "stdio"], Vec::new())),
    )])
    .await;
    h.until_listed("ev__echo", true).await;
    let app = &h.app;

    let resources = tools::federated::list_resources(app, &h.owner).await;
    let doc = resources
        .iter()
        .find(|r| r["name"] == "ev__features.md")
        .unwrap_or_else(|| panic!("{resources:?}"));
    assert_eq!(
        doc["uri"],
        "ev__demo://resource/static/document/features.md"
    );
    let read = tools::federated::read_resource(app, &h.owner, doc["uri"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read["contents"][0]["uri"],
        "ev__demo://resource/static/document/features.md"
    );
    assert!(!read["contents"][0]["text"].as_str().unwrap().is_empty());

    let prompts = tools::federated::list_prompts(app, &h.owner).await;
    assert!(
        prompts.iter().any(|p| p["name"] == "ev__simple-prompt"),
        "{prompts:?}"
    );
    let got = tools::federated::get_prompt(app, &h.owner, "ev__simple-prompt", None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "This is a simple prompt without arguments."
    );
    // Not an external name: not ours to answer.
    assert!(
        tools::federated::read_resource(app, &h.owner, "marquee://views/x")
            .await
            .is_none()
    );

    // A kid with `federated` but no grant naming the server sees none and reads none.
    let kid = h
        .person("kid", Role::Kid, &[Capability::Federated], None)
        .await;
    assert!(tools::federated::list_resources(app, &kid).await.is_empty());
    assert!(tools::federated::list_prompts(app, &kid).await.is_empty());
    let refused = tools::federated::read_resource(app, &kid, doc["uri"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Denied);
    let refused = tools::federated::get_prompt(app, &kid, "ev__simple-prompt", None)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Denied);
    // A user needs `federated`; a grant naming the server reaches it.
    let plain = h
        .person("ann", Role::User, &[Capability::Discover], None)
        .await;
    assert!(tools::federated::list_prompts(app, &plain).await.is_empty());
    let named = h
        .person(
            "kid2",
            Role::Kid,
            &[Capability::Federated],
            Some(vec!["ev".into()]),
        )
        .await;
    assert!(
        tools::federated::list_prompts(app, &named)
            .await
            .iter()
            .any(|p| p["name"] == "ev__simple-prompt")
    );
}
