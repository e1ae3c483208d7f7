//! Planned changes: what a tool would do, resolved against live state and stored with the
//! hashes of the state it read, waiting for the owner's decision.

use domain::PersonId;
use rand::{Rng, distr::Alphanumeric};
use serde::Serialize;
use sqlx::{Row, sqlite::SqliteRow};
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::{
    Error, Store,
    error::{UnknownStatus, corrupt},
    now_ms,
};

/// Largest page `changes_page` returns.
const MAX_PAGE: u32 = 200;

/// Where a change stands.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownStatus,
    parse_err_fn = unknown_status
)]
pub enum ChangeStatus {
    /// Waiting for the owner.
    Pending,
    /// The owner approved this content under this grant revision; `apply_change` may run it.
    Approved,
    Rejected,
    /// Its operation started.
    Applying,
    Applied,
    Failed,
    /// The gateway stopped after the operation's checkpoint: the effect may or may not have happened.
    OutcomeUnknown,
    /// Its operation was cancelled before any external call.
    Cancelled,
}

impl ChangeStatus {
    /// Every status, in declaration order.
    pub const ALL: [ChangeStatus; ChangeStatus::COUNT] = *ChangeStatus::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

fn unknown_status(text: &str) -> UnknownStatus {
    UnknownStatus::new("change", text)
}

/// A plan to store: made by a tool, never by the caller's text.
#[derive(Clone, Debug)]
pub struct NewChange {
    pub created_by: PersonId,
    pub grant_id: i64,
    pub grant_revision: i64,
    pub tool: String,
    /// One line for the owner's list.
    pub summary: String,
    /// The resolved plan as JSON text: what will be done, and the diff the owner reviews.
    pub plan: String,
    /// JSON object text: dependency name -> hash of the state read for it.
    pub dependency_hashes: String,
    /// SHA-256 over tool, plan and dependency hashes: what an approval is bound to.
    pub content_hash: String,
}

/// A stored change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    pub id: String,
    pub created_by: PersonId,
    /// The creator's name.
    pub creator: String,
    pub grant_id: Option<i64>,
    pub grant_revision: i64,
    pub tool: String,
    pub summary: String,
    pub plan: String,
    pub dependency_hashes: String,
    pub content_hash: String,
    pub status: ChangeStatus,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// The name of the person who approved or rejected it.
    pub decided_by: Option<String>,
    /// The content hash the approval was given for.
    pub approved_hash: Option<String>,
    /// The grant revision the approval was given for.
    pub approved_revision: Option<i64>,
}

impl Change {
    /// True when the owner approved exactly this content under `revision` of its grant.
    pub fn approval_holds(&self, grant_id: i64, revision: i64) -> bool {
        self.approved_hash.as_deref() == Some(self.content_hash.as_str())
            && self.approved_revision == Some(revision)
            && self.grant_id == Some(grant_id)
    }
}

const CHANGE_COLUMNS: &str = "c.id, c.created_by, p.name AS creator, c.grant_id, \
    c.grant_revision, c.tool, c.summary, c.plan, c.dependency_hashes, c.content_hash, c.status, \
    c.created_at, c.decided_at, d.name AS decided_by, c.approved_hash, c.approved_revision \
    FROM changes c JOIN people p ON p.id = c.created_by LEFT JOIN people d ON d.id = c.decided_by";

fn change_from_row(row: &SqliteRow) -> Result<Change, Error> {
    let status: String = row.try_get("status")?;
    Ok(Change {
        id: row.try_get("id")?,
        created_by: PersonId(row.try_get("created_by")?),
        creator: row.try_get("creator")?,
        grant_id: row.try_get("grant_id")?,
        grant_revision: row.try_get("grant_revision")?,
        tool: row.try_get("tool")?,
        summary: row.try_get("summary")?,
        plan: row.try_get("plan")?,
        dependency_hashes: row.try_get("dependency_hashes")?,
        content_hash: row.try_get("content_hash")?,
        status: status.parse().map_err(corrupt)?,
        created_at: row.try_get("created_at")?,
        decided_at: row.try_get("decided_at")?,
        decided_by: row.try_get("decided_by")?,
        approved_hash: row.try_get("approved_hash")?,
        approved_revision: row.try_get("approved_revision")?,
    })
}

