//! Request quotas: at most N units of a media type per window of 1, 7 or 30 days (a movie, a TV
//! season, an album and a book are one unit each), set per role as the default and per person as an override.
//! Owners and admins are exempt. Charges are written with the request, in one transaction (see
//! `requests.rs`); this module holds the rules, the charges' arithmetic and the read-only preview.

use std::sync::Arc;

use domain::{MediaType, PersonId, Role};
use serde::Serialize;
use sqlx::{Row, SqliteConnection, sqlite::SqliteRow};

use crate::{Error, Store, error::corrupt, now_ms};

/// The media types a quota may count, in the order they are shown.
pub const QUOTA_MEDIA_TYPES: [MediaType; 4] = [
    MediaType::Movie,
    MediaType::Tv,
    MediaType::Music,
    MediaType::Book,
];

/// The windows a quota may count over, in days.
pub const QUOTA_WINDOWS: [u32; 3] = [1, 7, 30];

const DAY_MS: i64 = 86_400_000;

/// Whom a quota applies to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuotaScope {
    /// Everyone with this role who has no quota of their own for the media type.
    Role { role: Role },
    /// One person; replaces the role's quotas of the same media type.
    Person { person: PersonId, name: String },
}

/// One quota: at most `units` of `media_type` per `window_days`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuotaRule {
    pub scope: QuotaScope,
    pub media_type: MediaType,
    pub units: u32,
    pub window_days: u32,
}

/// When a selection fits a quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fits", content = "at", rename_all = "snake_case")]
pub enum Fit {
    Now,
    /// From this instant (unix ms), when earlier charges leave the window.
    At(i64),
    /// Never: the selection is larger than the quota itself.
    Never,
}

/// One quota as it stands for a person right now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Allowance {
    pub rule: QuotaRule,
    /// Units charged inside the window.
    pub used: u32,
    pub remaining: u32,
    /// When the asked units fit this quota alone.
    pub fit: Fit,
}

/// A person's quotas against a selection of `requested_units`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuotaCheck {
    /// Owners and admins: no quota applies.
    pub exempt: bool,
    pub media_type: MediaType,
    pub requested_units: u32,
    /// Every quota that applies (empty: unlimited).
    pub allowances: Vec<Allowance>,
    /// When the whole selection fits every quota.
    pub fit: Fit,
    /// The most units that would fit now; `None` when unlimited.
    pub max_units_now: Option<u32>,
    /// The first instant (unix ms) this check would read differently without a new charge:
    /// when a charge it counts leaves its window. `None`: only a write changes it.
    #[serde(skip)]
    pub changes_at: Option<i64>,
}

impl QuotaCheck {
    pub fn fits_now(&self) -> bool {
        self.fit == Fit::Now
    }
}

pub(crate) fn parse_media_type(s: &str) -> Result<MediaType, Error> {
    s.parse()
        .map_err(|_| corrupt(format!("stored media type \"{s}\"")))
}

fn rule_from_row(row: &SqliteRow) -> Result<QuotaRule, Error> {
    let role: Option<String> = row.try_get("role")?;
    let person: Option<i64> = row.try_get("person_id")?;
    let scope = match (role, person) {
        (Some(r), None) => QuotaScope::Role {
            role: r.parse().map_err(corrupt)?,
        },
        (None, Some(p)) => QuotaScope::Person {
            person: PersonId(p),
            name: row
                .try_get::<Option<String>, _>("person_name")?
                .unwrap_or_default(),
        },
        _ => {
            return Err(corrupt(
                "a quota rule names both or neither a role and a person",
            ));
        }
    };
    let media_type: String = row.try_get("media_type")?;
    Ok(QuotaRule {
        scope,
        media_type: parse_media_type(&media_type)?,
        units: u32::try_from(row.try_get::<i64, _>("units")?)
            .map_err(|e| corrupt(e.to_string()))?,
        window_days: u32::try_from(row.try_get::<i64, _>("window_days")?)
            .map_err(|e| corrupt(e.to_string()))?,
    })
}

const RULE_COLUMNS: &str =
    "q.role, q.person_id, p.name AS person_name, q.media_type, q.units, q.window_days";

fn check_rule_input(media_type: MediaType, window_days: u32) -> Result<(), Error> {
    if !QUOTA_MEDIA_TYPES.contains(&media_type) {
        return Err(Error::Invalid(format!(
            "quotas count movie, tv, music and book, not {}",
            media_type.as_str()
        )));
    }
    if !QUOTA_WINDOWS.contains(&window_days) {
        return Err(Error::Invalid(format!(
            "a quota window is 1, 7 or 30 days, not {window_days}"
        )));
    }
    Ok(())
}

