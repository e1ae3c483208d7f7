//! Allowances: a grant's finite counts per window (adds per day, destructive operations per
//! week...), spent by a person. A unit is reserved in the same `BEGIN IMMEDIATE` transaction
//! that writes the call's audit entry, before the external call, so concurrent calls queue for
//! the write lock and never spend more than the count. A call that certainly did nothing gives
//! its unit back; an uncertain outcome keeps it.

use std::{collections::BTreeMap, sync::Arc};

use domain::{AllowanceKind, AllowanceRule, PersonId};
use serde::Serialize;
use sqlx::SqliteConnection;

use crate::{
    AuditId, AuditStatus, Error, NewAudit, Store, audit::insert_audit, fresh::Charges, now_ms,
};

const DAY_MS: i64 = 86_400_000;

/// One allowance as it stands for a person right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AllowanceLeft {
    pub kind: AllowanceKind,
    pub count: u32,
    pub days: u32,
    /// Units spent inside the window.
    pub used: u32,
    pub left: u32,
    /// When the next spent unit comes back (unix ms); `None` when none is spent.
    pub refills_at: Option<i64>,
    /// The first instant (unix ms) this reads differently without a new charge: when the
    /// oldest charge it counts leaves the window. `None`: only a write changes it.
    #[serde(skip)]
    pub changes_at: Option<i64>,
}

/// What [`Store::audit_begin_reserving`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reserved {
    /// The unit is reserved and the audit entry written.
    Begun(AuditId),
    /// Nothing was written: the allowance is spent.
    Exhausted(AllowanceLeft),
}

/// The `at` of every charge of `kind` to `person` after `since`, oldest first.
async fn charges_on(
    conn: &mut SqliteConnection,
    person: PersonId,
    kind: AllowanceKind,
    since: i64,
) -> Result<Vec<i64>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT at FROM allowance_charges WHERE person_id = ? AND kind = ? AND at > ? ORDER BY at",
    )
    .bind(person.0)
    .bind(kind.as_str())
    .bind(since)
    .fetch_all(&mut *conn)
    .await?)
}

fn window_ms(rule: AllowanceRule) -> i64 {
    i64::from(rule.days) * DAY_MS
}

/// The allowance `kind` under `rule` at `now`, from charges read at or before `now` (oldest
/// first; those outside the window are left out here).
fn left_from(kind: AllowanceKind, rule: AllowanceRule, charges: &[i64], now: i64) -> AllowanceLeft {
    let window = window_ms(rule);
    let spent = &charges[charges.partition_point(|at| *at <= now - window)..];
    let used = u32::try_from(spent.len()).unwrap_or(u32::MAX);
    // With more spent than the count (the owner lowered it), units come back oldest first
    // until one is free: the (used - count)th oldest charge.
    let next = (used.saturating_sub(rule.count)) as usize;
    AllowanceLeft {
        kind,
        count: rule.count,
        days: rule.days,
        used,
        left: rule.count.saturating_sub(used),
        refills_at: spent.get(next).map(|at| at + window),
        changes_at: spent.first().map(|at| at + window),
    }
}

/// The allowance `kind` under `rule` for `person`, read on `conn` at `now`.
async fn left_on(
    conn: &mut SqliteConnection,
    person: PersonId,
    kind: AllowanceKind,
    rule: AllowanceRule,
    now: i64,
) -> Result<AllowanceLeft, Error> {
    let charges = charges_on(conn, person, kind, now - window_ms(rule)).await?;
    Ok(left_from(kind, rule, &charges, now))
}

/// Inside a `BEGIN IMMEDIATE` transaction: when a unit of `kind` under `rule` is left for the
/// entry's person, writes the entry as `executing` and charges the unit to it; otherwise writes
/// nothing (the caller rolls back).
pub(crate) async fn reserve_on(
    conn: &mut SqliteConnection,
    entry: &NewAudit,
    kind: AllowanceKind,
    rule: AllowanceRule,
) -> Result<Reserved, Error> {
    reserve_on_at(conn, entry, kind, rule, now_ms()).await
}

/// [`reserve_on`] at `now` (unix ms).
async fn reserve_on_at(
    conn: &mut SqliteConnection,
    entry: &NewAudit,
    kind: AllowanceKind,
    rule: AllowanceRule,
    now: i64,
) -> Result<Reserved, Error> {
    let state = left_on(conn, entry.person, kind, rule, now).await?;
    if state.left == 0 {
        return Ok(Reserved::Exhausted(state));
    }
    let id = insert_audit(conn, entry).await?;
    sqlx::query(
        "INSERT INTO allowance_charges (person_id, kind, audit_id, at) VALUES (?, ?, ?, ?)",
    )
    .bind(entry.person.0)
    .bind(kind.as_str())
    .bind(id.0)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(Reserved::Begun(id))
}

