//! Shortlist rows: a theme shown as a collection on one media server's library, for chosen
//! people; saved only by an applied plan.

use domain::PersonId;

use crate::{Error, NewTheme, Store, now_ms};

/// One row as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShortlistRow {
    pub id: i64,
    pub theme_id: i64,
    pub instance_id: String,
    pub library_id: String,
    pub name: String,
    /// The people it is for; empty: the whole household.
    pub audience: Vec<PersonId>,
    pub enabled: bool,
    /// The collection a run made on the server (Marquee's own), once made.
    pub collection_id: Option<String>,
    pub created_by: Option<PersonId>,
    /// Unix ms.
    pub created_at: i64,
    pub updated_at: i64,
}

/// A row to save: a new one (`id: None`), or the replacement of row `id` (its collection kept
/// while the row stays on the same server and library).
#[derive(Clone, Debug)]
pub struct NewRow {
    pub id: Option<i64>,
    pub theme_id: i64,
    pub instance_id: String,
    pub library_id: String,
    pub name: String,
    pub audience: Vec<PersonId>,
    pub enabled: bool,
}

type Row = (
    i64,
    i64,
    String,
    String,
    String,
    String,
    bool,
    Option<String>,
    Option<i64>,
    i64,
    i64,
);

const COLUMNS: &str = "id, theme_id, instance_id, library_id, name, audience, enabled, \
                       collection_id, created_by, created_at, updated_at";

fn from_row(r: Row) -> ShortlistRow {
    let (id, theme_id, instance_id, library_id, name, audience, enabled, collection_id, by, c, u) =
        r;
    let audience: Vec<i64> = serde_json::from_str(&audience).unwrap_or_default();
    ShortlistRow {
        id,
        theme_id,
        instance_id,
        library_id,
        name,
        audience: audience.into_iter().map(PersonId).collect(),
        enabled,
        collection_id,
        created_by: by.map(PersonId),
        created_at: c,
        updated_at: u,
    }
}

impl Store {
    /// Every row, by media server and name.
    pub async fn shortlist_rows(&self) -> Result<Vec<ShortlistRow>, Error> {
        let rows: Vec<Row> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM shortlist_rows ORDER BY instance_id, name"
        ))
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(from_row).collect())
    }

    pub async fn shortlist_row(&self, id: i64) -> Result<Option<ShortlistRow>, Error> {
        let row: Option<Row> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM shortlist_rows WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(from_row))
    }

    /// Saves a row planned by `by`. `Conflict` when another row of that server has the name;
    /// `NotFound` when row `id` or the theme is gone.
    pub async fn save_shortlist_row(
        &self,
        row: &NewRow,
        by: PersonId,
    ) -> Result<ShortlistRow, Error> {
        if self.theme(row.theme_id).await?.is_none() {
            return Err(Error::NotFound(format!("theme {}", row.theme_id)));
        }
        let now = now_ms();
        let audience: Vec<i64> = row.audience.iter().map(|p| p.0).collect();
        let audience = serde_json::to_string(&audience).unwrap_or_else(|_| "[]".into());
        let taken: Option<i64> =
            sqlx::query_scalar("SELECT id FROM shortlist_rows WHERE instance_id = ? AND name = ?")
                .bind(&row.instance_id)
                .bind(&row.name)
                .fetch_optional(self.pool())
                .await?;
        if taken.is_some_and(|t| Some(t) != row.id) {
            return Err(Error::Conflict(format!(
                "a row named \"{}\" exists already on {}",
                row.name, row.instance_id
            )));
        }
        let id = match row.id {
            Some(id) => {
                // A row moved to another server or library forgets the collection it had: that
                // id means nothing (or another collection) there.
                let done = sqlx::query(
                    "UPDATE shortlist_rows SET theme_id = ?1, instance_id = ?2, library_id = ?3, \
                     name = ?4, audience = ?5, enabled = ?6, updated_at = ?7, collection_id = \
                     CASE WHEN instance_id = ?2 AND library_id = ?3 THEN collection_id END \
                     WHERE id = ?8",
                )
                .bind(row.theme_id)
                .bind(&row.instance_id)
                .bind(&row.library_id)
                .bind(&row.name)
                .bind(&audience)
                .bind(row.enabled)
                .bind(now)
                .bind(id)
                .execute(self.pool())
                .await?;
                if done.rows_affected() == 0 {
                    return Err(Error::NotFound(format!("row {id}")));
                }
                id
            }
            None => sqlx::query_scalar(
                "INSERT INTO shortlist_rows (theme_id, instance_id, library_id, name, audience, \
                 enabled, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
                 RETURNING id",
            )
            .bind(row.theme_id)
            .bind(&row.instance_id)
            .bind(&row.library_id)
            .bind(&row.name)
            .bind(&audience)
            .bind(row.enabled)
            .bind(by.0)
            .bind(now)
            .bind(now)
            .fetch_one(self.pool())
            .await?,
        };
        self.shortlist_row(id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("row {id}")))
    }

    /// Saves a new theme and a new row showing it, in one transaction: both or neither.
    /// `row.theme_id` is ignored. `Conflict` when either name is taken.
    pub async fn save_setup(
        &self,
        theme: &NewTheme,
        row: &NewRow,
        by: PersonId,
    ) -> Result<(i64, i64), Error> {
        let now = now_ms();
        let audience: Vec<i64> = row.audience.iter().map(|p| p.0).collect();
        let audience = serde_json::to_string(&audience).unwrap_or_else(|_| "[]".into());
        let mut tx = self.pool().begin().await?;
        let taken: Option<i64> = sqlx::query_scalar("SELECT id FROM themes WHERE name = ?")
            .bind(&theme.name)
            .fetch_optional(&mut *tx)
            .await?;
        if taken.is_some() {
            return Err(Error::Conflict(format!(
                "a theme named \"{}\" exists already",
                theme.name
            )));
        }
        let taken: Option<i64> =
            sqlx::query_scalar("SELECT id FROM shortlist_rows WHERE instance_id = ? AND name = ?")
                .bind(&row.instance_id)
                .bind(&row.name)
                .fetch_optional(&mut *tx)
                .await?;
        if taken.is_some() {
            return Err(Error::Conflict(format!(
                "a row named \"{}\" exists already on {}",
                row.name, row.instance_id
            )));
        }
        let theme_id: i64 = sqlx::query_scalar(
            "INSERT INTO themes (name, description, picks, rules, created_by, created_at, \
             updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&theme.name)
        .bind(&theme.description)
        .bind(&theme.picks)
        .bind(&theme.rules)
        .bind(by.0)
        .bind(now)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let row_id: i64 = sqlx::query_scalar(
            "INSERT INTO shortlist_rows (theme_id, instance_id, library_id, name, audience, \
             enabled, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
             RETURNING id",
        )
        .bind(theme_id)
        .bind(&row.instance_id)
        .bind(&row.library_id)
        .bind(&row.name)
        .bind(&audience)
        .bind(row.enabled)
        .bind(by.0)
        .bind(now)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok((theme_id, row_id))
    }

    /// Records the collection a run made for row `id` (`None`: it is gone).
    pub async fn set_row_collection(&self, id: i64, collection: Option<&str>) -> Result<(), Error> {
        sqlx::query("UPDATE shortlist_rows SET collection_id = ?, updated_at = ? WHERE id = ?")
            .bind(collection)
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
