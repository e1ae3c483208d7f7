//! Grants: named bundles of capabilities, instances and allowances that credentials are bound to.

use std::collections::{BTreeMap, BTreeSet};

use domain::{AllowanceKind, AllowanceRule, Capability, Preset};
use serde::Serialize;
use sqlx::{Row, sqlite::SqliteRow};

use crate::{Error, Store, error::corrupt};

/// The grant the owner's own keys carry: every capability there is.
pub const OWNER_GRANT: &str = "owner";

/// The columns `grant_from_row` reads, for any query that selects `FROM grants g`.
pub(crate) const GRANT_COLUMNS: &str = "g.id AS grant_id, g.name AS grant_name, \
    g.capabilities, g.instances, g.allowances, g.expires_at AS grant_expires_at, \
    g.revision, g.builtin, g.tools AS grant_tools, g.groups AS grant_groups";

/// What a credential bound to this grant may do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grant {
    pub id: i64,
    pub name: String,
    pub capabilities: BTreeSet<Capability>,
    /// Instance ids the grant may touch; `None` means all of them.
    pub instances: Option<Vec<String>>,
    /// Finite counts per window, by the kind of call they count (adds per day...).
    pub allowances: BTreeMap<AllowanceKind, AllowanceRule>,
    pub expires_at: Option<i64>,
    /// Bumped on every change, so a plan made under an older grant can be refused.
    pub revision: i64,
    /// Seeded from the code (the presets and "owner") and kept in step with it at every open.
    pub builtin: bool,
    /// `None`: every tool the capabilities allow; else only these tools.
    pub tools: Option<Vec<String>>,
    /// The tool groups `tools/list` shows; `None`: every group. Tools of other groups stay
    /// callable by name (`find_tools` finds them).
    pub groups: Option<Vec<String>>,
}

