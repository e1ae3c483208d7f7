//! The index of media files on disk (`scan_library` writes it, `find_local_media` reads it):
//! one row per video, audio or subtitle file beneath a folder instance, keyed by the instance
//! and the path relative to its root. A scan reads what is recorded on the caller's thread
//! ([`Store::local_media_known`]) and writes through a [`LocalMediaWriter`]: one connection of
//! its own for the scan, each batch one transaction of one prepared statement (rusqlite, on a
//! blocking thread), tens of thousands of rows a second.

use std::collections::HashMap;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};
use sqlx::{QueryBuilder, Row, Sqlite, sqlite::SqliteRow};

use crate::{Error, Store, now_ms, pages};

const UPSERT: &str = "INSERT INTO local_media (instance_id, path, size, mtime_ns, file_kind, \
     media_type, title, title_key, year, season, episode, media_source, media_id, confidence, \
     facts, scanned_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \
     ON CONFLICT (instance_id, path) DO UPDATE SET size = excluded.size, \
     mtime_ns = excluded.mtime_ns, file_kind = excluded.file_kind, \
     media_type = excluded.media_type, title = excluded.title, \
     title_key = excluded.title_key, year = excluded.year, season = excluded.season, \
     episode = excluded.episode, media_source = excluded.media_source, \
     media_id = excluded.media_id, confidence = excluded.confidence, \
     facts = excluded.facts, scanned_at = excluded.scanned_at";

/// Bumps the index's version (migration 0210) in the transaction that changes it: kept
/// answers read from the index hold until then.
const BUMP: &str = "UPDATE versions SET n = n + 1 WHERE grp = 'local_media'";

/// Writes a scan's rows: one connection for the whole scan, each [`LocalMediaWriter::put`] one
/// transaction. An in-memory store (tests) writes through the pool instead.
pub struct LocalMediaWriter {
    store: Store,
    conn: Option<Connection>,
}

impl LocalMediaWriter {
    /// Records `files` (new ones added, known paths replaced), all in one transaction.
    pub async fn put(&mut self, files: Vec<LocalFile>) -> Result<(), Error> {
        if files.is_empty() {
            return Ok(());
        }
        let Some(mut conn) = self.conn.take() else {
            return self.store.put_local_media(&files).await;
        };
        let (conn, written) = tokio::task::spawn_blocking(move || {
            let written = upsert(&mut conn, &files);
            (conn, written)
        })
        .await
        .map_err(|e| Error::Invalid(format!("the index write ended without its answer: {e}")))?;
        self.conn = Some(conn);
        written.map_err(Error::Reader)
    }
}

fn upsert(conn: &mut Connection, files: &[LocalFile]) -> rusqlite::Result<()> {
    let now = now_ms();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut insert = tx.prepare_cached(UPSERT)?;
        for f in files {
            insert.execute(params![
                f.instance_id,
                f.path,
                f.size,
                f.mtime_ns,
                f.file_kind,
                f.media_type,
                f.title,
                f.title_key,
                f.year,
                f.season,
                f.episode,
                f.media_source,
                f.media_id,
                f.confidence,
                f.facts,
                now,
            ])?;
        }
    }
    tx.execute(BUMP, [])?;
    tx.commit()
}

/// What a rescan compares: a file's size and modification time as last recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedFile {
    pub path: String,
    pub size: i64,
    pub mtime_ns: i64,
}

/// One indexed file.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalFile {
    pub instance_id: String,
    /// Relative to the instance's root, `/`-separated.
    pub path: String,
    pub size: i64,
    pub mtime_ns: i64,
    /// `video`, `audio` or `subtitle`.
    pub file_kind: String,
    /// `movie`, `tv` or `music`; `None` when nothing was recognised.
    pub media_type: Option<String>,
    pub title: Option<String>,
    /// The title folded to lower-case letters and digits (grouping and search).
    pub title_key: Option<String>,
    pub year: Option<i64>,
    pub season: Option<i64>,
    pub episode: Option<i64>,
    pub media_source: Option<String>,
    pub media_id: Option<String>,
    pub confidence: Option<f64>,
    /// The rest of the recognition, JSON.
    pub facts: String,
}

