//! The audit trail: every write is recorded as `executing` before its external effect, then
//! finished as `applied` or `failed`; entries a crash left open become `outcome_unknown`.

use domain::PersonId;
use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::{
    Error, Store,
    error::{UnknownStatus, corrupt},
    now_ms, pages,
};

/// Most rows `audit_page` reads: a page of 200 (the tools' largest) and the one row more that
/// tells a keyset page whether another follows (`tools::contract::keyset_page`).
const MAX_ROWS: u32 = 201;

/// What a restart writes on entries it found still executing.
const UNKNOWN_MESSAGE: &str = "the gateway stopped before the outcome was recorded";

tokio::task_local! {
    /// The audit entry the write running on this task belongs to.
    static CURRENT: AuditId;
}

/// Runs `work` as the write of audit entry `id`: what the store commits for it that proves its
/// effect (a request created, say) is stamped on the entry in the same transaction, so a stop
/// before the outcome is recorded cannot leave it unknown (see
/// [`Store::recover_unfinished_audit`]).
pub async fn under_audit<F: std::future::Future>(id: AuditId, work: F) -> F::Output {
    CURRENT.scope(id, work).await
}

/// Stamps `proof` on the executing audit entry of the write running on this task, if any, on
/// the transaction that commits the effect.
pub(crate) async fn prove_on(conn: &mut SqliteConnection, proof: &str) -> Result<(), Error> {
    let Ok(id) = CURRENT.try_with(|id| *id) else {
        return Ok(());
    };
    sqlx::query("UPDATE audit SET proof = ? WHERE id = ? AND status = ?")
        .bind(proof)
        .bind(id.0)
        .bind(AuditStatus::Executing.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Where an audited write stands.
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
pub enum AuditStatus {
    /// Recorded before the external call; not finished yet.
    Executing,
    Applied,
    Failed,
    /// The gateway stopped mid-call: the effect may or may not have happened. Never retried on its own.
    OutcomeUnknown,
}

impl AuditStatus {
    /// Every status, in declaration order.
    pub const ALL: [AuditStatus; AuditStatus::COUNT] =
        *AuditStatus::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

fn unknown_status(text: &str) -> UnknownStatus {
    UnknownStatus::new("audit", text)
}

/// Row id of an audit entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct AuditId(pub i64);

/// What is about to be done, recorded before doing it.
#[derive(Clone, Debug)]
pub struct NewAudit {
    pub person: PersonId,
    /// The credential used, when the call came with a key.
    pub key_id: Option<String>,
    pub tool: String,
    pub instance: Option<String>,
    /// A digest of the arguments: enough to match entries, never the arguments themselves.
    pub args_digest: String,
}

/// One page request. `limit` is clamped to 1..=201 (a page of 200 and one row more).
#[derive(Clone, Debug)]
pub struct AuditQuery {
    /// Only this person's entries.
    pub person: Option<PersonId>,
    /// Only entries older than this id: the last id of the previous page.
    pub before_id: Option<i64>,
    pub limit: u32,
}

impl Default for AuditQuery {
    fn default() -> AuditQuery {
        AuditQuery {
            person: None,
            before_id: None,
            limit: 50,
        }
    }
}

/// One recorded write, as shown to the owner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AuditEntry {
    pub id: i64,
    pub at: i64,
    /// The person's name.
    pub person: String,
    pub key_id: Option<String>,
    pub tool: String,
    pub instance: Option<String>,
    pub args_digest: String,
    pub status: AuditStatus,
    pub message: Option<String>,
    pub finished_at: Option<i64>,
}

/// The result columns of [`Store::audit_page`]'s query, in the order [`PageRow`] reads them.
const PAGE_COLUMNS: &[&str] = &[
    "id",
    "at",
    "person",
    "key_id",
    "tool",
    "instance_id",
    "args_digest",
    "status",
    "message",
    "finished_at",
];

/// An entry as [`Store::audit_page`] reads it: the columns, in order.
#[derive(Deserialize)]
struct PageRow {
    id: i64,
    at: i64,
    person: String,
    key_id: Option<String>,
    tool: String,
    instance_id: Option<String>,
    args_digest: String,
    status: String,
    message: Option<String>,
    finished_at: Option<i64>,
}

impl PageRow {
    fn entry(self) -> Result<AuditEntry, Error> {
        Ok(AuditEntry {
            id: self.id,
            at: self.at,
            person: self.person,
            key_id: self.key_id,
            tool: self.tool,
            instance: self.instance_id,
            args_digest: self.args_digest,
            status: self.status.parse().map_err(corrupt)?,
            message: self.message,
            finished_at: self.finished_at,
        })
    }
}

/// Records a write as `executing` on `conn` (a pooled connection or a transaction).
pub(crate) async fn insert_audit(
    conn: &mut SqliteConnection,
    entry: &NewAudit,
) -> Result<AuditId, Error> {
    let credential_id: Option<i64> = match &entry.key_id {
        None => None,
        Some(key_id) => Some(
            sqlx::query_scalar("SELECT id FROM credentials WHERE key_id = ?")
                .bind(key_id)
                .fetch_optional(&mut *conn)
                .await?
                .ok_or_else(|| Error::NotFound(format!("no key with id \"{key_id}\"")))?,
        ),
    };
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO audit (at, person_id, credential_id, tool, instance_id, args_digest, \
         status, message, finished_at, replica) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?) \
         RETURNING id",
    )
    .bind(now_ms())
    .bind(entry.person.0)
    .bind(credential_id)
    .bind(&entry.tool)
    .bind(&entry.instance)
    .bind(&entry.args_digest)
    .bind(AuditStatus::Executing.as_str())
    .bind(crate::replicas::joined())
    .fetch_one(&mut *conn)
    .await
    .map_err(|e| {
        if crate::error::is_foreign_key_violation(&e) {
            Error::NotFound(format!("no person with id {}", entry.person))
        } else {
            Error::Database(e)
        }
    })?;
    Ok(AuditId(id))
}

