//! Tool switches: the owner can switch any tool off, for everyone or for one person; a
//! switched-off tool is neither listed nor callable.

use std::{collections::HashMap, sync::Arc};

use domain::PersonId;
use sqlx::Row;

use crate::{Error, Store, now_ms};

/// Every switch the owner has set. A tool missing here has never been switched and is on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolSwitches {
    /// Switches for everyone, by tool name.
    pub all: HashMap<String, bool>,
    /// Switches for one person, by person and tool name; they win over `all`.
    pub people: HashMap<(PersonId, String), bool>,
}

impl ToolSwitches {
    /// Is `tool` on for `person`? Their own switch, else everyone's, else on.
    pub fn enabled(&self, tool: &str, person: PersonId) -> bool {
        if !self.people.is_empty()
            && let Some(on) = self.people.get(&(person, tool.to_owned()))
        {
            return *on;
        }
        self.all.get(tool).copied().unwrap_or(true)
    }

    /// Is `tool` switched for everyone (`None`: never switched)?
    pub fn for_all(&self, tool: &str) -> Option<bool> {
        self.all.get(tool).copied()
    }

    /// Which people have their own switch of `tool`, and how it is set.
    pub fn for_people(&self, tool: &str) -> Vec<(PersonId, bool)> {
        let mut out: Vec<(PersonId, bool)> = self
            .people
            .iter()
            .filter(|((_, t), _)| t == tool)
            .map(|((p, _), on)| (*p, *on))
            .collect();
        out.sort();
        out
    }
}

fn check_name(tool: &str) -> Result<(), Error> {
    if tool.is_empty() || tool.chars().any(char::is_control) {
        return Err(Error::Invalid(format!("invalid tool name {tool:?}")));
    }
    Ok(())
}

impl Store {
    /// Every switch the owner has set.
    /// Answered from memory while the database is unchanged (see `fresh.rs`).
    pub async fn tool_switches(&self) -> Result<Arc<ToolSwitches>, Error> {
        self.tool_switches_under(self.version()).await
    }

    /// [`Store::tool_switches`] for a request that has read the database's state already.
    pub(crate) async fn tool_switches_under(
        &self,
        token: Option<crate::Version>,
    ) -> Result<Arc<ToolSwitches>, Error> {
        if let Some(cached) = token.and_then(|t| self.fresh().switches(t)) {
            return Ok(cached);
        }
        // One round trip for both tables: a NULL person is a switch for everyone.
        let rows = sqlx::query(
            "SELECT NULL AS person_id, tool_name, enabled FROM tool_switches \
             UNION ALL SELECT person_id, tool_name, enabled FROM person_tool_switches",
        )
        .fetch_all(self.pool())
        .await?;
        let mut all = HashMap::new();
        let mut people = HashMap::new();
        for row in &rows {
            let person: Option<i64> = row.try_get("person_id")?;
            let tool: String = row.try_get("tool_name")?;
            let enabled: bool = row.try_get("enabled")?;
            match person {
                None => all.insert(tool, enabled),
                Some(p) => people.insert((PersonId(p), tool), enabled),
            };
        }
        let switches = Arc::new(ToolSwitches { all, people });
        if let Some(t) = token {
            self.fresh().put_switches(t, switches.clone());
        }
        Ok(switches)
    }

    /// Switches `tool` on or off for everyone. The name is not checked against the tool
    /// registry: the store does not know which tools exist.
    pub async fn set_tool_switch(&self, tool: &str, enabled: bool) -> Result<(), Error> {
        check_name(tool)?;
        sqlx::query(
            "INSERT INTO tool_switches (tool_name, enabled, updated_at) VALUES (?, ?, ?) \
             ON CONFLICT (tool_name) DO UPDATE SET enabled = excluded.enabled, \
             updated_at = excluded.updated_at",
        )
        .bind(tool)
        .bind(enabled)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Switches `tool` on or off for one person, whatever it is for everyone else.
    /// `NotFound` for an unknown person.
    pub async fn set_person_tool_switch(
        &self,
        person: PersonId,
        tool: &str,
        enabled: bool,
    ) -> Result<(), Error> {
        check_name(tool)?;
        sqlx::query(
            "INSERT INTO person_tool_switches (person_id, tool_name, enabled, updated_at) \
             VALUES (?, ?, ?, ?) ON CONFLICT (person_id, tool_name) DO UPDATE SET \
             enabled = excluded.enabled, updated_at = excluded.updated_at",
        )
        .bind(person.0)
        .bind(tool)
        .bind(enabled)
        .bind(now_ms())
        .execute(self.pool())
        .await
        .map_err(|e| {
            if crate::error::is_foreign_key_violation(&e) {
                Error::NotFound(format!("no person with id {person}"))
            } else {
                Error::Database(e)
            }
        })?;
        Ok(())
    }
}