/// Which indexed files to read. Empty `instance_ids` reads none.
#[derive(Clone, Debug, Default)]
pub struct LocalMediaQuery {
    pub instance_ids: Vec<String>,
    pub media_type: Option<String>,
    /// `(media_source, media_id)`.
    pub identity: Option<(String, String)>,
    /// A folded title fragment ([`LocalFile::title_key`]'s spelling) the title must contain.
    pub title_key_contains: Option<String>,
}

const COLUMNS: &str = "instance_id, path, size, mtime_ns, file_kind, media_type, title, title_key, \
     year, season, episode, media_source, media_id, confidence, facts";

fn local_file(r: &SqliteRow) -> Result<LocalFile, sqlx::Error> {
    Ok(LocalFile {
        instance_id: r.try_get("instance_id")?,
        path: r.try_get("path")?,
        size: r.try_get("size")?,
        mtime_ns: r.try_get("mtime_ns")?,
        file_kind: r.try_get("file_kind")?,
        media_type: r.try_get("media_type")?,
        title: r.try_get("title")?,
        title_key: r.try_get("title_key")?,
        year: r.try_get("year")?,
        season: r.try_get("season")?,
        episode: r.try_get("episode")?,
        media_source: r.try_get("media_source")?,
        media_id: r.try_get("media_id")?,
        confidence: r.try_get("confidence")?,
        facts: r.try_get("facts")?,
    })
}

impl Store {
    /// A writer for one scan's rows (its own connection to the database file).
    pub async fn local_media_writer(&self) -> Result<LocalMediaWriter, Error> {
        let conn = match self.path() {
            Some(path) => {
                let path = path.to_path_buf();
                let opened = tokio::task::spawn_blocking(move || {
                    let conn = Connection::open_with_flags(
                        &path,
                        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )?;
                    conn.busy_timeout(crate::BUSY_TIMEOUT)?;
                    conn.pragma_update(None, "synchronous", "NORMAL")?;
                    Ok::<_, rusqlite::Error>(conn)
                })
                .await
                .map_err(|e| Error::Invalid(format!("opening the index writer failed: {e}")))?;
                Some(opened.map_err(Error::Reader)?)
            }
            None => None,
        };
        Ok(LocalMediaWriter {
            store: self.clone(),
            conn,
        })
    }

    /// Every indexed path of `instance_id` with its recorded size and modification time, by
    /// path: read on this thread when a reader is free at once (a scan's comparison), else
    /// through the pool.
    pub async fn local_media_known(
        &self,
        instance_id: &str,
    ) -> Result<HashMap<String, (i64, i64)>, Error> {
        if let Some(readers) = self.readers() {
            let mut query = pages::select(
                &["path", "size", "mtime_ns"],
                "path, size, mtime_ns FROM local_media WHERE instance_id = ",
            );
            query.push_bind(instance_id.to_owned());
            if let Some(rows) = readers.read::<(String, i64, i64)>(&query)? {
                return Ok(rows.into_iter().map(|(p, s, m)| (p, (s, m))).collect());
            }
        }
        Ok(self
            .local_media_index(instance_id)
            .await?
            .into_iter()
            .map(|f| (f.path, (f.size, f.mtime_ns)))
            .collect())
    }

    /// Every indexed path of `instance_id` with its recorded size and modification time.
    pub async fn local_media_index(&self, instance_id: &str) -> Result<Vec<IndexedFile>, Error> {
        let rows =
            sqlx::query("SELECT path, size, mtime_ns FROM local_media WHERE instance_id = ?")
                .bind(instance_id)
                .fetch_all(self.pool())
                .await?;
        rows.iter()
            .map(|r| {
                Ok(IndexedFile {
                    path: r.try_get("path")?,
                    size: r.try_get("size")?,
                    mtime_ns: r.try_get("mtime_ns")?,
                })
            })
            .collect()
    }

