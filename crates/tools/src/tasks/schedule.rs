//! When a task is due: a date (RFC 3339, or a local time in the configured zone, or
//! `delay_minutes` from now) or a 5-field cron expression read in the configured time zone
//! (`[tasks] time_zone`, default the machine's), daylight-saving changes handled as cron
//! does. Time comes from a [`Clock`], so tests drive it.

use std::sync::Arc;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use parking_lot::Mutex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where "now" comes from.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until it is set: for tests that drive due times.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Arc<ManualClock> {
        Arc::new(ManualClock(Mutex::new(at)))
    }

    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock() = at;
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self.0.lock();
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock()
    }
}

/// How a task is triggered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriggerType {
    /// Once, at `trigger` (an ISO 8601 time) or `delay_minutes` from now.
    Date,
    /// On every time a 5-field cron expression `trigger` names.
    Cron,
}

impl TriggerType {
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerType::Date => "date",
            TriggerType::Cron => "cron",
        }
    }

    pub fn parse(text: &str) -> Option<TriggerType> {
        match text {
            "date" => Some(TriggerType::Date),
            "cron" => Some(TriggerType::Cron),
            _ => None,
        }
    }
}

/// The machine's time zone, or UTC when it cannot be told.
pub fn machine_zone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse().ok())
        .unwrap_or(Tz::UTC)
}

/// A cron expression, checked: exactly five fields, parsed by croner.
pub fn parse_cron(expression: &str) -> Result<croner::Cron, String> {
    let fields = expression.split_whitespace().count();
    if fields != 5 {
        return Err(format!(
            "the cron expression \"{expression}\" has {fields} fields; give five: minute hour day-of-month month day-of-week (\"0 18 * * *\" is every day at 18:00)"
        ));
    }
    expression
        .parse::<croner::Cron>()
        .map_err(|e| format!("the cron expression \"{expression}\" is not valid: {e}"))
}

/// The first time after `after` that `cron` names, read in `zone`.
pub fn next_cron(cron: &croner::Cron, zone: Tz, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    cron.find_next_occurrence(&after.with_timezone(&zone), false)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A date trigger's time: RFC 3339 (`2026-12-24T18:00:00+01:00`), or a local time without an
/// offset (`2026-12-24T18:00`) read in `zone`.
pub fn parse_date(text: &str, zone: Tz) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .map_err(|_| {
            format!(
                "the date \"{text}\" is not an ISO 8601 time; give one such as 2026-12-24T18:00:00+01:00, or 2026-12-24T18:00 in the time zone {zone}"
            )
        })?;
    zone.from_local_datetime(&naive)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| {
            format!("{text} does not exist in the time zone {zone} (a daylight-saving gap)")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn a_cron_time_follows_the_zone_across_daylight_saving() {
        let cron = parse_cron("0 9 * * *").unwrap();
        let paris: Tz = "Europe/Paris".parse().unwrap();
        // Winter: 09:00 in Paris is 08:00 UTC; summer: 07:00 UTC.
        assert_eq!(
            next_cron(&cron, paris, utc("2026-01-10T12:00:00Z")),
            Some(utc("2026-01-11T08:00:00Z"))
        );
        assert_eq!(
            next_cron(&cron, paris, utc("2026-03-28T12:00:00Z")),
            Some(utc("2026-03-29T07:00:00Z"))
        );
    }

    #[test]
    fn a_cron_expression_needs_five_valid_fields() {
        assert!(parse_cron("*/15 * * * *").is_ok());
        let six = parse_cron("0 0 9 * * *").unwrap_err();
        assert!(six.contains("has 6 fields"), "{six}");
        let bad = parse_cron("61 * * * *").unwrap_err();
        assert!(bad.contains("is not valid"), "{bad}");
    }

    #[test]
    fn a_date_is_rfc3339_or_local_in_the_zone() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert_eq!(
            parse_date("2026-12-24T18:00:00+01:00", Tz::UTC),
            Ok(utc("2026-12-24T17:00:00Z"))
        );
        assert_eq!(
            parse_date("2026-12-24T18:00", paris),
            Ok(utc("2026-12-24T17:00:00Z"))
        );
        assert!(parse_date("tomorrow", paris).is_err());
    }
}
