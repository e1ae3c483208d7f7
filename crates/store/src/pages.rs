//! Pages of the long tables (requests, audit), read on the caller's thread.
//!
//! A page on a database file is read by [`Readers`], a few read-only connections of our own
//! (rusqlite, on the same bundled SQLite as sqlx), on the thread that asks, each row read
//! straight into its row type, column by column in order ([`row`]). Through sqlx's pool a page
//! crossed threads: sqlx runs each connection on a thread of its own, and the query handed there
//! and the answer handed back cost two wake-ups, and row by row a copy of every column made and
//! freed under SQLite's memory lock. The pool's pages were therefore one JSON array that SQLite
//! built (`json_group_array`), whose making (every integer written as text, every string
//! escaped) cost SQLite more than the query; read here, the rows need neither.
//!
//! Reading here holds a runtime thread for the query alone: an indexed keyset read of at most
//! 201 rows, tens of microseconds, and a reader of a WAL database never waits for a writer. Where
//! it would have to wait (`SQLITE_BUSY`: another connection holds the file exclusively, or is
//! recovering it) it does not: the page goes to sqlx's pool as that JSON array, which waits
//! without holding a thread; so does every page of an in-memory store, whose database only its
//! pool's one connection can see. Both read the same inner query, with the same values.
//!
//! An aggregate's input order is unspecified, and asking for one (`json_group_array(... ORDER
//! BY ...)`) makes SQLite sort the page again in a temporary b-tree; so the pool's array is read
//! in whatever order it comes and [`fetch`] puts the rows newest first (highest id) itself.

mod row;

use std::{path::Path, sync::Arc, time::Duration};

use parking_lot::Mutex;
use rusqlite::{
    Connection, ErrorCode, OpenFlags, ToSql,
    types::{ToSqlOutput, ValueRef},
};
use serde::de::DeserializeOwned;
use sqlx::SqlitePool;

use crate::{Error, Store, error::corrupt};

/// A page query: SQL with `?` placeholders and the values they stand for, in order, and the
/// names of its result columns.
pub(crate) struct PageQuery {
    columns: &'static [&'static str],
    sql: String,
    params: Vec<Param>,
}

/// A value bound to a page query.
pub(crate) enum Param {
    Int(i64),
    Text(String),
}

impl From<i64> for Param {
    fn from(v: i64) -> Param {
        Param::Int(v)
    }
}

impl From<&str> for Param {
    fn from(v: &str) -> Param {
        Param::Text(v.to_owned())
    }
}

impl From<String> for Param {
    fn from(v: String) -> Param {
        Param::Text(v)
    }
}

impl ToSql for Param {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Param::Int(v) => ValueRef::Integer(*v),
            Param::Text(v) => ValueRef::Text(v.as_bytes()),
        }))
    }
}

/// Starts a page query: `SELECT {inner}`, whose result columns are `columns` (their names, in
/// order: a row type's fields, which read them by position); the caller pushes the rest
/// (conditions, order, limit).
pub(crate) fn select(columns: &'static [&'static str], inner: &str) -> PageQuery {
    PageQuery {
        columns,
        sql: format!("SELECT {inner}"),
        params: Vec::new(),
    }
}

impl PageQuery {
    /// Appends SQL text (never a caller's value: those go through [`PageQuery::push_bind`]).
    pub(crate) fn push(&mut self, sql: &str) -> &mut PageQuery {
        self.sql.push_str(sql);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn push_bind(&mut self, value: impl Into<Param>) -> &mut PageQuery {
        self.sql.push('?');
        self.params.push(value.into());
        self
    }

    /// The page through sqlx's pool, as one JSON array of rows (each an array of the columns).
    async fn pooled<T: DeserializeOwned>(&self, pool: &SqlitePool) -> Result<Vec<T>, Error> {
        let sql = format!(
            "SELECT json_group_array(json_array({})) FROM ({})",
            self.columns.join(", "),
            self.sql
        );
        let mut query = sqlx::query_scalar::<_, String>(&sql);
        for param in &self.params {
            query = match param {
                Param::Int(v) => query.bind(*v),
                Param::Text(v) => query.bind(v.as_str()),
            };
        }
        let json = query.fetch_one(pool).await?;
        serde_json::from_str(&json)
            .map_err(|e| corrupt(format!("a stored page does not read: {e}")))
    }
}

/// Runs a page query begun with [`select`]: its rows newest first (by `id`, highest first),
/// each read as `T`, a struct whose fields are the columns, in their order.
pub(crate) async fn fetch<T: DeserializeOwned>(
    query: PageQuery,
    store: &Store,
    id: impl Fn(&T) -> i64,
) -> Result<Vec<T>, Error> {
    let read = match store.readers() {
        Some(readers) => readers.read(&query)?,
        None => None,
    };
    let mut rows = match read {
        Some(rows) => rows,
        None => query.pooled(store.pool()).await?,
    };
    rows.sort_unstable_by_key(|r| std::cmp::Reverse(id(r)));
    Ok(rows)
}

/// Read-only connections to the database file, each used by one thread at a time and put back
/// after its query. As many are open as threads have read at once (the runtime's workers, as
/// no read awaits anything), at most [`Readers::KEPT`] kept between reads.
pub(crate) struct Readers {
    path: Arc<Path>,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers")
            .field("path", &self.path)
            .field("idle", &self.idle.lock().len())
            .finish()
    }
}

