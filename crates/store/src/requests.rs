//! Requests for titles: who asked for what (a movie, or seasons of a show), where each stands, and
//! who decided. Creating one checks the duplicates and the quotas and charges them in one
//! `BEGIN IMMEDIATE` transaction, so concurrent requests queue for the write lock and two of them
//! can never both pass the last unit of a quota.

use std::collections::BTreeSet;

use domain::{MediaId, MediaSource, MediaType, PersonId, Role};
use serde::{Deserialize, Serialize};
use sqlx::{FromRow, sqlite::SqliteRow};
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::{
    Error, Store,
    error::{UnknownStatus, corrupt},
    now_ms, pages,
    quotas::{QuotaCheck, check_in, parse_media_type},
};

/// Most rows `requests_page` reads: a page of 200 (the tools' largest) and the one row more that
/// tells a keyset page whether another follows (`tools::contract::keyset_page`).
const MAX_ROWS: u32 = 201;

/// Where a request stands.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownStatus,
    parse_err_fn = unknown_status
)]
pub enum RequestStatus {
    /// Waiting for an admin's decision.
    Pending,
    /// Approved; handed to a library backend once one is configured.
    Approved,
    Rejected,
    /// In the library.
    Available,
    /// The library backend refused it.
    Failed,
}

impl RequestStatus {
    /// Every status, in declaration order.
    pub const ALL: [RequestStatus; RequestStatus::COUNT] = *RequestStatus::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    /// Statuses that count as "already requested" for a new request of the same title.
    pub const OPEN: [RequestStatus; 3] = [
        RequestStatus::Pending,
        RequestStatus::Approved,
        RequestStatus::Available,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

fn unknown_status(text: &str) -> UnknownStatus {
    UnknownStatus::new("request", text)
}

/// One request as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MediaRequest {
    pub id: i64,
    pub person: PersonId,
    pub person_name: String,
    pub media: MediaId,
    pub media_type: MediaType,
    pub title: String,
    pub year: Option<i32>,
    /// TV: the seasons asked for, ascending; empty for movies.
    pub seasons: Vec<u32>,
    pub status: RequestStatus,
    /// The catalogue instance the title was read from.
    pub instance_id: Option<String>,
    /// Quota units charged (0 for exempt people).
    pub units: u32,
    /// The deciding admin's name.
    pub decided_by: Option<String>,
    pub decision_note: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub decided_at: Option<i64>,
}

/// A request to create.
#[derive(Clone, Debug)]
pub struct NewRequest {
    pub person: PersonId,
    pub media: MediaId,
    pub media_type: MediaType,
    pub title: String,
    pub year: Option<i32>,
    /// TV: the seasons wanted (at least one); movies: empty.
    pub seasons: Vec<u32>,
    pub instance_id: Option<String>,
    /// Approved at once (an admin's own request).
    pub auto_approve: bool,
}

/// What `create_request` did.
#[derive(Clone, Debug)]
pub enum RequestOutcome {
    /// Created and charged. `already_covered` lists asked seasons that open requests already hold
    /// (left out of this one); `quota` is the check it passed.
    Created {
        request: Box<MediaRequest>,
        already_covered: Vec<u32>,
        quota: QuotaCheck,
    },
    /// Open requests already cover everything asked; nothing was created or charged.
    AlreadyRequested { open: Vec<MediaRequest> },
    /// The quotas refuse the selection; nothing was created or charged.
    QuotaExceeded(QuotaCheck),
}

/// A page of requests, newest first.
#[derive(Clone, Debug, Default)]
pub struct RequestQuery {
    pub person: Option<PersonId>,
    pub status: Option<RequestStatus>,
    pub media: Option<MediaId>,
    /// Only requests older than this id: the last id of the previous page.
    pub before_id: Option<i64>,
    /// `Some(true)`: only archived requests; `Some(false)`: none of them; `None`: both.
    pub archived: Option<bool>,
    /// Clamped to 1..=201 (a page of 200 and one row more).
    pub limit: u32,
}

const REQUEST_COLUMNS: &str = "r.id, r.person_id, p.name AS person_name, r.media_source, \
    r.media_id, r.media_type, r.title, r.year, r.seasons, r.status, r.instance_id, r.units, \
    d.name AS decided_by, r.decision_note, r.created_at, r.updated_at, r.decided_at";

const REQUEST_FROM: &str =
    "FROM requests r JOIN people p ON p.id = r.person_id LEFT JOIN people d ON d.id = r.decided_by";

/// The result columns of [`REQUEST_COLUMNS`], in the order [`RequestRow`] reads them.
const PAGE_COLUMNS: &[&str] = &[
    "id",
    "person_id",
    "person_name",
    "media_source",
    "media_id",
    "media_type",
    "title",
    "year",
    "seasons",
    "status",
    "instance_id",
    "units",
    "decided_by",
    "decision_note",
    "created_at",
    "updated_at",
    "decided_at",
];

/// A request's columns ([`REQUEST_COLUMNS`]) as stored, read from a row (sqlx's, or on a page a
/// reader's, `pages.rs`) or from a page's JSON array ([`PAGE_COLUMNS`], in order);
/// [`RequestRow::request`] is the one way to a request.
#[derive(Deserialize, FromRow)]
struct RequestRow {
    id: i64,
    person_id: i64,
    person_name: String,
    media_source: String,
    media_id: String,
    media_type: String,
    title: String,
    year: Option<i32>,
    seasons: String,
    status: String,
    instance_id: Option<String>,
    units: i64,
    decided_by: Option<String>,
    decision_note: Option<String>,
    created_at: i64,
    updated_at: i64,
    decided_at: Option<i64>,
}

impl RequestRow {
    fn request(self) -> Result<MediaRequest, Error> {
        Ok(MediaRequest {
            id: self.id,
            person: PersonId(self.person_id),
            person_name: self.person_name,
            media: MediaId::new(
                self.media_source.parse::<MediaSource>().map_err(corrupt)?,
                self.media_id,
            ),
            media_type: parse_media_type(&self.media_type)?,
            title: self.title,
            year: self.year,
            seasons: serde_json::from_str(&self.seasons)
                .map_err(|e| corrupt(format!("stored seasons are not a JSON list: {e}")))?,
            status: self.status.parse().map_err(corrupt)?,
            instance_id: self.instance_id,
            units: u32::try_from(self.units).map_err(|e| corrupt(e.to_string()))?,
            decided_by: self.decided_by,
            decision_note: self.decision_note,
            created_at: self.created_at,
            updated_at: self.updated_at,
            decided_at: self.decided_at,
        })
    }
}

fn request_from_row(row: &SqliteRow) -> Result<MediaRequest, Error> {
    RequestRow::from_row(row)?.request()
}

fn open_statuses() -> String {
    RequestStatus::OPEN
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

async fn open_requests_in(
    conn: &mut sqlx::SqliteConnection,
    media: &MediaId,
) -> Result<Vec<MediaRequest>, Error> {
    let sql = format!(
        "SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE r.media_source = ? AND r.media_id = ? \
         AND r.status IN ({}) ORDER BY r.id",
        open_statuses()
    );
    let rows = sqlx::query(&sql)
        .bind(media.media_source.as_str())
        .bind(&media.media_id)
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(request_from_row).collect()
}

impl Store {
    /// Creates a request after checking, in one write transaction, that open requests do not
    /// already cover it and that the person's quotas allow it, and charges the quotas.
    /// `NotFound` for an unknown person, `Invalid` for a TV request without seasons.
    pub async fn create_request(&self, new: &NewRequest) -> Result<RequestOutcome, Error> {
        let asked: BTreeSet<u32> = new.seasons.iter().copied().collect();
        if new.media_type == MediaType::Tv && asked.is_empty() {
            return Err(Error::Invalid(
                "a tv request needs at least one season".into(),
            ));
        }
        if new.media_type != MediaType::Tv && !asked.is_empty() {
            return Err(Error::Invalid("only tv requests take seasons".into()));
        }
        // IMMEDIATE takes the write lock first: concurrent requests queue here, so the quota read
        // below always sees every earlier charge.
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let role: String = sqlx::query_scalar("SELECT role FROM people WHERE id = ?")
            .bind(new.person.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no person with id {}", new.person)))?;
        let role: Role = role.parse().map_err(corrupt)?;
        let open = open_requests_in(&mut tx, &new.media).await?;
        let covered: BTreeSet<u32> = open
            .iter()
            .flat_map(|r| r.seasons.iter().copied())
            .collect();
        let wanted: Vec<u32> = asked.difference(&covered).copied().collect();
        let already_covered: Vec<u32> = asked.intersection(&covered).copied().collect();
        let nothing_new = if new.media_type == MediaType::Tv {
            wanted.is_empty()
        } else {
            !open.is_empty()
        };
        if nothing_new {
            return Ok(RequestOutcome::AlreadyRequested { open });
        }
        let units = if new.media_type == MediaType::Tv {
            wanted.len() as u32
        } else {
            1
        };
        let now = now_ms();
        let quota = check_in(&mut tx, new.person, role, new.media_type, units, now).await?;
        if !quota.fits_now() {
            // Dropping the transaction rolls it back: nothing is created.
            return Ok(RequestOutcome::QuotaExceeded(quota));
        }
        let charged = if quota.exempt { 0 } else { units };
        let status = if new.auto_approve {
            RequestStatus::Approved
        } else {
            RequestStatus::Pending
        };
        let seasons = serde_json::to_string(&wanted).expect("a list of numbers serialises");
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO requests (person_id, media_source, media_id, media_type, title, year, \
             seasons, status, instance_id, units, decided_by, decision_note, created_at, \
             updated_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?) \
             RETURNING id",
        )
        .bind(new.person.0)
        .bind(new.media.media_source.as_str())
        .bind(&new.media.media_id)
        .bind(new.media_type.as_str())
        .bind(&new.title)
        .bind(new.year)
        .bind(seasons)
        .bind(status.as_str())
        .bind(&new.instance_id)
        .bind(i64::from(charged))
        .bind(new.auto_approve.then_some(new.person.0))
        .bind(now)
        .bind(now)
        .bind(new.auto_approve.then_some(now))
        .fetch_one(&mut *tx)
        .await?;
        if charged > 0 {
            sqlx::query(
                "INSERT INTO quota_charges (person_id, request_id, media_type, units, at) \
                 VALUES (?, ?, ?, ?, ?)",
            )
            .bind(new.person.0)
            .bind(id)
            .bind(new.media_type.as_str())
            .bind(i64::from(charged))
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        let sql = format!("SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE r.id = ?");
        let request = request_from_row(&sqlx::query(&sql).bind(id).fetch_one(&mut *tx).await?)?;
        crate::audit::prove_on(&mut tx, &format!("request {id} was created")).await?;
        tx.commit().await?;
        Ok(RequestOutcome::Created {
            request: Box::new(request),
            already_covered,
            quota,
        })
    }

    /// One request by id.
    pub async fn request(&self, id: i64) -> Result<Option<MediaRequest>, Error> {
        let sql = format!("SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE r.id = ?");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(request_from_row).transpose()
    }

    /// Open (pending, approved or available) requests of a title, oldest first.
    pub async fn open_requests_for(&self, media: &MediaId) -> Result<Vec<MediaRequest>, Error> {
        let mut conn = self.pool().acquire().await?;
        open_requests_in(&mut conn, media).await
    }

    /// A page of requests, newest first.
    pub async fn requests_page(&self, query: &RequestQuery) -> Result<Vec<MediaRequest>, Error> {
        let mut sql = pages::select(
            PAGE_COLUMNS,
            &format!("{REQUEST_COLUMNS} {REQUEST_FROM} WHERE 1 = 1"),
        );
        if let Some(person) = query.person {
            sql.push(" AND r.person_id = ").push_bind(person.0);
        }
        if let Some(status) = query.status {
            sql.push(" AND r.status = ").push_bind(status.as_str());
        }
        if let Some(media) = &query.media {
            sql.push(" AND r.media_source = ")
                .push_bind(media.media_source.as_str())
                .push(" AND r.media_id = ")
                .push_bind(media.media_id.clone());
        }
        if let Some(before) = query.before_id {
            sql.push(" AND r.id < ").push_bind(before);
        }
        match query.archived {
            Some(true) => {
                sql.push(" AND r.archived_at IS NOT NULL");
            }
            Some(false) => {
                sql.push(" AND r.archived_at IS NULL");
            }
            None => {}
        }
        sql.push(" ORDER BY r.id DESC LIMIT ")
            .push_bind(i64::from(query.limit.clamp(1, MAX_ROWS)));
        let rows = pages::fetch(sql, self, |r: &RequestRow| r.id).await?;
        rows.into_iter().map(RequestRow::request).collect()
    }

    /// Approves or rejects a pending request; a rejection gives its quota units back.
    /// `NotFound` for an unknown id, `Conflict` when it is not pending.
    pub async fn decide_request(
        &self,
        id: i64,
        decider: PersonId,
        approve: bool,
        note: Option<&str>,
    ) -> Result<MediaRequest, Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM requests WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        match status.as_deref() {
            None => return Err(Error::NotFound(format!("no request with id {id}"))),
            Some(s) if s.parse() == Ok(RequestStatus::Pending) => {}
            Some(other) => {
                return Err(Error::Conflict(format!(
                    "request {id} is already {other}; only pending requests can be decided"
                )));
            }
        }
        let now = now_ms();
        let status = if approve {
            RequestStatus::Approved
        } else {
            RequestStatus::Rejected
        };
        sqlx::query(
            "UPDATE requests SET status = ?, decided_by = ?, decision_note = ?, decided_at = ?, \
             updated_at = ? WHERE id = ?",
        )
        .bind(status.as_str())
        .bind(decider.0)
        .bind(note)
        .bind(now)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if !approve {
            sqlx::query("DELETE FROM quota_charges WHERE request_id = ?")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        let sql = format!("SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE r.id = ?");
        let request = request_from_row(&sqlx::query(&sql).bind(id).fetch_one(&mut *tx).await?)?;
        let proof = format!("request {id} was {}", status.as_str());
        crate::audit::prove_on(&mut tx, &proof).await?;
        tx.commit().await?;
        Ok(request)
    }

    /// Whether request `id` is archived; `None` when there is no such request.
    pub async fn request_archived(&self, id: i64) -> Result<Option<bool>, Error> {
        let at: Option<Option<i64>> =
            sqlx::query_scalar("SELECT archived_at FROM requests WHERE id = ?")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(at.map(|a| a.is_some()))
    }

    /// Archives (or restores) request `id`; `false` when it was already so or is gone.
    pub async fn set_request_archived(&self, id: i64, archived: bool) -> Result<bool, Error> {
        let done = sqlx::query(
            "UPDATE requests SET archived_at = ?, updated_at = ? WHERE id = ? \
             AND (archived_at IS NULL) = ?",
        )
        .bind(archived.then(now_ms))
        .bind(now_ms())
        .bind(id)
        .bind(archived)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// How many requests are in a status (all people).
    pub async fn count_requests(&self, status: RequestStatus) -> Result<u64, Error> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM requests WHERE status = ?")
            .bind(status.as_str())
            .fetch_one(self.pool())
            .await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
