//! What a running tool can reach: the caller's live authority, the store, the instances
//! and the settings. Built per call by the runner.

use std::sync::Arc;

use domain::{Capability, InstanceKind, KindFamily, Secret};
use policy::Allowed;
use store::{Authority, Store, ToolSwitches};

use crate::{
    ErrorCode,
    app::Shared,
    ask::{Ask, Question},
    authority,
    contract::{Meta, ToolError},
    instances::{InstanceSpec, Instances},
    report::{Level, Report},
    settings::Settings,
    stored::Stored,
};

/// How a caller proved who they are; kept to re-check authority right before writes.
#[derive(Debug, Clone)]
pub enum Credential {
    /// An API key.
    Key(Secret),
    /// An OAuth access token, and the resource (a URL) it was presented to.
    Token { token: Secret, resource: String },
    /// A request from this machine without a key, let in by `[auth] local_person`.
    Local,
    /// Work done for a person while nobody is calling (a scheduled task): the key (or OAuth
    /// connection) `key_id` it was made with, its authority read again by id at every check.
    Delegated { key_id: String },
}

/// An authenticated caller and the authority read for this request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub credential: Credential,
    pub authority: Arc<Authority>,
    /// The owner's tool switches, read with the authority.
    pub switches: Arc<ToolSwitches>,
    /// Whose rows the caller sees and which household rules bind them, decided once.
    pub scope: policy::Scope,
    /// The state of the database both were read under, for the first call made with this
    /// caller (see [`FirstCall`]).
    pub(crate) state: FirstCall,
}

/// The state of the database a caller's authority was read under, handed to the first tool
/// call made with it: a request authenticates and then calls once, so that call looks its kept
/// answers up under the state its authority was read under instead of reading it again. A
/// caller (or a clone of it) used for a later call finds it taken, and that call reads the
/// state anew: a kept `Caller` never sees an old state's answers.
#[derive(Debug, Clone, Default)]
pub(crate) struct FirstCall(Arc<parking_lot::Mutex<Option<store::Version>>>);

impl FirstCall {
    pub(crate) fn new(state: Option<store::Version>) -> FirstCall {
        FirstCall(Arc::new(parking_lot::Mutex::new(state)))
    }

    /// The state, once.
    pub(crate) fn take(&self) -> Option<store::Version> {
        self.0.lock().take()
    }
}

impl Caller {
    /// A caller whose authority and switches were read under `state`.
    pub(crate) fn new(
        credential: Credential,
        authority: Arc<Authority>,
        switches: Arc<ToolSwitches>,
        state: Option<store::Version>,
    ) -> Caller {
        let limited = !authority.person.limits.is_unlimited();
        let scope = policy::scope(authority::who(&authority), limited);
        Caller {
            credential,
            authority,
            switches,
            scope,
            state: FirstCall::new(state),
        }
    }

    pub fn can(&self, capability: Capability) -> bool {
        self.authority.grant.capabilities.contains(&capability)
    }
}

/// The context of one tool call.
pub struct Ctx {
    pub caller: Caller,
    /// The tool being called, for the decisions it asks for once it knows its instance.
    pub(crate) meta: Meta,
    pub(crate) shared: Arc<Shared>,
    /// Set when policy answered NeedsPlan: the authority the caller lacks. A planned tool then
    /// stores a change for the owner instead of acting.
    pub(crate) needs_plan: Option<Capability>,
    /// Set while an approved plan is carried out (`for_plan`): the call is decided as the
    /// tool's own, and never planned again.
    pub(crate) applying: bool,
    /// Where progress and log messages go, when the client asked for any.
    pub(crate) report: Option<Arc<dyn Report>>,
    /// Where questions go, for a tool that asks (`Tool::ASKS`) on a client's line.
    pub(crate) asker: Option<Arc<dyn Ask>>,
    /// The state of the database this call's kept answers belong to (`None`: none are kept).
    pub(crate) state: Option<store::Version>,
}

impl Ctx {
    /// Tells the client how far the call is, when it asked (a progress token).
    pub fn progress(&self, done: usize, total: Option<usize>, message: &str) {
        if let Some(r) = &self.report {
            r.progress(
                done as f64,
                total.map(|t| t as f64),
                &httpx::redact(message),
            );
        }
    }

    /// Where this call's progress goes, when the client (or a protocol task) hears it: for
    /// work that reports progress of its own, such as an external server's.
    pub fn reporter(&self) -> Option<Arc<dyn Report>> {
        self.report.clone()
    }

    /// A log message for the client, when it asked for this level; named after the tool.
    pub fn log(&self, level: Level, message: &str) {
        if let Some(r) = &self.report {
            r.log(level, self.meta.name, &httpx::redact(message));
        }
    }

