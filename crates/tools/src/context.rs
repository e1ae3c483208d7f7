//! What a running tool can reach: the caller's live authority, the store, the instances
//! and the settings. Built per call by the runner.

use std::{collections::HashMap, sync::Arc};

use domain::{Capability, KindFamily, Secret};
use store::{Authority, Store};

use crate::{
    app::Shared,
    contract::ToolError,
    discover::Catalogues,
    downloads::Downloads,
    instances::{InstanceSpec, Instances},
    library::Libraries,
    settings::Settings,
};

/// How a caller proved who they are; kept to re-check authority right before writes.
#[derive(Debug, Clone)]
pub enum Credential {
    /// An API key.
    Key(Secret),
    /// A request from this machine without a key, let in by `[auth] local_person`.
    Local,
}

/// An authenticated caller and the authority read for this request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub credential: Credential,
    pub authority: Arc<Authority>,
    /// The owner's tool switches, read with the authority.
    pub switches: Arc<HashMap<String, bool>>,
}

impl Caller {
    pub fn can(&self, capability: Capability) -> bool {
        self.authority.grant.capabilities.contains(&capability)
    }

    pub fn is_admin(&self) -> bool {
        self.authority.person.role.is_admin()
    }
}

/// The context of one tool call.
pub struct Ctx {
    pub caller: Caller,
    pub(crate) shared: Arc<Shared>,
    /// Set when policy answered NeedsPlan: the authority the caller lacks. A planned tool then
    /// stores a change for the owner instead of acting.
    pub(crate) needs_plan: Option<Capability>,
}

impl Ctx {
    /// The authority whose absence makes this call a plan, when it is one.
    pub fn needs_plan(&self) -> Option<Capability> {
        self.needs_plan
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    pub fn settings(&self) -> &Settings {
        &self.shared.settings
    }

    pub fn instances(&self) -> &Instances {
        &self.shared.instances
    }

    pub fn downloads(&self) -> &Downloads {
        &self.shared.downloads
    }

    pub fn catalogues(&self) -> &Catalogues {
        &self.shared.catalogues
    }

    pub fn libraries(&self) -> &Libraries {
        &self.shared.libraries
    }

    /// Resolves an optional `instance_id` and checks the caller's grant covers it.
    pub fn instance(
        &self,
        family: KindFamily,
        id: Option<&str>,
    ) -> Result<&InstanceSpec, ToolError> {
        let spec = self.shared.instances.resolve(family, id)?;
        if let Some(allowed) = &self.caller.authority.grant.instances
            && !allowed.iter().any(|i| i == &spec.id)
        {
            return Err(ToolError::new(
                "denied",
                format!(
                    "your grant does not cover the instance \"{}\"; it covers: {}",
                    spec.id,
                    allowed.join(", ")
                ),
            ));
        }
        Ok(spec)
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
            Some(_) if !sees_all => Err(ToolError::new("denied", denied)),
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
