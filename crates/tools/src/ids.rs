//! The formats of the ids tools take, as the `pattern`s their input schemas declare (the core
//! refuses a value that does not match before the call is parsed; see governance's bounds).
//! One place, so every tool that takes an id of a kind declares the same rule. A media id is
//! also checked against its `media_source` ([`check_media_id`]), which a pattern cannot do.

use domain::MediaSource;
use governance::ToolError;

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

/// The shape an id has at its source. Every source writes its ids in one shape, so an id of
/// another source's shape (an IMDb `tt…` id given as tmdb, a TMDB number given as imdb or
/// musicbrainz) names no title there: it is refused before any backend is asked, instead of
/// being looked up and answered "not found" (or "not in the library").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Digits only: TMDB, TVDB and Goodreads ids.
    Number,
    /// `tt` and digits: IMDb ids.
    Imdb,
    /// A UUID (`9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f`): MusicBrainz ids.
    Uuid,
}

impl Shape {
    fn of(id: &str) -> Option<Shape> {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if digits(id) {
            return Some(Shape::Number);
        }
        if id.strip_prefix("tt").is_some_and(digits) {
            return Some(Shape::Imdb);
        }
        let groups: Vec<&str> = id.split('-').collect();
        let uuid = groups.len() == 5
            && groups
                .iter()
                .zip([8, 4, 4, 4, 12])
                .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()));
        uuid.then_some(Shape::Uuid)
    }

    fn example(self) -> &'static str {
        match self {
            Shape::Number => "digits, such as 603",
            Shape::Imdb => "tt and digits, such as tt0133093",
            Shape::Uuid => "a UUID, such as 9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f",
        }
    }

    /// The sources whose ids have this shape.
    fn sources(self) -> &'static str {
        match self {
            Shape::Number => "tmdb, tvdb, goodreads, anilist, myanimelist or lrclib",
            Shape::Imdb => "imdb and builtin",
            Shape::Uuid => "musicbrainz",
        }
    }
}

/// The shape ids of `source` have. The built-in catalogue's ids are IMDb ids, but it answers
/// an id it does not know as not found, so only another source's shape is refused for it;
/// MusicBrainz ids are UUIDs, and only the shapes of the other sources are refused for it
/// (a release group or book id that is neither is left to the service to answer).
fn shape_of(source: MediaSource) -> (Shape, bool) {
    match source {
        MediaSource::Tmdb
        | MediaSource::Tvdb
        | MediaSource::Goodreads
        | MediaSource::Anilist
        | MediaSource::Myanimelist
        | MediaSource::Lrclib => (Shape::Number, true),
        MediaSource::Imdb => (Shape::Imdb, true),
        MediaSource::Builtin => (Shape::Imdb, false),
        MediaSource::Musicbrainz => (Shape::Uuid, false),
    }
}

/// Refuses a media id (trimmed) that cannot be an id of `source`: one of another source's
/// shape, or, for a source whose ids always have one shape, any other. The message names the
/// shape the source's ids have and the source the given id looks like.
pub(crate) fn check_media_id(source: MediaSource, id: &str) -> Result<(), ToolError> {
    let id = id.trim();
    let (own, strict) = shape_of(source);
    let given = Shape::of(id);
    let fits = match given {
        Some(shape) => shape == own || (source == MediaSource::Builtin && shape == Shape::Number),
        None => !strict,
    };
    if fits {
        return Ok(());
    }
    let looks = match given {
        Some(shape) => format!(" ({} ids look like that)", shape.sources()),
        None => String::new(),
    };
    Err(ToolError::invalid(format!(
        "invalid argument \"media_id\": \"{id}\" is not an id at {source}{looks}; {source} ids are {}; give media_source and media_id together as a discovery row shows them",
        own.example()
    )))
}

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
    fn a_media_id_must_have_its_sources_shape() {
        use MediaSource::*;
        for (source, id) in [
            (Tmdb, "603"),
            (Tvdb, " 81189 "),
            (Goodreads, "5907"),
            (Imdb, "tt0133093"),
            (Builtin, "tt0113277"),
            (Builtin, "999999999"),
            (Builtin, "heat-1995"),
            (Musicbrainz, "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f"),
            (Musicbrainz, "rg-ok"),
        ] {
            assert!(check_media_id(source, id).is_ok(), "{source} {id}");
        }
        for (source, id, says) in [
            (Tmdb, "tt0133093", "imdb and builtin ids look like that"),
            (
                Tvdb,
                "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f",
                "musicbrainz ids look like that",
            ),
            (Goodreads, "tt0133093", "goodreads ids are digits"),
            (Tmdb, "the-matrix", "tmdb ids are digits"),
            (
                Imdb,
                "603",
                "tmdb, tvdb, goodreads, anilist, myanimelist or lrclib ids look like that",
            ),
            (Imdb, "0133093", "imdb ids are tt and digits"),
            (Musicbrainz, "603", "musicbrainz ids are a UUID"),
            (
                Musicbrainz,
                "tt0133093",
                "imdb and builtin ids look like that",
            ),
            (
                Builtin,
                "9162580e-1f0c-4d8e-8d6a-0a1b2c3d4e5f",
                "builtin ids are tt",
            ),
        ] {
            let e = check_media_id(source, id).unwrap_err();
            assert_eq!(
                e.code,
                governance::ErrorCode::InvalidArgument,
                "{source} {id}"
            );
            assert!(
                e.message.contains(says) && e.message.contains(id),
                "{source} {id}: {}",
                e.message
            );
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
