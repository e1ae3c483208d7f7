//! Allowances: finite counts of a kind of call per window of days, held by a grant.

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// What an allowance counts. A tool declares the kind its calls spend, once, in its `Meta`.
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
    Deserialize,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = AllowanceError,
    parse_err_fn = AllowanceError::unknown_kind
)]
pub enum AllowanceKind {
    /// Torrents or titles added to a backend.
    Adds,
    /// Releases grabbed from an indexer.
    Grabs,
    /// Searches sent to indexers.
    Searches,
    /// Destructive operations (deletions).
    Destructive,
    /// Writes made through an external MCP server (an `mcp` instance: every call of a tool it
    /// does not annotate read-only): their own kind, so that a grant can allow local writes and
    /// still bound what it asks of other servers.
    FederatedWrites,
}

impl AllowanceKind {
    /// Every kind, in declaration order (the order lists and messages show).
    pub const ALL: [AllowanceKind; AllowanceKind::COUNT] = *AllowanceKind::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The kinds as a message lists them: `adds, grabs, searches, destructive, federated_writes`.
fn kinds() -> String {
    AllowanceKind::ALL.map(AllowanceKind::as_str).join(", ")
}

/// Why a text is no allowance kind or no allowance.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllowanceError {
    #[error("unknown allowance kind \"{0}\"; valid kinds: {kinds}", kinds = kinds())]
    UnknownKind(String),
    /// Not of the shape `KIND=N/DAYS`.
    #[error(
        "invalid allowance \"{0}\"; write KIND=N/DAYS, e.g. adds=10/1, where KIND is one of: {kinds}",
        kinds = kinds()
    )]
    Malformed(String),
    #[error(
        "invalid allowance \"{text}\": the window is 1 to {MAX_ALLOWANCE_DAYS} days, not {days}"
    )]
    Window { text: String, days: u32 },
}

impl AllowanceError {
    fn unknown_kind(text: &str) -> AllowanceError {
        AllowanceError::UnknownKind(text.to_owned())
    }
}

/// At most `count` calls of a kind per `days` days (a sliding window).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowanceRule {
    pub count: u32,
    pub days: u32,
}

/// The longest window an allowance may count over.
pub const MAX_ALLOWANCE_DAYS: u32 = 365;

impl AllowanceRule {
    /// Parses `KIND=N/DAYS`, e.g. `adds=10/1`, `destructive=3/7`.
    pub fn parse(text: &str) -> Result<(AllowanceKind, AllowanceRule), AllowanceError> {
        let bad = || AllowanceError::Malformed(text.to_owned());
        let (kind, rest) = text.split_once('=').ok_or_else(bad)?;
        let kind: AllowanceKind = kind.trim().parse()?;
        let (count, days) = rest.split_once('/').ok_or_else(bad)?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        let days: u32 = days.trim().parse().map_err(|_| bad())?;
        if !(1..=MAX_ALLOWANCE_DAYS).contains(&days) {
            return Err(AllowanceError::Window {
                text: text.to_owned(),
                days,
            });
        }
        Ok((kind, AllowanceRule { count, days }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowances_parse_kind_count_and_window() {
        assert_eq!(
            AllowanceRule::parse("adds=10/1"),
            Ok((AllowanceKind::Adds, AllowanceRule { count: 10, days: 1 }))
        );
        assert_eq!(
            AllowanceRule::parse("destructive=0/7"),
            Ok((
                AllowanceKind::Destructive,
                AllowanceRule { count: 0, days: 7 }
            ))
        );
        for bad in [
            "adds",
            "adds=10",
            "adds=x/1",
            "adds=1/0",
            "adds=1/400",
            "=1/1",
        ] {
            assert!(AllowanceRule::parse(bad).is_err(), "{bad}");
        }
        let e = AllowanceRule::parse("hugs=1/1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown allowance kind \"hugs\"; valid kinds: adds, grabs, searches, destructive, federated_writes"
        );
        let e = AllowanceRule::parse("adds=10").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid allowance \"adds=10\"; write KIND=N/DAYS, e.g. adds=10/1, where KIND is one of: adds, grabs, searches, destructive, federated_writes"
        );
        let e = AllowanceRule::parse("adds=1/400").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid allowance \"adds=1/400\": the window is 1 to 365 days, not 400"
        );
    }
}
