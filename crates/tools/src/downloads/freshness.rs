//! How fresh a read is: each instance's catalogue status as data, its problems as warnings,
//! and the answer's `observed_at` (the oldest refresh among the instances read).

use std::time::SystemTime;

use chrono::{DateTime, SecondsFormat, Utc};
use domain::InstanceKind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::Source;
use governance::contract::Output;

/// Unix seconds or a `SystemTime` as RFC 3339, the way every answer shows times.
pub(crate) fn rfc3339(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::Secs, true)
}

pub(crate) fn unix_rfc3339(secs: i64) -> Option<String> {
    DateTime::from_timestamp(secs, 0).map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
}

/// One instance's freshness, as the download reads show it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Freshness {
    pub instance_id: String,
    /// qbittorrent or transmission.
    #[schemars(with = "String")]
    pub kind: InstanceKind,
    /// Read, and its latest refresh did not fail.
    pub ok: bool,
    /// The torrents its catalogue holds.
    pub rows: usize,
    /// When its last good refresh finished (`null`: never).
    pub observed_at: Option<String>,
    /// Why its latest refresh (or its setup) failed.
    pub error: Option<Failure>,
}

/// Why an instance could not be read.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Failure {
    /// config, auth, network, ... (the failure's class).
    #[schemars(with = "String")]
    pub class: Value,
    pub message: String,
    /// When it happened (absent for a setup failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One instance's freshness: `{instance_id, kind, ok, rows, observed_at, error}`.
pub(crate) fn status(source: &Source) -> Freshness {
    match source.state() {
        Err(problem) => Freshness {
            instance_id: source.id.clone(),
            kind: source.kind,
            ok: false,
            rows: 0,
            observed_at: None,
            error: Some(Failure {
                class: json!("config"),
                message: problem.to_string(),
                at: None,
            }),
        },
        Ok(b) => {
            let st = b.catalogue.status();
            let error = st.last_error.as_ref().map(|e| Failure {
                class: json!(e.class),
                message: e.message.clone(),
                at: Some(rfc3339(e.at)),
            });
            Freshness {
                instance_id: source.id.clone(),
                kind: source.kind,
                ok: st.observed_at.is_some() && st.last_error.is_none(),
                rows: st.rows,
                observed_at: st.observed_at.map(rfc3339),
                error,
            }
        }
    }
}

/// Whether the instance has ever been read.
pub(crate) fn loaded(source: &Source) -> bool {
    source
        .working()
        .is_some_and(|b| b.catalogue.status().observed_at.is_some())
}

/// A sentence for an instance whose data is missing or old, `None` when it is fine.
pub(crate) fn problem(source: &Source) -> Option<String> {
    let b = match source.state() {
        Err(problem) => return Some(problem.to_owned()),
        Ok(b) => b,
    };
    let st = b.catalogue.status();
    match (st.observed_at, &st.last_error) {
        (Some(_), None) => None,
        (None, None) => Some(format!(
            "instance {} has not answered yet; try again in a few seconds",
            source.id
        )),
        (None, Some(e)) => Some(format!(
            "instance {} could not be read ({}: {})",
            source.id, e.class, e.message
        )),
        (Some(at), Some(e)) => Some(format!(
            "instance {} could not be refreshed ({}: {}); its rows are from {}",
            source.id,
            e.class,
            e.message,
            rfc3339(at)
        )),
    }
}

/// [`problem`], saying what it means for a listing.
fn warning(source: &Source) -> Option<String> {
    let p = problem(source)?;
    Some(if loaded(source) {
        p
    } else {
        format!("{p}; its torrents are missing from this answer")
    })
}

/// Adds each instance's problem as a warning and sets `observed_at` to the oldest refresh.
pub(crate) fn stamp(mut out: Output, sources: &[&Source]) -> Output {
    for w in sources.iter().filter_map(|s| warning(s)) {
        out = out.warn(w);
    }
    let oldest = sources
        .iter()
        .filter_map(|s| s.working()?.catalogue.status().observed_at)
        .min();
    if let Some(t) = oldest {
        out.observed_at = DateTime::<Utc>::from(t);
    }
    out
}

/// "; 1 instance could not be read (tr-main)" for summaries, or "".
pub(crate) fn summary_tail(sources: &[&Source]) -> String {
    let bad: Vec<&str> = sources
        .iter()
        .filter(|s| problem(s).is_some())
        .map(|s| s.id.as_str())
        .collect();
    match bad.len() {
        0 => String::new(),
        1 => format!(
            "; instance {} could not be read or refreshed (see warnings)",
            bad[0]
        ),
        _ => format!(
            "; instances {} could not be read or refreshed (see warnings)",
            bad.join(", ")
        ),
    }
}
