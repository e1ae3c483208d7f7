//! Allowances: reserved with the audit entry before the tool acts, so concurrent calls never
//! spend more than the count; a refused call gives its unit back, an uncertain one keeps it.

#![allow(clippy::unwrap_used)]

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use domain::{AllowanceKind, AllowanceRule, Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use store::{GrantSpec, Store};
use tools::{
    App, Called, Ctx, ErrorCode, Instances, Meta, Output, Settings, Tool, ToolError,
    contract::DynTool,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct In {
    /// How the call ends: "ok", "refused" (certainly did nothing) or "unknown" (a backend
    /// failure: it may have happened).
    #[serde(default)]
    end: Option<String>,
}

/// A write that spends an `adds` unit; the counter is the backend's side of the story.
struct Add(Arc<AtomicUsize>);

impl Tool for Add {
    type Input = In;
    const META: Meta = Meta {
        name: "add_thing",
        title: "Add a thing",
        description: "test add",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: Some(AllowanceKind::Adds),
        or_capabilities: &[],
        family: None,
        plan: None,
    };
    async fn run(&self, _ctx: &Ctx, input: In) -> Result<Output, ToolError> {
        match input.end.as_deref() {
            Some("refused") => Err(ToolError::invalid("the category does not exist")),
            Some("unknown") => {
                self.0.fetch_add(1, Ordering::SeqCst);
                Err(ToolError::new(
                    ErrorCode::BackendUnreachable,
                    "the backend did not answer",
                ))
            }
            _ => {
                // Let the other calls run meanwhile, as a real backend call would.
                tokio::task::yield_now().await;
                self.0.fetch_add(1, Ordering::SeqCst);
                Ok(Output::new("added", json!({})))
            }
        }
    }
}

struct Fixture {
    app: Arc<App>,
    caller: tools::Caller,
    backend: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

/// A file store (several connections, as in production) and a person whose grant allows
/// `count` adds per day.
async fn fixture(count: u32) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let ann = store.add_person("ann", Role::User).await.unwrap();
    let spec = GrantSpec {
        capabilities: BTreeSet::from([Capability::DownloadsWrite, Capability::Discover]),
        allowances: BTreeMap::from([(AllowanceKind::Adds, AllowanceRule { count, days: 1 })]),
        ..GrantSpec::default()
    };
    store.create_grant("adder", &spec).await.unwrap();
    let key = store.create_key(ann.id, "adder", None, None).await.unwrap();
    let backend = Arc::new(AtomicUsize::new(0));
    let tools: Vec<Box<dyn DynTool>> = vec![Box::new(Add(backend.clone()))];
    let app = App::with_tools(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(Instances::default()),
        tools,
    );
    let caller = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    Fixture {
        app: Arc::new(app),
        caller,
        backend,
        _dir: dir,
    }
}

async fn call(f: &Fixture, end: &str) -> Result<Output, ToolError> {
    let args = json!({ "end": end }).as_object().cloned();
    match f.app.call(&f.caller, "add_thing", args).await {
        Called::Done(r) => r,
        Called::UnknownTool => panic!("unknown tool"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_calls_against_an_allowance_of_ten_make_ten() {
    let f = Arc::new(fixture(10).await);
    let calls = (0..50).map(|_| {
        let f = f.clone();
        tokio::spawn(async move { call(&f, "ok").await })
    });
    let outcomes: Vec<Result<Output, ToolError>> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let ok = outcomes.iter().filter(|o| o.is_ok()).count();
    let refused: Vec<&ToolError> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert_eq!(ok, 10);
    assert_eq!(refused.len(), 40);
    assert!(
        refused
            .iter()
            .all(|e| e.code == ErrorCode::AllowanceExhausted),
        "{refused:?}"
    );
    assert_eq!(
        f.backend.load(Ordering::SeqCst),
        10,
        "the backend saw exactly ten adds"
    );
    let e = refused[0];
    assert_eq!(
        (
            e.data["allowance"].clone(),
            e.data["left"].clone(),
            e.data["used"].clone()
        ),
        (json!("adds"), json!(0), json!(10))
    );
    assert!(e.data["refills_at"].is_string(), "{}", e.data);
    assert!(
        e.message.starts_with(
            "add_thing was not run: your grant allows 10 adds per day and 10 are spent; the next one comes back at "
        ),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_refused_call_gives_its_unit_back_and_an_uncertain_one_keeps_it() {
    let f = fixture(2).await;
    let e = call(&f, "refused").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e = call(&f, "unknown").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BackendUnreachable);
    // One unit left: the refused call gave its unit back, the uncertain one kept it.
    call(&f, "ok").await.unwrap();
    let e = call(&f, "ok").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::AllowanceExhausted);
    let left = f
        .app
        .store()
        .allowances_left(
            f.caller.authority.person.id,
            &f.caller.authority.grant.allowances,
        )
        .await
        .unwrap();
    assert_eq!((left[0].used, left[0].left), (2, 0));
}

#[tokio::test]
async fn an_allowance_of_zero_refuses_without_a_refill_time() {
    let f = fixture(0).await;
    let e = call(&f, "ok").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::AllowanceExhausted);
    assert_eq!(e.data["refills_at"], json!(null));
    assert!(
        e.message.contains("ask the owner to raise it"),
        "{}",
        e.message
    );
    assert_eq!(f.backend.load(Ordering::SeqCst), 0);
}
