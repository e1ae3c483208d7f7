//! `get_calendar`: movie releases and episode air dates in a window, over every Radarr and
//! Sonarr instance (asked concurrently) or one.

use chrono::{Duration, Utc};
use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{
    count,
    source::{chosen, merged},
};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetCalendar;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One radarr or sonarr instance (default: every radarr and sonarr instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Days before today to include, 0 to 60 (default 0).
    #[serde(default)]
    pub days_back: Option<u32>,
    /// Days after today to include, 0 to 60 (default 7).
    #[serde(default)]
    pub days_ahead: Option<u32>,
}

fn days(name: &str, v: Option<u32>, default: u32) -> Result<i64, ToolError> {
    let v = v.unwrap_or(default);
    if v > 60 {
        return Err(ToolError::invalid(format!(
            "invalid argument \"{name}\": {v} is outside 0 to 60"
        )));
    }
    Ok(i64::from(v))
}

impl Tool for GetCalendar {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Calendar>);
    const META: Meta = Meta {
        name: "get_calendar",
        title: "Library calendar",
        description: "Upcoming (or recent) movie releases from Radarr and episode air dates from Sonarr in a window of days_back/days_ahead around today, with whether each is monitored and already on disk.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let back = days("days_back", input.days_back, 0)?;
        let ahead = days("days_ahead", input.days_ahead, 7)?;
        let mut sources = chosen(ctx, input.instance_id.as_deref())?;
        let has_calendar =
            |k: InstanceKind| matches!(k, InstanceKind::Radarr | InstanceKind::Sonarr);
        if input.instance_id.is_some() && !sources.iter().all(|s| has_calendar(s.kind)) {
            return Err(ToolError::invalid(
                "get_calendar reads radarr and sonarr instances; this instance keeps no calendar",
            ));
        }
        sources.retain(|s| has_calendar(s.kind));
        if sources.is_empty() {
            return Err(ToolError::new(
                ErrorCode::NoInstance,
                "no radarr or sonarr instance is configured (or covered by your grant); calendars come from those",
            ));
        }
        let today = Utc::now().date_naive();
        let start = (today - Duration::days(back)).to_string();
        let end = (today + Duration::days(ahead + 1)).to_string();
        let m = merged(ctx, sources, |c| c.calendar(&start, &end)).await;
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let mut entries = Vec::new();
        for (s, list) in &m.read {
            for e in list {
                entries.push((
                    e.date.clone().unwrap_or_default(),
                    Dated {
                        instance_id: s.id.clone(),
                        entry: shapes::CalendarEntry::of(e),
                    },
                ));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let rows: Vec<_> = entries.into_iter().map(|(_, v)| v).collect();
        let mut out = crate::typed::output(
            format!(
                "{} from {start} to {end} (exclusive).",
                count(rows.len(), "calendar entry", "calendar entries")
            ),
            &Calendar {
                unreadable: m.failed_data(),
                start,
                end,
                entries: rows,
            },
        )?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// The answer's data: the window read and its entries, soonest first.
#[derive(Serialize, JsonSchema)]
struct Calendar {
    /// The first day of the window.
    start: String,
    /// The day after the window.
    end: String,
    entries: Vec<Dated>,
    unreadable: Vec<shapes::Unreadable>,
}

/// A calendar entry and the instance it is from.
#[derive(Serialize, JsonSchema)]
struct Dated {
    instance_id: String,
    entry: shapes::CalendarEntry,
}
