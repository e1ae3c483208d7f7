//! Notices a person chose to hear (`marquee people notify`), through which notifier, and how far
//! each kind has been sent. The tasks family's notices pass reads them.

use domain::PersonId;

use crate::{Error, Store};

/// The kinds of notice a person can choose: `approvals` (a change waits for the owner's
/// approval; the owner and admins) and `downloads` (one's own request became available).
pub const NOTICE_EVENTS: [&str; 2] = ["approvals", "downloads"];

/// A request that became available: what its requester is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrived {
    pub request_id: i64,
    pub person: PersonId,
    pub title: String,
    pub year: Option<i32>,
    pub media_type: String,
    /// When it became available (ms).
    pub at: i64,
}

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

    /// Requests that became available after `after` (ms), oldest first, at most 100.
    pub async fn requests_available_after(&self, after: i64) -> Result<Vec<Arrived>, Error> {
        let rows: Vec<(i64, i64, String, Option<i32>, String, i64)> = sqlx::query_as(
            "SELECT id, person_id, title, year, media_type, updated_at FROM requests \
             WHERE status = 'available' AND updated_at > ? ORDER BY updated_at, id LIMIT 100",
        )
        .bind(after)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(request_id, person, title, year, media_type, at)| Arrived {
                    request_id,
                    person: PersonId(person),
                    title,
                    year,
                    media_type,
                    at,
                },
            )
            .collect())
    }

    /// The newest `at` of `event`'s source (changes' created_at, requests' updated_at), where a
    /// first pass starts: nothing older is told.
    pub async fn notice_start(&self, event: &str) -> Result<i64, Error> {
        let sql = match event {
            "downloads" => "SELECT COALESCE(MAX(updated_at), 0) FROM requests",
            _ => "SELECT COALESCE(MAX(created_at), 0) FROM changes",
        };
        Ok(sqlx::query_scalar(sql).fetch_one(self.pool()).await?)
    }
}
