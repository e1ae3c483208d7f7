//! The governance core's entry points: authenticate, list the tools a caller may see, and
//! run one call through policy, audit and panic containment.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, atomic::AtomicBool},
};

use domain::{InstanceKind, Secret};
use policy::Effect;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use store::{AuditId, Authority, Change, NewAudit, Reserved, Store, ToolSwitches};

use crate::{
    ErrorCode, Family, Job, Slots, ToolError, View, allowance,
    ask::Ask,
    authority,
    context::{Caller, Credential, Ctx},
    contract::{DynTool, Meta, Output},
    delegate::Delegate,
    detached::Detached,
    instances::Instances,
    outcome::{contained, failed_unexpectedly, finish},
    plan::PlanView,
    registry::Registry,
    report::Report,
    settings::Settings,
    stored::Stored,
};

/// What every call shares.
pub(crate) struct Shared {
    pub store: Store,
    pub settings: Arc<Settings>,
    pub instances: Arc<Instances>,
    /// Answers read from the store, kept while the database is unchanged.
    pub stored: Stored,
    /// Each family's state, reached through `Ctx::family`.
    pub slots: Slots,
    pub families: Vec<Arc<dyn Family>>,
    /// Every tool, by name.
    pub registry: Registry,
    /// The instance kinds some family has an adapter for.
    pub supported: HashSet<InstanceKind>,
    /// Each declared tool's group (`Family::group`); a federated tool's is its server's id.
    pub groups: HashMap<&'static str, &'static str>,
    /// The families' background jobs, made once.
    pub jobs: Vec<Job>,
    pub(crate) jobs_started: AtomicBool,
    /// Whether this process runs the jobs' passes: it holds the store's `jobs` lease (always,
    /// for a process that did not join the store as a replica).
    pub(crate) leads_jobs: AtomicBool,
    /// When each job's passes ran and how they ended (`list_schedulers`).
    pub(crate) job_runs: crate::delegate::JobRuns,
    /// Dropped with the last handle on the core: the jobs stop.
    pub(crate) alive: tokio::sync::watch::Sender<()>,
    /// Writes under way, each on a task of its own: a caller who leaves does not stop one.
    detached: Detached,
}

impl Shared {
    /// The check its own family makes of `spec`: `None` when no family checks that kind.
    pub(crate) async fn check_instance(
        &self,
        spec: &crate::InstanceSpec,
    ) -> Option<Result<String, String>> {
        for family in &self.families {
            if let Some(found) = family.check(&self.slots, spec).await {
                return Some(found);
            }
        }
        None
    }
}

/// The tool host: one per process.
pub struct App {
    pub(crate) shared: Arc<Shared>,
}

/// A tool as a caller may see it.
#[derive(Debug, Clone)]
pub struct ToolView {
    pub meta: Meta,
    pub input_schema: Map<String, Value>,
    /// The schema of its successful answers' structured content.
    pub output_schema: Map<String, Value>,
    /// The MCP Apps view its results can be shown in.
    pub view: Option<&'static View>,
}

/// A call's line back to its client, when it has one: progress and log messages, questions.
#[derive(Default)]
pub struct Line {
    pub report: Option<Arc<dyn Report>>,
    pub asker: Option<Arc<dyn Ask>>,
}

/// The outcome of one call.
#[derive(Debug)]
pub enum Called {
    /// No tool has that name: a protocol error (-32602), not a tool result.
    UnknownTool,
    Done(Result<Output, ToolError>),
}

impl App {
    /// The core with `families` plugged in: their state installed, their tools registered,
    /// their jobs made (started by [`App::start_jobs`]).
    pub fn new(
        store: Store,
        settings: Arc<Settings>,
        instances: Arc<Instances>,
        families: Vec<Arc<dyn Family>>,
    ) -> App {
        App::assemble(store, settings, instances, families, Vec::new())
    }

