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

/// What a history read is narrowed to; every field set must match.
#[derive(Clone, Debug, Default)]
pub struct GrabFilter {
    /// "builtin tt0133093", as a grab records it.
    pub media: Option<String>,
    pub instance_id: Option<String>,
    /// Only grabs into these instances (`None`: any), applied before the limit.
    pub instance_ids: Option<Vec<String>>,
    pub info_hash: Option<String>,
    pub person_id: Option<PersonId>,
    pub request_id: Option<i64>,
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

    /// Forgets a grab recorded before the client added it, when the add failed.
    pub async fn forget_grab(&self, id: i64) -> Result<(), Error> {
        sqlx::query("DELETE FROM download_history WHERE id = ?")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The newest grab of each of `torrents` (download instance, info hash) that has one: the
    /// title links of a page of torrents.
    pub async fn grabs_for(&self, torrents: &[(String, String)]) -> Result<Vec<Grab>, Error> {
        if torrents.is_empty() {
            return Ok(Vec::new());
        }
        let hashes: Vec<String> = torrents
            .iter()
            .map(|(_, h)| h.to_ascii_lowercase())
            .collect();
        let marks = vec!["?"; hashes.len()].join(", ");
        let sql = format!(
            "SELECT instance_id, info_hash, release, media, title, indexer, person_id, request_id, grabbed_at \
             FROM download_history WHERE info_hash IN ({marks}) ORDER BY grabbed_at DESC, id DESC"
        );
        let mut query = sqlx::query(&sql);
        for h in &hashes {
            query = query.bind(h);
        }
        let rows = query.fetch_all(self.pool()).await?;
        let mut out: Vec<Grab> = Vec::new();
        for r in &rows {
            let g = grab_from_row(r)?;
            let wanted = torrents.iter().any(|(i, h)| {
                *i == g.instance_id && g.info_hash.as_deref() == Some(&h.to_ascii_lowercase())
            });
            let seen = out
                .iter()
                .any(|o| o.instance_id == g.instance_id && o.info_hash == g.info_hash);
            if wanted && !seen {
                out.push(g);
            }
        }
        Ok(out)
    }

    /// Grabs, newest first, narrowed by what `filter` names, at most `limit`.
    pub async fn grab_history(&self, filter: &GrabFilter, limit: u32) -> Result<Vec<Grab>, Error> {
        let mut sql = String::from(
            "SELECT instance_id, info_hash, release, media, title, indexer, person_id, request_id, grabbed_at \
             FROM download_history WHERE 1 = 1",
        );
        let mut binds: Vec<String> = Vec::new();
        if let Some(m) = &filter.media {
            sql.push_str(" AND media = ?");
            binds.push(m.clone());
        }
        if let Some(i) = &filter.instance_id {
            sql.push_str(" AND instance_id = ?");
            binds.push(i.clone());
        }
        if let Some(ids) = &filter.instance_ids {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            sql.push_str(" AND instance_id IN (");
            sql.push_str(&vec!["?"; ids.len()].join(", "));
            sql.push(')');
            binds.extend(ids.iter().cloned());
        }
        if let Some(h) = &filter.info_hash {
            sql.push_str(" AND info_hash = ?");
            binds.push(h.to_ascii_lowercase());
        }
        if filter.person_id.is_some() {
            sql.push_str(" AND person_id = ?");
        }
        if filter.request_id.is_some() {
            sql.push_str(" AND request_id = ?");
        }
        sql.push_str(" ORDER BY grabbed_at DESC, id DESC LIMIT ?");
        let mut query = sqlx::query(&sql);
        for b in &binds {
            query = query.bind(b);
        }
        if let Some(p) = filter.person_id {
            query = query.bind(p.0);
        }
        if let Some(r) = filter.request_id {
            query = query.bind(r);
        }
        let rows = query.bind(i64::from(limit)).fetch_all(self.pool()).await?;
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
