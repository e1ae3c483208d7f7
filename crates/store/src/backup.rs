//! Backups: a consistent copy of the database taken while it serves (`VACUUM INTO`, which reads
//! one snapshot and never blocks writers for long), and the checks a restore makes of a file
//! before it may replace the database: SQLite, intact, a Marquee schema, not newer than this
//! build's.

use std::path::{Path, PathBuf};

use sqlx::{
    Connection, Row,
    sqlite::{SqliteConnectOptions, SqliteConnection},
};

use crate::{DB_FILE, Error, MIGRATOR, Store};

/// What a backup file holds, read from the file itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFacts {
    /// The newest schema step applied in the file.
    pub schema: i64,
    /// People in the file (a quick sign that it is the household's database).
    pub people: i64,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// The newest schema step this build knows.
pub fn latest_schema() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// The database file inside a data folder.
pub fn database_file(data_dir: &Path) -> PathBuf {
    data_dir.join(DB_FILE)
}

impl Store {
    /// Writes a consistent copy of the whole database to `dest`, which must not exist yet,
    /// readable by its owner only, and checks the copy as a restore would.
    pub async fn backup_to(&self, dest: &Path) -> Result<BackupFacts, Error> {
        if self.path.is_none() {
            return Err(Error::Invalid(
                "an in-memory database has nothing to back up".into(),
            ));
        }
        if dest.exists() {
            return Err(Error::Conflict(format!(
                "{} already exists; name a new file (a backup never replaces one)",
                dest.display()
            )));
        }
        let Some(text) = dest.to_str() else {
            return Err(Error::Invalid(format!(
                "{} is not a UTF-8 path; name another file",
                dest.display()
            )));
        };
        sqlx::query("VACUUM INTO ?")
            .bind(text)
            .execute(&self.pool)
            .await?;
        // The copy holds password and key verifiers and the audit: readable by its owner only.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dest, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::Invalid(format!("cannot make {} private: {e}", dest.display())))?;
        inspect_backup(dest).await
    }
}

/// Reads a backup file without changing it: refuses one that is not an intact SQLite
/// database holding Marquee's schema, or whose schema is newer than this build's.
pub async fn inspect_backup(file: &Path) -> Result<BackupFacts, Error> {
    let not_ours = |why: &str| {
        Error::Invalid(format!(
            "{} is not a Marquee backup ({why}); nothing was changed",
            file.display()
        ))
    };
    let bytes = std::fs::metadata(file)
        .map_err(|e| Error::NotFound(format!("cannot read {}: {e}", file.display())))?
        .len();
    let options = SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .create_if_missing(false);
    let mut conn = SqliteConnection::connect_with(&options)
        .await
        .map_err(|_| not_ours("it cannot be opened as a database"))?;
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .map_err(|_| not_ours("it is not an SQLite database"))?;
    if check != "ok" {
        return Err(not_ours(&format!("its integrity check says: {check}")));
    }
    let row = sqlx::query("SELECT MAX(version) AS v FROM _sqlx_migrations WHERE success")
        .fetch_one(&mut conn)
        .await
        .map_err(|_| not_ours("it holds no Marquee schema"))?;
    let schema: Option<i64> = row.try_get("v").map_err(|_| not_ours("no schema steps"))?;
    let schema = schema.ok_or_else(|| not_ours("no schema steps"))?;
    let people: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM people")
        .fetch_one(&mut conn)
        .await
        .map_err(|_| not_ours("it has no people table"))?;
    conn.close().await.ok();
    let latest = latest_schema();
    if schema > latest {
        return Err(Error::Invalid(format!(
            "{} was written by a newer Marquee (schema step {schema}; this build knows up to \
             {latest}); restore it with that version or a later one; nothing was changed",
            file.display()
        )));
    }
    Ok(BackupFacts {
        schema,
        people,
        bytes,
    })
}