/// A fresh id with `prefix`: 20 random alphanumerics from the thread CSPRNG.
pub(crate) fn fresh_id(prefix: &str) -> String {
    let tail: String = rand::rng()
        .sample_iter(&Alphanumeric)
        .take(20)
        .map(char::from)
        .collect();
    format!("{prefix}{tail}")
}

/// The `Conflict` of a live (not rejected, failed or cancelled) revert of `reverts`, if any.
async fn revert_exists(
    conn: &mut sqlx::SqliteConnection,
    tool: &str,
    reverts: &str,
) -> Result<Option<Error>, Error> {
    let live: Option<(String, String)> = sqlx::query_as(
        "SELECT id, status FROM changes WHERE tool = ? AND json_extract(plan, '$.reverts') = ? \
         AND status NOT IN (?, ?, ?) LIMIT 1",
    )
    .bind(tool)
    .bind(reverts)
    .bind(ChangeStatus::Rejected.as_str())
    .bind(ChangeStatus::Failed.as_str())
    .bind(ChangeStatus::Cancelled.as_str())
    .fetch_optional(conn)
    .await?;
    Ok(live.map(|(id, status)| {
        Error::Conflict(format!(
            "change {reverts} already has its revert, {id} ({status}); a change is reverted once"
        ))
    }))
}

