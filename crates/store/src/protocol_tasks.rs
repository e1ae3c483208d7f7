//! Long MCP calls kept as protocol tasks (the tasks extension): created when a call outlasts
//! its shortcut, beaten while it runs, settled once, and read only by the person who made it.

use domain::PersonId;
use rand::Rng;

use crate::{Error, Store, now_ms};

/// One protocol task as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolTask {
    pub id: String,
    pub tool: String,
    /// `working`, `completed`, `failed` or `cancelled`.
    pub status: String,
    pub message: Option<String>,
    /// JSON text: the result (`completed`) or the JSON-RPC error (`failed`).
    pub outcome: Option<String>,
    /// Unix ms.
    pub created_at: i64,
    pub updated_at: i64,
    pub ttl_ms: i64,
}

type Row = (
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    i64,
    i64,
);
/// A [`Row`] and the task's last heartbeat.
type RowWithBeat = (
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    i64,
    i64,
    i64,
);

fn from_row(
    (id, tool, status, message, outcome, created_at, updated_at, expires_at): Row,
) -> ProtocolTask {
    ProtocolTask {
        id,
        tool,
        status,
        message,
        outcome,
        created_at,
        updated_at,
        ttl_ms: expires_at - created_at,
    }
}

/// A task id: 128 random bits, so that one cannot be guessed.
fn new_task_id() -> String {
    let bits: u128 = rand::rng().random();
    format!("mt-{bits:032x}")
}

impl Store {
    /// Keeps a new `working` task of `person`'s call of `tool`, dropping expired ones.
    pub async fn create_protocol_task(
        &self,
        person: PersonId,
        tool: &str,
        stoppable: bool,
        ttl_ms: i64,
    ) -> Result<ProtocolTask, Error> {
        let now = now_ms();
        sqlx::query("DELETE FROM protocol_tasks WHERE expires_at < ?")
            .bind(now)
            .execute(self.pool())
            .await?;
        let id = new_task_id();
        sqlx::query(
            "INSERT INTO protocol_tasks (id, person_id, tool, stoppable, status, created_at, \
             updated_at, beat_at, expires_at) VALUES (?, ?, ?, ?, 'working', ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(person.0)
        .bind(tool)
        .bind(stoppable)
        .bind(now)
        .bind(now)
        .bind(now)
        .bind(now + ttl_ms)
        .execute(self.pool())
        .await?;
        Ok(ProtocolTask {
            id,
            tool: tool.to_owned(),
            status: "working".into(),
            message: None,
            outcome: None,
            created_at: now,
            updated_at: now,
            ttl_ms,
        })
    }

    /// One of `person`'s unexpired tasks. A working one whose heartbeat is older than
    /// `stale_ms` is settled first as failed with `stale_error` (JSON text).
    pub async fn protocol_task(
        &self,
        person: PersonId,
        id: &str,
        stale_ms: i64,
        stale_error: &str,
    ) -> Result<Option<ProtocolTask>, Error> {
        let now = now_ms();
        // A poll reads; it writes only when the task's server stopped beating.
        let found: Option<(Row, i64)> = {
            let row: Option<RowWithBeat> = sqlx::query_as(
                    "SELECT id, tool, status, message, outcome, created_at, updated_at, expires_at, \
                     beat_at FROM protocol_tasks WHERE id = ? AND person_id = ? AND expires_at >= ?",
                )
                .bind(id)
                .bind(person.0)
                .bind(now)
                .fetch_optional(self.pool())
                .await?;
            row.map(|(a, b, c, d, e, f, g, h, beat)| ((a, b, c, d, e, f, g, h), beat))
        };
        let Some((row, beat_at)) = found else {
            return Ok(None);
        };
        let mut task = from_row(row);
        if task.status == "working" && beat_at < now - stale_ms {
            let done = sqlx::query(
                "UPDATE protocol_tasks SET status = 'failed', outcome = ?, updated_at = ? \
                 WHERE id = ? AND status = 'working' AND beat_at < ?",
            )
            .bind(stale_error)
            .bind(now)
            .bind(id)
            .bind(now - stale_ms)
            .execute(self.pool())
            .await?;
            if done.rows_affected() > 0 {
                task.status = "failed".into();
                task.outcome = Some(stale_error.to_owned());
                task.updated_at = now;
            }
        }
        Ok(Some(task))
    }

    /// A running task's heartbeat, with its latest progress message; whether it is still
    /// working (not cancelled, failed as stale, or expired).
    pub async fn beat_protocol_task(&self, id: &str, message: Option<&str>) -> Result<bool, Error> {
        let now = now_ms();
        let done = sqlx::query(
            "UPDATE protocol_tasks SET beat_at = ?1, \
             updated_at = CASE WHEN ?2 IS NOT NULL AND message IS NOT ?2 THEN ?1 ELSE updated_at END, \
             message = COALESCE(?2, message) \
             WHERE id = ?3 AND status = 'working' AND expires_at >= ?1",
        )
        .bind(now)
        .bind(message)
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Settles a working task as `completed` or `failed` with its outcome (JSON text);
    /// whether it was still working.
    pub async fn finish_protocol_task(
        &self,
        id: &str,
        completed: bool,
        outcome: &str,
    ) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE protocol_tasks SET status = ?, outcome = ?, message = NULL, updated_at = ? \
             WHERE id = ? AND status = 'working'",
        )
        .bind(if completed { "completed" } else { "failed" })
        .bind(outcome)
        .bind(now_ms())
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// `person` asks to cancel a task: `None` when it is not one of theirs; `Some(true)` when
    /// it was working, may be stopped, and is now `cancelled`; `Some(false)` otherwise (already
    /// settled, or a write, which is told it runs to its end).
    pub async fn cancel_protocol_task(
        &self,
        person: PersonId,
        id: &str,
    ) -> Result<Option<bool>, Error> {
        let now = now_ms();
        let found: Option<(String, bool)> = sqlx::query_as(
            "SELECT status, stoppable FROM protocol_tasks \
             WHERE id = ? AND person_id = ? AND expires_at >= ?",
        )
        .bind(id)
        .bind(person.0)
        .bind(now)
        .fetch_optional(self.pool())
        .await?;
        let Some((status, stoppable)) = found else {
            return Ok(None);
        };
        if status != "working" {
            return Ok(Some(false));
        }
        let (to, message) = if stoppable {
            ("cancelled", "cancelled by the client")
        } else {
            (
                "working",
                "cancel asked: this call changes things and runs to its end once begun",
            )
        };
        let done = sqlx::query(
            "UPDATE protocol_tasks SET status = ?, message = ?, updated_at = ? \
             WHERE id = ? AND status = 'working'",
        )
        .bind(to)
        .bind(message)
        .bind(now)
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(Some(stoppable && done.rows_affected() > 0))
    }
}
