//! Requests arriving in the library: which instance, profile and folder a request was made for,
//! the item it became there and the search started for it, and the final status it reached.

use sqlx::Row;

use crate::{Error, RequestStatus, Store, now_ms};

/// Where a request goes (or went) in the library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryLink {
    pub request_id: i64,
    pub instance_id: String,
    pub quality_profile_id: Option<i64>,
    pub root_folder: Option<String>,
    pub item_id: Option<i64>,
    pub command_id: Option<i64>,
    pub failure: Option<String>,
}

impl Store {
    /// Records (or replaces) where a request goes and with which profile and folder.
    pub async fn plan_arrival(
        &self,
        request_id: i64,
        instance_id: &str,
        quality_profile_id: Option<i64>,
        root_folder: Option<&str>,
    ) -> Result<(), Error> {
        sqlx::query(
            "INSERT INTO request_library (request_id, instance_id, quality_profile_id, root_folder, updated_at) \
             VALUES (?, ?, ?, ?, ?) ON CONFLICT (request_id) DO UPDATE SET instance_id = excluded.instance_id, \
             quality_profile_id = excluded.quality_profile_id, root_folder = excluded.root_folder, \
             updated_at = excluded.updated_at",
        )
        .bind(request_id)
        .bind(instance_id)
        .bind(quality_profile_id)
        .bind(root_folder)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The item a request became in the library and the search started for it.
    pub async fn record_arrival(
        &self,
        request_id: i64,
        item_id: i64,
        command_id: Option<i64>,
    ) -> Result<(), Error> {
        let done = sqlx::query(
            "UPDATE request_library SET item_id = ?, command_id = ?, failure = NULL, updated_at = ? \
             WHERE request_id = ?",
        )
        .bind(item_id)
        .bind(command_id)
        .bind(now_ms())
        .bind(request_id)
        .execute(self.pool())
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(format!(
                "request {request_id} has no library destination"
            )));
        }
        Ok(())
    }

    /// A hand-off that failed: the request becomes `failed` with the reason.
    pub async fn fail_arrival(&self, request_id: i64, reason: &str) -> Result<(), Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let now = now_ms();
        sqlx::query("UPDATE request_library SET failure = ?, updated_at = ? WHERE request_id = ?")
            .bind(reason)
            .bind(now)
            .bind(request_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE requests SET status = ?, updated_at = ? WHERE id = ? AND status = ?")
            .bind(RequestStatus::Failed.as_str())
            .bind(now)
            .bind(request_id)
            .bind(RequestStatus::Approved.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// An approved request whose title is now held: it becomes `available`.
    pub async fn mark_available(&self, request_id: i64) -> Result<(), Error> {
        sqlx::query("UPDATE requests SET status = ?, updated_at = ? WHERE id = ? AND status = ?")
            .bind(RequestStatus::Available.as_str())
            .bind(now_ms())
            .bind(request_id)
            .bind(RequestStatus::Approved.as_str())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn library_link(&self, request_id: i64) -> Result<Option<LibraryLink>, Error> {
        let row = sqlx::query(
            "SELECT request_id, instance_id, quality_profile_id, root_folder, item_id, command_id, failure \
             FROM request_library WHERE request_id = ?",
        )
        .bind(request_id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| {
            Ok(LibraryLink {
                request_id: r.try_get("request_id")?,
                instance_id: r.try_get("instance_id")?,
                quality_profile_id: r.try_get("quality_profile_id")?,
                root_folder: r.try_get("root_folder")?,
                item_id: r.try_get("item_id")?,
                command_id: r.try_get("command_id")?,
                failure: r.try_get("failure")?,
            })
        })
        .transpose()
    }
}
