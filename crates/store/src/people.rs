//! People in the household: names, roles and the content limits that filter what kids see.

use domain::{PersonId, Role};
use serde::{Deserialize, Serialize};
use sqlx::{Row, sqlite::SqliteRow};

use crate::{
    Error, Store,
    error::{corrupt, is_unique_violation},
    now_ms,
};

/// Longest accepted name, in characters.
const MAX_NAME_CHARS: usize = 64;

/// The columns `person_from_row` reads, for any query that selects `FROM people p`.
pub(crate) const PERSON_COLUMNS: &str = "p.id AS person_id, p.name AS person_name, \
    p.role AS person_role, p.created_at AS person_created_at, p.max_movie_cert, \
    p.max_tv_rating, p.rating_region, p.block_unrated, p.blocked_genres";

/// Someone in the household.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Person {
    pub id: PersonId,
    pub name: String,
    pub role: Role,
    pub created_at: i64,
    /// What this person may see; the default limits nothing.
    pub limits: ContentLimits,
}

/// What a person may see. `Default` is no limits at all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentLimits {
    /// Highest movie certification allowed (e.g. "PG-13"), read in `rating_region`'s system.
    pub max_movie_cert: Option<String>,
    /// Highest TV rating allowed (e.g. "TV-PG").
    pub max_tv_rating: Option<String>,
    /// Country whose rating system the limits use (e.g. "US").
    pub rating_region: Option<String>,
    /// Hide titles that carry no rating at all.
    pub block_unrated: bool,
    /// Genres never shown, whatever their rating.
    pub blocked_genres: Vec<String>,
}

impl ContentLimits {
    /// True when nothing is limited.
    pub fn is_unlimited(&self) -> bool {
        *self == ContentLimits::default()
    }
}

/// Refuses names that are empty, too long, padded or hold control characters.
pub(crate) fn validate_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::Invalid("person name is empty".into()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::Invalid(format!(
            "person name is longer than {MAX_NAME_CHARS} characters"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::Invalid(
            "person name contains a control character".into(),
        ));
    }
    if name.trim() != name {
        return Err(Error::Invalid(format!(
            "person name \"{name}\" starts or ends with whitespace"
        )));
    }
    Ok(())
}

/// Reads a person selected with `PERSON_COLUMNS`.
pub(crate) fn person_from_row(row: &SqliteRow) -> Result<Person, Error> {
    let role: String = row.try_get("person_role")?;
    let role = role
        .parse::<Role>()
        .map_err(|e| corrupt(format!("stored person: {e}")))?;
    let genres: String = row.try_get("blocked_genres")?;
    let blocked_genres = serde_json::from_str(&genres)
        .map_err(|e| corrupt(format!("stored blocked genres are not a JSON list: {e}")))?;
    Ok(Person {
        id: PersonId(row.try_get("person_id")?),
        name: row.try_get("person_name")?,
        role,
        created_at: row.try_get("person_created_at")?,
        limits: ContentLimits {
            max_movie_cert: row.try_get("max_movie_cert")?,
            max_tv_rating: row.try_get("max_tv_rating")?,
            rating_region: row.try_get("rating_region")?,
            block_unrated: row.try_get("block_unrated")?,
            blocked_genres,
        },
    })
}

/// Inserts a person inside any executor (the pool or a transaction).
pub(crate) async fn insert_person<'e, E>(exec: E, name: &str, role: Role) -> Result<Person, Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Sqlite>,
{
    validate_name(name)?;
    let created_at = now_ms();
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO people (name, role, created_at, block_unrated, blocked_genres) \
         VALUES (?, ?, ?, 0, '[]') RETURNING id",
    )
    .bind(name)
    .bind(role.as_str())
    .bind(created_at)
    .fetch_one(exec)
    .await
    .map_err(|e| {
        if is_unique_violation(&e) {
            Error::Conflict(format!("a person named \"{name}\" already exists"))
        } else {
            Error::Database(e)
        }
    })?;
    Ok(Person {
        id: PersonId(id),
        name: name.to_owned(),
        role,
        created_at,
        limits: ContentLimits::default(),
    })
}

impl Store {
    /// Adds a person. `Conflict` when the name is taken, `Invalid` when the name is unusable.
    pub async fn add_person(&self, name: &str, role: Role) -> Result<Person, Error> {
        insert_person(self.pool(), name, role).await
    }

    /// Everyone, oldest first.
    pub async fn people(&self) -> Result<Vec<Person>, Error> {
        let sql = format!("SELECT {PERSON_COLUMNS} FROM people p ORDER BY p.id");
        let rows = sqlx::query(&sql).fetch_all(self.pool()).await?;
        rows.iter().map(person_from_row).collect()
    }

    /// The person with exactly this name, if any.
    pub async fn person_by_name(&self, name: &str) -> Result<Option<Person>, Error> {
        let sql = format!("SELECT {PERSON_COLUMNS} FROM people p WHERE p.name = ?");
        let row = sqlx::query(&sql)
            .bind(name)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(person_from_row).transpose()
    }

    /// The person with this id, if any.
    pub async fn person(&self, id: PersonId) -> Result<Option<Person>, Error> {
        let sql = format!("SELECT {PERSON_COLUMNS} FROM people p WHERE p.id = ?");
        let row = sqlx::query(&sql)
            .bind(id.0)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(person_from_row).transpose()
    }

    /// Replaces a person's content limits. `NotFound` when there is no such person.
    pub async fn set_limits(&self, id: PersonId, limits: &ContentLimits) -> Result<(), Error> {
        let genres = serde_json::to_string(&limits.blocked_genres)
            .map_err(|e| Error::Invalid(format!("blocked genres cannot be stored: {e}")))?;
        let done = sqlx::query(
            "UPDATE people SET max_movie_cert = ?, max_tv_rating = ?, rating_region = ?, \
             block_unrated = ?, blocked_genres = ? WHERE id = ?",
        )
        .bind(&limits.max_movie_cert)
        .bind(&limits.max_tv_rating)
        .bind(&limits.rating_region)
        .bind(limits.block_unrated)
        .bind(genres)
        .bind(id.0)
        .execute(self.pool())
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(format!("no person with id {id}")));
        }
        Ok(())
    }
}
