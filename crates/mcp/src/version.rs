//! Protocol versions: the legacy handshake era and the stateless 2026-07-28 era.

/// Versions negotiated through `initialize`, oldest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Versions spoken statelessly with per-request `_meta`.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// What `initialize` answers when the client asks for a version we do not know.
pub const NEWEST_LEGACY: &str = "2025-11-25";

pub(crate) fn is_known(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version) || MODERN_VERSIONS.contains(&version)
}

/// The legacy version an `initialize` request gets: its own when we speak it, else the newest.
pub(crate) fn negotiate_legacy(requested: &str) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(NEWEST_LEGACY)
}

pub(crate) fn all_versions() -> Vec<&'static str> {
    LEGACY_VERSIONS
        .iter()
        .chain(MODERN_VERSIONS.iter())
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiates() {
        assert_eq!(negotiate_legacy("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_legacy("2024-11-05"), "2024-11-05");
        assert_eq!(negotiate_legacy("1999-01-01"), NEWEST_LEGACY);
        assert_eq!(negotiate_legacy("2026-07-28"), NEWEST_LEGACY);
        assert!(is_known("2026-07-28") && !is_known("2026-07-29"));
    }
}
