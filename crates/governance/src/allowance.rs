//! Allowances as tools speak of them: the structured `allowance_exhausted` refusal and the
//! allowances left that `whoami` shows.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};
use store::AllowanceLeft;

use crate::error::{ErrorCode, ToolError};

fn time(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default()
}

fn per(days: u32) -> String {
    if days == 1 {
        "day".into()
    } else {
        format!("{days} days")
    }
}

/// One allowance as data: kind, count, window, used, left and when a spent unit comes back.
pub fn data(left: &AllowanceLeft) -> Value {
    json!({
        "allowance": left.kind,
        "count": left.count,
        "days": left.days,
        "used": left.used,
        "left": left.left,
        "refills_at": left.refills_at.map(time),
    })
}

/// "3 of 10 adds per day left".
pub fn sentence(left: &AllowanceLeft) -> String {
    format!(
        "{} of {} {} per {} left",
        left.left,
        left.count,
        left.kind,
        per(left.days)
    )
}

/// The refusal of a call whose allowance is spent: nothing was done.
pub fn exhausted(tool: &str, left: &AllowanceLeft) -> ToolError {
    let when = match left.refills_at {
        Some(at) => format!("the next one comes back at {}", time(at)),
        None => "this grant allows none; ask the owner to raise it".into(),
    };
    ToolError::new(
        ErrorCode::AllowanceExhausted,
        format!(
            "{tool} was not run: your grant allows {} {} per {} and {} are spent; {when}. Nothing was done.",
            left.count,
            left.kind,
            per(left.days),
            left.used
        ),
    )
    .with_data(data(left))
}