    /// Asks the person to pick one of `question`'s choices and returns it, checked: a value
    /// outside the choices is refused, declining or cancelling ends the call with nothing done,
    /// and a client that cannot answer gets the choices listed in a `choice_needed` error.
    /// After an answer the caller's authority is read again (a legacy-era answer may have
    /// taken minutes), so what follows is decided as for a direct call.
    pub async fn choose<'q>(
        &self,
        question: &'q Question,
    ) -> Result<&'q crate::ask::Choice, ToolError> {
        let Some(asker) = &self.asker else {
            return Err(question.unanswered(crate::ask::Unanswered::Unsupported));
        };
        let reply = asker
            .ask(question)
            .await
            .map_err(|why| question.unanswered(why))?;
        let choice = question.check(reply)?;
        self.recheck().await?;
        Ok(choice)
    }

    /// Reads the caller's authority again after a wait for the person: a revoked credential,
    /// or a changed role, grant or content limits, ends the call with nothing done (what this
    /// call already decided was decided under the old authority).
    async fn recheck(&self) -> Result<(), ToolError> {
        let store = &self.shared.store;
        let fresh = match &self.caller.credential {
            Credential::Key(key) => store.authenticate_with_switches(key.expose()).await?,
            Credential::Token { token, resource } => {
                store
                    .authenticate_token_with_switches(token.expose(), resource)
                    .await?
            }
            Credential::Local | Credential::Delegated { .. } => return Ok(()),
        };
        let changed = || {
            ToolError::denied(
                "your authority changed while the question was open; nothing was done; call again",
            )
        };
        let Some(store::Authenticated {
            authority,
            switches,
            version,
        }) = fresh
        else {
            return Err(ToolError::denied(
                "the credential is no longer valid (revoked or expired); nothing was done",
            ));
        };
        let old = &self.caller.authority;
        if authority.person.role != old.person.role
            || authority.person.limits != old.person.limits
            || authority.grant.id != old.grant.id
            || authority.grant.revision != old.grant.revision
        {
            return Err(changed());
        }
        let caller = Caller::new(self.caller.credential.clone(), authority, switches, version);
        match authority::decide_or_plan(
            &caller,
            &self.meta,
            self.shared.settings.allow_destructive(),
            None,
        ) {
            Ok(Ok(_)) => Ok(()),
            _ => Err(changed()),
        }
    }

    /// The authority whose absence makes this call a plan, when it is one.
    pub fn needs_plan(&self) -> Option<Capability> {
        self.needs_plan
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// Answers read from the store, kept while the database is unchanged.
    pub fn stored(&self) -> &Stored {
        &self.shared.stored
    }

    /// The state of the database this call's kept answers belong to: the one its authority was
    /// read under at the start of the request (`None`: none are kept).
    pub fn state(&self) -> Option<store::Version> {
        self.state
    }

    /// [`Ctx::state`] as an answer that reads only the tables of `groups` sees it: a kept
    /// answer looked up under it holds while none of those groups changed (a write elsewhere,
    /// such as an owner-page sign-in or another family's rows, leaves it in place).
    pub fn state_of(&self, groups: &[store::Group]) -> Option<store::Version> {
        self.state.map(|v| v.only(groups))
    }

    pub fn settings(&self) -> &Settings {
        &self.shared.settings
    }

    pub fn instances(&self) -> &Instances {
        &self.shared.instances
    }

    /// The state the family of type `T` installed (see [`crate::Family::install`]).
    pub fn family<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.shared.slots.get::<T>().ok_or_else(|| {
            tracing::error!(
                tool = self.meta.name,
                state = std::any::type_name::<T>(),
                "a tool asked for the state of a family that is not plugged in"
            );
            ToolError::new(
                ErrorCode::Internal,
                format!(
                    "{} cannot run in this build; the server log has the details",
                    self.meta.name
                ),
            )
        })
    }

    /// Whether some family of this build has an adapter for `kind`.
    pub fn supports(&self, kind: InstanceKind) -> bool {
        self.shared.supported.contains(&kind)
    }

    /// The declaration of the tool `name`, when this build has it.
    pub fn tool_meta(&self, name: &str) -> Option<Meta> {
        self.shared.registry.get(name).map(|t| t.meta())
    }

    /// The external MCP server the tool `name` is served from, when it is an external one.
    pub fn tool_external(&self, name: &str) -> Option<String> {
        self.shared
            .registry
            .get(name)
            .and_then(|t| t.external().map(str::to_owned))
    }

    /// Every tool's declaration, in the stable order.
    pub fn tool_metas(&self) -> Vec<Meta> {
        self.shared
            .registry
            .all()
            .iter()
            .map(|t| t.meta())
            .collect()
    }

    /// The tools this caller may call that its `tools/list` leaves out (groups its grant does
    /// not list): each one's declaration, input schema and group, in the stable order.
    pub fn unlisted_tools(
        &self,
    ) -> Vec<(Meta, serde_json::Map<String, serde_json::Value>, String)> {
        let authority = &self.caller.authority;
        self.shared
            .visible_to(authority, &self.caller.switches)
            .into_iter()
            .filter(|name| !self.shared.listed(authority, name))
            .filter_map(|name| {
                let tool = self.shared.registry.get(name)?;
                Some((
                    tool.meta(),
                    tool.input_schema(),
                    self.shared.group_of(name).into_owned(),
                ))
            })
            .collect()
    }

    /// The tool being called.
    pub fn meta(&self) -> Meta {
        self.meta
    }

    /// The context an approved plan of `meta`'s tool is carried out in: the same caller and
    /// line for progress, decided by the planned tool's own declaration (its capability, not
    /// `apply_change`'s; the approval was checked by the caller), never planning again and
    /// never asking (everything was decided when it was planned).
    pub fn for_plan(&self, meta: Meta) -> Ctx {
        Ctx {
            caller: self.caller.clone(),
            meta,
            shared: self.shared.clone(),
            needs_plan: None,
            applying: true,
            report: self.report.clone(),
            asker: None,
            state: self.state,
        }
    }

    /// Every family's health sentences, in the families' order (see `Family::health`).
    pub async fn family_health(&self) -> Result<Vec<String>, ToolError> {
        let mut notes = Vec::new();
        for family in &self.shared.families {
            notes.extend(family.health(self).await?);
        }
        Ok(notes)
    }

    /// The check its own family makes of `spec` (for `diagnose`): `None` when no family
    /// plugged in checks instances of that kind.
    pub async fn check_instance(&self, spec: &InstanceSpec) -> Option<Result<String, String>> {
        self.shared.check_instance(spec).await
    }

    /// Decides this call on the resolved instance `id`: the proof a write-capable handle on
    /// that instance asks for, or the refusal. Instance scope is decided here, by `policy`.
    pub fn authorize(&self, id: &str) -> Result<Allowed, ToolError> {
        let allow_destructive = self.shared.settings.allow_destructive();
        if self.needs_plan.is_some() || self.applying {
            // A call being planned resolves its instances under the same scope rules; what it
            // stores waits for the owner, and no write happens on this call. An approved plan
            // being carried out is not planned again.
            return authority::decide_while_planning(
                &self.caller,
                &self.meta,
                allow_destructive,
                id,
            );
        }
        authority::decide(&self.caller, &self.meta, allow_destructive, Some(id))
    }

    /// Does the caller's grant cover the instance `id`? For choosing which instances a call
    /// that names none reads; [`Ctx::authorize`] decides each one it then uses.
    pub fn covers(&self, id: &str) -> bool {
        authority::covers(&self.caller.authority, id)
    }

    /// Resolves an optional `instance_id` (unknown ids are refused with the valid ones) and
    /// decides this call on it.
    pub fn instance(
        &self,
        family: KindFamily,
        id: Option<&str>,
    ) -> Result<(&InstanceSpec, Allowed), ToolError> {
        let spec = self.shared.instances.resolve(family, id)?;
        let allowed = self.authorize(&spec.id)?;
        Ok((spec, allowed))
    }

    /// Whose entries a paged listing shows: `requested` by name, or the caller's own. Anyone
    /// but yourself needs `sees_all`; `denied` says which capability that takes.
    pub async fn person_scope(
        &self,
        requested: Option<&str>,
        sees_all: bool,
        denied: &str,
    ) -> Result<Option<domain::PersonId>, ToolError> {
        let me = &self.caller.authority.person;
        match requested {
            None if sees_all => Ok(None),
            None => Ok(Some(me.id)),
            Some(name) if name == me.name => Ok(Some(me.id)),
            Some(_) if !sees_all => Err(ToolError::denied(denied)),
            Some(name) => match self.store().person_by_name(name).await? {
                Some(p) => Ok(Some(p.id)),
                None => {
                    let names: Vec<String> = self
                        .store()
                        .people()
                        .await?
                        .into_iter()
                        .map(|p| p.name)
                        .collect();
                    Err(ToolError::invalid(format!(
                        "unknown person \"{name}\"; people: {}",
                        names.join(", ")
                    )))
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_state_read_at_authentication_goes_to_the_first_call_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let state = store.version();
        assert!(state.is_some(), "a file store can tell its state");
        let first = FirstCall::new(state);
        let clone = first.clone();
        assert_eq!(clone.take(), state, "the first call gets it");
        assert_eq!(
            first.take(),
            None,
            "a later call, even through a clone, reads anew"
        );
    }
}