/// The quotas that apply to a person for a media type: their own when they have any, else their role's.
pub(crate) async fn rules_for(
    conn: &mut SqliteConnection,
    person: PersonId,
    role: Role,
    media_type: MediaType,
) -> Result<Vec<QuotaRule>, Error> {
    let sql = format!(
        "SELECT {RULE_COLUMNS} FROM quota_rules q LEFT JOIN people p ON p.id = q.person_id \
         WHERE q.media_type = ? AND (q.person_id = ? OR q.role = ?) ORDER BY q.window_days"
    );
    let rows = sqlx::query(&sql)
        .bind(media_type.as_str())
        .bind(person.0)
        .bind(role.as_str())
        .fetch_all(&mut *conn)
        .await?;
    let rules: Vec<QuotaRule> = rows.iter().map(rule_from_row).collect::<Result<_, _>>()?;
    let own: Vec<QuotaRule> = rules
        .iter()
        .filter(|r| matches!(r.scope, QuotaScope::Person { .. }))
        .cloned()
        .collect();
    Ok(if own.is_empty() { rules } else { own })
}

/// What [`check_in`] reads: the quotas that apply to a person for one media type and the
/// charges inside the widest of their windows as of `read_at`. Evaluated at a later `now`, it
/// is exact while the database is unchanged (a charge too old for a window then is too old
/// for it later), so `quota_check` keeps it in the store's fresh reads.
#[derive(Debug)]
pub(crate) struct QuotaRead {
    exempt: bool,
    rules: Vec<QuotaRule>,
    /// (at, units), oldest first.
    charges: Vec<(i64, u32)>,
    pub(crate) read_at: i64,
}

impl QuotaRead {
    fn evaluate(&self, media_type: MediaType, units: u32, now: i64) -> QuotaCheck {
        evaluate(
            self.exempt,
            media_type,
            &self.rules,
            &self.charges,
            units,
            now,
        )
    }
}

/// Reads a person's quotas and charges inside an open connection or transaction.
async fn read_in(
    conn: &mut SqliteConnection,
    person: PersonId,
    role: Role,
    media_type: MediaType,
    now: i64,
) -> Result<QuotaRead, Error> {
    if role.is_admin() {
        return Ok(QuotaRead {
            exempt: true,
            rules: Vec::new(),
            charges: Vec::new(),
            read_at: now,
        });
    }
    let rules = rules_for(conn, person, role, media_type).await?;
    let widest = rules.iter().map(|r| r.window_days).max().unwrap_or(0);
    let charges: Vec<(i64, u32)> = if rules.is_empty() {
        Vec::new()
    } else {
        let rows = sqlx::query(
            "SELECT at, units FROM quota_charges WHERE person_id = ? AND media_type = ? \
             AND at > ? ORDER BY at, id",
        )
        .bind(person.0)
        .bind(media_type.as_str())
        .bind(now - i64::from(widest) * DAY_MS)
        .fetch_all(&mut *conn)
        .await?;
        rows.iter()
            .map(|r| {
                let units: i64 = r.try_get("units")?;
                Ok((r.try_get("at")?, u32::try_from(units).unwrap_or(0)))
            })
            .collect::<Result<_, Error>>()?
    };
    Ok(QuotaRead {
        exempt: false,
        rules,
        charges,
        read_at: now,
    })
}

/// Checks `units` against a person's quotas inside an open connection or transaction.
pub(crate) async fn check_in(
    conn: &mut SqliteConnection,
    person: PersonId,
    role: Role,
    media_type: MediaType,
    units: u32,
    now: i64,
) -> Result<QuotaCheck, Error> {
    let read = read_in(conn, person, role, media_type, now).await?;
    Ok(read.evaluate(media_type, units, now))
}

