//! A family plugs into the core without the core knowing it: its tools are served and reach
//! its state through their typed slot, its instance kinds count as supported, its checks and
//! health notes reach `diagnose`'s questions, its jobs run from `start_jobs` until shutdown
//! and once on demand, and its plan hooks describe its changes to the owner.

#![allow(clippy::unwrap_used)]

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use domain::{Capability, InstanceKind, KindFamily};
use governance::{
    App, Called, CheckFuture, Ctx, DynTool, Family, InstanceSpec, Instances, Job, JobFuture, Meta,
    Output, Settings, Slots, Tool, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, PlanView, Planned, Run},
};
use policy::Effect;
use serde_json::json;
use store::{Change, Store};

/// The family's state: how often its job ran.
#[derive(Default)]
struct Counter(Arc<AtomicUsize>);

struct Count;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoInput {}

impl Tool for Count {
    type Input = NoInput;
    const META: Meta = Meta {
        name: "count_passes",
        title: "Count the job's passes",
        description: "How often the job ran.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Catalogue),
        plan: Some(&Hooks),
    };

    async fn run(&self, ctx: &Ctx, _input: NoInput) -> Result<Output, ToolError> {
        let n = ctx.family::<Counter>()?.0.load(Ordering::SeqCst);
        let health = ctx.family_health().await?;
        let check = ctx.check_instance(&builtin("cat")).await;
        let unchecked = ctx.check_instance(&builtin("dog")).await;
        Ok(Output::new(
            format!("{n} passes"),
            json!({
                "passes": n,
                "health": health,
                "check": check.map(|c| c.unwrap_or_else(|e| e)),
                "unchecked": unchecked.is_none(),
            }),
        ))
    }
}

#[derive(Debug)]
struct Hooks;

impl Planned for Hooks {
    fn dependencies<'a>(
        &'a self,
        _ctx: &'a Ctx,
        _change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async { Ok(Dependencies::new()) })
    }

    fn apply<'a>(
        &'a self,
        _ctx: &'a Ctx,
        _change: &'a Change,
        _run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async { Ok(Output::new("applied", json!({}))) })
    }

    fn describe(&self, change: &Change) -> PlanView {
        PlanView {
            effect: format!("Counts as {} asked.", change.summary),
            tables: Vec::new(),
        }
    }
}

struct Counting;

impl Family for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Builtin]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![Box::new(Count)]
    }

    fn install(&self, _instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Counter::default());
    }

    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        let Some(counter) = slots.get::<Counter>() else {
            return Vec::new();
        };
        let n = counter.0.clone();
        vec![Job {
            name: "counting.tick".into(),
            every: std::time::Duration::from_secs(10),
            on_every_replica: false,
            pass: Arc::new(move || -> JobFuture {
                let n = n.clone();
                Box::pin(async move {
                    n.fetch_add(1, Ordering::SeqCst);
                })
            }),
        }]
    }

    fn health<'a>(&'a self, _ctx: &'a Ctx) -> BoxFuture<'a, Result<Vec<String>, ToolError>> {
        Box::pin(async { Ok(vec!["counting is healthy".to_string()]) })
    }

    fn check<'a>(&'a self, _slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { (spec.id == "cat").then(|| Ok("counted".to_string())) })
    }
}

fn builtin(id: &str) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind: InstanceKind::Builtin,
        url: None,
        path: None,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

async fn app() -> (App, governance::Caller) {
    let store = Store::open_in_memory().await.unwrap();
    let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
    let instances = Instances::new(vec![builtin("cat")]).unwrap();
    let app = App::new(
        store,
        Arc::new(Settings::new(false, None)),
        Arc::new(instances),
        vec![Arc::new(Counting)],
    );
    let caller = app
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    (app, caller)
}

async fn passes(app: &App, caller: &governance::Caller) -> u64 {
    match app.call(caller, "count_passes", None).await {
        Called::Done(Ok(out)) => out.data()["passes"].as_u64().unwrap(),
        other => panic!("count_passes: {other:?}"),
    }
}

#[tokio::test]
async fn jobs_run_from_start_until_shutdown_and_once_on_demand() {
    let (app, caller) = app().await;
    // The store is open; from here time moves only as the test says.
    tokio::time::pause();
    assert_eq!(passes(&app, &caller).await, 0, "nothing runs before start");
    let names: Vec<&str> = app.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["counting.tick"]);
    assert!(app.run_job("counting.tick").await);
    assert!(!app.run_job("no.such").await);
    assert_eq!(passes(&app, &caller).await, 1);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    app.start_jobs(async move {
        let _ = stopped.await;
    });
    tokio::time::sleep(std::time::Duration::from_secs(25)).await;
    // A pass at start, then one every 10 s: at 0, 10 and 20.
    assert_eq!(passes(&app, &caller).await, 4);
    stop.send(()).unwrap();
    tokio::task::yield_now().await;
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    assert_eq!(passes(&app, &caller).await, 4, "no pass after shutdown");
}

#[tokio::test]
async fn the_family_is_asked_through_its_sockets_only() {
    let (app, caller) = app().await;
    let out = match app.call(&caller, "count_passes", None).await {
        Called::Done(Ok(out)) => out.data(),
        other => panic!("count_passes: {other:?}"),
    };
    assert_eq!(out["health"], json!(["counting is healthy"]));
    assert_eq!(out["check"], "counted");
    assert_eq!(out["unchecked"], true, "an instance no family checks");
    assert!(app.supports(InstanceKind::Builtin));
    assert!(!app.supports(InstanceKind::Radarr));
    assert_eq!(app.visible(&caller), ["count_passes"]);
    let change = app
        .store()
        .create_change(&store::NewChange {
            created_by: caller.authority.person.id,
            grant_id: caller.authority.grant.id,
            grant_revision: caller.authority.grant.revision,
            tool: "count_passes".into(),
            summary: "twice".into(),
            plan: "{}".into(),
            dependency_hashes: "{}".into(),
            content_hash: "sha256:0".into(),
        })
        .await
        .unwrap();
    assert_eq!(app.describe_plan(&change).effect, "Counts as twice asked.");
    let unknown = Change {
        tool: "gone_tool".into(),
        ..change
    };
    assert_eq!(
        app.describe_plan(&unknown).effect,
        "Runs gone_tool as planned below."
    );
}
