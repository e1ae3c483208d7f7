//! Shortlist rows: a theme shown as a collection or playlist on one media server's library, for
//! chosen people; saved only by an applied plan.

use domain::PersonId;
use sqlx::{Row as _, sqlite::SqliteRow};

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
    /// When it runs on its own, once scheduled.
    pub schedule: Option<RowSchedule>,
    /// How it shows on the server.
    pub display: Display,
}

/// How a row shows on its media server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Display {
    /// `collection` (for everyone it is for) or `playlist` (one person's, owned by their user).
    pub kind: String,
    /// `release` (oldest first) or `title`.
    pub sort: String,
    /// Whether its poster is its first title's artwork.
    pub poster: bool,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            kind: "collection".into(),
            sort: "release".into(),
            poster: true,
        }
    }
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
    pub display: Display,
}

/// A row's schedule: when it runs on its own, once the owner approved it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSchedule {
    /// A 5-field cron expression, in the tasks' time zone.
    pub cron: String,
    /// Paused by the owner (or a plan): not run until resumed.
    pub paused: bool,
    /// How many missing titles each scheduled run requests.
    pub max_requests: u32,
    /// How many further missing titles each scheduled run acquires.
    pub max_acquisitions: u32,
    /// Who planned it.
    pub by: Option<PersonId>,
    /// The key whose authority (as it is at run time) files the runs' requests.
    pub key_id: String,
    /// Unix ms of the next due time.
    pub next_at: Option<i64>,
}

const COLUMNS: &str = "id, theme_id, instance_id, library_id, name, audience, enabled, \
                       collection_id, created_by, created_at, updated_at, schedule, \
                       schedule_paused, schedule_max_requests, schedule_by, schedule_key_id, \
                       schedule_next_at, display, sort, poster, schedule_max_acquisitions";

fn from_row(r: &SqliteRow) -> Result<ShortlistRow, Error> {
    let audience: String = r.try_get("audience")?;
    let audience: Vec<i64> = serde_json::from_str(&audience).unwrap_or_default();
    let cron: Option<String> = r.try_get("schedule")?;
    let schedule = match cron {
        None => None,
        Some(cron) => Some(RowSchedule {
            cron,
            paused: r.try_get("schedule_paused")?,
            max_requests: u32::try_from(r.try_get::<i64, _>("schedule_max_requests")?).unwrap_or(0),
            max_acquisitions: u32::try_from(r.try_get::<i64, _>("schedule_max_acquisitions")?)
                .unwrap_or(0),
            by: r.try_get::<Option<i64>, _>("schedule_by")?.map(PersonId),
            key_id: r
                .try_get::<Option<String>, _>("schedule_key_id")?
                .unwrap_or_default(),
            next_at: r.try_get("schedule_next_at")?,
        }),
    };
    Ok(ShortlistRow {
        id: r.try_get("id")?,
        theme_id: r.try_get("theme_id")?,
        instance_id: r.try_get("instance_id")?,
        library_id: r.try_get("library_id")?,
        name: r.try_get("name")?,
        audience: audience.into_iter().map(PersonId).collect(),
        enabled: r.try_get("enabled")?,
        collection_id: r.try_get("collection_id")?,
        created_by: r.try_get::<Option<i64>, _>("created_by")?.map(PersonId),
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        schedule,
        display: Display {
            kind: r.try_get("display")?,
            sort: r.try_get("sort")?,
            poster: r.try_get("poster")?,
        },
    })
}