async fn insert_change(
    conn: &mut sqlx::SqliteConnection,
    id: &str,
    new: &NewChange,
) -> Result<(), Error> {
    sqlx::query(
        "INSERT INTO changes (id, created_by, tool, plan, dependency_hashes, grant_revision, \
         status, created_at, grant_id, summary, content_hash) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(id)
    .bind(new.created_by.0)
    .bind(&new.tool)
    .bind(&new.plan)
    .bind(&new.dependency_hashes)
    .bind(new.grant_revision)
    .bind(ChangeStatus::Pending.as_str())
    .bind(now_ms())
    .bind(new.grant_id)
    .bind(&new.summary)
    .bind(&new.content_hash)
    .execute(conn)
    .await?;
    Ok(())
}

impl Store {
    /// Stores a plan as `pending` and returns it.
    pub async fn create_change(&self, new: &NewChange) -> Result<Change, Error> {
        let id = fresh_id("chg_");
        let mut conn = self.pool().acquire().await?;
        insert_change(&mut conn, &id, new).await?;
        drop(conn);
        self.change(&id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("change {id} vanished after it was stored")))
    }

    /// Stores `new` as already `approved` by `owner`: the plan of work the owner approved to
    /// recur (a shortlist row's scheduled run), bound to its own content and grant revision.
    pub async fn create_approved_change(
        &self,
        new: &NewChange,
        owner: PersonId,
    ) -> Result<Change, Error> {
        let id = fresh_id("chg_");
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        insert_change(&mut tx, &id, new).await?;
        sqlx::query(
            "UPDATE changes SET status = ?, decided_at = ?, decided_by = ?, approved_hash = \
             content_hash, approved_revision = grant_revision WHERE id = ?",
        )
        .bind(ChangeStatus::Approved.as_str())
        .bind(now_ms())
        .bind(owner.0)
        .bind(&id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.change(&id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("change {id} vanished after it was stored")))
    }

    /// Stores `new`, a plan that reverts the change `reverts` (its plan's `reverts` field names
    /// it), unless another revert of that change is pending, approved, applying or applied:
    /// then `Conflict` naming it. One `BEGIN IMMEDIATE` transaction, so two racing reverts
    /// store one.
    pub async fn create_revert(&self, new: &NewChange, reverts: &str) -> Result<Change, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        if let Some(e) = revert_exists(&mut tx, &new.tool, reverts).await? {
            return Err(e);
        }
        let id = fresh_id("chg_");
        insert_change(&mut tx, &id, new).await?;
        tx.commit().await?;
        self.change(&id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("change {id} vanished after it was stored")))
    }

    /// `Conflict` naming the revert (a change of `tool`) that change `reverts` already has.
    pub async fn check_no_revert(&self, tool: &str, reverts: &str) -> Result<(), Error> {
        let mut conn = self.pool().acquire().await?;
        match revert_exists(&mut conn, tool, reverts).await? {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub async fn change(&self, id: &str) -> Result<Option<Change>, Error> {
        let row = sqlx::query(&format!("SELECT {CHANGE_COLUMNS} WHERE c.id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(change_from_row).transpose()
    }

    /// Changes still pending that were proposed after `after` (ms), oldest first, at most 100:
    /// what a notices pass tells.
    pub async fn pending_changes_after(&self, after: i64) -> Result<Vec<Change>, Error> {
        let rows = sqlx::query(&format!(
            "SELECT {CHANGE_COLUMNS} WHERE c.status = ? AND c.created_at > ? \
             ORDER BY c.created_at, c.id LIMIT 100"
        ))
        .bind(ChangeStatus::Pending.as_str())
        .bind(after)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(change_from_row).collect()
    }

    /// Newest first, optionally only those in `status`; `limit` clamped to 1..=200.
    pub async fn changes_page(
        &self,
        status: Option<ChangeStatus>,
        limit: u32,
    ) -> Result<Vec<Change>, Error> {
        let limit = i64::from(limit.clamp(1, MAX_PAGE));
        let rows = match status {
            Some(s) => {
                sqlx::query(&format!(
                    "SELECT {CHANGE_COLUMNS} WHERE c.status = ? ORDER BY c.created_at DESC, c.id LIMIT ?"
                ))
                .bind(s.as_str())
                .bind(limit)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                sqlx::query(&format!(
                    "SELECT {CHANGE_COLUMNS} ORDER BY c.created_at DESC, c.id LIMIT ?"
                ))
                .bind(limit)
                .fetch_all(self.pool())
                .await?
            }
        };
        rows.iter().map(change_from_row).collect()
    }

    /// The owner's decision on a pending change, bound to the content hash the owner saw and
    /// the grant revision the plan was made under. `Conflict` when the change is no longer
    /// pending, its content is not what the owner saw, or its grant changed since the plan.
    pub async fn decide_change(
        &self,
        id: &str,
        owner: PersonId,
        approve: bool,
        seen_hash: &str,
    ) -> Result<Change, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let row = sqlx::query(&format!("SELECT {CHANGE_COLUMNS} WHERE c.id = ?"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let change = row
            .as_ref()
            .map(change_from_row)
            .transpose()?
            .ok_or_else(|| Error::NotFound(format!("no change with id \"{id}\"")))?;
        if change.status != ChangeStatus::Pending {
            return Err(Error::Conflict(format!(
                "change {id} is {}, not pending; nothing was decided",
                change.status
            )));
        }
        if change.content_hash != seen_hash {
            return Err(Error::Conflict(format!(
                "change {id} is not the content that was reviewed; open it again"
            )));
        }
        let revision: Option<i64> = sqlx::query_scalar("SELECT revision FROM grants WHERE id = ?")
            .bind(change.grant_id)
            .fetch_optional(&mut *tx)
            .await?;
        if approve && revision != Some(change.grant_revision) {
            return Err(Error::Conflict(format!(
                "the grant change {id} was planned under has changed since; the plan must be made again"
            )));
        }
        let status = if approve {
            ChangeStatus::Approved
        } else {
            ChangeStatus::Rejected
        };
        sqlx::query(
            "UPDATE changes SET status = ?, decided_at = ?, decided_by = ?, approved_hash = ?, \
             approved_revision = ? WHERE id = ?",
        )
        .bind(status.as_str())
        .bind(now_ms())
        .bind(owner.0)
        .bind(approve.then_some(seen_hash))
        .bind(approve.then_some(change.grant_revision))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.change(id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no change with id \"{id}\"")))
    }
}
