//! Shortlist themes: named sets of picked titles and rules, saved only by an applied plan.

use domain::PersonId;

use crate::{Error, Store, now_ms};

/// One theme as kept. `picks` and `rules` are JSON text the shortlists family reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub picks: String,
    pub rules: String,
    /// Who planned it (`None` once that person is gone).
    pub created_by: Option<PersonId>,
    /// Unix ms.
    pub created_at: i64,
    pub updated_at: i64,
}

/// A theme to save: a new one (`id: None`), or the replacement of theme `id`.
#[derive(Clone, Debug)]
pub struct NewTheme {
    pub id: Option<i64>,
    pub name: String,
    pub description: String,
    pub picks: String,
    pub rules: String,
}

type Row = (i64, String, String, String, String, Option<i64>, i64, i64);

const COLUMNS: &str = "id, name, description, picks, rules, created_by, created_at, updated_at";

fn from_row((id, name, description, picks, rules, by, created_at, updated_at): Row) -> Theme {
    Theme {
        id,
        name,
        description,
        picks,
        rules,
        created_by: by.map(PersonId),
        created_at,
        updated_at,
    }
}

impl Store {
    /// Every theme, by name.
    pub async fn themes(&self) -> Result<Vec<Theme>, Error> {
        let rows: Vec<Row> = sqlx::query_as(&format!("SELECT {COLUMNS} FROM themes ORDER BY name"))
            .fetch_all(self.pool())
            .await?;
        Ok(rows.into_iter().map(from_row).collect())
    }

    pub async fn theme(&self, id: i64) -> Result<Option<Theme>, Error> {
        let row: Option<Row> =
            sqlx::query_as(&format!("SELECT {COLUMNS} FROM themes WHERE id = ?"))
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.map(from_row))
    }

    /// The theme named `name` (names compare without case), if any.
    pub async fn theme_named(&self, name: &str) -> Result<Option<Theme>, Error> {
        let row: Option<Row> =
            sqlx::query_as(&format!("SELECT {COLUMNS} FROM themes WHERE name = ?"))
                .bind(name)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.map(from_row))
    }

    /// Saves a theme planned by `by`: a new one, or theme `id` replaced (its creator kept).
    /// `Conflict` when another theme has the name; `NotFound` when theme `id` is gone.
    pub async fn save_theme(&self, theme: &NewTheme, by: PersonId) -> Result<Theme, Error> {
        let now = now_ms();
        let taken = self.theme_named(&theme.name).await?;
        if taken.as_ref().is_some_and(|t| Some(t.id) != theme.id) {
            return Err(Error::Conflict(format!(
                "a theme named \"{}\" exists already",
                theme.name
            )));
        }
        let id =
            match theme.id {
                Some(id) => {
                    let done = sqlx::query(
                        "UPDATE themes SET name = ?, description = ?, picks = ?, rules = ?, \
                     updated_at = ? WHERE id = ?",
                    )
                    .bind(&theme.name)
                    .bind(&theme.description)
                    .bind(&theme.picks)
                    .bind(&theme.rules)
                    .bind(now)
                    .bind(id)
                    .execute(self.pool())
                    .await?;
                    if done.rows_affected() == 0 {
                        return Err(Error::NotFound(format!("theme {id}")));
                    }
                    id
                }
                None => sqlx::query_scalar(
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
                .fetch_one(self.pool())
                .await?,
            };
        self.theme(id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("theme {id}")))
    }
}
