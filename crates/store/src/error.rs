//! The store's one error type, named by what the caller can do about it.

/// What went wrong in the store. Messages are lowercase and name the thing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The named thing does not exist; the message says what was looked for (and what exists, where useful).
    #[error("{0}")]
    NotFound(String),
    /// The change collides with existing state (a taken name, an already finished audit entry).
    #[error("{0}")]
    Conflict(String),
    /// The input was refused before touching the database.
    #[error("{0}")]
    Invalid(String),
    /// The database failed or holds something this build cannot read.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// A page read on the caller's thread (`pages.rs`) failed.
    #[error("database error: {0}")]
    Reader(#[source] rusqlite::Error),
    /// The schema could not be brought up to date.
    #[error("database migration failed: {0}")]
    Migrate(#[source] sqlx::migrate::MigrateError),
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Error {
        Error::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for Error {
    fn from(e: sqlx::migrate::MigrateError) -> Error {
        Error::Migrate(e)
    }
}

/// A stored value this build cannot interpret (a bad role, broken JSON): reported as a decode failure.
pub(crate) fn corrupt(what: impl Into<String>) -> Error {
    let what: String = what.into();
    Error::Database(sqlx::Error::Decode(what.into()))
}

/// True when the database refused a write because a unique constraint already holds the value.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// True when the database refused a write because a referenced row does not exist.
pub(crate) fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_foreign_key_violation())
}