impl Store {
    /// Every row, by media server and name.
    pub async fn shortlist_rows(&self) -> Result<Vec<ShortlistRow>, Error> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM shortlist_rows ORDER BY instance_id, name"
        ))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(from_row).collect()
    }

    pub async fn shortlist_row(&self, id: i64) -> Result<Option<ShortlistRow>, Error> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM shortlist_rows WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(from_row).transpose()
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
                // A row moved, renamed or shown another way forgets the collection it had (the
                // plan's apply removed it from the server first): the next run makes the new one.
                let done = sqlx::query(
                    "UPDATE shortlist_rows SET theme_id = ?1, instance_id = ?2, library_id = ?3, \
                     name = ?4, audience = ?5, enabled = ?6, updated_at = ?7, collection_id = \
                     CASE WHEN instance_id = ?2 AND library_id = ?3 AND name = ?4 \
                     AND display = ?9 AND sort = ?10 AND poster = ?11 THEN collection_id END, \
                     display = ?9, sort = ?10, poster = ?11 WHERE id = ?8",
                )
                .bind(row.theme_id)
                .bind(&row.instance_id)
                .bind(&row.library_id)
                .bind(&row.name)
                .bind(&audience)
                .bind(row.enabled)
                .bind(now)
                .bind(id)
                .bind(&row.display.kind)
                .bind(&row.display.sort)
                .bind(row.display.poster)
                .execute(self.pool())
                .await?;
                if done.rows_affected() == 0 {
                    return Err(Error::NotFound(format!("row {id}")));
                }
                id
            }
            None => sqlx::query_scalar(
                "INSERT INTO shortlist_rows (theme_id, instance_id, library_id, name, audience, \
                 enabled, created_by, created_at, updated_at, display, sort, poster) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
            .bind(&row.display.kind)
            .bind(&row.display.sort)
            .bind(row.display.poster)
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
             enabled, created_by, created_at, updated_at, display, sort, poster) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
        .bind(&row.display.kind)
        .bind(&row.display.sort)
        .bind(row.display.poster)
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

    /// Sets (or, `None`, removes) row `id`'s schedule. `NotFound` when the row is gone.
    pub async fn set_row_schedule(
        &self,
        id: i64,
        schedule: Option<&RowSchedule>,
    ) -> Result<(), Error> {
        let done = sqlx::query(
            "UPDATE shortlist_rows SET schedule = ?, schedule_paused = ?, \
             schedule_max_requests = ?, schedule_by = ?, schedule_key_id = ?, \
             schedule_next_at = ?, schedule_max_acquisitions = ?, updated_at = ? WHERE id = ?",
        )
        .bind(schedule.map(|s| s.cron.as_str()))
        .bind(schedule.is_some_and(|s| s.paused))
        .bind(schedule.map_or(0, |s| i64::from(s.max_requests)))
        .bind(schedule.and_then(|s| s.by).map(|p| p.0))
        .bind(schedule.map(|s| s.key_id.as_str()))
        .bind(schedule.and_then(|s| s.next_at))
        .bind(schedule.map_or(0, |s| i64::from(s.max_acquisitions)))
        .bind(now_ms())
        .bind(id)
        .execute(self.pool())
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(format!("row {id}")));
        }
        Ok(())
    }

    /// Pauses or resumes row `id`'s schedule, with its next due time (`None` while paused).
    /// `false` when the row has no schedule.
    pub async fn pause_row_schedule(
        &self,
        id: i64,
        paused: bool,
        next_at: Option<i64>,
    ) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE shortlist_rows SET schedule_paused = ?, schedule_next_at = ?, updated_at = ? \
             WHERE id = ? AND schedule IS NOT NULL",
        )
        .bind(paused)
        .bind(next_at)
        .bind(now_ms())
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The scheduled, unpaused, enabled rows due at `now_ms` or before.
    pub async fn due_row_schedules(&self, now_ms: i64) -> Result<Vec<ShortlistRow>, Error> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM shortlist_rows WHERE schedule IS NOT NULL \
             AND schedule_paused = 0 AND enabled = 1 AND schedule_next_at <= ? \
             ORDER BY schedule_next_at, id"
        ))
        .bind(now_ms)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// Claims row `id`'s due time `due` once, moving it on to `next`: `false` when another
    /// pass (or replica) claimed it first, or the schedule changed meanwhile.
    pub async fn claim_row_schedule(
        &self,
        id: i64,
        due: i64,
        next: Option<i64>,
    ) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE shortlist_rows SET schedule_next_at = ? WHERE id = ? AND schedule_next_at = ? \
             AND schedule IS NOT NULL AND schedule_paused = 0",
        )
        .bind(next)
        .bind(id)
        .bind(due)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Retires row `id` once its collection is removed from the server: no collection, disabled,
    /// unscheduled (the row and its theme stay, for a later plan).
    pub async fn retire_shortlist_row(&self, id: i64) -> Result<(), Error> {
        sqlx::query(
            "UPDATE shortlist_rows SET collection_id = NULL, enabled = 0, schedule = NULL, \
             schedule_next_at = NULL, schedule_paused = 0, updated_at = ? WHERE id = ?",
        )
        .bind(now_ms())
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(())
    }
}
