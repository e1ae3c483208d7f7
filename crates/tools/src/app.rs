//! The governance core's entry points: authenticate, list the tools a caller may see, and
//! run one call through policy, audit and panic containment.

use std::{collections::HashMap, panic::AssertUnwindSafe, sync::Arc};

use domain::{KindFamily, Secret};
use futures::FutureExt;
use policy::Effect;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use store::{AuditId, AuditStatus, Authority, NewAudit, Reserved, Store, ToolSwitches};

use crate::{
    allowance,
    ask::Ask,
    authority,
    context::{Caller, Credential, Ctx, FirstCall},
    contract::{DynTool, Meta, Output},
    discover::Catalogues,
    downloads::Downloads,
    error::{ErrorCode, ToolError},
    instances::Instances,
    library::Libraries,
    registry,
    report::Report,
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
    /// Answers read from the store, kept while the database is unchanged.
    pub stored: crate::stored::Stored,
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
    /// The MCP Apps view its results can be shown in.
    pub view: Option<&'static crate::views::View>,
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
                stored: crate::stored::Stored::default(),
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

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
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
                view: t.view(),
            })
            .collect()
    }

    /// `Ok(None)` for a missing, wrong, revoked or expired key.
    pub async fn authenticate(&self, key: &str) -> Result<Option<Caller>, store::Error> {
        let found = self.shared.store.authenticate_with_switches(key).await?;
        Ok(found.map(|a| Caller {
            credential: Credential::Key(Secret::new(key)),
            authority: a.authority,
            switches: a.switches,
            state: FirstCall::new(a.version),
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
        Ok(found.map(|a| Caller {
            credential: Credential::Token {
                token: Secret::new(token),
                resource: resource.to_owned(),
            },
            authority: a.authority,
            switches: a.switches,
            state: FirstCall::new(a.version),
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
        Ok(Some(Caller {
            credential: Credential::Local,
            authority: Arc::new(authority),
            switches: store.tool_switches().await?,
            state: FirstCall::new(state),
        }))
    }

    async fn reauthenticate(&self, caller: &Caller) -> Result<Option<Caller>, store::Error> {
        match &caller.credential {
            Credential::Key(key) => self.authenticate(key.expose()).await,
            Credential::Token { token, resource } => {
                self.authenticate_token(token.expose(), resource).await
            }
            Credential::Local => self.authenticate_local().await,
        }
    }

    /// Names of the tools this caller may see, in the stable order: MCP `tools/list`, the
    /// REST mirror and `marquee tools list --person` all ask this.
    pub fn visible(&self, caller: &Caller) -> Vec<&'static str> {
        self.visible_to(&caller.authority, &caller.switches)
    }

    /// Names of the tools a caller with `authority` sees under `switches`, in the stable order.
    pub fn visible_to(&self, authority: &Authority, switches: &ToolSwitches) -> Vec<&'static str> {
        let allow_destructive = self.shared.settings.allow_destructive();
        let instances = &self.shared.instances;
        let family_present = |family: KindFamily| {
            instances
                .all()
                .iter()
                .any(|i| i.kind.family() == family && authority::covers(authority, &i.id))
        };
        self.tools
            .iter()
            .map(|t| t.meta())
            .filter(|m| self.families.get(m.name).is_none_or(|f| family_present(*f)))
            .filter(|m| authority::visible(authority, switches, m, allow_destructive))
            .map(|m| m.name)
            .collect()
    }

    /// The MCP Apps views of the tools this caller may see, each once, in the stable order.
    pub fn visible_views(&self, caller: &Caller) -> Vec<&'static crate::views::View> {
        let mut views: Vec<&'static crate::views::View> = Vec::new();
        for name in self.visible(caller) {
            let view = self.by_name.get(name).and_then(|&i| self.tools[i].view());
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
        let Some(&index) = self.by_name.get(name) else {
            return Called::UnknownTool;
        };
        let tool = &self.tools[index];
        let meta = tool.meta();
        Called::Done(
            self.run(
                tool.as_ref(),
                meta,
                caller,
                arguments.unwrap_or_default(),
                line,
            )
            .await,
        )
    }

    /// Whether a call of this tool is long: worth streaming progress and log messages.
    pub fn is_long(&self, name: &str) -> bool {
        self.by_name
            .get(name)
            .is_some_and(|&i| self.tools[i].long())
    }

    /// Whether a call of this tool may ask the person to choose.
    pub fn asks(&self, name: &str) -> bool {
        self.by_name
            .get(name)
            .is_some_and(|&i| self.tools[i].asks())
    }

    async fn run(
        &self,
        tool: &dyn DynTool,
        meta: Meta,
        caller: &Caller,
        arguments: Map<String, Value>,
        line: Line,
    ) -> Result<Output, ToolError> {
        let mut caller = caller.clone();
        let allow_destructive = self.shared.settings.allow_destructive();
        let mut needs_plan =
            authority::decide_or_plan(&caller, &meta, allow_destructive, None)?.err();
        if needs_plan.is_some() && crate::changes::planned(meta.name).is_none() {
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
            && !crate::changes::plans_only(meta.name))
        .then(|| {
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
                ToolError::denied("the credential is no longer valid (revoked or expired)")
            })?;
            needs_plan = authority::decide_or_plan(&caller, &meta, allow_destructive, None)?.err();
            if needs_plan.is_some() {
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
            report: line.report,
            asker: line.asker.filter(|_| tool.asks()),
        };
        let outcome = match AssertUnwindSafe(prepared(&ctx)).catch_unwind().await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::error!(tool = meta.name, "tool panicked");
                Err(ToolError::new(
                    ErrorCode::Internal,
                    format!(
                        "{} failed unexpectedly; the server log has the details",
                        meta.name
                    ),
                ))
            }
        };
        if let Some((id, reserved)) = audit {
            self.finish(meta, id, reserved, &outcome).await;
        }
        outcome
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

    /// Finishes the audit entry with the outcome. A refused call (bad input, denied...) did
    /// nothing, so it gives back its allowance unit; an uncertain outcome keeps it.
    async fn finish(
        &self,
        meta: Meta,
        id: AuditId,
        reserved: bool,
        outcome: &Result<Output, ToolError>,
    ) {
        let store = &self.shared.store;
        let done = match outcome {
            Ok(out) => {
                store
                    .audit_finish(id, AuditStatus::Applied, Some(&out.summary))
                    .await
            }
            Err(e) if reserved && e.code.nothing_happened() => {
                store.audit_fail_released(id, &e.message).await
            }
            Err(e) => {
                store
                    .audit_finish(id, AuditStatus::Failed, Some(&e.message))
                    .await
            }
        };
        if let Err(e) = done {
            tracing::error!(error = %e, tool = meta.name, "could not finish the audit entry");
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
