//! The governance core's entry points: authenticate, list the tools a caller may see, and
//! run one call through policy, audit and panic containment.

use std::{collections::HashMap, panic::AssertUnwindSafe, sync::Arc};

use domain::{Capability, KindFamily, Secret};
use futures::FutureExt;
use policy::{Action, Decision, Effect, Switches};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use store::{AuditStatus, NewAudit, Store};

use crate::{
    context::{Caller, Credential, Ctx},
    contract::{DynTool, Meta, Output, ToolError},
    discover::Catalogues,
    downloads::Downloads,
    instances::Instances,
    library::Libraries,
    registry,
    settings::Settings,
};

/// What every call shares.
pub(crate) struct Shared {
    pub store: Store,
    pub settings: Arc<Settings>,
    pub instances: Arc<Instances>,
    pub downloads: Downloads,
    pub catalogues: Catalogues,
    pub libraries: Libraries,
}

/// The tool host: one per process.
pub struct App {
    shared: Arc<Shared>,
    tools: Vec<Box<dyn DynTool>>,
    by_name: HashMap<&'static str, usize>,
    /// Families whose instances a tool needs (see `registry::families`).
    families: HashMap<&'static str, KindFamily>,
}

/// A tool as a caller may see it.
#[derive(Debug, Clone)]
pub struct ToolView {
    pub meta: Meta,
    pub input_schema: Map<String, Value>,
}

/// The outcome of one call.
#[derive(Debug)]
pub enum Called {
    /// No tool has that name: a protocol error (-32602), not a tool result.
    UnknownTool,
    Done(Result<Output, ToolError>),
}

impl App {
    pub fn new(store: Store, settings: Arc<Settings>, instances: Arc<Instances>) -> App {
        App::with_tools(store, settings, instances, registry::all())
    }