/// Gives back the unit charged to the audit entry `audit_id`, if any: its call certainly did
/// nothing.
pub(crate) async fn release_on(conn: &mut SqliteConnection, audit_id: i64) -> Result<(), Error> {
    sqlx::query("DELETE FROM allowance_charges WHERE audit_id = ?")
        .bind(audit_id)
        .execute(conn)
        .await?;
    Ok(())
}

impl Store {
    /// Reserves one unit of `kind` under `rule` for the entry's person and, in the same
    /// transaction, records the call as `executing`. Call it before any external effect.
    pub async fn audit_begin_reserving(
        &self,
        entry: &NewAudit,
        kind: AllowanceKind,
        rule: AllowanceRule,
    ) -> Result<Reserved, Error> {
        self.reserve_at(entry, kind, rule, now_ms()).await
    }

    /// [`Store::audit_begin_reserving`] at `now` (unix ms). The window slides: it counts the
    /// charges of the last `rule.days` days before `now`, not those of a calendar period.
    async fn reserve_at(
        &self,
        entry: &NewAudit,
        kind: AllowanceKind,
        rule: AllowanceRule,
        now: i64,
    ) -> Result<Reserved, Error> {
        // IMMEDIATE takes the write lock first: concurrent reservations queue here, so the
        // count below always sees every earlier charge.
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let reserved = reserve_on_at(&mut tx, entry, kind, rule, now).await?;
        match reserved {
            Reserved::Begun(_) => tx.commit().await?,
            Reserved::Exhausted(_) => tx.rollback().await?,
        }
        Ok(reserved)
    }

    /// Finishes an executing entry as `failed` for a call that certainly did nothing, and gives
    /// back the allowance unit it reserved, in one transaction.
    pub async fn audit_fail_released(&self, id: AuditId, message: &str) -> Result<(), Error> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        crate::audit::finish_on(&mut tx, id, AuditStatus::Failed, Some(message)).await?;
        release_on(&mut tx, id.0).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every allowance of `allowances` as it stands for `person` now, in kind order.
    pub async fn allowances_left(
        &self,
        person: PersonId,
        allowances: &BTreeMap<AllowanceKind, AllowanceRule>,
    ) -> Result<Vec<AllowanceLeft>, Error> {
        self.allowances_left_at(person, allowances, now_ms()).await
    }

