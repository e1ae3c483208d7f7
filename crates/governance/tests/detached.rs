//! A write, once audited, runs to its end whatever becomes of the caller: a call dropped
//! mid-write (its connection gone) still finishes and records its outcome; a read is dropped
//! with its caller.

#![allow(clippy::unwrap_used)]

use std::{sync::Arc, time::Duration};

use domain::Capability;
use governance::{App, Called, Ctx, Instances, Meta, Output, Settings, Tool, ToolError};
use policy::Effect;
use serde_json::json;
use store::{AuditQuery, AuditStatus, Store};
use tokio::sync::{Notify, Semaphore};

/// The slow backend: the tool says it started, then waits until the test lets it finish.
#[derive(Clone)]
struct Gate {
    started: Arc<Notify>,
    finish: Arc<Semaphore>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            started: Arc::new(Notify::new()),
            finish: Arc::new(Semaphore::new(0)),
        }
    }
}

struct SlowWrite(Gate);

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoInput {}

impl Tool for SlowWrite {
    type Input = NoInput;
    const META: Meta = Meta {
        name: "slow_write",
        title: "A slow write",
        description: "Writes slowly.",
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

    async fn run(&self, _ctx: &Ctx, _input: NoInput) -> Result<Output, ToolError> {
        self.0.started.notify_one();
        let _permit = self.0.finish.acquire().await.unwrap();
        Ok(Output::new("written.", json!({"ok": true})))
    }
}

async fn app(gate: Gate) -> (App, governance::Caller) {
    let store = Store::open_in_memory().await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let app = App::with_tools(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::new(Vec::new()).unwrap()),
        vec![Box::new(SlowWrite(gate))],
    );
    let caller = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    (app, caller)
}

async fn statuses(app: &App) -> Vec<(String, AuditStatus)> {
    let page = app
        .store()
        .audit_page(&AuditQuery {
            limit: 10,
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    page.into_iter().map(|e| (e.tool, e.status)).collect()
}

#[tokio::test]
async fn a_write_whose_caller_left_mid_call_still_finishes_and_records_its_outcome() {
    let gate = Gate::default();
    let (app, caller) = app(gate.clone()).await;
    // The caller leaves (its connection drops, the request future with it) once the write is
    // under way.
    let call = app.call(&caller, "slow_write", None);
    tokio::select! {
        _ = call => panic!("the write cannot finish before it is let go"),
        () = gate.started.notified() => {}
    }
    assert_eq!(
        statuses(&app).await,
        vec![("slow_write".to_string(), AuditStatus::Executing)]
    );
    assert_eq!(app.writes_running(), 1, "the write outlived its caller");
    gate.finish.add_permits(1);
    assert_eq!(app.finish_writes(Duration::from_secs(10)).await, 0);
    assert_eq!(
        statuses(&app).await,
        vec![("slow_write".to_string(), AuditStatus::Applied)]
    );
}

#[tokio::test]
async fn a_caller_who_stays_gets_the_outcome() {
    let gate = Gate::default();
    gate.finish.add_permits(1);
    let (app, caller) = app(gate).await;
    match app.call(&caller, "slow_write", None).await {
        Called::Done(Ok(out)) => assert_eq!(out.summary, "written."),
        other => panic!("{other:?}"),
    }
    assert_eq!(app.writes_running(), 0);
    assert_eq!(
        statuses(&app).await,
        vec![("slow_write".to_string(), AuditStatus::Applied)]
    );
}

#[tokio::test]
async fn shutdown_grace_ends_with_what_is_still_running() {
    let gate = Gate::default();
    let (app, caller) = app(gate.clone()).await;
    tokio::select! {
        _ = app.call(&caller, "slow_write", None) => panic!("finished early"),
        () = gate.started.notified() => {}
    }
    assert_eq!(app.finish_writes(Duration::from_millis(50)).await, 1);
    gate.finish.add_permits(1);
    assert_eq!(app.finish_writes(Duration::from_secs(10)).await, 0);
}