impl Readers {
    const KEPT: usize = 8;

    /// Readers of the database at `path` (opened when first needed; the schema is in place by then).
    pub(crate) fn new(path: Arc<Path>) -> Readers {
        Readers {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The rows `query` selects, in its order, or `None` when reading them now would mean
    /// waiting for another connection (the caller then asks the pool, which waits without a
    /// thread).
    pub(crate) fn read<T: DeserializeOwned>(
        &self,
        query: &PageQuery,
    ) -> Result<Option<Vec<T>>, Error> {
        let popped = self.idle.lock().pop();
        let conn = match popped {
            Some(conn) => conn,
            None => self.open()?,
        };
        // SQLite's failures (outer) and a row its type cannot read (inner), which ends the page.
        let read = conn.prepare_cached(&query.sql).and_then(|mut statement| {
            let mut rows = statement.query(rusqlite::params_from_iter(&query.params))?;
            let mut page = Vec::new();
            while let Some(row) = rows.next()? {
                match row::read::<T>(row) {
                    Ok(row) => page.push(row),
                    Err(e) => return Ok(Err(e)),
                }
            }
            Ok(Ok(page))
        });
        let mut idle = self.idle.lock();
        if idle.len() < Readers::KEPT {
            idle.push(conn);
        }
        drop(idle);
        match read {
            Ok(Ok(page)) => Ok(Some(page)),
            Ok(Err(e)) => Err(corrupt(format!("a stored page does not read: {e}"))),
            Err(e) if is_busy(&e) => Ok(None),
            Err(e) => Err(Error::Reader(e)),
        }
    }

    fn open(&self) -> Result<Connection, Error> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(Error::Reader)?;
        // Never wait: a page that cannot be read at once is the pool's to wait for.
        conn.busy_timeout(Duration::ZERO).map_err(Error::Reader)?;
        conn.pragma_update(None, "query_only", true)
            .map_err(Error::Reader)?;
        conn.set_prepared_statement_cache_capacity(32);
        Ok(conn)
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    const ID_NAME: &[&str] = &["id", "name"];
    const ID: &[&str] = &["id"];
    const NAME: &[&str] = &["name"];

    #[derive(Debug, Deserialize, PartialEq)]
    struct Named {
        id: i64,
        name: Option<String>,
    }

    fn named(id: i64, name: &str) -> Named {
        Named {
            id,
            name: Some(name.into()),
        }
    }

    async fn table(store: &Store, rows: &[(i64, &str)]) {
        let pool = store.pool();
        sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            .execute(pool)
            .await
            .unwrap();
        for (id, name) in rows {
            sqlx::query("INSERT INTO t (id, name) VALUES (?, ?)")
                .bind(id)
                .bind(name)
                .execute(pool)
                .await
                .unwrap();
        }
    }

    fn names_before(before: i64) -> PageQuery {
        let mut query = select(ID_NAME, "id, name FROM t WHERE 1 = 1");
        query
            .push(" AND id < ")
            .push_bind(before)
            .push(" AND (name IS NULL OR name <> ")
            .push_bind("skip")
            .push(") ORDER BY id DESC LIMIT ")
            .push_bind(3);
        query
    }

    /// SQLite is free to feed the pool's aggregate in any order; here the inner query asks for
    /// oldest first on purpose, and the page must still come newest first.
    #[tokio::test]
    async fn a_page_comes_newest_first_whatever_order_sqlite_gives() {
        let store = Store::open_in_memory().await.unwrap();
        assert!(store.readers().is_none());
        table(&store, &[(3, "c"), (1, "a"), (7, "g"), (5, "e")]).await;
        let mut query = select(ID_NAME, "id, name FROM t WHERE 1 = 1");
        query.push(" ORDER BY id ASC LIMIT 10");
        let rows: Vec<Named> = fetch(query, &store, |r: &Named| r.id).await.unwrap();
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        assert_eq!(ids, [7, 5, 3, 1]);
        assert_eq!(rows[0], named(7, "g"));
    }

    /// On a database file a page is read by a reader of our own; it reads what the pool reads
    /// for the same query and values (a null included), and sees a commit made through the
    /// pool at once.
    #[tokio::test]
    async fn a_reader_reads_what_the_pool_reads_and_every_commit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let rows: Vec<(i64, String)> = (1..=9).map(|i| (i, format!("n{i}"))).collect();
        let borrowed: Vec<(i64, &str)> = rows.iter().map(|(i, n)| (*i, n.as_str())).collect();
        table(&store, &borrowed).await;
        sqlx::query("UPDATE t SET name = 'skip' WHERE id = 6")
            .execute(store.pool())
            .await
            .unwrap();
        sqlx::query("UPDATE t SET name = NULL WHERE id = 2")
            .execute(store.pool())
            .await
            .unwrap();
        let readers = store.readers().expect("a store on a file has readers");
        for before in [10, 8, 7, 3, 1] {
            let query = names_before(before);
            let read: Vec<Named> = readers
                .read(&query)
                .unwrap()
                .expect("nothing holds the file");
            let mut pooled: Vec<Named> = query.pooled(store.pool()).await.unwrap();
            pooled.sort_unstable_by_key(|r| std::cmp::Reverse(r.id));
            assert_eq!(read, pooled, "{before}");
        }
        let page: Vec<Named> = fetch(names_before(8), &store, |r: &Named| r.id)
            .await
            .unwrap();
        assert_eq!(page, [named(7, "n7"), named(5, "n5"), named(4, "n4")]);
        let page: Vec<Named> = fetch(names_before(4), &store, |r: &Named| r.id)
            .await
            .unwrap();
        assert_eq!(page[1], Named { id: 2, name: None });

        sqlx::query("INSERT INTO t (id, name) VALUES (10, 'late')")
            .execute(store.pool())
            .await
            .unwrap();
        let page: Vec<Named> = fetch(names_before(11), &store, |r: &Named| r.id)
            .await
            .unwrap();
        assert_eq!(page[..2], [named(10, "late"), named(9, "n9")]);
    }

    /// A reader never waits: while another connection holds the file exclusively it says so
    /// (the page then goes to the pool) with a busy timeout of zero, and reads again once the
    /// file is free.
    #[test]
    fn a_reader_gives_way_instead_of_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let path: Arc<Path> = dir.path().join("held.db").into();
        let holder = Connection::open(&path).unwrap();
        holder
            .execute_batch(
                "PRAGMA journal_mode = WAL; \
                 CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL); \
                 INSERT INTO t VALUES (1, 'a'), (2, 'b'); \
                 PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE t SET name = 'x' WHERE id = 1;",
            )
            .unwrap();
        let readers = Readers::new(path);
        let query = names_before(10);
        assert_eq!(readers.read::<Named>(&query).unwrap(), None);
        // It said so without waiting: a reader's busy timeout is zero (and it cannot write).
        let reader = readers
            .idle
            .lock()
            .pop()
            .expect("the reader went back to the list");
        let setting = |pragma: &str| -> i64 {
            reader
                .query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!((setting("busy_timeout"), setting("query_only")), (0, 1));
        readers.idle.lock().push(reader);
        drop(holder);
        let read: Vec<Named> = readers
            .read(&query)
            .unwrap()
            .expect("the file is free again");
        assert_eq!(read, [named(2, "b"), named(1, "a")]);
    }

    /// A query SQLite refuses, or a row its type cannot read, is an error, not a page from
    /// elsewhere.
    #[tokio::test]
    async fn a_broken_query_or_row_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        table(&store, &[(1, "a")]).await;
        let readers = store.readers().unwrap();
        let query = select(ID, "id FROM no_such_table WHERE 1 = 1");
        let err = readers.read::<Named>(&query).unwrap_err();
        assert!(err.to_string().contains("no_such_table"), "{err}");

        #[derive(Debug, Deserialize)]
        struct Wrong {
            #[allow(dead_code)]
            name: i64,
        }
        let query = select(NAME, "name FROM t WHERE 1 = 1");
        let err = readers.read::<Wrong>(&query).unwrap_err();
        assert!(err.to_string().contains("does not read"), "{err}");
        // Fields are read by position: a type with fewer fields than the query has columns
        // would read the wrong columns into the right names, and is refused; so is one with
        // more, and a number too large for its field (not cut).
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Short(i64);
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Long(i64, String, i64);
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Small(Option<u8>);
        let err = readers.read::<Short>(&names_before(10)).unwrap_err();
        assert!(err.to_string().contains("2 columns, read as 1"), "{err}");
        let err = readers.read::<Long>(&names_before(10)).unwrap_err();
        assert!(err.to_string().contains("column 2"), "{err}");
        let query = select(ID, "300 FROM t WHERE 1 = 1");
        let err = readers.read::<Small>(&query).unwrap_err();
        assert!(err.to_string().contains("column 0"), "{err}");
        // The reader that met the bad row is still good for the next page.
        let read: Vec<Named> = readers.read(&names_before(10)).unwrap().unwrap();
        assert_eq!(read, [named(1, "a")]);
    }
}