    /// [`Store::allowances_left`] at `now` (unix ms). Each allowance's charges are answered from
    /// memory while the database is unchanged since they were last read (at or before `now`).
    async fn allowances_left_at(
        &self,
        person: PersonId,
        allowances: &BTreeMap<AllowanceKind, AllowanceRule>,
        now: i64,
    ) -> Result<Vec<AllowanceLeft>, Error> {
        if allowances.is_empty() {
            return Ok(Vec::new());
        }
        // The token is read before the database: a commit in between only causes a re-read.
        let token = self.version();
        let mut conn = None;
        let mut out = Vec::with_capacity(allowances.len());
        for (&kind, &rule) in allowances {
            let key = (person, kind, rule.days);
            let cached = token
                .and_then(|t| self.fresh().allowance(t, key))
                .filter(|c| c.read_at <= now);
            let charges = match cached {
                Some(charges) => charges,
                None => {
                    let conn = match &mut conn {
                        Some(c) => c,
                        None => conn.insert(self.pool().acquire().await?),
                    };
                    let at = charges_on(conn, person, kind, now - window_ms(rule)).await?;
                    let read = Arc::new(Charges { at, read_at: now });
                    if let Some(t) = token {
                        self.fresh().put_allowance(t, key, read.clone());
                    }
                    read
                }
            };
            out.push(left_from(kind, rule, &charges.at, now));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR_MS: i64 = 3_600_000;
    /// 2026-12-01T23:00:00Z: late in a calendar day, so a fixed daily window would reset soon.
    const T0: i64 = 1_796_166_000_000;

    async fn fixture() -> (Store, NewAudit) {
        let store = Store::open_in_memory().await.unwrap();
        let (owner, _) = store.bootstrap_owner("owner").await.unwrap().unwrap();
        let entry = NewAudit {
            person: owner.id,
            key_id: None,
            tool: "grab_release".into(),
            instance: Some("radarr".into()),
            args_digest: "d".into(),
        };
        (store, entry)
    }

    async fn left_at(
        store: &Store,
        person: PersonId,
        rule: AllowanceRule,
        now: i64,
    ) -> AllowanceLeft {
        let mut conn = store.pool().acquire().await.unwrap();
        left_on(&mut conn, person, AllowanceKind::Grabs, rule, now)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn the_window_slides_over_the_last_days_not_a_calendar_period() {
        let (store, entry) = fixture().await;
        let rule = AllowanceRule { count: 2, days: 1 };
        let grab = |at| store.reserve_at(&entry, AllowanceKind::Grabs, rule, at);
        assert!(matches!(grab(T0).await.unwrap(), Reserved::Begun(_)));
        assert!(matches!(
            grab(T0 + HOUR_MS / 2).await.unwrap(),
            Reserved::Begun(_)
        ));
        // Past midnight both charges still count: they are less than a day old.
        let Reserved::Exhausted(left) = grab(T0 + 2 * HOUR_MS).await.unwrap() else {
            panic!("a third grab within a day must be refused");
        };
        assert_eq!((left.used, left.left), (2, 0));
        assert_eq!(left.refills_at, Some(T0 + 24 * HOUR_MS));
        // A day after the first charge, that one unit (and only it) is back.
        let left = left_at(&store, entry.person, rule, T0 + 24 * HOUR_MS).await;
        assert_eq!((left.used, left.left), (1, 1));
        assert_eq!(left.refills_at, Some(T0 + HOUR_MS / 2 + 24 * HOUR_MS));
        assert!(matches!(
            grab(T0 + 24 * HOUR_MS).await.unwrap(),
            Reserved::Begun(_)
        ));
        assert!(matches!(
            grab(T0 + 24 * HOUR_MS + 1).await.unwrap(),
            Reserved::Exhausted(_)
        ));
    }

    #[tokio::test]
    async fn a_lowered_count_refills_from_the_oldest_charge_until_one_is_free() {
        let (store, entry) = fixture().await;
        let wide = AllowanceRule { count: 3, days: 7 };
        for h in [0, 1, 2] {
            let at = T0 + h * HOUR_MS;
            let begun = store.reserve_at(&entry, AllowanceKind::Grabs, wide, at);
            assert!(matches!(begun.await.unwrap(), Reserved::Begun(_)));
        }
        let narrow = AllowanceRule { count: 1, days: 7 };
        let left = left_at(&store, entry.person, narrow, T0 + 3 * HOUR_MS).await;
        assert_eq!((left.used, left.left), (3, 0));
        // With a count of one, all three charges must expire before a unit is free: the
        // newest of them decides.
        assert_eq!(left.refills_at, Some(T0 + 2 * HOUR_MS + 7 * 24 * HOUR_MS));
        // But what it reads (`used`) changes when the oldest of them leaves the window.
        assert_eq!(left.changes_at, Some(T0 + 7 * 24 * HOUR_MS));
        let later = left_at(&store, entry.person, narrow, T0 + 7 * 24 * HOUR_MS).await;
        assert_eq!(
            (later.used, later.changes_at),
            (2, Some(T0 + HOUR_MS + 7 * 24 * HOUR_MS))
        );
        let none = left_at(&store, entry.person, narrow, T0 + 10 * 24 * HOUR_MS).await;
        assert_eq!(
            (none.used, none.changes_at),
            (0, None),
            "nothing counted, nothing leaves"
        );
    }

    #[tokio::test]
    async fn a_kept_read_slides_with_time_and_is_never_used_for_an_earlier_instant() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let (owner, _) = store.bootstrap_owner("owner").await.unwrap().unwrap();
        let entry = NewAudit {
            person: owner.id,
            key_id: None,
            tool: "grab_release".into(),
            instance: None,
            args_digest: "d".into(),
        };
        let rule = AllowanceRule { count: 2, days: 1 };
        let begun = store.reserve_at(&entry, AllowanceKind::Grabs, rule, T0);
        assert!(matches!(begun.await.unwrap(), Reserved::Begun(_)));
        let rules = BTreeMap::from([(AllowanceKind::Grabs, rule)]);
        let at = async |now| {
            let all = store
                .allowances_left_at(owner.id, &rules, now)
                .await
                .unwrap();
            let a = all[0];
            (a.used, a.left, a.refills_at)
        };
        assert_eq!(at(T0 + HOUR_MS).await, (1, 1, Some(T0 + 24 * HOUR_MS)));
        // The database is unchanged: the same read, a day later, has the charge expired.
        assert_eq!(at(T0 + 24 * HOUR_MS).await, (0, 2, None));
        assert_eq!(at(T0 + 25 * HOUR_MS).await, (0, 2, None));
        // Read at an instant after it had expired, the charge is not in the kept read, so an
        // earlier instant is read again.
        let dir2 = tempfile::tempdir().unwrap();
        let later = Store::open(dir2.path()).await.unwrap();
        let (owner2, _) = later.bootstrap_owner("owner").await.unwrap().unwrap();
        let entry2 = NewAudit {
            person: owner2.id,
            ..entry
        };
        let begun = later.reserve_at(&entry2, AllowanceKind::Grabs, rule, T0);
        assert!(matches!(begun.await.unwrap(), Reserved::Begun(_)));
        let at2 = async |now| {
            let all = later
                .allowances_left_at(owner2.id, &rules, now)
                .await
                .unwrap();
            (all[0].used, all[0].left)
        };
        assert_eq!(at2(T0 + 25 * HOUR_MS).await, (0, 2));
        assert_eq!(at2(T0 + HOUR_MS).await, (1, 1));
    }
}
