//! Notices a person chose to hear (`marquee people notify`), through which notifier, and how far
//! each kind has been sent. The tasks family's notices pass reads them.

use domain::PersonId;

use crate::{Change, ChangeStatus, Error, Store};

/// The kinds of notice a person can choose.
pub const NOTICE_EVENTS: [&str; 1] = ["approvals"];

impl Store {
    /// Turns a notice on or off for a person through one notifier; whether anything changed.
    /// `Invalid` for an event this build does not send.
    pub async fn set_notify(
        &self,
        person: PersonId,
        event: &str,
        notifier_id: &str,
        on: bool,
    ) -> Result<bool, Error> {
        if !NOTICE_EVENTS.contains(&event) {
            return Err(Error::Invalid(format!(
                "unknown notice \"{event}\"; valid notices: {}",
                NOTICE_EVENTS.join(", ")
            )));
        }
        let done = if on {
            sqlx::query(
                "INSERT INTO notify_choices (person_id, event, notifier_id) VALUES (?, ?, ?) \
                 ON CONFLICT DO NOTHING",
            )
        } else {
            sqlx::query(
                "DELETE FROM notify_choices WHERE person_id = ? AND event = ? AND notifier_id = ?",
            )
        }
        .bind(person.0)
        .bind(event)
        .bind(notifier_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Who chose `event`, through which notifier: (person, role name, notifier id).
    pub async fn notify_choices(
        &self,
        event: &str,
    ) -> Result<Vec<(PersonId, String, String)>, Error> {
        let rows: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT n.person_id, p.role, n.notifier_id FROM notify_choices n \
             JOIN people p ON p.id = n.person_id WHERE n.event = ? ORDER BY n.person_id, n.notifier_id",
        )
        .bind(event)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, role, notifier)| (PersonId(id), role, notifier))
            .collect())
    }

    /// The created_at (ms) of the newest change told about so far; `None` before the first pass.
    pub async fn notice_cursor(&self, event: &str) -> Result<Option<i64>, Error> {
        Ok(
            sqlx::query_scalar("SELECT at FROM notice_cursors WHERE event = ?")
                .bind(event)
                .fetch_optional(self.pool())
                .await?,
        )
    }

    pub async fn set_notice_cursor(&self, event: &str, at: i64) -> Result<(), Error> {
        sqlx::query(
            "INSERT INTO notice_cursors (event, at) VALUES (?, ?) \
             ON CONFLICT (event) DO UPDATE SET at = excluded.at",
        )
        .bind(event)
        .bind(at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Changes still pending that were proposed after `after` (ms), oldest first, at most 100.
    pub async fn pending_changes_after(&self, after: i64) -> Result<Vec<Change>, Error> {
        let mut waiting: Vec<Change> = self
            .changes_page(Some(ChangeStatus::Pending), 200)
            .await?
            .into_iter()
            .filter(|c| c.created_at > after)
            .collect();
        waiting.sort_by_key(|c| c.created_at);
        waiting.truncate(100);
        Ok(waiting)
    }
}
