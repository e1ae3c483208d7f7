//! The store-backed settings layer: values an approved plan set, by key (JSON text). The
//! config file and the environment win over it wherever they set a key; the defaults lie
//! under it. No secret is kept here.

use std::collections::BTreeMap;

use domain::PersonId;

use crate::{Error, Store, now_ms};

/// One stored setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSetting {
    /// JSON text.
    pub value: String,
    pub updated_by: Option<PersonId>,
    /// Unix ms.
    pub updated_at: i64,
}

impl Store {
    /// Every stored setting, by key.
    pub async fn stored_settings(&self) -> Result<BTreeMap<String, StoredSetting>, Error> {
        let rows: Vec<(String, String, Option<i64>, i64)> =
            sqlx::query_as("SELECT key, value, updated_by, updated_at FROM settings ORDER BY key")
                .fetch_all(self.pool())
                .await?;
        Ok(rows
            .into_iter()
            .map(|(key, value, by, at)| {
                (
                    key,
                    StoredSetting {
                        value,
                        updated_by: by.map(PersonId),
                        updated_at: at,
                    },
                )
            })
            .collect())
    }

    /// Stores each `(key, value)` (JSON text; `None` removes the key, back to the default) in
    /// one transaction: all of them or none.
    pub async fn set_settings(
        &self,
        values: &[(String, Option<String>)],
        by: PersonId,
    ) -> Result<(), Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let now = now_ms();
        for (key, value) in values {
            match value {
                Some(v) => {
                    sqlx::query(
                        "INSERT INTO settings (key, value, updated_by, updated_at) VALUES (?, ?, ?, ?) \
                         ON CONFLICT (key) DO UPDATE SET value = excluded.value, \
                         updated_by = excluded.updated_by, updated_at = excluded.updated_at",
                    )
                    .bind(key)
                    .bind(v)
                    .bind(by.0)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                }
                None => {
                    sqlx::query("DELETE FROM settings WHERE key = ?")
                        .bind(key)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
