//! Tool switches: the owner can switch any tool off; a switched-off tool is neither listed nor callable.

use std::{collections::HashMap, sync::Arc};

use sqlx::Row;

use crate::{Error, Store, fresh::Token, now_ms};

impl Store {
    /// Every tool the owner has switched, by name. A tool missing here has never been switched
    /// and keeps its default.
    /// Answered from memory while the database is unchanged (see `fresh.rs`).
    pub async fn tool_switches(&self) -> Result<Arc<HashMap<String, bool>>, Error> {
        self.tool_switches_under(self.fresh().token()).await
    }

    /// [`Store::tool_switches`] for a request that has read the database's state already.
    pub(crate) async fn tool_switches_under(
        &self,
        token: Option<Token>,
    ) -> Result<Arc<HashMap<String, bool>>, Error> {
        if let Some(cached) = token.and_then(|t| self.fresh().switches(t)) {
            return Ok(cached);
        }
        let rows = sqlx::query("SELECT tool_name, enabled FROM tool_switches")
            .fetch_all(self.pool())
            .await?;
        let switches: HashMap<String, bool> = rows
            .iter()
            .map(|row| Ok((row.try_get("tool_name")?, row.try_get("enabled")?)))
            .collect::<Result<_, Error>>()?;
        let switches = Arc::new(switches);
        if let Some(t) = token {
            self.fresh().put_switches(t, switches.clone());
        }
        Ok(switches)
    }

    /// Switches `tool` on or off. The name is not checked against the tool registry: the store
    /// does not know which tools exist.
    pub async fn set_tool_switch(&self, tool: &str, enabled: bool) -> Result<(), Error> {
        if tool.is_empty() || tool.chars().any(char::is_control) {
            return Err(Error::Invalid(format!("invalid tool name {tool:?}")));
        }
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
}