    /// For tests that need a tool the registry does not have.
    pub fn with_tools(
        store: Store,
        settings: Arc<Settings>,
        instances: Arc<Instances>,
        mut tools: Vec<Box<dyn DynTool>>,
    ) -> App {
        tools.sort_by_key(|t| t.meta().name);
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.meta().name, i))
            .collect();
        App {
            shared: Arc::new(Shared {
                downloads: Downloads::from_instances(&instances),
                catalogues: Catalogues::from_instances(&instances),
                libraries: Libraries::from_instances(&instances),
                store,
                settings,
                instances,
            }),
            tools,
            by_name,
            families: registry::families(),
        }
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    pub fn settings(&self) -> &Arc<Settings> {
        &self.shared.settings
    }

    pub fn instances(&self) -> &Instances {
        &self.shared.instances
    }

    /// Every tool this build has, in the stable order, whatever the caller.
    pub fn all_tools(&self) -> Vec<ToolView> {
        self.tools
            .iter()
            .map(|t| ToolView {
                meta: t.meta(),
                input_schema: t.input_schema(),
            })
            .collect()
    }

    /// `Ok(None)` for a missing, wrong, revoked or expired key.
    pub async fn authenticate(&self, key: &str) -> Result<Option<Caller>, store::Error> {
        let found = self.shared.store.authenticate_with_switches(key).await?;
        Ok(found.map(|(authority, switches)| Caller {
            credential: Credential::Key(Secret::new(key)),
            authority,
            switches,
        }))
    }

    /// A request from this machine without a key: acts as `[auth] local_person` with
    /// `local_grant`, when the owner configured that; otherwise `Ok(None)`.
    pub async fn authenticate_local(&self) -> Result<Option<Caller>, store::Error> {
        let Some(local) = &self.shared.settings.local_access else {
            return Ok(None);
        };
        let store = &self.shared.store;
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
        Ok(Some(Caller {
            credential: Credential::Local,
            authority: Arc::new(authority),
            switches: store.tool_switches().await?,
        }))
    }

    async fn reauthenticate(&self, caller: &Caller) -> Result<Option<Caller>, store::Error> {
        match &caller.credential {
            Credential::Key(key) => self.authenticate(key.expose()).await,
            Credential::Local => self.authenticate_local().await,
        }
    }

    /// Names of the tools this caller may see, in the stable order.
    pub async fn visible(&self, caller: &Caller) -> Result<Vec<&'static str>, store::Error> {
        let switches = &caller.switches;
        let allow_destructive = self.shared.settings.allow_destructive();
        let grant = &caller.authority.grant;
        let who = policy::Caller {
            role: caller.authority.person.role,
            capabilities: &grant.capabilities,
            instances: grant.instances.as_deref(),
        };
        let instances = &self.shared.instances;
        let family_present = |family: KindFamily| {
            instances.all().iter().any(|i| {
                i.kind.family() == family
                    && grant.instances.as_ref().is_none_or(|g| g.contains(&i.id))
            })
        };
        Ok(self
            .tools
            .iter()
            .map(|t| t.meta())
            .filter(|m| self.families.get(m.name).is_none_or(|f| family_present(*f)))
            .filter(|m| {
                let s = Switches {
                    allow_destructive,
                    tool_enabled: switches.get(m.name).copied().unwrap_or(true),
                };
                policy::visible(who, action(m), s)
            })
            .map(|m| m.name)
            .collect())
    }

    /// Runs one call: policy, then (for writes) a fresh authority check and an audit entry
    /// before the tool acts, then the tool, with panics contained.
    pub async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Called {
        let Some(&index) = self.by_name.get(name) else {
            return Called::UnknownTool;
        };
        let tool = &self.tools[index];
        let meta = tool.meta();
        Called::Done(
            self.run(tool.as_ref(), meta, caller, arguments.unwrap_or_default())
                .await,
        )
    }

    async fn run(
        &self,
        tool: &dyn DynTool,
        meta: Meta,
        caller: &Caller,
        arguments: Map<String, Value>,
    ) -> Result<Output, ToolError> {
        let mut caller = caller.clone();
        let mut needs_plan = self.check(&caller, meta)?;
        if needs_plan.is_some() && crate::changes::planned(meta.name).is_none() {
            // Fail closed: a tool that cannot store a plan must not act instead.
            return Err(ToolError::new(
                "denied",
                format!(
                    "{} needs the owner's approval, and it cannot be planned in this version; nothing was done",
                    meta.name
                ),
            ));
        }
        // Only changing calls are audited; reads skip the digest. A plan changes nothing
        // outside: the change it stores is its record, and applying it is audited.
        let audited = (meta.effect != Effect::Read && needs_plan.is_none()).then(|| {
            let instance = arguments
                .get("instance_id")
                .and_then(Value::as_str)
                .map(str::to_owned);
            (instance, digest(&arguments))
        });
        let prepared = tool.prepare(arguments)?;
        let audit = if let Some((instance, args_digest)) = audited {
            // Authority is read again right before any write.
            caller = self.reauthenticate(&caller).await?.ok_or_else(|| {
                ToolError::new(
                    "denied",
                    "the credential is no longer valid (revoked or expired)",
                )
            })?;
            needs_plan = self.check(&caller, meta)?;
            if needs_plan.is_some() {
                return Err(ToolError::new(
                    "denied",
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
            Some(self.shared.store.audit_begin(&entry).await?)
        } else {
            None
        };
        let ctx = Ctx {
            caller,
            shared: self.shared.clone(),
            needs_plan,
        };
        let outcome = match AssertUnwindSafe(prepared(&ctx)).catch_unwind().await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::error!(tool = meta.name, "tool panicked");
                Err(ToolError::new(
                    "internal",
                    format!(
                        "{} failed unexpectedly; the server log has the details",
                        meta.name
                    ),
                ))
            }
        };
        if let Some(id) = audit {
            let (status, message) = match &outcome {
                Ok(out) => (AuditStatus::Applied, out.summary.clone()),
                Err(e) => (AuditStatus::Failed, e.message.clone()),
            };
            if let Err(e) = self
                .shared
                .store
                .audit_finish(id, status, Some(&message))
                .await
            {
                tracing::error!(error = %e, tool = meta.name, "could not finish the audit entry");
            }
        }
        outcome
    }

    /// Policy for `caller` with the switches read with its authority: `Some(missing)` when
    /// the call may only be planned for the owner's approval.
    pub(crate) fn check(
        &self,
        caller: &Caller,
        meta: Meta,
    ) -> Result<Option<Capability>, ToolError> {
        check(&self.shared, caller, meta)
    }
}

/// [`App::check`], for tools that re-check another tool's authority (`apply_change`).
pub(crate) fn check(
    shared: &Shared,
    caller: &Caller,
    meta: Meta,
) -> Result<Option<Capability>, ToolError> {
    let grant = &caller.authority.grant;
    let who = policy::Caller {
        role: caller.authority.person.role,
        capabilities: &grant.capabilities,
        instances: grant.instances.as_deref(),
    };
    let s = Switches {
        allow_destructive: shared.settings.allow_destructive(),
        tool_enabled: caller.switches.get(meta.name).copied().unwrap_or(true),
    };
    match policy::decide(who, action(&meta), s) {
        Decision::Allow(_) => Ok(None),
        Decision::Deny { reason } => Err(ToolError::new("denied", reason)),
        Decision::NeedsPlan { missing } => Ok(Some(missing)),
    }
}

fn action(meta: &Meta) -> Action<'static> {
    Action {
        tool: meta.name,
        capability: meta.capability,
        effect: meta.effect,
        needs_plan: meta.needs_plan,
        instance: None,
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