    /// The indexed file at `path` of `instance_id`, if the index has it.
    pub async fn local_media_file(
        &self,
        instance_id: &str,
        path: &str,
    ) -> Result<Option<LocalFile>, Error> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM local_media WHERE instance_id = ? AND path = ?"
        ))
        .bind(instance_id)
        .bind(path)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref()
            .map(local_file)
            .transpose()
            .map_err(Error::from)
    }

    /// Records `files` (new ones added, known paths replaced), all in one transaction.
    pub async fn put_local_media(&self, files: &[LocalFile]) -> Result<(), Error> {
        if files.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        let mut tx = self.pool().begin().await?;
        // Many rows a statement: 64 rows of 16 values stay well below SQLite's bound limit.
        for chunk in files.chunks(64) {
            let mut b: QueryBuilder<Sqlite> = QueryBuilder::new(
                "INSERT INTO local_media (instance_id, path, size, mtime_ns, file_kind, media_type, \
                 title, title_key, year, season, episode, media_source, media_id, confidence, facts, \
                 scanned_at) ",
            );
            b.push_values(chunk, |mut row, f| {
                row.push_bind(&f.instance_id)
                    .push_bind(&f.path)
                    .push_bind(f.size)
                    .push_bind(f.mtime_ns)
                    .push_bind(&f.file_kind)
                    .push_bind(&f.media_type)
                    .push_bind(&f.title)
                    .push_bind(&f.title_key)
                    .push_bind(f.year)
                    .push_bind(f.season)
                    .push_bind(f.episode)
                    .push_bind(&f.media_source)
                    .push_bind(&f.media_id)
                    .push_bind(f.confidence)
                    .push_bind(&f.facts)
                    .push_bind(now);
            });
            b.push(
                " ON CONFLICT (instance_id, path) DO UPDATE SET size = excluded.size, \
                 mtime_ns = excluded.mtime_ns, file_kind = excluded.file_kind, \
                 media_type = excluded.media_type, title = excluded.title, \
                 title_key = excluded.title_key, year = excluded.year, season = excluded.season, \
                 episode = excluded.episode, media_source = excluded.media_source, \
                 media_id = excluded.media_id, confidence = excluded.confidence, \
                 facts = excluded.facts, scanned_at = excluded.scanned_at",
            );
            b.build().execute(&mut *tx).await?;
        }
        sqlx::query(BUMP).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Removes `paths` of `instance_id` from the index, in one transaction; how many were there.
    pub async fn remove_local_media(
        &self,
        instance_id: &str,
        paths: &[String],
    ) -> Result<u64, Error> {
        if paths.is_empty() {
            return Ok(0);
        }
        let mut tx = self.pool().begin().await?;
        let mut removed = 0;
        for p in paths {
            removed += sqlx::query("DELETE FROM local_media WHERE instance_id = ? AND path = ?")
                .bind(instance_id)
                .bind(p)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        }
        if removed > 0 {
            sqlx::query(BUMP).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(removed)
    }

    /// The indexed files `q` selects, by instance and path.
    pub async fn find_local_media(&self, q: &LocalMediaQuery) -> Result<Vec<LocalFile>, Error> {
        if q.instance_ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut b: QueryBuilder<Sqlite> = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM local_media WHERE instance_id IN ("
        ));
        let mut ids = b.separated(", ");
        for id in &q.instance_ids {
            ids.push_bind(id);
        }
        b.push(")");
        if let Some(t) = &q.media_type {
            b.push(" AND media_type = ").push_bind(t);
        }
        if let Some((source, id)) = &q.identity {
            b.push(" AND media_source = ")
                .push_bind(source)
                .push(" AND media_id = ")
                .push_bind(id);
        }
        if let Some(k) = &q.title_key_contains {
            b.push(" AND title_key LIKE ").push_bind(format!("%{k}%"));
        }
        // Ordered here, not by SQL: an ORDER BY would make SQLite walk the primary key and
        // fetch every row to test its title, instead of testing title keys in their index.
        let rows = b.build().fetch_all(self.pool()).await?;
        let mut files = rows
            .iter()
            .map(|r| local_file(r).map_err(Error::from))
            .collect::<Result<Vec<_>, _>>()?;
        files.sort_unstable_by(|a, b| (&a.instance_id, &a.path).cmp(&(&b.instance_id, &b.path)));
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn file(instance: &str, path: &str, title: &str, size: i64) -> LocalFile {
        LocalFile {
            instance_id: instance.into(),
            path: path.into(),
            size,
            mtime_ns: 7,
            file_kind: "video".into(),
            media_type: Some("movie".into()),
            title: Some(title.into()),
            title_key: Some(title.to_lowercase()),
            year: Some(1995),
            season: None,
            episode: None,
            media_source: Some("builtin".into()),
            media_id: Some(format!("id-{title}")),
            confidence: Some(0.95),
            facts: "{}".into(),
        }
    }

    #[tokio::test]
    async fn files_are_put_replaced_found_and_removed_per_instance() {
        let store = Store::open_in_memory().await.unwrap();
        store
            .put_local_media(&[
                file("a", "Heat/heat.mkv", "heat", 10),
                file("a", "Up/up.mkv", "up", 20),
                file("b", "Heat/heat.mkv", "heat", 30),
            ])
            .await
            .unwrap();
        // The same path again replaces its row.
        store
            .put_local_media(&[file("a", "Heat/heat.mkv", "heat", 11)])
            .await
            .unwrap();
        let index = store.local_media_index("a").await.unwrap();
        assert_eq!(index.len(), 2);
        assert!(
            index
                .iter()
                .any(|f| f.path == "Heat/heat.mkv" && f.size == 11)
        );

        let found = store
            .find_local_media(&LocalMediaQuery {
                instance_ids: vec!["a".into(), "b".into()],
                title_key_contains: Some("hea".into()),
                ..LocalMediaQuery::default()
            })
            .await
            .unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].instance_id, "a");
        let by_id = store
            .find_local_media(&LocalMediaQuery {
                instance_ids: vec!["a".into()],
                identity: Some(("builtin".into(), "id-up".into())),
                media_type: Some("movie".into()),
                ..LocalMediaQuery::default()
            })
            .await
            .unwrap();
        assert_eq!(by_id.len(), 1);
        assert_eq!(by_id[0], file("a", "Up/up.mkv", "up", 20));

        let removed = store
            .remove_local_media("a", &["Up/up.mkv".into(), "gone.mkv".into()])
            .await
            .unwrap();
        assert_eq!(removed, 1);
        assert_eq!(store.local_media_index("a").await.unwrap().len(), 1);
        assert_eq!(store.local_media_index("b").await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_scan_writer_puts_batches_and_the_known_paths_read_back_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let mut writer = store.local_media_writer().await.unwrap();
        assert!(
            writer.conn.is_some(),
            "a file store writes on its own connection"
        );
        writer
            .put(vec![
                file("a", "Heat/heat.mkv", "heat", 10),
                file("a", "Up/up.mkv", "up", 20),
                file("b", "Heat/heat.mkv", "heat", 30),
            ])
            .await
            .unwrap();
        // A known path again replaces its row; the pool sees what the writer committed.
        writer
            .put(vec![file("a", "Heat/heat.mkv", "heat", 11)])
            .await
            .unwrap();
        let known = store.local_media_known("a").await.unwrap();
        assert_eq!(known.len(), 2);
        assert_eq!(known["Heat/heat.mkv"], (11, 7));
        assert_eq!(known["Up/up.mkv"], (20, 7));
        assert_eq!(
            store.local_media_file("a", "Up/up.mkv").await.unwrap(),
            Some(file("a", "Up/up.mkv", "up", 20))
        );
        assert_eq!(store.local_media_file("a", "gone.mkv").await.unwrap(), None);
        assert_eq!(store.local_media_known("b").await.unwrap().len(), 1);
        assert!(store.local_media_known("c").await.unwrap().is_empty());

        // An in-memory store writes through the pool.
        let memory = Store::open_in_memory().await.unwrap();
        let mut writer = memory.local_media_writer().await.unwrap();
        assert!(writer.conn.is_none());
        writer
            .put(vec![file("a", "Up/up.mkv", "up", 20)])
            .await
            .unwrap();
        assert_eq!(memory.local_media_known("a").await.unwrap().len(), 1);
    }
}
