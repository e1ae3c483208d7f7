//! The governance core around every tool: audit before writes, fresh authority before
//! writes, the destructive switch read per call, and panics contained.

#![allow(clippy::unwrap_used)]

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use store::{AuditQuery, AuditStatus};
use tools::{
    App, Called, Ctx, ErrorCode, Instances, Meta, Output, Settings, Tool, ToolError,
    contract::DynTool,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct In {
    #[serde(default)]
    fail: bool,
    #[serde(default)]
    panic: bool,
    /// Read by the core (for the audit entry), not by the tool.
    #[serde(default)]
    #[allow(dead_code)]
    instance_id: Option<String>,
}

/// A write tool that counts how often it acted and checks the audit entry exists first.
struct Poke(Arc<AtomicUsize>);

impl Tool for Poke {
    type Input = In;
    const META: Meta = Meta {
        name: "poke",
        title: "Poke",
        description: "test write",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };
    async fn run(&self, ctx: &Ctx, input: In) -> Result<Output, ToolError> {
        let open = ctx
            .store()
            .audit_page(&AuditQuery {
                person: None,
                before_id: None,
                limit: 1,
            })
            .await?;
        assert_eq!(
            open[0].status,
            AuditStatus::Executing,
            "the audit entry is written before the effect"
        );
        if input.panic {
            panic!("boom");
        }
        self.0.fetch_add(1, Ordering::SeqCst);
        if input.fail {
            Err(ToolError::new(
                ErrorCode::BackendUnreachable,
                "the backend did not answer",
            ))
        } else {
            Ok(Output::new("poked", json!({})))
        }
    }
}

struct Wipe;

impl Tool for Wipe {
    type Input = In;
    const META: Meta = Meta {
        name: "wipe",
        title: "Wipe",
        description: "test destructive",
        effect: Effect::Destructive,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };
    async fn run(&self, _ctx: &Ctx, _input: In) -> Result<Output, ToolError> {
        Ok(Output::new("wiped", json!({})))
    }
}

async fn app(counter: Arc<AtomicUsize>) -> (App, String) {
    let store = store::Store::open_in_memory().await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let settings = Settings::new(false, None);
    let tools: Vec<Box<dyn DynTool>> = vec![Box::new(Poke(counter)), Box::new(Wipe)];
    (
        App::with_tools(
            store,
            Arc::new(settings),
            Arc::new(Instances::default()),
            tools,
        ),
        key.secret.expose().to_string(),
    )
}

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

async fn done(
    app: &App,
    caller: &tools::Caller,
    name: &str,
    a: Value,
) -> Result<Output, ToolError> {
    match app.call(caller, name, args(a)).await {
        Called::Done(r) => r,
        Called::UnknownTool => panic!("unknown tool {name}"),
    }
}

#[tokio::test]
async fn writes_are_audited_before_and_after() {
    let n = Arc::new(AtomicUsize::new(0));
    let (app, key) = app(n.clone()).await;
    let owner = app.authenticate(&key).await.unwrap().unwrap();
    done(&app, &owner, "poke", json!({"instance_id": "qbit"}))
        .await
        .unwrap();
    let err = done(&app, &owner, "poke", json!({"fail": true}))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::BackendUnreachable);
    let rows = app
        .store()
        .audit_page(&AuditQuery {
            person: None,
            before_id: None,
            limit: 10,
        })
        .await
        .unwrap();
    let seen: Vec<(AuditStatus, Option<&str>)> = rows
        .iter()
        .map(|r| (r.status, r.instance.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (AuditStatus::Failed, None),
            (AuditStatus::Applied, Some("qbit"))
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.args_digest.starts_with("sha256:") && r.key_id.is_some())
    );
    assert_eq!(n.load(Ordering::SeqCst), 2);
    // Bad input is refused before anything is audited or done.
    let err = done(&app, &owner, "poke", json!({"bogus": 1}))
        .await
        .unwrap_err();
    assert!(err.message.contains("bogus"), "{}", err.message);
    assert_eq!(
        app.store()
            .audit_page(&AuditQuery {
                person: None,
                before_id: None,
                limit: 10
            })
            .await
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_and_the_core_keeps_serving() {
    let n = Arc::new(AtomicUsize::new(0));
    let (app, key) = app(n.clone()).await;
    let owner = app.authenticate(&key).await.unwrap().unwrap();
    let err = done(&app, &owner, "poke", json!({"panic": true}))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Internal);
    assert!(err.message.contains("poke failed unexpectedly"));
    let rows = app
        .store()
        .audit_page(&AuditQuery {
            person: None,
            before_id: None,
            limit: 1,
        })
        .await
        .unwrap();
    assert_eq!(rows[0].status, AuditStatus::Failed);
    done(&app, &owner, "poke", json!({})).await.unwrap();
}

#[tokio::test]
async fn authority_is_read_again_right_before_a_write() {
    let n = Arc::new(AtomicUsize::new(0));
    let (app, key) = app(n.clone()).await;
    let person = app.store().add_person("op", Role::Admin).await.unwrap();
    let op_key = app
        .store()
        .create_key(person.id, "operator", None, None)
        .await
        .unwrap();
    let op = app
        .authenticate(op_key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    app.store().revoke_key(&op_key.info.key_id).await.unwrap();
    let err = done(&app, &op, "poke", json!({})).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Denied);
    assert_eq!(n.load(Ordering::SeqCst), 0, "nothing happened");
    assert!(
        app.store()
            .audit_page(&AuditQuery {
                person: None,
                before_id: None,
                limit: 10
            })
            .await
            .unwrap()
            .is_empty()
    );
    let _ = key;
}

#[tokio::test]
async fn the_destructive_switch_is_read_on_every_call() {
    let (app, key) = app(Arc::new(AtomicUsize::new(0))).await;
    let owner = app.authenticate(&key).await.unwrap().unwrap();
    assert_eq!(app.visible(&owner), ["poke"]);
    let err = done(&app, &owner, "wipe", json!({})).await.unwrap_err();
    assert!(err.message.contains("allow_destructive"), "{}", err.message);
    app.settings().set_allow_destructive(true);
    assert_eq!(app.visible(&owner), ["poke", "wipe"]);
    done(&app, &owner, "wipe", json!({})).await.unwrap();
    app.settings().set_allow_destructive(false);
    assert!(done(&app, &owner, "wipe", json!({})).await.is_err());
}
