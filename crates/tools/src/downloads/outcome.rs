//! Per-torrent outcomes of a write: `{ok, failed, results: [{info_hash, instance_id, ok, status,
//! message}]}`, and what a backend error means for the torrents it touched.

use adapters_downloads::{Error, ErrorClass};
use domain::InfoHash;
use schemars::JsonSchema;
use serde::Serialize;

use governance::contract::Output;

/// What happened to one torrent on one instance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct TorrentResult {
    /// `None` only for a URL add whose hash the client did not say.
    #[schemars(with = "Option<String>")]
    pub info_hash: Option<InfoHash>,
    /// `None` when the torrent was found on no instance.
    pub instance_id: Option<String>,
    pub ok: bool,
    /// `ok` rows: what was done (`paused`, `deleted`, …). Failed rows: `not_found`,
    /// `ambiguous`, `outcome_unknown`, or the class of the backend error (`unreachable`, …).
    pub status: &'static str,
    pub message: String,
}

impl TorrentResult {
    pub fn done(
        hash: Option<InfoHash>,
        instance: &str,
        status: &'static str,
        message: String,
    ) -> Self {
        TorrentResult {
            info_hash: hash,
            instance_id: Some(instance.to_string()),
            ok: true,
            status,
            message,
        }
    }

    pub fn failed(
        hash: Option<InfoHash>,
        instance: Option<&str>,
        status: &'static str,
        message: String,
    ) -> Self {
        TorrentResult {
            info_hash: hash,
            instance_id: instance.map(str::to_string),
            ok: false,
            status,
            message,
        }
    }

    /// The torrents of one instance whose call failed with `e`. A timeout or an unreadable
    /// answer after the request went out may have acted: that is `outcome_unknown`, never retried.
    pub fn from_error(hash: Option<InfoHash>, instance: &str, e: &Error) -> Self {
        let (status, tail) = match e.class() {
            ErrorClass::Timeout | ErrorClass::Decode | ErrorClass::Upstream => (
                "outcome_unknown",
                "the change may or may not have happened; check with torrent_detail before trying again",
            ),
            class => (class.as_str(), "nothing was changed on this instance"),
        };
        TorrentResult::failed(
            hash,
            Some(instance),
            status,
            format!("instance {instance}: {e}; {tail}"),
        )
    }
}

/// The data of a write's answer: how many torrents it changed, how many failed, and each
/// torrent's outcome.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Outcomes {
    pub ok: usize,
    pub failed: usize,
    pub results: Vec<TorrentResult>,
}

/// The answer of a write: counts, rows, and a summary built from `verb` ("paused", …).
pub(crate) fn output(verb: &str, results: Vec<TorrentResult>) -> Output {
    let ok = results.iter().filter(|r| r.ok).count();
    let failed = results.len() - ok;
    let noun = |n: usize| if n == 1 { "torrent" } else { "torrents" };
    let summary = match (ok, failed) {
        (_, 0) => format!("{ok} {} {verb}.", noun(ok)),
        (0, 1) => format!("Nothing {verb}: {}.", results[0].message),
        (0, _) => format!("Nothing {verb}: all {failed} torrents failed (see results)."),
        _ => format!("{ok} {} {verb}; {failed} failed (see results).", noun(ok)),
    };
    let data = serde_json::to_value(Outcomes {
        ok,
        failed,
        results,
    })
    .unwrap_or_default();
    let out = Output::new(summary, data);
    if failed > 0 {
        out.next("find_torrents to check the torrents' current state")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn h(n: u8) -> Option<InfoHash> {
        Some(InfoHash::from_bytes([n; 20]))
    }

    #[test]
    fn counts_and_summaries() {
        let done = TorrentResult::done(h(1), "qb", "paused", "paused on instance qb".into());
        let missing = TorrentResult::failed(
            h(2),
            None,
            "not_found",
            "not found on any instance (searched qb)".into(),
        );
        let out = output("paused", vec![done.clone(), missing.clone()]);
        assert_eq!(out.summary, "1 torrent paused; 1 failed (see results).");
        assert_eq!(
            (out.data()["ok"].clone(), out.data()["failed"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(out.data()["results"][1]["instance_id"], json!(null));
        assert_eq!(
            output("paused", vec![missing]).summary,
            "Nothing paused: not found on any instance (searched qb)."
        );
        assert_eq!(output("paused", vec![done]).summary, "1 torrent paused.");
    }

    #[test]
    fn a_timeout_is_an_unknown_outcome_and_a_refusal_is_not() {
        let t = TorrentResult::from_error(h(1), "qb", &Error::Timeout);
        assert_eq!(t.status, "outcome_unknown");
        assert!(
            t.message.contains("may or may not have happened"),
            "{}",
            t.message
        );
        let u = TorrentResult::from_error(
            h(1),
            "qb",
            &Error::Unreachable {
                detail: "refused".into(),
            },
        );
        assert_eq!(u.status, "unreachable");
        assert!(
            u.message.ends_with("nothing was changed on this instance"),
            "{}",
            u.message
        );
    }
}
