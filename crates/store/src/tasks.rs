//! Scheduled tasks and their runs: what a person set up to run on a date or a cron schedule,
//! when it is due next, and each run with its status and results. Claiming a due time and
//! beginning its run is one transaction, so a due time is run at most once.

use domain::PersonId;
use sqlx::Row;

use crate::{Error, Store, now_ms};

/// A task as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub id: i64,
    pub name: String,
    pub person_id: PersonId,
    /// The key (or OAuth connection) whose authority its runs are decided under.
    pub key_id: String,
    /// JSON: `[{"tool", "arguments"}]`.
    pub calls: String,
    /// `always`, `on_warning`, `on_change` or `on_error`.
    pub notify: String,
    pub notifier: Option<String>,
    /// `date` or `cron`.
    pub trigger_type: String,
    /// An RFC 3339 time (date) or a 5-field expression (cron).
    pub schedule: String,
    pub enabled: bool,
    /// Unix ms; `None` when nothing is due.
    pub next_run_at: Option<i64>,
    /// The last due time missed while the server was down (unix ms).
    pub missed_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Its latest run, when it has one: id and status.
    pub last_run: Option<(i64, String)>,
}

/// One run of a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRun {
    pub id: i64,
    pub task_id: i64,
    /// `running`, `succeeded`, `failed` or `interrupted`.
    pub status: String,
    /// `scheduled` or `manual`.
    pub cause: String,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// JSON: one entry per call made.
    pub results: String,
    pub error: Option<String>,
}

const TASK_COLUMNS: &str = "t.id, t.name, t.person_id, t.key_id, t.calls, t.notify, t.notifier, \
     t.trigger_type, t.schedule, t.enabled, t.next_run_at, t.missed_at, t.created_at, t.updated_at, \
     (SELECT r.id FROM task_runs r WHERE r.task_id = t.id ORDER BY r.id DESC LIMIT 1) AS last_run_id, \
     (SELECT r.status FROM task_runs r WHERE r.task_id = t.id ORDER BY r.id DESC LIMIT 1) AS last_status";

const RUN_COLUMNS: &str = "id, task_id, status, cause, started_at, finished_at, results, error";

impl Store {
    /// Stores a new task (its id, times and last run ignored); answers its id.
    pub async fn create_task(&self, task: &Task) -> Result<i64, Error> {
        let now = now_ms();
        let done = sqlx::query(
            "INSERT INTO tasks (name, person_id, key_id, calls, notify, notifier, trigger_type, \
             schedule, enabled, next_run_at, missed_at, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
        )
        .bind(&task.name)
        .bind(task.person_id.0)
        .bind(&task.key_id)
        .bind(&task.calls)
        .bind(&task.notify)
        .bind(&task.notifier)
        .bind(&task.trigger_type)
        .bind(&task.schedule)
        .bind(task.enabled)
        .bind(task.next_run_at)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(done.last_insert_rowid())
    }

