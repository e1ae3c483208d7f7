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

impl Error {
    /// True when SQLite refused the work because the file system holding the data folder is
    /// full (`SQLITE_FULL`): writes fail until space returns; reads keep working.
    pub fn is_disk_full(&self) -> bool {
        /// SQLite's primary result code for a full disk.
        const SQLITE_FULL: i64 = 13;
        match self {
            Error::Database(sqlx::Error::Database(db)) => db
                .code()
                .and_then(|c| c.parse::<i64>().ok())
                .is_some_and(|c| c & 0xff == SQLITE_FULL),
            Error::Reader(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::DiskFull
            }
            _ => false,
        }
    }
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
pub(crate) fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Database(sqlx::Error::Decode(what.to_string().into()))
}

/// A text that names no status of its kind: `unknown audit status "done"`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} status \"{text}\"")]
pub struct UnknownStatus {
    /// Whose status: `audit`, `change`, `operation`, `request`.
    pub kind: &'static str,
    pub text: String,
}

impl UnknownStatus {
    pub(crate) fn new(kind: &'static str, text: &str) -> UnknownStatus {
        UnknownStatus {
            kind,
            text: text.to_owned(),
        }
    }
}

/// True when the database refused a write because a unique constraint already holds the value.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// True when the database refused a write because a referenced row does not exist.
pub(crate) fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_foreign_key_violation())
}

#[cfg(test)]
mod tests {
    use std::{fmt::Debug, str::FromStr};

    use super::UnknownStatus;
    use crate::{AuditStatus, ChangeStatus, OperationStatus, RequestStatus};

    /// The names of `all`, in order, after checking that JSON, `Display`, `as_str` (through
    /// `Into<&str>`) and `FromStr` spell and read each one the same.
    fn names<T>(all: &[T]) -> String
    where
        T: Copy + Debug + PartialEq + serde::Serialize + std::fmt::Display,
        T: FromStr<Err = UnknownStatus> + Into<&'static str>,
    {
        let mut out = Vec::new();
        for &v in all {
            let name: &'static str = v.into();
            assert_eq!(serde_json::to_value(v).unwrap(), name, "{v:?}");
            assert_eq!(v.to_string(), name);
            assert_eq!(name.parse::<T>(), Ok(v));
            out.push(name);
        }
        out.join(", ")
    }

    #[test]
    fn statuses_are_spelled_alike_in_answers_and_rows_and_listed_in_order() {
        assert_eq!(
            names(&AuditStatus::ALL),
            "executing, applied, failed, outcome_unknown"
        );
        assert_eq!(
            names(&ChangeStatus::ALL),
            "pending, approved, rejected, applying, applied, failed, outcome_unknown, cancelled"
        );
        assert_eq!(
            names(&OperationStatus::ALL),
            "running, in_flight, cancelling, succeeded, failed, cancelled, outcome_unknown"
        );
        assert_eq!(
            names(&RequestStatus::ALL),
            "pending, approved, rejected, available, failed"
        );
    }

    #[test]
    fn an_unknown_status_names_its_kind() {
        let refusals = [
            "done".parse::<AuditStatus>().unwrap_err().to_string(),
            "Pending".parse::<ChangeStatus>().unwrap_err().to_string(),
            "in-flight"
                .parse::<OperationStatus>()
                .unwrap_err()
                .to_string(),
            "".parse::<RequestStatus>().unwrap_err().to_string(),
        ];
        assert_eq!(
            refusals,
            [
                "unknown audit status \"done\"",
                "unknown change status \"Pending\"",
                "unknown operation status \"in-flight\"",
                "unknown request status \"\"",
            ]
        );
    }
}
