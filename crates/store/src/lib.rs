//! The store: people, credentials, grants, tool switches, audit, allowances, requests and quotas,
//! planned changes and their operations, owner-page sessions, OAuth clients, codes and tokens, on SQLite
//! through sqlx (pages of the long tables read through rusqlite on the caller's thread, `pages.rs`).
//!
//! Every SQL statement lives in this crate behind a typed method, so a PostgreSQL backend can
//! come later without touching callers. SQL stays portable where that is cheap: no SQLite-only
//! functions in queries, timestamps as INTEGER unix milliseconds, JSON as TEXT.

mod allowances;
mod arrivals;
mod audit;
mod auth_failures;
mod backup;
mod bootstrap;
mod changes;
mod connections;
mod download_history;
mod error;
mod fresh;
mod grant_changes;
mod grants;
mod keys;
mod local_media;
mod media_links;
mod notices;
mod oauth;
mod oauth_tokens;
mod operations;
mod pages;
mod people;
mod protocol_tasks;
mod quotas;
mod replicas;
mod requests;
mod sessions;
mod settings;
mod shortlist_rows;
mod switches;
mod tasks;
mod themes;

use std::{
    path::{Path, PathBuf},
    str::FromStr,
    sync::Arc,
    time::Duration,
};

use sqlx::{
    SqlitePool,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};

pub use allowances::{AllowanceLeft, Reserved};
pub use arrivals::LibraryLink;
pub use audit::{AuditEntry, AuditId, AuditQuery, AuditStatus, NewAudit, under_audit};
pub use backup::{BackupFacts, database_file, inspect_backup, latest_schema};
pub use changes::{Change, ChangeStatus, NewChange};
pub use connections::Connection;
pub use download_history::{Grab, GrabFilter};
pub use error::{Error, UnknownStatus};
pub use grant_changes::GrantSpec;
pub use grants::{Grant, OWNER_GRANT};
pub use keys::{Authenticated, Authority, IssuedKey, KeyInfo};
pub use local_media::{IndexedFile, LocalFile, LocalMediaQuery, LocalMediaWriter};
pub use media_links::MediaLink;
pub use notices::{Arrived, NOTICE_EVENTS};
pub use oauth::{ClientListing, NewClient, NewCode, OAuthClient};
pub use oauth_tokens::{
    CodeExchange, IssuedTokens, Revocation, TokenLifetimes, TokenOutcome, TokenRefusal,
    is_access_token,
};
pub use operations::{Begun, Operation, OperationStatus};
pub use people::{ContentLimits, Person};
pub use protocol_tasks::ProtocolTask;
pub use quotas::{
    Allowance, Fit, QUOTA_MEDIA_TYPES, QUOTA_WINDOWS, QuotaCheck, QuotaRule, QuotaScope,
};
pub use replicas::{machine, runs_here};
pub use requests::{MediaRequest, NewRequest, RequestOutcome, RequestQuery, RequestStatus};
pub use sessions::Session;
pub use settings::StoredSetting;
pub use shortlist_rows::{Display, NewRow, RowSchedule, ShortlistRow};
pub use switches::ToolSwitches;
pub use tasks::{Task, TaskRun};
pub use themes::{NewTheme, Theme};

/// The schema, embedded at build time and applied at every open (already applied steps are skipped).
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// How long a statement waits for another connection's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The file inside the data directory that holds the database.
const DB_FILE: &str = "marquee.db";

/// A handle on the database. Cloning is cheap: the pool and path are shared.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    /// The database file, for diagnostics; `None` for an in-memory store.
    path: Option<Arc<Path>>,
    /// Per-request reads answered from memory while the database is unchanged.
    fresh: Arc<fresh::Fresh<keys::KeyRow>>,
    /// Page reads on the caller's thread (`pages.rs`); `None` for an in-memory store.
    readers: Option<Arc<pages::Readers>>,
    /// When this process last wrote each key's last-use stamp (`keys.rs`).
    stamped: Arc<parking_lot::Mutex<std::collections::HashMap<String, i64>>>,
}

impl Store {
    /// Opens (creating if needed) `data_dir/marquee.db` in WAL mode, applies migrations and seeds
    /// the built-in grants.
    pub async fn open(data_dir: &Path) -> Result<Store, Error> {
        tokio::fs::create_dir_all(data_dir).await.map_err(|e| {
            Error::Invalid(format!(
                "cannot create data directory {}: {e}",
                data_dir.display()
            ))
        })?;
        let path: PathBuf = data_dir.join(DB_FILE);
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            // A local file does not drop connections; the liveness ping would double every query.
            .test_before_acquire(false)
            // A connection handed back still inside a transaction (a COMMIT that failed, say on
            // a full disk, leaves sqlx counting one) would refuse every later transaction: close
            // it instead, and the pool opens a fresh one.
            .after_release(|conn, _| {
                let clean = !sqlx::Connection::is_in_transaction(conn);
                Box::pin(async move { Ok(clean) })
            })
            .connect_with(options)
            .await?;
        Store::prepare(pool, Some(path.into())).await
    }