impl Grant {
    pub fn allows(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// True when the grant has an expiry at or before `now_ms`.
    pub fn is_expired(&self, now_ms: i64) -> bool {
        self.expires_at.is_some_and(|at| at <= now_ms)
    }
}

/// Reads a grant selected with `GRANT_COLUMNS`. Capability names this build does not know are
/// dropped with a warning: a grant read by an older build can only do less, never more.
pub(crate) fn grant_from_row(row: &SqliteRow) -> Result<Grant, Error> {
    let name: String = row.try_get("grant_name")?;
    let caps: String = row.try_get("capabilities")?;
    let caps: Vec<String> = serde_json::from_str(&caps).map_err(|e| {
        corrupt(format!(
            "grant \"{name}\": capabilities are not a JSON list: {e}"
        ))
    })?;
    let mut capabilities = BTreeSet::new();
    for cap in caps {
        match cap.parse::<Capability>() {
            Ok(c) => {
                capabilities.insert(c);
            }
            Err(_) => {
                tracing::warn!(grant = %name, capability = %cap, "ignoring unknown capability")
            }
        }
    }
    let instances: Option<String> = row.try_get("instances")?;
    let instances = instances
        .map(|text| serde_json::from_str::<Vec<String>>(&text))
        .transpose()
        .map_err(|e| {
            corrupt(format!(
                "grant \"{name}\": instances are not a JSON list: {e}"
            ))
        })?;
    let allowances = allowances_from_json(&name, &row.try_get::<String, _>("allowances")?)?;
    let tools: Option<String> = row.try_get("grant_tools")?;
    let tools = tools
        .map(|text| serde_json::from_str::<Vec<String>>(&text))
        .transpose()
        .map_err(|e| corrupt(format!("grant \"{name}\": tools are not a JSON list: {e}")))?;
    let groups: Option<String> = row.try_get("grant_groups")?;
    let groups = groups
        .map(|text| serde_json::from_str::<Vec<String>>(&text))
        .transpose()
        .map_err(|e| corrupt(format!("grant \"{name}\": groups are not a JSON list: {e}")))?;
    Ok(Grant {
        id: row.try_get("grant_id")?,
        name,
        capabilities,
        instances,
        allowances,
        expires_at: row.try_get("grant_expires_at")?,
        revision: row.try_get("revision")?,
        builtin: row.try_get("builtin")?,
        tools,
        groups,
    })
}

/// Allowances as stored: `{"adds": {"count": 10, "days": 1}, ...}`. Kinds this build does not
/// know are dropped with a warning: no tool of this build spends them.
fn allowances_from_json(
    name: &str,
    text: &str,
) -> Result<BTreeMap<AllowanceKind, AllowanceRule>, Error> {
    let raw: BTreeMap<String, AllowanceRule> = serde_json::from_str(text).map_err(|e| {
        corrupt(format!(
            "grant \"{name}\": allowances are not an object of {{count, days}}: {e}"
        ))
    })?;
    let mut out = BTreeMap::new();
    for (kind, rule) in raw {
        match kind.parse::<AllowanceKind>() {
            Ok(k) => {
                out.insert(k, rule);
            }
            Err(_) => {
                tracing::warn!(grant = %name, allowance = %kind, "ignoring unknown allowance kind")
            }
        }
    }
    Ok(out)
}

/// The allowances as stored.
pub(crate) fn allowances_json(allowances: &BTreeMap<AllowanceKind, AllowanceRule>) -> String {
    serde_json::to_string(allowances).expect("a map of plain rules always serialises")
}

/// The capability list as stored: a JSON array of names, sorted.
pub(crate) fn capabilities_json(caps: &BTreeSet<Capability>) -> String {
    let names: Vec<&str> = caps.iter().map(|c| c.as_str()).collect();
    serde_json::to_string(&names).expect("a list of strings always serialises")
}

/// A built-in grant as the code defines it: name, capabilities, listed tool groups.
type Builtin = (&'static str, BTreeSet<Capability>, Option<Vec<String>>);

/// The grants the code defines: the presets, then "owner" (who lists every group).
fn builtin_grants() -> Vec<Builtin> {
    let mut out: Vec<Builtin> = Preset::ALL
        .into_iter()
        .map(|p| {
            let groups = p.groups().iter().map(|g| g.to_string()).collect();
            (
                p.name(),
                p.capabilities().iter().copied().collect(),
                Some(groups),
            )
        })
        .collect();
    out.push((OWNER_GRANT, Capability::ALL.into_iter().collect(), None));
    out
}

/// The id of the grant named `name` within any executor, or `NotFound` naming the grants there are.
pub(crate) async fn grant_id_by_name(
    conn: &mut sqlx::SqliteConnection,
    name: &str,
) -> Result<i64, Error> {
    let id: Option<i64> = sqlx::query_scalar("SELECT id FROM grants WHERE name = ?")
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some(id) = id {
        return Ok(id);
    }
    let names: Vec<String> = sqlx::query_scalar("SELECT name FROM grants ORDER BY id")
        .fetch_all(&mut *conn)
        .await?;
    Err(Error::NotFound(format!(
        "unknown grant \"{name}\"; valid grants: {}",
        names.join(", ")
    )))
}

impl Store {
    /// Every grant, in creation order (the presets and "owner" first).
    pub async fn grants(&self) -> Result<Vec<Grant>, Error> {
        let sql = format!("SELECT {GRANT_COLUMNS} FROM grants g ORDER BY g.id");
        let rows = sqlx::query(&sql).fetch_all(self.pool()).await?;
        rows.iter().map(grant_from_row).collect()
    }

    /// The grant named `name`, if any.
    pub async fn grant_by_name(&self, name: &str) -> Result<Option<Grant>, Error> {
        let sql = format!("SELECT {GRANT_COLUMNS} FROM grants g WHERE g.name = ?");
        let row = sqlx::query(&sql)
            .bind(name)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(grant_from_row).transpose()
    }

    /// Creates the built-in grants that are missing and brings existing ones in step with the
    /// code, bumping their revision when their capabilities change. Runs at every open.
    pub(crate) async fn seed_builtin_grants(&self) -> Result<(), Error> {
        let mut tx = self.pool().begin().await?;
        for (name, caps, groups) in builtin_grants() {
            let want = capabilities_json(&caps);
            let want_groups = groups
                .as_ref()
                .map(|g| serde_json::to_string(g).expect("names"));
            // A write first, so the transaction holds the write lock before it reads.
            sqlx::query(
                "INSERT INTO grants (name, capabilities, instances, allowances, expires_at, \
                 revision, builtin, groups) VALUES (?, ?, NULL, '{}', NULL, 1, 1, ?) \
                 ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .bind(&want)
            .bind(&want_groups)
            .execute(&mut *tx)
            .await?;
            let sql = format!("SELECT {GRANT_COLUMNS} FROM grants g WHERE g.name = ?");
            let row = sqlx::query(&sql).bind(name).fetch_one(&mut *tx).await?;
            let have = grant_from_row(&row)?;
            if have.capabilities != caps || !have.builtin || have.groups != groups {
                tracing::info!(
                    grant = name,
                    "updating built-in grant to this build's definition"
                );
                sqlx::query(
                    "UPDATE grants SET capabilities = ?, groups = ?, builtin = 1, \
                     revision = revision + 1 WHERE id = ?",
                )
                .bind(&want)
                .bind(&want_groups)
                .bind(have.id)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