/// Finishes an executing entry on `conn`; see [`Store::audit_finish`].
pub(crate) async fn finish_on(
    conn: &mut SqliteConnection,
    id: AuditId,
    status: AuditStatus,
    message: Option<&str>,
) -> Result<(), Error> {
    if status == AuditStatus::Executing {
        return Err(Error::Invalid(
            "an audit entry cannot be finished as executing".into(),
        ));
    }
    let done = sqlx::query(
        "UPDATE audit SET status = ?, message = ?, finished_at = ? WHERE id = ? AND status = ?",
    )
    .bind(status.as_str())
    .bind(message)
    .bind(now_ms())
    .bind(id.0)
    .bind(AuditStatus::Executing.as_str())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 1 {
        return Ok(());
    }
    let current: Option<String> = sqlx::query_scalar("SELECT status FROM audit WHERE id = ?")
        .bind(id.0)
        .fetch_optional(&mut *conn)
        .await?;
    match current {
        None => Err(Error::NotFound(format!("no audit entry with id {}", id.0))),
        Some(s) => Err(Error::Conflict(format!(
            "audit entry {} is already finished as {s}",
            id.0
        ))),
    }
}

impl Store {
    /// Records a write as `executing`. Call it before any external effect.
    /// `NotFound` when the key id or person is unknown.
    pub async fn audit_begin(&self, entry: &NewAudit) -> Result<AuditId, Error> {
        let mut conn = self.pool().acquire().await?;
        insert_audit(&mut conn, entry).await
    }

    /// Finishes an executing entry as `applied`, `failed` or `outcome_unknown`.
    /// `Invalid` for `executing`, `NotFound` for an unknown id, `Conflict` when already finished.
    pub async fn audit_finish(
        &self,
        id: AuditId,
        status: AuditStatus,
        message: Option<&str>,
    ) -> Result<(), Error> {
        let mut conn = self.pool().acquire().await?;
        finish_on(&mut conn, id, status, message).await
    }

    /// A page of entries, newest first, optionally for one person, older than `before_id`.
    pub async fn audit_page(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>, Error> {
        let mut sql = pages::select(
            PAGE_COLUMNS,
            "a.id, a.at, p.name AS person, c.key_id, a.tool, a.instance_id, \
             a.args_digest, a.status, a.message, a.finished_at FROM audit a \
             JOIN people p ON p.id = a.person_id \
             LEFT JOIN credentials c ON c.id = a.credential_id WHERE 1 = 1",
        );
        if let Some(person) = query.person {
            sql.push(" AND a.person_id = ").push_bind(person.0);
        }
        if let Some(before) = query.before_id {
            sql.push(" AND a.id < ").push_bind(before);
        }
        sql.push(" ORDER BY a.id DESC LIMIT ")
            .push_bind(i64::from(query.limit.clamp(1, MAX_ROWS)));
        let rows = pages::fetch(sql, self, |r: &PageRow| r.id).await?;
        rows.into_iter().map(PageRow::entry).collect()
    }

    /// At start: entries still `executing` were cut off by a stop. One whose effect a row
    /// proves (its `proof`, written with the effect) is reconciled to `applied`, saying so;
    /// the others' outcome is unknown: they become `outcome_unknown`. Entries an earlier start
    /// left `outcome_unknown` although a proof exists are reconciled too. Returns how many
    /// became `outcome_unknown`.
    pub async fn recover_unfinished_audit(&self) -> Result<u64, Error> {
        self.recover_unfinished_audit_of(true).await
    }

    /// [`Store::recover_unfinished_audit`] of the entries of replicas no longer registered
    /// (`replicas.rs`), and with `unmarked` of those no replica marked.
    pub(crate) async fn recover_unfinished_audit_of(&self, unmarked: bool) -> Result<u64, Error> {
        let now = now_ms();
        let whose = crate::replicas::gone_clause(unmarked);
        let reconciled = sqlx::query(&format!(
            "UPDATE audit SET status = ?, \
             message = 'reconciled at start: ' || proof || ' (the gateway stopped before the outcome was recorded)', \
             finished_at = ? WHERE status IN (?, ?) AND proof IS NOT NULL AND {whose}"
        ))
        .bind(AuditStatus::Applied.as_str())
        .bind(now)
        .bind(AuditStatus::Executing.as_str())
        .bind(AuditStatus::OutcomeUnknown.as_str())
        .execute(self.pool())
        .await?;
        if reconciled.rows_affected() > 0 {
            tracing::info!(
                entries = reconciled.rows_affected(),
                "audit entries whose effect a stored row proves were reconciled to applied"
            );
        }
        let done = sqlx::query(&format!(
            "UPDATE audit SET status = ?, message = ?, finished_at = ? WHERE status = ? AND {whose}"
        ))
        .bind(AuditStatus::OutcomeUnknown.as_str())
        .bind(UNKNOWN_MESSAGE)
        .bind(now)
        .bind(AuditStatus::Executing.as_str())
        .execute(self.pool())
        .await?;
        if done.rows_affected() > 0 {
            tracing::warn!(
                entries = done.rows_affected(),
                "audit entries left executing by the last run are now outcome_unknown"
            );
        }
        Ok(done.rows_affected())
    }
}