/// The arithmetic: `charges` are (at, units), oldest first, covering the widest window.
pub(crate) fn evaluate(
    exempt: bool,
    media_type: MediaType,
    rules: &[QuotaRule],
    charges: &[(i64, u32)],
    units: u32,
    now: i64,
) -> QuotaCheck {
    let allowances: Vec<Allowance> = rules
        .iter()
        .map(|rule| {
            let window = i64::from(rule.window_days) * DAY_MS;
            let inside: Vec<&(i64, u32)> = charges
                .iter()
                .filter(|(at, _)| *at > now - window)
                .collect();
            let used: u32 = inside.iter().map(|(_, u)| *u).sum();
            let remaining = rule.units.saturating_sub(used);
            let fit = if units <= remaining {
                Fit::Now
            } else if units > rule.units {
                Fit::Never
            } else {
                let need = used + units - rule.units;
                let mut freed = 0;
                inside
                    .iter()
                    .find_map(|(at, u)| {
                        freed += u;
                        (freed >= need).then_some(Fit::At(at + window))
                    })
                    .unwrap_or(Fit::Never)
            };
            Allowance {
                rule: rule.clone(),
                used,
                remaining,
                fit,
            }
        })
        .collect();
    let fit = allowances
        .iter()
        .fold(Fit::Now, |acc, a| match (acc, a.fit) {
            (Fit::Never, _) | (_, Fit::Never) => Fit::Never,
            (Fit::At(x), Fit::At(y)) => Fit::At(x.max(y)),
            (Fit::At(x), Fit::Now) | (Fit::Now, Fit::At(x)) => Fit::At(x),
            (Fit::Now, Fit::Now) => Fit::Now,
        });
    // Charges are oldest first: in each window, the first one counted leaves it first.
    let changes_at = rules
        .iter()
        .filter_map(|rule| {
            let window = i64::from(rule.window_days) * DAY_MS;
            charges
                .iter()
                .find(|(at, _)| *at > now - window)
                .map(|(at, _)| at + window)
        })
        .min();
    QuotaCheck {
        exempt,
        media_type,
        requested_units: units,
        changes_at,
        max_units_now: allowances.iter().map(|a| a.remaining).min(),
        allowances,
        fit,
    }
}

impl Store {
    /// Sets (or replaces) a quota. `Invalid` for a media type quotas do not count, or a window
    /// other than 1, 7 or 30 days; `NotFound` for an unknown person.
    pub async fn set_quota(
        &self,
        scope: &QuotaScope,
        media_type: MediaType,
        units: u32,
        window_days: u32,
    ) -> Result<(), Error> {
        check_rule_input(media_type, window_days)?;
        let (role, person, target) = match scope {
            QuotaScope::Role { role } => {
                (Some(role.as_str()), None, "role, media_type, window_days")
            }
            QuotaScope::Person { person, .. } => {
                (None, Some(person.0), "person_id, media_type, window_days")
            }
        };
        let sql = format!(
            "INSERT INTO quota_rules (role, person_id, media_type, units, window_days, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT ({target}) DO UPDATE SET \
             units = excluded.units, updated_at = excluded.updated_at"
        );
        sqlx::query(&sql)
            .bind(role)
            .bind(person)
            .bind(media_type.as_str())
            .bind(i64::from(units))
            .bind(i64::from(window_days))
            .bind(now_ms())
            .execute(self.pool())
            .await
            .map_err(|e| {
                if crate::error::is_foreign_key_violation(&e) {
                    Error::NotFound(format!("no person with id {}", person.unwrap_or(0)))
                } else {
                    Error::Database(e)
                }
            })?;
        Ok(())
    }

    /// Removes a scope's quotas, optionally only of one media type and one window; returns how many.
    pub async fn clear_quotas(
        &self,
        scope: &QuotaScope,
        media_type: Option<MediaType>,
        window_days: Option<u32>,
    ) -> Result<u64, Error> {
        let mut sql = sqlx::QueryBuilder::<sqlx::Sqlite>::new("DELETE FROM quota_rules WHERE ");
        match scope {
            QuotaScope::Role { role } => sql.push("role = ").push_bind(role.as_str()),
            QuotaScope::Person { person, .. } => sql.push("person_id = ").push_bind(person.0),
        };
        if let Some(t) = media_type {
            sql.push(" AND media_type = ").push_bind(t.as_str());
        }
        if let Some(d) = window_days {
            sql.push(" AND window_days = ").push_bind(i64::from(d));
        }
        Ok(sql.build().execute(self.pool()).await?.rows_affected())
    }

    /// Every quota: role defaults first, then people's own.
    pub async fn quota_rules(&self) -> Result<Vec<QuotaRule>, Error> {
        let sql = format!(
            "SELECT {RULE_COLUMNS} FROM quota_rules q LEFT JOIN people p ON p.id = q.person_id \
             ORDER BY q.person_id IS NOT NULL, q.role, p.name, q.media_type, q.window_days"
        );
        let rows = sqlx::query(&sql).fetch_all(self.pool()).await?;
        rows.iter().map(rule_from_row).collect()
    }

    /// A preview: how `units` of `media_type` stand against a person's quotas now. Reserves nothing.
    pub async fn quota_check(
        &self,
        person: PersonId,
        media_type: MediaType,
        units: u32,
    ) -> Result<QuotaCheck, Error> {
        self.quota_check_at(person, media_type, units, now_ms(), self.version())
            .await
    }

