//! Allowances: finite counts of a kind of call per window of days, held by a grant.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// What an allowance counts. A tool declares the kind its calls spend, once, in its `Meta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowanceKind {
    /// Torrents or titles added to a backend.
    Adds,
    /// Releases grabbed from an indexer.
    Grabs,
    /// Searches sent to indexers.
    Searches,
    /// Destructive operations (deletions).
    Destructive,
}

impl AllowanceKind {
    pub const ALL: [AllowanceKind; 4] = [
        AllowanceKind::Adds,
        AllowanceKind::Grabs,
        AllowanceKind::Searches,
        AllowanceKind::Destructive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AllowanceKind::Adds => "adds",
            AllowanceKind::Grabs => "grabs",
            AllowanceKind::Searches => "searches",
            AllowanceKind::Destructive => "destructive",
        }
    }
}

impl fmt::Display for AllowanceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AllowanceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<AllowanceKind, String> {
        AllowanceKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let valid: Vec<&str> = AllowanceKind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown allowance kind \"{s}\"; valid kinds: {}",
                    valid.join(", ")
                )
            })
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
    pub fn parse(text: &str) -> Result<(AllowanceKind, AllowanceRule), String> {
        let bad = || {
            format!(
                "invalid allowance \"{text}\"; write KIND=N/DAYS, e.g. adds=10/1, where KIND is one of: {}",
                AllowanceKind::ALL.map(|k| k.as_str()).join(", ")
            )
        };
        let (kind, rest) = text.split_once('=').ok_or_else(bad)?;
        let kind: AllowanceKind = kind.trim().parse()?;
        let (count, days) = rest.split_once('/').ok_or_else(bad)?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        let days: u32 = days.trim().parse().map_err(|_| bad())?;
        if !(1..=MAX_ALLOWANCE_DAYS).contains(&days) {
            return Err(format!(
                "invalid allowance \"{text}\": the window is 1 to {MAX_ALLOWANCE_DAYS} days, not {days}"
            ));
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
            e,
            "unknown allowance kind \"hugs\"; valid kinds: adds, grabs, searches, destructive"
        );
    }
}
