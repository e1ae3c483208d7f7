//! Operations: the one run of an approved change. Started together with its audit entry and
//! idempotency key in one transaction, checkpointed before each external call, finished once;
//! a restart turns an operation past its checkpoint into `outcome_unknown`, never a retry.

use domain::{AllowanceKind, AllowanceRule, PersonId};
use serde::Serialize;
use sqlx::{Row, sqlite::SqliteRow};
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::{
    AllowanceLeft, AuditStatus, ChangeStatus, Error, NewAudit, Reserved, Store,
    allowances::{release_on, reserve_on},
    changes::fresh_id,
    error::{UnknownStatus, corrupt},
    now_ms,
};

/// What a restart writes on operations cut off after their checkpoint.
const UNKNOWN_MESSAGE: &str = "the gateway stopped after the checkpoint, during the external call; whether it happened is unknown, and it is not retried on its own";
/// What a restart writes on operations cut off before any external call.
const INTERRUPTED_MESSAGE: &str = "the gateway stopped before any external call; nothing was sent, and it is not retried on its own";

/// Where an operation stands.
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
pub enum OperationStatus {
    /// Started; no external call yet (it can still be cancelled).
    Running,
    /// A checkpoint was written: an external call is under way.
    InFlight,
    /// Cancelled while under way: the step under way ends, no further step starts, and the
    /// operation is closed `cancelled` with what was done and what was not.
    Cancelling,
    Succeeded,
    Failed,
    Cancelled,
    /// Cut off after a checkpoint: reported, never retried on its own.
    OutcomeUnknown,
}

impl OperationStatus {
    /// Every status, in declaration order.
    pub const ALL: [OperationStatus; OperationStatus::COUNT] = *OperationStatus::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            OperationStatus::Running | OperationStatus::InFlight | OperationStatus::Cancelling
        )
    }
}

fn unknown_status(text: &str) -> UnknownStatus {
    UnknownStatus::new("operation", text)
}

/// One operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Operation {
    pub id: String,
    pub change_id: Option<String>,
    /// The tool of its change.
    pub tool: Option<String>,
    pub person: Option<PersonId>,
    pub status: OperationStatus,
    /// JSON text: the last external call announced before it was made.
    pub checkpoint: String,
    /// JSON text of the outcome, once finished.
    pub result: Option<String>,
    pub message: Option<String>,
    pub audit_id: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What `begin_operation` found or made.
#[derive(Debug)]
pub enum Begun {
    /// A new operation: the caller runs the work and finishes it.
    Started(Operation),
    /// This key (or another apply of the same change) already has an operation: the work is
    /// not run again.
    Existing(Operation),
    /// Nothing was written: the allowance the change's tool spends is used up.
    Exhausted(AllowanceLeft),
}

const OPERATION_COLUMNS: &str = "o.id, o.change_id, c.tool, o.person_id, o.status, o.checkpoint, \
    o.result, o.message, o.audit_id, o.created_at, o.updated_at \
    FROM operations o LEFT JOIN changes c ON c.id = o.change_id";