    /// Writes a task's content, trigger, switch and next due time back (by its id); `false`
    /// when it no longer exists.
    pub async fn save_task(&self, task: &Task) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE tasks SET name = ?, calls = ?, notify = ?, notifier = ?, trigger_type = ?, \
             schedule = ?, enabled = ?, next_run_at = ?, missed_at = ?, updated_at = ? WHERE id = ?",
        )
        .bind(&task.name)
        .bind(&task.calls)
        .bind(&task.notify)
        .bind(&task.notifier)
        .bind(&task.trigger_type)
        .bind(&task.schedule)
        .bind(task.enabled)
        .bind(task.next_run_at)
        .bind(task.missed_at)
        .bind(now_ms())
        .bind(task.id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes a task and its runs; `false` when there was none.
    pub async fn delete_task(&self, id: i64) -> Result<bool, Error> {
        let done = sqlx::query("DELETE FROM tasks WHERE id = ?")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn task(&self, id: i64) -> Result<Option<Task>, Error> {
        let sql = format!("SELECT {TASK_COLUMNS} FROM tasks t WHERE t.id = ?");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(task_from_row).transpose()
    }

    /// Every task, or one person's, by id.
    pub async fn tasks(&self, person: Option<PersonId>) -> Result<Vec<Task>, Error> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM tasks t WHERE (? IS NULL OR t.person_id = ?) ORDER BY t.id"
        );
        let rows = sqlx::query(&sql)
            .bind(person.map(|p| p.0))
            .bind(person.map(|p| p.0))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(task_from_row).collect()
    }

    /// The enabled tasks due at `now` (unix ms), earliest first.
    pub async fn due_tasks(&self, now: i64) -> Result<Vec<Task>, Error> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM tasks t WHERE t.enabled = 1 AND t.next_run_at IS NOT NULL \
             AND t.next_run_at <= ? ORDER BY t.next_run_at, t.id"
        );
        let rows = sqlx::query(&sql).bind(now).fetch_all(self.pool()).await?;
        rows.iter().map(task_from_row).collect()
    }

    /// Moves the task's due time from `due` to `next` (and records `missed`, when the due
    /// time was missed) and, unless it was missed, begins its run, in one transaction:
    /// `Ok(None)` when the due time was already claimed (or the task changed) or was missed.
    pub async fn claim_due_task(
        &self,
        id: i64,
        due: i64,
        next: Option<i64>,
        missed: bool,
        boot: &str,
    ) -> Result<Option<i64>, Error> {
        let mut tx = self.pool().begin().await?;
        let moved = sqlx::query(
            "UPDATE tasks SET next_run_at = ?, missed_at = CASE WHEN ? THEN ? ELSE missed_at END \
             WHERE id = ? AND enabled = 1 AND next_run_at = ?",
        )
        .bind(next)
        .bind(missed)
        .bind(due)
        .bind(id)
        .bind(due)
        .execute(&mut *tx)
        .await?;
        if moved.rows_affected() != 1 || missed {
            tx.commit().await?;
            return Ok(None);
        }
        let run = insert_run(&mut tx, id, "scheduled", boot).await?;
        tx.commit().await?;
        Ok(Some(run))
    }

    /// Begins a run now, asked for by a person; answers its id.
    pub async fn begin_task_run(&self, task_id: i64, boot: &str) -> Result<i64, Error> {
        let mut conn = self.pool().acquire().await?;
        insert_run(&mut conn, task_id, "manual", boot).await
    }

    /// Finishes a running run; `false` when it was not running (interrupted meanwhile).
    pub async fn finish_task_run(
        &self,
        run_id: i64,
        status: &str,
        results: &str,
        error: Option<&str>,
    ) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE task_runs SET status = ?, results = ?, error = ?, finished_at = ? \
             WHERE id = ? AND status = 'running'",
        )
        .bind(status)
        .bind(results)
        .bind(error)
        .bind(now_ms())
        .bind(run_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records the results so far of a running run.
    pub async fn record_task_results(&self, run_id: i64, results: &str) -> Result<(), Error> {
        sqlx::query("UPDATE task_runs SET results = ? WHERE id = ? AND status = 'running'")
            .bind(results)
            .bind(run_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn task_run(&self, run_id: i64) -> Result<Option<TaskRun>, Error> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM task_runs WHERE id = ?");
        let row = sqlx::query(&sql)
            .bind(run_id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(run_from_row).transpose()
    }

    /// The task's latest finished run before `run_id`, for telling whether a run's results
    /// changed.
    pub async fn previous_task_run(
        &self,
        task_id: i64,
        run_id: i64,
    ) -> Result<Option<TaskRun>, Error> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM task_runs WHERE task_id = ? AND id < ? \
             AND status IN ('succeeded', 'failed') ORDER BY id DESC LIMIT 1"
        );
        let row = sqlx::query(&sql)
            .bind(task_id)
            .bind(run_id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(run_from_row).transpose()
    }

    /// The runs still `running` that another process than `boot` began: their ids and boots.
    pub async fn task_runs_running_elsewhere(
        &self,
        boot: &str,
    ) -> Result<Vec<(i64, String)>, Error> {
        Ok(
            sqlx::query_as("SELECT id, boot FROM task_runs WHERE status = 'running' AND boot <> ?")
                .bind(boot)
                .fetch_all(self.pool())
                .await?,
        )
    }

    /// The runs `ids`, still `running`, become `interrupted` (their process stopped mid-run),
    /// never run again on their own; answers how many.
    pub async fn interrupt_task_runs(&self, ids: &[i64]) -> Result<u64, Error> {
        let mut n = 0;
        for id in ids {
            n += sqlx::query(
                "UPDATE task_runs SET status = 'interrupted', finished_at = ?, \
                 error = 'the server stopped while it ran; it is not run again on its own' \
                 WHERE status = 'running' AND id = ?",
            )
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected();
        }
        Ok(n)
    }
}

async fn insert_run(
    conn: &mut sqlx::SqliteConnection,
    task_id: i64,
    cause: &str,
    boot: &str,
) -> Result<i64, Error> {
    let done = sqlx::query(
        "INSERT INTO task_runs (task_id, status, cause, boot, started_at) VALUES (?, 'running', ?, ?, ?)",
    )
    .bind(task_id)
    .bind(cause)
    .bind(boot)
    .bind(now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(done.last_insert_rowid())
}

fn task_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<Task, Error> {
    let last_id: Option<i64> = r.try_get("last_run_id")?;
    let last_status: Option<String> = r.try_get("last_status")?;
    Ok(Task {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        person_id: PersonId(r.try_get("person_id")?),
        key_id: r.try_get("key_id")?,
        calls: r.try_get("calls")?,
        notify: r.try_get("notify")?,
        notifier: r.try_get("notifier")?,
        trigger_type: r.try_get("trigger_type")?,
        schedule: r.try_get("schedule")?,
        enabled: r.try_get("enabled")?,
        next_run_at: r.try_get("next_run_at")?,
        missed_at: r.try_get("missed_at")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        last_run: last_id.zip(last_status),
    })
}

fn run_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<TaskRun, Error> {
    Ok(TaskRun {
        id: r.try_get("id")?,
        task_id: r.try_get("task_id")?,
        status: r.try_get("status")?,
        cause: r.try_get("cause")?,
        started_at: r.try_get("started_at")?,
        finished_at: r.try_get("finished_at")?,
        results: r.try_get("results")?,
        error: r.try_get("error")?,
    })
}