    /// [`Store::quota_check`] at `now` (unix ms). Answered from memory while the database is
    /// unchanged since the person's quotas and charges were last read (at or before `now`).
    /// `token` is the database's state, read before the database: a commit in between only
    /// causes a re-read.
    async fn quota_check_at(
        &self,
        person: PersonId,
        media_type: MediaType,
        units: u32,
        now: i64,
        token: Option<crate::Version>,
    ) -> Result<QuotaCheck, Error> {
        let cached = token
            .and_then(|t| self.fresh().quota(t, (person, media_type)))
            .filter(|read| read.read_at <= now);
        if let Some(read) = cached {
            return Ok(read.evaluate(media_type, units, now));
        }
        let mut conn = self.pool().acquire().await?;
        let role: String = sqlx::query_scalar("SELECT role FROM people WHERE id = ?")
            .bind(person.0)
            .fetch_optional(&mut *conn)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no person with id {person}")))?;
        let role: Role = role.parse().map_err(corrupt)?;
        let read = Arc::new(read_in(&mut conn, person, role, media_type, now).await?);
        if let Some(t) = token {
            self.fresh()
                .put_quota(t, (person, media_type), read.clone());
        }
        Ok(read.evaluate(media_type, units, now))
    }

    /// Every media type's quotas as they stand for a person now (nothing asked, nothing
    /// reserved), in [`QUOTA_MEDIA_TYPES`] order; each answered from memory while the database
    /// is unchanged (see [`Store::quota_check`]), so whoami reads nothing per call.
    pub async fn quotas_now(&self, person: PersonId) -> Result<Vec<QuotaCheck>, Error> {
        let now = now_ms();
        // One state for every media type: the answer is one picture of the database.
        let token = self.version();
        let mut out = Vec::with_capacity(QUOTA_MEDIA_TYPES.len());
        for media_type in QUOTA_MEDIA_TYPES {
            out.push(
                self.quota_check_at(person, media_type, 0, now, token)
                    .await?,
            );
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(units: u32, window_days: u32) -> QuotaRule {
        QuotaRule {
            scope: QuotaScope::Role { role: Role::User },
            media_type: MediaType::Tv,
            units,
            window_days,
        }
    }

    #[test]
    fn earliest_fit_is_when_enough_old_charges_leave_the_window() {
        let now = 10 * DAY_MS;
        // 5 per 7 days; charges of 2 (day 4), 2 (day 5), 1 (day 9): 5 used.
        let charges = [(4 * DAY_MS, 2), (5 * DAY_MS, 2), (9 * DAY_MS, 1)];
        let c = evaluate(false, MediaType::Tv, &[rule(5, 7)], &charges, 3, now);
        assert_eq!(c.allowances[0].used, 5);
        // 3 more need 3 freed: the day-4 and day-5 charges, gone at day 12.
        assert_eq!(c.fit, Fit::At(12 * DAY_MS));
        assert_eq!(c.max_units_now, Some(0));
        // More than the quota itself never fits.
        let c = evaluate(false, MediaType::Tv, &[rule(5, 7)], &charges, 6, now);
        assert_eq!(c.fit, Fit::Never);
        // Two rules: the later fit wins; a day rule with nothing used fits now.
        let c = evaluate(
            false,
            MediaType::Tv,
            &[rule(2, 1), rule(5, 7)],
            &charges,
            1,
            now,
        );
        assert_eq!(c.allowances[0].fit, Fit::Now);
        assert_eq!(c.fit, Fit::At(11 * DAY_MS));
        // No rules: unlimited.
        let c = evaluate(false, MediaType::Tv, &[], &charges, 40, now);
        assert_eq!((c.fit, c.max_units_now), (Fit::Now, None));
    }

    #[test]
    fn a_check_changes_when_its_oldest_counted_charge_leaves_a_window() {
        let now = 10 * DAY_MS;
        // Day 2 is outside the 7-day window but inside the 30-day one.
        let late = 9 * DAY_MS + DAY_MS / 2;
        let charges = [(2 * DAY_MS, 1), (4 * DAY_MS, 2), (late, 1)];
        let week = evaluate(false, MediaType::Tv, &[rule(5, 7)], &charges, 1, now);
        assert_eq!(
            week.changes_at,
            Some(11 * DAY_MS),
            "day 4 leaves the week on day 11"
        );
        let both = evaluate(
            false,
            MediaType::Tv,
            &[rule(2, 1), rule(9, 30)],
            &charges,
            1,
            now,
        );
        assert_eq!(
            both.changes_at,
            Some(late + DAY_MS),
            "the last charge leaves the day rule first"
        );
        let none = evaluate(false, MediaType::Tv, &[rule(5, 7)], &[], 1, now);
        assert_eq!(none.changes_at, None, "nothing counted, nothing leaves");
        let unlimited = evaluate(false, MediaType::Tv, &[], &charges, 1, now);
        assert_eq!(unlimited.changes_at, None);
    }
}
