//! Groups free-text tracker messages into a few classes a person (or an assistant) can act on.

use serde::Serialize;
use strum::{EnumCount, IntoStaticStr, VariantArray};

use crate::error::Error;

/// Why a tracker is unhappy, by what to do about it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = Error,
    parse_err_fn = unknown_class
)]
pub enum TrackerErrorClass {
    /// The tracker does not know the torrent (deleted, trumped, never uploaded): remove or replace it.
    Unregistered,
    /// The tracker refuses us: bad passkey, banned client, account trouble. Fix the account.
    Auth,
    /// Could not talk to the tracker: timeout, DNS, refused, 5xx. Usually passes on its own.
    Unreachable,
    /// The tracker asks us to announce less often.
    RateLimited,
    /// Any other message.
    Other,
}

impl TrackerErrorClass {
    /// Every class, in declaration order (the order lists and messages show).
    pub const ALL: [TrackerErrorClass; TrackerErrorClass::COUNT] = *TrackerErrorClass::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

fn unknown_class(text: &str) -> Error {
    Error::invalid(format!(
        "unknown tracker error class \"{text}\"; valid classes: {}",
        TrackerErrorClass::ALL
            .map(TrackerErrorClass::as_str)
            .join(", ")
    ))
}

// Checked in this order: "torrent not authorized" is about the torrent, not the account.
const UNREGISTERED: &[&str] = &[
    "unregistered",
    "not registered",
    "torrent not found",
    "torrent does not exist",
    "torrent doesn't exist",
    "unknown torrent",
    "info_hash not found",
    "infohash not found",
    "info hash not found",
    "torrent has been deleted",
    "torrent was deleted",
    "torrent has been removed",
    "trumped",
    "nuked",
    "dupe",
    "torrent not authorized",
    "torrent is not authorized",
    "not authorized for use on this tracker",
];

const AUTH: &[&str] = &[
    "passkey",
    "pass key",
    "authkey",
    "invalid key",
    "unauthorized",
    "unauthorised",
    "not authorized",
    "authentication",
    "access denied",
    "forbidden",
    "banned",
    "user not found",
    "account",
    "login",
    "client is not allowed",
    "client not allowed",
    "not whitelisted",
    "http 401",
    "http 403",
    "401 unauthorized",
    "403 forbidden",
];

const RATE_LIMITED: &[&str] = &[
    "rate limit",
    "ratelimit",
    "rate-limit",
    "too many requests",
    "slow down",
    "announce interval",
    "too frequent",
    "too often",
    "min interval",
    "http 429",
];

const UNREACHABLE: &[&str] = &[
    "timed out",
    "timeout",
    "time out",
    "connection refused",
    "could not connect",
    "couldn't connect",
    "cannot connect",
    "failed to connect",
    "connection reset",
    "connection closed",
    "host not found",
    "name or service not known",
    "could not resolve",
    "couldn't resolve",
    "no such host",
    "unreachable",
    "no route",
    "network is down",
    "ssl",
    "certificate",
    "bad gateway",
    "service unavailable",
    "gateway timeout",
    "internal server error",
    "http 500",
    "http 502",
    "http 503",
    "http 504",
    "tracker is down",
    "maintenance",
    "offline",
    "end of file",
];

/// The class of a tracker message; `None` when there is no complaint (empty or a plain "OK").
pub fn classify(message: &str) -> Option<TrackerErrorClass> {
    let m = message.trim().to_ascii_lowercase();
    if m.is_empty() || matches!(m.as_str(), "ok" | "success" | "working") {
        return None;
    }
    let has = |list: &[&str]| list.iter().any(|p| m.contains(p));
    Some(if has(UNREGISTERED) {
        TrackerErrorClass::Unregistered
    } else if has(RATE_LIMITED) {
        TrackerErrorClass::RateLimited
    } else if has(AUTH) {
        TrackerErrorClass::Auth
    } else if has(UNREACHABLE) {
        TrackerErrorClass::Unreachable
    } else {
        TrackerErrorClass::Other
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_real_world_messages() {
        use TrackerErrorClass::*;
        let cases = [
            ("Unregistered torrent", Some(Unregistered)),
            (
                "Tracker gave an error: Torrent not registered with this tracker.",
                Some(Unregistered),
            ),
            ("torrent not found", Some(Unregistered)),
            (
                "Torrent not authorized for use on this tracker",
                Some(Unregistered),
            ),
            ("Trumped by a better release", Some(Unregistered)),
            ("Invalid passkey (0 - abc)", Some(Auth)),
            ("Unauthorized client", Some(Auth)),
            ("Your account is disabled", Some(Auth)),
            (
                "Tracker gave HTTP response code 403 (Forbidden)",
                Some(Auth),
            ),
            ("Connection timed out", Some(Unreachable)),
            ("Could not connect to tracker", Some(Unreachable)),
            ("Host not found (authoritative)", Some(Unreachable)),
            (
                "Tracker gave HTTP response code 502 (Bad Gateway)",
                Some(Unreachable),
            ),
            ("Tracker is down for maintenance", Some(Unreachable)),
            ("Rate limit exceeded, slow down", Some(RateLimited)),
            (
                "Tracker gave HTTP response code 429 (Too Many Requests)",
                Some(RateLimited),
            ),
            ("announce interval too short", Some(RateLimited)),
            ("something else entirely", Some(Other)),
            ("", None),
            ("  ", None),
            ("OK", None),
        ];
        for (msg, want) in cases {
            assert_eq!(classify(msg), want, "{msg}");
        }
    }

    #[test]
    fn parses_class_names() {
        assert_eq!(
            "auth".parse::<TrackerErrorClass>(),
            Ok(TrackerErrorClass::Auth)
        );
        let e = "nope".parse::<TrackerErrorClass>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown tracker error class \"nope\"; valid classes: unregistered, auth, \
             unreachable, rate_limited, other"
        );
    }
}