    /// For tests that need a tool no family has.
    pub fn with_tools(
        store: Store,
        settings: Arc<Settings>,
        instances: Arc<Instances>,
        tools: Vec<Box<dyn DynTool>>,
    ) -> App {
        App::assemble(store, settings, instances, Vec::new(), tools)
    }

    fn assemble(
        store: Store,
        settings: Arc<Settings>,
        instances: Arc<Instances>,
        families: Vec<Arc<dyn Family>>,
        mut tools: Vec<Box<dyn DynTool>>,
    ) -> App {
        let shared = Arc::new_cyclic(|core| {
            let mut slots = Slots::default();
            // The store, for the families' background jobs (they run with no call, so no `Ctx`).
            slots.insert(store.clone());
            // The core itself, for work done for a person while nobody calls (scheduled tasks).
            slots.insert(Delegate::new(core.clone()));
            let mut supported = HashSet::new();
            let mut groups = HashMap::new();
            let mut codes: HashMap<&'static str, &'static str> = ErrorCode::CORE
                .iter()
                .map(|c| (c.as_str(), "core"))
                .collect();
            for family in &families {
                family.install(&instances, &mut slots);
                supported.extend(family.kinds().iter().copied());
                let declared = family.tools();
                groups.extend(declared.iter().map(|t| (t.meta().name, family.group())));
                tools.extend(declared);
                for code in family.error_codes() {
                    if let Some(other) = codes.insert(code.as_str(), family.name()) {
                        tracing::error!(
                            code = code.as_str(),
                            family = family.name(),
                            other,
                            "two families declare the same error code"
                        );
                    }
                }
            }
            let jobs = families.iter().flat_map(|f| f.jobs(&slots)).collect();
            Shared {
                stored: Stored::default(),
                registry: Registry::new(tools)
                    .with_live(families.iter().filter_map(|f| f.live(&slots)).collect()),
                slots,
                families,
                supported,
                groups,
                jobs,
                jobs_started: AtomicBool::new(false),
                leads_jobs: AtomicBool::new(true),
                job_runs: Default::default(),
                alive: tokio::sync::watch::channel(()).0,
                detached: Detached::default(),
                store,
                settings,
                instances,
            }
        });
        App { shared }
    }

    /// Serves `tool` from now on (a federated server's); refused when its name is taken by a
    /// tool the families declared.
    pub fn register_tool(&self, tool: Arc<dyn DynTool>) -> Result<(), String> {
        self.shared.registry.register(tool)
    }

    /// Stops serving the run-time tool `name`; `false` when there was none.
    pub fn unregister_tool(&self, name: &str) -> bool {
        self.shared.registry.unregister(name)
    }

    /// How the owner reviews `change`: as its tool describes it.
    pub fn describe_plan(&self, change: &Change) -> PlanView {
        self.shared
            .registry
            .get(&change.tool)
            .and_then(|t| t.meta().plan)
            .map_or_else(|| PlanView::unknown(&change.tool), |p| p.describe(change))
    }

