//! The owner's changes to named grants: create, update, revoke. Every change bumps the grant's
//! revision, so a plan made under an older grant can be refused. Built-in grants follow the
//! code and are not changed here.

use std::collections::{BTreeMap, BTreeSet};

use domain::{AllowanceKind, AllowanceRule, Capability};

use crate::{
    Error, Grant, Store,
    error::is_unique_violation,
    grants::{GRANT_COLUMNS, allowances_json, capabilities_json, grant_from_row, grant_id_by_name},
    now_ms,
};

/// Everything a named grant holds, as the owner sets it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GrantSpec {
    pub capabilities: BTreeSet<Capability>,
    /// `None`: every instance.
    pub instances: Option<Vec<String>>,
    pub allowances: BTreeMap<AllowanceKind, AllowanceRule>,
    /// Unix ms; `None`: never expires.
    pub expires_at: Option<i64>,
    /// `None`: every tool the capabilities allow.
    pub tools: Option<Vec<String>>,
    /// The tool groups `tools/list` shows; `None`: every group.
    pub groups: Option<Vec<String>>,
}

impl GrantSpec {
    /// The spec of an existing grant, to change some of it.
    pub fn of(grant: &Grant) -> GrantSpec {
        GrantSpec {
            capabilities: grant.capabilities.clone(),
            instances: grant.instances.clone(),
            allowances: grant.allowances.clone(),
            expires_at: grant.expires_at,
            tools: grant.tools.clone(),
            groups: grant.groups.clone(),
        }
    }
}

fn list_json(list: &Option<Vec<String>>) -> Option<String> {
    list.as_ref()
        .map(|l| serde_json::to_string(l).expect("a list of strings always serialises"))
}

/// Grant names read like tool names: lowercase letters, digits, `-` and `_`, at most 40.
fn check_name(name: &str) -> Result<(), Error> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "invalid grant name \"{name}\"; use 1 to 40 lowercase letters, digits, - or _"
        )))
    }
}

impl Store {
    /// Creates the named grant at revision 1. `Conflict` when the name is taken.
    pub async fn create_grant(&self, name: &str, spec: &GrantSpec) -> Result<Grant, Error> {
        check_name(name)?;
        sqlx::query(
            "INSERT INTO grants (name, capabilities, instances, allowances, expires_at, \
             revision, builtin, tools, groups) VALUES (?, ?, ?, ?, ?, 1, 0, ?, ?)",
        )
        .bind(name)
        .bind(capabilities_json(&spec.capabilities))
        .bind(list_json(&spec.instances))
        .bind(allowances_json(&spec.allowances))
        .bind(spec.expires_at)
        .bind(list_json(&spec.tools))
        .bind(list_json(&spec.groups))
        .execute(self.pool())
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                Error::Conflict(format!(
                    "a grant named \"{name}\" exists already; `marquee grants update {name}` changes it"
                ))
            } else {
                Error::Database(e)
            }
        })?;
        self.named_grant(name).await
    }

    /// Replaces what the named grant holds and bumps its revision. `NotFound` (naming the
    /// grants there are) for an unknown name, `Invalid` for a built-in grant.
    pub async fn update_grant(&self, name: &str, spec: &GrantSpec) -> Result<Grant, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let id = self.changeable(&mut tx, name).await?;
        sqlx::query(
            "UPDATE grants SET capabilities = ?, instances = ?, allowances = ?, expires_at = ?, \
             tools = ?, groups = ?, revision = revision + 1 WHERE id = ?",
        )
        .bind(capabilities_json(&spec.capabilities))
        .bind(list_json(&spec.instances))
        .bind(allowances_json(&spec.allowances))
        .bind(spec.expires_at)
        .bind(list_json(&spec.tools))
        .bind(list_json(&spec.groups))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.named_grant(name).await
    }

    /// Ends the named grant now: every key bound to it stops working at its next call. The
    /// revision is bumped. Revoking a revoked grant changes nothing.
    pub async fn revoke_grant(&self, name: &str) -> Result<Grant, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let id = self.changeable(&mut tx, name).await?;
        let now = now_ms();
        sqlx::query(
            "UPDATE grants SET expires_at = ?, revision = revision + 1 \
             WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)",
        )
        .bind(now)
        .bind(id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.named_grant(name).await
    }

    /// The id of a grant the owner may change: it exists and is not built in.
    async fn changeable(
        &self,
        conn: &mut sqlx::SqliteConnection,
        name: &str,
    ) -> Result<i64, Error> {
        let id = grant_id_by_name(conn, name).await?;
        let builtin: bool = sqlx::query_scalar("SELECT builtin FROM grants WHERE id = ?")
            .bind(id)
            .fetch_one(&mut *conn)
            .await?;
        if builtin {
            return Err(Error::Invalid(format!(
                "the grant \"{name}\" is built in and follows this version's definition; create a named grant instead"
            )));
        }
        Ok(id)
    }

    async fn named_grant(&self, name: &str) -> Result<Grant, Error> {
        let sql = format!("SELECT {GRANT_COLUMNS} FROM grants g WHERE g.name = ?");
        let row = sqlx::query(&sql).bind(name).fetch_one(self.pool()).await?;
        grant_from_row(&row)
    }
}