fn operation_from_row(row: &SqliteRow) -> Result<Operation, Error> {
    let status: String = row.try_get("status")?;
    Ok(Operation {
        id: row.try_get("id")?,
        change_id: row.try_get("change_id")?,
        tool: row.try_get("tool")?,
        person: row.try_get::<Option<i64>, _>("person_id")?.map(PersonId),
        status: status.parse().map_err(corrupt)?,
        checkpoint: row.try_get("checkpoint")?,
        result: row.try_get("result")?,
        message: row.try_get("message")?,
        audit_id: row.try_get("audit_id")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

async fn operation_in<'e, E: sqlx::SqliteExecutor<'e>>(
    e: E,
    where_sql: &str,
    bind: &str,
) -> Result<Option<Operation>, Error> {
    let row = sqlx::query(&format!("SELECT {OPERATION_COLUMNS} WHERE {where_sql}"))
        .bind(bind)
        .fetch_optional(e)
        .await?;
    row.as_ref().map(operation_from_row).transpose()
}

impl Store {
    pub async fn operation(&self, id: &str) -> Result<Option<Operation>, Error> {
        operation_in(self.pool(), "o.id = ?", id).await
    }

    pub async fn operation_for_change(&self, change_id: &str) -> Result<Option<Operation>, Error> {
        operation_in(self.pool(), "o.change_id = ?", change_id).await
    }

    /// The operations of the changes of `tool`, newest first; `limit` clamped to 1..=200.
    pub async fn operations_of_tool(
        &self,
        tool: &str,
        limit: u32,
    ) -> Result<Vec<Operation>, Error> {
        let rows = sqlx::query(&format!(
            "SELECT {OPERATION_COLUMNS} WHERE c.tool = ? ORDER BY o.created_at DESC, o.id LIMIT ?"
        ))
        .bind(tool)
        .bind(i64::from(limit.clamp(1, 200)))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(operation_from_row).collect()
    }

    /// The operation `person` started with idempotency key `key`, if any.
    pub async fn operation_by_key(
        &self,
        person: PersonId,
        key: &str,
    ) -> Result<Option<Operation>, Error> {
        let row = sqlx::query(&format!(
            "SELECT {OPERATION_COLUMNS} JOIN idempotency_keys k ON k.operation_id = o.id \
             WHERE k.key = ? AND k.person_id = ?"
        ))
        .bind(key)
        .bind(person.0)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(operation_from_row).transpose()
    }

    /// Starts the one operation of `change_id` in one `BEGIN IMMEDIATE` transaction: the
    /// operation record, its audit entry (`executing`), the idempotency key and the change's
    /// `applying` status. When the key or the change already has an operation, that one is
    /// answered and nothing is written but the key. `Conflict` when the change is not in one
    /// of `startable`, or the key was used for another change. With `allowance`, one unit of it
    /// is charged to the audit entry in the same transaction; when none is left nothing is
    /// written and the answer is [`Begun::Exhausted`].
    pub async fn begin_operation(
        &self,
        change_id: &str,
        key: &str,
        startable: &[ChangeStatus],
        entry: &NewAudit,
        allowance: Option<(AllowanceKind, AllowanceRule)>,
    ) -> Result<Begun, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let by_key: Option<String> = sqlx::query_scalar(
            "SELECT operation_id FROM idempotency_keys WHERE key = ? AND person_id = ?",
        )
        .bind(key)
        .bind(entry.person.0)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(op) = by_key {
            let op = operation_in(&mut *tx, "o.id = ?", &op)
                .await?
                .ok_or_else(|| Error::NotFound(format!("no operation with id \"{op}\"")))?;
            if op.change_id.as_deref() != Some(change_id) {
                return Err(Error::Conflict(format!(
                    "the idempotency key was already used for another change ({}); use a new key",
                    op.change_id.as_deref().unwrap_or("none")
                )));
            }
            return Ok(Begun::Existing(op));
        }
        let now = now_ms();
        if let Some(op) = operation_in(&mut *tx, "o.change_id = ?", change_id).await? {
            // Another apply won: this key now names the same operation.
            sqlx::query(
                "INSERT INTO idempotency_keys (key, person_id, operation_id, created_at) VALUES (?, ?, ?, ?)",
            )
            .bind(key)
            .bind(entry.person.0)
            .bind(&op.id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            return Ok(Begun::Existing(op));
        }
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM changes WHERE id = ?")
            .bind(change_id)
            .fetch_optional(&mut *tx)
            .await?;
        let status: ChangeStatus = status
            .ok_or_else(|| Error::NotFound(format!("no change with id \"{change_id}\"")))?
            .parse()
            .map_err(corrupt)?;
        if !startable.contains(&status) {
            return Err(Error::Conflict(format!(
                "change {change_id} is {status}; it cannot be applied"
            )));
        }
        let audit_id = match allowance {
            None => crate::audit::insert_audit(&mut tx, entry).await?,
            Some((kind, rule)) => match reserve_on(&mut tx, entry, kind, rule).await? {
                Reserved::Begun(id) => id,
                Reserved::Exhausted(left) => {
                    tx.rollback().await?;
                    return Ok(Begun::Exhausted(left));
                }
            },
        };
        let id = fresh_id("op_");
        sqlx::query(
            "INSERT INTO operations (id, change_id, status, checkpoint, created_at, updated_at, \
             person_id, audit_id, replica) VALUES (?, ?, ?, '{}', ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(change_id)
        .bind(OperationStatus::Running.as_str())
        .bind(now)
        .bind(now)
        .bind(entry.person.0)
        .bind(audit_id.0)
        .bind(crate::replicas::joined())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO idempotency_keys (key, person_id, operation_id, created_at) VALUES (?, ?, ?, ?)",
        )
        .bind(key)
        .bind(entry.person.0)
        .bind(&id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE changes SET status = ? WHERE id = ?")
            .bind(ChangeStatus::Applying.as_str())
            .bind(change_id)
            .execute(&mut *tx)
            .await?;
        let op = operation_in(&mut *tx, "o.id = ?", &id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no operation with id \"{id}\"")))?;
        tx.commit().await?;
        Ok(Begun::Started(op))
    }

    /// Records the external call about to be made. `false` when the operation was cancelled
    /// (or finished) meanwhile: the call must not be made.
    pub async fn checkpoint(&self, id: &str, checkpoint: &str) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE operations SET status = ?, checkpoint = ?, updated_at = ? \
             WHERE id = ? AND status IN (?, ?)",
        )
        .bind(OperationStatus::InFlight.as_str())
        .bind(checkpoint)
        .bind(now_ms())
        .bind(id)
        .bind(OperationStatus::Running.as_str())
        .bind(OperationStatus::InFlight.as_str())
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Finishes a running operation, its audit entry and its change in one transaction.
    /// `Conflict` when it was already finished (cancelled, say).
    pub async fn finish_operation(
        &self,
        id: &str,
        succeeded: bool,
        result: &str,
        message: &str,
    ) -> Result<Operation, Error> {
        let (op_status, audit_status, change_status) = if succeeded {
            (
                OperationStatus::Succeeded,
                AuditStatus::Applied,
                ChangeStatus::Applied,
            )
        } else {
            (
                OperationStatus::Failed,
                AuditStatus::Failed,
                ChangeStatus::Failed,
            )
        };
        self.close(
            id,
            &[
                OperationStatus::Running,
                OperationStatus::InFlight,
                OperationStatus::Cancelling,
            ],
            (op_status, audit_status, change_status),
            Some(result),
            message,
        )
        .await
    }

    /// Cancels an operation. One that has made no external call yet is closed `cancelled` at
    /// once (its allowance unit comes back); one under way becomes `cancelling`: its checkpoint
    /// refuses the next step, and it is closed `cancelled` when its work stops, with what was
    /// done and what was not. `Conflict` naming its status when it is finished.
    pub async fn cancel_operation(&self, id: &str, message: &str) -> Result<Operation, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let asked = sqlx::query(
            "UPDATE operations SET status = ?, message = ?, updated_at = ? WHERE id = ? AND status = ?",
        )
        .bind(OperationStatus::Cancelling.as_str())
        .bind(message)
        .bind(now_ms())
        .bind(id)
        .bind(OperationStatus::InFlight.as_str())
        .execute(&mut *tx)
        .await?;
        if asked.rows_affected() == 1 {
            let op = operation_in(&mut *tx, "o.id = ?", id)
                .await?
                .ok_or_else(|| Error::NotFound(format!("no operation with id \"{id}\"")))?;
            crate::audit::prove_on(&mut tx, &format!("operation {id} became cancelling")).await?;
            tx.commit().await?;
            return Ok(op);
        }
        drop(tx);
        self.close(
            id,
            &[OperationStatus::Running],
            (
                OperationStatus::Cancelled,
                AuditStatus::Failed,
                ChangeStatus::Cancelled,
            ),
            None,
            message,
        )
        .await
    }

    async fn close(
        &self,
        id: &str,
        from: &[OperationStatus],
        (op_status, audit_status, change_status): (OperationStatus, AuditStatus, ChangeStatus),
        result: Option<&str>,
        message: &str,
    ) -> Result<Operation, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let op = operation_in(&mut *tx, "o.id = ?", id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no operation with id \"{id}\"")))?;
        if !from.contains(&op.status) {
            return Err(Error::Conflict(format!(
                "operation {id} is {}; it cannot become {op_status}",
                op.status
            )));
        }
        // Cancelled while under way: its work stopped at a step; it ends cancelled, with the
        // cancellation's note before what the work said.
        let cancelled_note;
        let (op_status, change_status, message) = if op.status == OperationStatus::Cancelling
            && matches!(
                op_status,
                OperationStatus::Succeeded | OperationStatus::Failed
            ) {
            let note = op.message.as_deref().unwrap_or("cancelled");
            cancelled_note = format!("{note}; {message}");
            (
                OperationStatus::Cancelled,
                ChangeStatus::Cancelled,
                cancelled_note.as_str(),
            )
        } else {
            (op_status, change_status, message)
        };
        let now = now_ms();
        sqlx::query(
            "UPDATE operations SET status = ?, result = ?, message = ?, updated_at = ? WHERE id = ?",
        )
        .bind(op_status.as_str())
        .bind(result)
        .bind(message)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE audit SET status = ?, message = ?, finished_at = ? WHERE id = ? AND status = ?",
        )
        .bind(audit_status.as_str())
        .bind(message)
        .bind(now)
        .bind(op.audit_id)
        .bind(AuditStatus::Executing.as_str())
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE changes SET status = ? WHERE id = ?")
            .bind(change_status.as_str())
            .bind(&op.change_id)
            .execute(&mut *tx)
            .await?;
        // Closed without success before any external call (cancelled, failed, or cut off by a
        // stop): it certainly did nothing, so the allowance unit it was charged comes back.
        if op.status == OperationStatus::Running
            && op_status != OperationStatus::Succeeded
            && let Some(audit_id) = op.audit_id
        {
            release_on(&mut tx, audit_id).await?;
        }
        let op = operation_in(&mut *tx, "o.id = ?", id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no operation with id \"{id}\"")))?;
        // The call that closed it (apply_change, cancel_operation) is proven by this row.
        crate::audit::prove_on(&mut tx, &format!("operation {id} became {}", op.status)).await?;
        tx.commit().await?;
        Ok(op)
    }

    /// At start, before `recover_unfinished_audit`: operations past their checkpoint become
    /// `outcome_unknown`, those cut off before it `failed`; neither is retried. Returns how many
    /// of each there were.
    pub async fn recover_unfinished_operations(&self) -> Result<(u64, u64), Error> {
        self.recover_unfinished_operations_of(true).await
    }

    /// [`Store::recover_unfinished_operations`] of the operations of replicas no longer
    /// registered (`replicas.rs`), and with `unmarked` of those no replica marked.
    pub(crate) async fn recover_unfinished_operations_of(
        &self,
        unmarked: bool,
    ) -> Result<(u64, u64), Error> {
        let whose = crate::replicas::gone_clause(unmarked);
        let ids: Vec<(String, String)> = sqlx::query_as(&format!(
            "SELECT id, status FROM operations WHERE status IN (?, ?, ?) AND {whose}"
        ))
        .bind(OperationStatus::Running.as_str())
        .bind(OperationStatus::InFlight.as_str())
        .bind(OperationStatus::Cancelling.as_str())
        .fetch_all(self.pool())
        .await?;
        let (mut unknown, mut interrupted) = (0, 0);
        for (id, status) in ids {
            let past_checkpoint = status != OperationStatus::Running.as_str();
            let outcome = if past_checkpoint {
                unknown += 1;
                (
                    OperationStatus::OutcomeUnknown,
                    AuditStatus::OutcomeUnknown,
                    ChangeStatus::OutcomeUnknown,
                )
            } else {
                interrupted += 1;
                (
                    OperationStatus::Failed,
                    AuditStatus::Failed,
                    ChangeStatus::Failed,
                )
            };
            let message = if past_checkpoint {
                UNKNOWN_MESSAGE
            } else {
                INTERRUPTED_MESSAGE
            };
            self.close(
                &id,
                &[
                    OperationStatus::Running,
                    OperationStatus::InFlight,
                    OperationStatus::Cancelling,
                ],
                outcome,
                None,
                message,
            )
            .await?;
        }
        if unknown + interrupted > 0 {
            tracing::warn!(
                unknown,
                interrupted,
                "operations left running by the last run were closed; none is retried"
            );
        }
        Ok((unknown, interrupted))
    }
}
