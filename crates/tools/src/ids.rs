//! The formats of the ids tools take, as the `pattern`s their input schemas declare (the core
//! refuses a value that does not match before the call is parsed; see governance's bounds).
//! One place, so every tool that takes an id of a kind declares the same rule.

/// An instance id as the config names it: no spaces or control characters (the config's ids
/// are short names such as `qb`, `radarr-4k`).
pub const INSTANCE_ID: &str = r"^[^\s\x00-\x1f\x7f]+$";
/// The longest instance id a call may name.
pub const INSTANCE_ID_MAX: u32 = 64;

/// A torrent's v1 info hash: 40 hexadecimal characters, any case.
pub const INFO_HASH: &str = r"^[0-9A-Fa-f]{40}$";

/// A stored change, as a planned tool answers it.
pub const CHANGE_ID: &str = r"^chg_[A-Za-z0-9]{20}$";
/// An operation of an applied change, as `apply_change` answers it.
pub const OPERATION_ID: &str = r"^op_[A-Za-z0-9]{20}$";
/// A caller's idempotency key: 8 to 128 letters, digits, `-`, `_`, `.` or `:`.
pub const IDEMPOTENCY_KEY: &str = r"^[A-Za-z0-9._:-]{8,128}$";

/// A media id as a source writes it (digits for TMDB, TVDB and Goodreads, `tt…` for IMDb, a
/// UUID for MusicBrainz, a slug for the built-in catalogue): printable, no spaces inside (spaces
/// around it are trimmed by the tool, and an empty one is refused by the tool, which names it).
pub const MEDIA_ID: &str = r"^\s*[^\s\x00-\x1f\x7f]*\s*$";
/// The longest media id a call may name (a MusicBrainz UUID is 36).
pub const MEDIA_ID_MAX: u32 = 64;

/// Each pattern with a value it takes and one it refuses: the examples the tests of the bounds
/// give where an argument must match its pattern.
pub const EXAMPLES: &[(&str, &str, &str)] = &[
    (INSTANCE_ID, "radarr-4k", "radarr 4k"),
    (INFO_HASH, "0123456789abcdef0123456789abcdef01234567", "xyz"),
    (CHANGE_ID, "chg_abcdefghij0123456789", "chg_short"),
    (OPERATION_ID, "op_abcdefghij0123456789", "op_short"),
    (IDEMPOTENCY_KEY, "every-key-0001", "short"),
    (MEDIA_ID, "603", "60 3"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the core's own enforcement lets `text` through `pattern`.
    fn matches(pattern: &str, text: &str) -> bool {
        let schema = serde_json::json!({
            "type": "object",
            "properties": { "v": { "type": "string", "pattern": pattern } }
        });
        let Some(schema) = schema.as_object() else {
            return false;
        };
        let mut args = serde_json::Map::new();
        args.insert("v".into(), text.into());
        governance::contract::bounds::check(schema, &args).is_ok()
    }

    #[test]
    fn each_example_is_taken_and_refused_as_it_says() {
        for (pattern, good, bad) in EXAMPLES {
            assert!(matches(pattern, good), "{pattern} {good}");
            assert!(!matches(pattern, bad), "{pattern} {bad}");
        }
    }

    #[test]
    fn the_id_formats_take_real_ids_and_refuse_others() {
        assert!(matches(
            INFO_HASH,
            "0123456789abcdefABCDEF0123456789abcdef01"
        ));
        assert!(!matches(INFO_HASH, "xyz"));
        assert!(!matches(INFO_HASH, &"a".repeat(41)));
        assert!(matches(CHANGE_ID, "chg_abcdefghij0123456789"));
        assert!(!matches(CHANGE_ID, "chg_short"));
        assert!(matches(OPERATION_ID, "op_ABCDEFGHIJ0123456789"));
        assert!(!matches(OPERATION_ID, "chg_ABCDEFGHIJ0123456789"));
        assert!(matches(IDEMPOTENCY_KEY, "crash-key-0001"));
        assert!(!matches(IDEMPOTENCY_KEY, "short"));
        assert!(!matches(IDEMPOTENCY_KEY, "has space in it"));
        for ok in ["qb", "radarr-4k", "tmdb"] {
            assert!(matches(INSTANCE_ID, ok), "{ok}");
        }
        assert!(!matches(INSTANCE_ID, "a b"));
        for ok in ["603", "tt0133093", "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f"] {
            assert!(matches(MEDIA_ID, ok), "{ok}");
        }
        assert!(!matches(MEDIA_ID, "60 3"));
    }
}