    /// Opens a private in-memory database, for tests. One connection that never expires keeps the
    /// database alive as long as the store; callers queue for it.
    pub async fn open_in_memory() -> Result<Store, Error> {
        let options = SqliteConnectOptions::from_str("sqlite::memory:")?
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options)
            .await?;
        Store::prepare(pool, None).await
    }

    async fn prepare(pool: SqlitePool, path: Option<Arc<Path>>) -> Result<Store, Error> {
        MIGRATOR.run(&pool).await?;
        let shm = path
            .as_ref()
            .map(|p| PathBuf::from(format!("{}-shm", p.display())));
        let store = Store {
            pool,
            readers: path.clone().map(|p| Arc::new(pages::Readers::new(p))),
            path,
            fresh: Arc::new(fresh::Fresh::new(shm)),
            stamped: Arc::default(),
        };
        store.seed_builtin_grants().await?;
        Ok(store)
    }

    /// One round trip to the database, for readiness checks and `marquee doctor`.
    pub async fn ping(&self) -> Result<(), Error> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// The database file, or `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The database's state now, one counter per [`Group`] of tables: a commit by any process
    /// (this one, the CLI, another replica on the same file) that changes a table of a group
    /// changes that group's counter. An answer read from the groups `g` while the version is
    /// `v` may be handed out again as long as `v.same(now, g)`, since the version is read
    /// before the data. `None` when the state cannot be told (an in-memory store): then
    /// nothing may be kept.
    pub fn version(&self) -> Option<Version> {
        self.fresh.version(|| self.read_version())
    }

    /// The counters as the `versions` table holds them now, read on this thread; `None` when
    /// they cannot be read at once (the caller then caches nothing).
    fn read_version(&self) -> Option<Version> {
        let query = pages::select(&["grp", "n"], "grp, n FROM versions");
        let rows: Vec<(String, i64)> = match self.readers()?.read(&query) {
            Ok(rows) => rows?,
            Err(e) => {
                tracing::warn!(error = %e, "the versions could not be read; nothing is cached for this request");
                return None;
            }
        };
        let mut n = [0; Group::ALL.len()];
        for (name, count) in rows {
            if let Some(g) = Group::ALL.iter().position(|g| g.table_name() == name) {
                n[g] = count;
            }
        }
        Some(Version { n })
    }

    pub(crate) fn fresh(&self) -> &fresh::Fresh<keys::KeyRow> {
        &self.fresh
    }

    pub(crate) fn readers(&self) -> Option<&pages::Readers> {
        self.readers.as_deref()
    }

    /// The pool, for this crate's modules only: SQL never leaves the crate.
    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

/// A group of tables that changes together, with a counter of its own (see [`Store::version`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Group {
    /// People, grants, keys and OAuth connections, tool switches: who may do what.
    Authority,
    /// Requests, quota rules and charges, and their hand-over to a library.
    Requests,
    /// Planned changes, their operations and idempotency keys.
    Changes,
    /// The audit and the allowance charges reserved with it.
    Audit,
    /// The index of media files on disk (`scan_library`).
    LocalMedia,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Authority,
        Group::Requests,
        Group::Changes,
        Group::Audit,
        Group::LocalMedia,
    ];

    /// Its row in the `versions` table.
    fn table_name(self) -> &'static str {
        match self {
            Group::Authority => "authority",
            Group::Requests => "requests",
            Group::Changes => "changes",
            Group::Audit => "audit",
            Group::LocalMedia => "local_media",
        }
    }
}

/// A state of the database (see [`Store::version`]): one counter per [`Group`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Version {
    n: [i64; Group::ALL.len()],
}

impl Version {
    /// True when none of `groups` changed between `self` and `other`.
    pub fn same(&self, other: &Version, groups: &[Group]) -> bool {
        groups
            .iter()
            .all(|&g| self.n[g as usize] == other.n[g as usize])
    }

    /// This state as seen by an answer that reads only `groups`: equal to another narrowed the
    /// same way exactly while none of those groups changed.
    pub fn only(&self, groups: &[Group]) -> Version {
        let mut n = [-1; Group::ALL.len()];
        for &g in groups {
            n[g as usize] = self.n[g as usize];
        }
        Version { n }
    }
}

/// Now, as the store writes timestamps: unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
