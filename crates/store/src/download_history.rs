//! The download history: each grab of an indexer release into a download client, linking the
//! torrent (instance and info hash) to the title it was searched for, the indexer, the person
//! who grabbed it and the request it serves.

use domain::PersonId;
use sqlx::Row;

use crate::{Error, Store, now_ms};

/// One grab, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grab {
    pub instance_id: String,
    pub info_hash: Option<String>,
    /// The release's name.
    pub release: String,
    /// "builtin tt0133093".
    pub media: Option<String>,
    /// "The Matrix (1999)".
    pub title: Option<String>,
    pub indexer: String,
    pub person_id: PersonId,
    pub request_id: Option<i64>,
    /// Milliseconds since the epoch (ignored when recording).
    pub grabbed_at: i64,
}

impl Store {
    /// Records one grab; answers its id.
    pub async fn record_grab(&self, grab: &Grab) -> Result<i64, Error> {
        let done = sqlx::query(
            "INSERT INTO download_history (instance_id, info_hash, release, media, title, indexer, person_id, request_id, grabbed_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&grab.instance_id)
        .bind(&grab.info_hash)
        .bind(&grab.release)
        .bind(&grab.media)
        .bind(&grab.title)
        .bind(&grab.indexer)
        .bind(grab.person_id.0)
        .bind(grab.request_id)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(done.last_insert_rowid())
    }

    /// The grabs of a torrent (by info hash, any case), newest first.
    pub async fn grabs_of(&self, info_hash: &str) -> Result<Vec<Grab>, Error> {
        let rows = sqlx::query(
            "SELECT instance_id, info_hash, release, media, title, indexer, person_id, request_id, grabbed_at \
             FROM download_history WHERE info_hash = ? ORDER BY grabbed_at DESC, id DESC",
        )
        .bind(info_hash.to_ascii_lowercase())
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(grab_from_row).collect()
    }

    /// The most recent grabs, newest first, at most `limit`.
    pub async fn recent_grabs(&self, limit: u32) -> Result<Vec<Grab>, Error> {
        let rows = sqlx::query(
            "SELECT instance_id, info_hash, release, media, title, indexer, person_id, request_id, grabbed_at \
             FROM download_history ORDER BY grabbed_at DESC, id DESC LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(grab_from_row).collect()
    }
}

fn grab_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<Grab, Error> {
    Ok(Grab {
        instance_id: r.try_get("instance_id")?,
        info_hash: r.try_get("info_hash")?,
        release: r.try_get("release")?,
        media: r.try_get("media")?,
        title: r.try_get("title")?,
        indexer: r.try_get("indexer")?,
        person_id: PersonId(r.try_get("person_id")?),
        request_id: r.try_get("request_id")?,
        grabbed_at: r.try_get("grabbed_at")?,
    })
}
