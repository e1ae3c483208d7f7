//! Secrets handed over in the owner's browser: a connection is made for one instance (waiting,
//! expiring), the owner's page takes the secret, checks it and keeps it, and the connection
//! says how it went. A kept secret is read only by the binary at start, for an instance whose
//! config sets none; nothing here ever answers it.

use std::collections::BTreeMap;

use domain::{PersonId, Secret};

use crate::{Error, Store, changes::fresh_id, now_ms};

/// A connection as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    pub id: String,
    pub instance_id: String,
    pub created_by: Option<PersonId>,
    /// waiting, saved, failed or expired.
    pub status: String,
    pub message: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
}

type Row = (
    String,
    String,
    Option<i64>,
    String,
    Option<String>,
    i64,
    i64,
);

impl Store {
    /// A new waiting connection for `instance_id`, open for `ttl_ms`.
    pub async fn create_connection(
        &self,
        instance_id: &str,
        by: PersonId,
        ttl_ms: i64,
    ) -> Result<Connection, Error> {
        let id = fresh_id("conn_");
        let now = now_ms();
        sqlx::query(
            "INSERT INTO connections (id, instance_id, created_by, status, created_at, expires_at, \
             updated_at) VALUES (?, ?, ?, 'waiting', ?, ?, ?)",
        )
        .bind(&id)
        .bind(instance_id)
        .bind(by.0)
        .bind(now)
        .bind(now + ttl_ms)
        .bind(now)
        .execute(self.pool())
        .await?;
        self.connection(&id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("connection {id}")))
    }

    /// Connection `id`; a waiting one past its time reads as `expired`.
    pub async fn connection(&self, id: &str) -> Result<Option<Connection>, Error> {
        let row: Option<Row> = sqlx::query_as(
            "SELECT id, instance_id, created_by, status, message, created_at, expires_at \
             FROM connections WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        let now = now_ms();
        Ok(row.map(
            |(id, instance_id, by, status, message, created_at, expires_at)| {
                let status = if status == "waiting" && expires_at <= now {
                    "expired".to_owned()
                } else {
                    status
                };
                Connection {
                    id,
                    instance_id,
                    created_by: by.map(PersonId),
                    status,
                    message,
                    created_at,
                    expires_at,
                }
            },
        ))
    }

    /// Ends waiting connection `id`: `saved` keeps `secret` for its instance in the same
    /// transaction; `failed` keeps nothing. `false` when it was no longer waiting (or expired).
    pub async fn finish_connection(
        &self,
        id: &str,
        saved: Option<&Secret>,
        message: &str,
    ) -> Result<bool, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let now = now_ms();
        let instance: Option<String> = sqlx::query_scalar(
            "UPDATE connections SET status = ?, message = ?, updated_at = ? \
             WHERE id = ? AND status = 'waiting' AND expires_at > ? RETURNING instance_id",
        )
        .bind(if saved.is_some() { "saved" } else { "failed" })
        .bind(message)
        .bind(now)
        .bind(id)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(instance) = instance else {
            return Ok(false);
        };
        if let Some(secret) = saved {
            sqlx::query(
                "INSERT INTO instance_secrets (instance_id, secret, updated_at) VALUES (?, ?, ?) \
                 ON CONFLICT (instance_id) DO UPDATE SET secret = excluded.secret, \
                 updated_at = excluded.updated_at",
            )
            .bind(&instance)
            .bind(secret.expose())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The instances with a secret the owner entered (never the secrets).
    pub async fn instances_with_secrets(&self) -> Result<Vec<String>, Error> {
        Ok(
            sqlx::query_scalar("SELECT instance_id FROM instance_secrets ORDER BY instance_id")
                .fetch_all(self.pool())
                .await?,
        )
    }

    /// The secrets the owner entered, by instance: for the binary at start only.
    pub async fn instance_secrets(&self) -> Result<BTreeMap<String, Secret>, Error> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT instance_id, secret FROM instance_secrets")
                .fetch_all(self.pool())
                .await?;
        Ok(rows
            .into_iter()
            .map(|(id, s)| (id, Secret::new(s)))
            .collect())
    }
}