    /// The state the family of type `T` installed, when it is plugged in.
    pub fn family<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.shared.slots.get::<T>()
    }

    /// Whether some family of this build has an adapter for `kind`.
    pub fn supports(&self, kind: InstanceKind) -> bool {
        self.shared.supported.contains(&kind)
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    pub fn settings(&self) -> &Arc<Settings> {
        &self.shared.settings
    }

    /// The check its own family makes of `spec` (a configured instance, perhaps with a secret
    /// just entered): `None` when no family checks instances of that kind.
    pub async fn check_instance(
        &self,
        spec: &crate::InstanceSpec,
    ) -> Option<Result<String, String>> {
        self.shared.check_instance(spec).await
    }

    pub fn instances(&self) -> &Instances {
        &self.shared.instances
    }

    /// The tool `name` as it is now (a family's own, or an external server's while it is up).
    pub fn tool_view(&self, name: &str) -> Option<ToolView> {
        self.shared.registry.get(name).map(|t| ToolView {
            meta: t.meta(),
            input_schema: t.input_schema(),
            output_schema: t.output_schema(),
            view: t.view(),
        })
    }

    /// Every tool this build has, in the stable order, whatever the caller.
    pub fn all_tools(&self) -> Vec<ToolView> {
        self.shared
            .registry
            .all()
            .iter()
            .map(|t| ToolView {
                meta: t.meta(),
                input_schema: t.input_schema(),
                output_schema: t.output_schema(),
                view: t.view(),
            })
            .collect()
    }

    /// `Ok(None)` for a missing, wrong, revoked or expired key.
    pub async fn authenticate(&self, key: &str) -> Result<Option<Caller>, store::Error> {
        let found = self.shared.store.authenticate_with_switches(key).await?;
        Ok(found.map(|a| {
            Caller::new(
                Credential::Key(Secret::new(key)),
                a.authority,
                a.switches,
                a.version,
            )
        }))
    }

    /// `Ok(None)` for a missing, wrong, revoked or expired OAuth access token, one issued for
    /// another resource than `resource` (a URL), and any token while OAuth is off. A token
    /// then acts exactly like an API key of its connection's person and grant.
    pub async fn authenticate_token(
        &self,
        token: &str,
        resource: &str,
    ) -> Result<Option<Caller>, store::Error> {
        if self.shared.settings.oauth().is_none() {
            return Ok(None);
        }
        let store = &self.shared.store;
        let found = store
            .authenticate_token_with_switches(token, resource)
            .await?;
        Ok(found.map(|a| {
            let credential = Credential::Token {
                token: Secret::new(token),
                resource: resource.to_owned(),
            };
            Caller::new(credential, a.authority, a.switches, a.version)
        }))
    }

    /// A request from this machine without a key: acts as `[auth] local_person` with
    /// `local_grant`, when the owner configured that; otherwise `Ok(None)`.
    pub async fn authenticate_local(&self) -> Result<Option<Caller>, store::Error> {
        let Some(local) = &self.shared.settings.local_access else {
            return Ok(None);
        };
        let store = &self.shared.store;
        // The state is read before what is read under it.
        let state = store.version();
        let (Some(person), Some(grant)) = (
            store.person_by_name(&local.person).await?,
            store.grant_by_name(&local.grant).await?,
        ) else {
            tracing::warn!(person = %local.person, grant = %local.grant, "local access names a person or grant that does not exist; refusing");
            return Ok(None);
        };
        if grant.is_expired(chrono::Utc::now().timestamp_millis()) {
            return Ok(None);
        }
        let authority = store::Authority {
            person,
            key_id: "local".into(),
            grant,
        };
        Ok(Some(Caller::new(
            Credential::Local,
            Arc::new(authority),
            store.tool_switches().await?,
            state,
        )))
    }

    async fn reauthenticate(&self, caller: &Caller) -> Result<Option<Caller>, store::Error> {
        match &caller.credential {
            Credential::Key(key) => self.authenticate(key.expose()).await,
            Credential::Token { token, resource } => {
                self.authenticate_token(token.expose(), resource).await
            }
            Credential::Local => self.authenticate_local().await,
            Credential::Delegated { key_id } => self.authenticate_delegated(key_id).await,
        }
    }

    /// Names of the tools this caller may see, in the stable order: MCP `tools/list`, the
    /// REST mirror and `marquee tools list --person` all ask this.
    pub fn visible(&self, caller: &Caller) -> Vec<&'static str> {
        self.visible_to(&caller.authority, &caller.switches)
    }

    /// Names of the tools a caller with `authority` sees under `switches`, in the stable order.
    pub fn visible_to(&self, authority: &Authority, switches: &ToolSwitches) -> Vec<&'static str> {
        self.shared.visible_to(authority, switches)
    }

    /// Whether MCP `tools/list` shows the tool `name` (one it may see) to `authority`.
    pub fn lists(&self, authority: &Authority, name: &str) -> bool {
        self.shared.listed(authority, name)
    }

    /// The tools MCP `tools/list` shows this caller: the visible ones of the groups its grant
    /// lists (see [`Shared::listed`]). The others stay callable by name; `find_tools` finds them.
    pub fn listed(&self, caller: &Caller) -> Vec<&'static str> {
        let authority = &caller.authority;
        self.shared
            .visible_to(authority, &caller.switches)
            .into_iter()
            .filter(|name| self.shared.listed(authority, name))
            .collect()
    }

    /// The MCP Apps views of the tools this caller may see, each once, in the stable order.
    pub fn visible_views(&self, caller: &Caller) -> Vec<&'static View> {
        let mut views: Vec<&'static View> = Vec::new();
        for name in self.visible(caller) {
            let view = self.shared.registry.get(name).and_then(|t| t.view());
            if let Some(v) = view
                && !views.iter().any(|seen| seen.uri == v.uri)
            {
                views.push(v);
            }
        }
        views
    }

    /// Runs one call: policy, then (for writes) a fresh authority check and an audit entry
    /// before the tool acts, then the tool, with panics contained.
    pub async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Called {
        self.call_reporting(caller, name, arguments, Line::default())
            .await
    }

    /// [`App::call`] for a client that hears progress and log messages while the call runs,
    /// and may be asked to choose.
    pub async fn call_reporting(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Option<Map<String, Value>>,
        line: Line,
    ) -> Called {
        let Some(tool) = self.shared.registry.get(name) else {
            return Called::UnknownTool;
        };
        let meta = tool.meta();
        let started = std::time::Instant::now();
        let result = self
            .run(tool, meta, caller, arguments.unwrap_or_default(), line)
            .await;
        log_call(caller, meta.name, &result, started.elapsed());
        Called::Done(result)
    }

    async fn run(
        &self,
        tool: Arc<dyn DynTool>,
        meta: Meta,
        caller: &Caller,
        arguments: Map<String, Value>,
        line: Line,
    ) -> Result<Output, ToolError> {
        self.shared.settings.call_rate.check(caller)?;
        // An external server's tool: only while the caller's grant reaches that server.
        let external = tool.external().map(str::to_owned);
        let reaches = |c: &Caller| {
            external
                .as_deref()
                .is_none_or(|id| authority::reaches_external(&c.authority, id, meta.name))
        };
        if let Some(id) = external.as_deref().filter(|_| !reaches(caller)) {
            return Err(ToolError::denied(format!(
                "your grant does not reach the MCP server \"{id}\"; ask the owner for a grant that names it"
            )));
        }
        let mut caller = caller.clone();
        let allow_destructive = self.shared.settings.allow_destructive();
        let mut needs_plan =
            authority::decide_or_plan(&caller, &meta, allow_destructive, None)?.err();
        if needs_plan.is_some() && meta.plan.is_none() {
            // Fail closed: a tool that cannot store a plan must not act instead.
            return Err(ToolError::denied(format!(
                "{} needs the owner's approval, and it cannot be planned in this version; nothing was done",
                meta.name
            )));
        }
        // Only changing calls are audited; reads skip the digest. A plan changes nothing
        // outside: the change it stores is its record, and applying it is audited.
        let audited = (meta.effect != Effect::Read
            && needs_plan.is_none()
            && !meta.plan.is_some_and(|p| p.always()))
        .then(|| {
            let instance = arguments
                .get("instance_id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| external.clone());
            (instance, digest(&arguments))
        });
        // A write parses its input here, to refuse bad input before it is audited, and again on
        // its own task, which owns what it borrows.
        let kept = audited.is_some().then(|| arguments.clone());
        let prepared = tool.prepare(arguments)?;
        let audit = if let Some((instance, args_digest)) = audited {
            // Authority is read again right before any write.
            caller = self.reauthenticate(&caller).await?.ok_or_else(|| {
                ToolError::denied("the credential is no longer valid (revoked or expired)")
            })?;
            needs_plan = authority::decide_or_plan(&caller, &meta, allow_destructive, None)?.err();
            if needs_plan.is_some() || !reaches(&caller) {
                return Err(ToolError::denied(
                    "your authority changed during the call; nothing was done; call again",
                ));
            }
            let entry = NewAudit {
                person: caller.authority.person.id,
                // A key-less local caller has no key to name.
                key_id: Some(caller.authority.key_id.clone()).filter(|k| k != "local"),
                tool: meta.name.to_string(),
                instance,
                args_digest,
            };
            Some(self.begin(&caller, &meta, &entry).await?)
        } else {
            None
        };
        // The state the authority was read under, when this is the first call made with it.
        let state = caller.state.take().or_else(|| self.shared.store.version());
        let ctx = Ctx {
            state,
            caller,
            meta,
            shared: self.shared.clone(),
            needs_plan,
            applying: false,
            report: line.report,
            asker: line.asker.filter(|_| tool.asks()),
        };
        let (Some((id, reserved)), Some(arguments)) = (audit, kept) else {
            // A read (or a plan) is cancelled with its request.
            return contained(meta, prepared(&ctx)).await;
        };
        drop(prepared);
        // A write, once audited, runs to its end on a task of its own and records its outcome,
        // whether or not the caller is still there to hear it.
        let shared = self.shared.clone();
        let external = external.is_some();
        let work = async move {
            let outcome = match tool.prepare(arguments) {
                // What the store commits for it that proves its effect is stamped on its entry.
                Ok(prepared) => contained(meta, store::under_audit(id, prepared(&ctx))).await,
                Err(e) => Err(e),
            };
            finish(&shared.store, meta, id, reserved, external, &outcome).await;
            outcome
        };
        match self.shared.detached.spawn(work).await {
            Ok(outcome) => outcome,
            Err(e) => {
                tracing::error!(tool = meta.name, error = %e, "a write's task ended without its outcome");
                Err(failed_unexpectedly(meta))
            }
        }
    }

    /// How many writes are running now, detached from the calls that started them.
    pub fn writes_running(&self) -> usize {
        self.shared.detached.running()
    }

    /// Waits for the writes under way to finish and record their outcome, at most `grace`;
    /// answers how many are still running (their entries become `outcome_unknown` at the next
    /// start).
    pub async fn finish_writes(&self, grace: std::time::Duration) -> usize {
        self.shared.detached.drain(grace).await
    }

    /// Writes the audit entry of a changing call, reserving a unit of the allowance the tool
    /// spends (when the caller's grant limits it) in the same transaction.
    async fn begin(
        &self,
        caller: &Caller,
        meta: &Meta,
        entry: &NewAudit,
    ) -> Result<(AuditId, bool), ToolError> {
        let store = &self.shared.store;
        let limit = meta
            .allowance
            .and_then(|kind| Some((kind, *caller.authority.grant.allowances.get(&kind)?)));
        let Some((kind, rule)) = limit else {
            return Ok((store.audit_begin(entry).await?, false));
        };
        match store.audit_begin_reserving(entry, kind, rule).await? {
            Reserved::Begun(id) => Ok((id, true)),
            Reserved::Exhausted(left) => Err(allowance::exhausted(meta.name, &left)),
        }
    }
}

/// SHA-256 of the arguments' JSON with keys sorted: the audit keeps this, never the values.
fn digest(arguments: &Map<String, Value>) -> String {
    fn canonical(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), canonical(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    let text = canonical(&Value::Object(arguments.clone())).to_string();
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

/// One log line per tool call (target `marquee::calls`): who, which tool, the outcome (`ok`,
/// or the error code) and how long it took. Never the arguments, which may carry secrets.
fn log_call(
    caller: &Caller,
    tool: &str,
    result: &Result<Output, ToolError>,
    took: std::time::Duration,
) {
    let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
    let person = caller.authority.person.name.as_str();
    let outcome = match result {
        Ok(_) => "ok",
        Err(e) => e.code.as_str(),
    };
    tracing::info!(target: "marquee::calls", person, tool, outcome, ms, "tool call");
}
