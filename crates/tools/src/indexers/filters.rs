//! The filters of `search_indexers`, checked before any indexer is asked: patterns compiled
//! (an invalid one refused with the position of the error), sizes read ("700MB", "4.5 GB" or
//! bytes), the resolution named as people say it ("1080p", "4k"). All of them combine with AND.

use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

use governance::ToolError;

/// The longest pattern accepted.
pub(crate) const MAX_PATTERN: usize = 200;

/// A size: bytes, or a number with a unit.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// "700MB", "4.5 GB", "1.2TiB" (KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB of 1024).
    Text(#[schemars(length(max = 32))] String),
}

impl Size {
    pub(crate) fn bytes(&self, field: &str) -> Result<u64, ToolError> {
        match self {
            Size::Bytes(b) => Ok(*b),
            Size::Text(t) => parse_size(t).ok_or_else(|| {
                ToolError::invalid(format!(
                    "invalid argument \"{field}\": \"{}\" is not a size; give bytes or a number with a unit, e.g. \"700MB\" or \"4.5GB\"",
                    t.chars().take(32).collect::<String>()
                ))
            }),
        }
    }
}

fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().ok()?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = n * factor;
    (0.0..1e18).contains(&bytes).then_some(bytes as u64)
}

/// A case-insensitive pattern; an invalid one is refused naming the position of the error
/// (counted in characters from 1) and what is wrong there.
pub(crate) fn pattern(field: &str, text: &str) -> Result<Regex, ToolError> {
    if text.chars().count() > MAX_PATTERN {
        return Err(ToolError::invalid(format!(
            "invalid argument \"{field}\": a pattern may be at most {MAX_PATTERN} characters"
        )));
    }
    RegexBuilder::new(text)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::invalid(format!("invalid argument \"{field}\": {}", why(text, &e))))
}

/// Where and why a pattern is invalid, from the parser the regex crate uses.
fn why(text: &str, e: &regex::Error) -> String {
    let parsed = regex_syntax::ParserBuilder::new()
        .case_insensitive(true)
        .build()
        .parse(text);
    let (offset, kind) = match &parsed {
        Err(regex_syntax::Error::Parse(p)) => (p.span().start.offset, p.kind().to_string()),
        Err(regex_syntax::Error::Translate(t)) => (t.span().start.offset, t.kind().to_string()),
        _ => {
            return match e {
                regex::Error::CompiledTooBig(_) => {
                    "the pattern is too large once compiled; make it simpler".into()
                }
                _ => "the pattern is not a valid regular expression".into(),
            };
        }
    };
    let position = text[..offset.min(text.len())].chars().count() + 1;
    format!("the pattern is not a valid regular expression: {kind}, at position {position}")
}

/// A resolution as a recognised release shows it ("2160p"), from what people write.
pub(crate) fn resolution(text: &str) -> Result<&'static str, ToolError> {
    let t = text.trim().to_ascii_lowercase();
    Ok(match t.as_str() {
        "2160p" | "4k" | "uhd" | "2160" => "2160p",
        "1080p" | "1080" | "fhd" | "1080i" => "1080p",
        "720p" | "720" | "hd" => "720p",
        "576p" | "576" => "576p",
        "480p" | "480" | "sd" => "480p",
        "4320p" | "8k" => "4320p",
        _ => {
            return Err(ToolError::invalid(format!(
                "invalid argument \"resolution\": \"{}\" is not a resolution; valid: 480p, 576p, 720p, 1080p, 2160p (4k), 4320p (8k)",
                t.chars().take(16).collect::<String>()
            )));
        }
    })
}

/// How rows are ordered.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    /// Most seeders first (the default).
    #[default]
    Seeders,
    /// Largest first.
    Size,
    /// Newest first.
    Age,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("700MB"), Some(700_000_000));
        assert_eq!(parse_size("4.5 GB"), Some(4_500_000_000));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("5 parsecs"), None);
    }

    #[test]
    fn an_invalid_pattern_names_its_position() {
        let e = pattern("title_pattern", "1080p.(x264").unwrap_err();
        assert_eq!(
            e.message,
            "invalid argument \"title_pattern\": the pattern is not a valid regular expression: unclosed group, at position 7"
        );
        let e = pattern("content_pattern", "ab[z-a]").unwrap_err();
        assert!(e.message.contains("at position 4"), "{}", e.message);
        assert!(pattern("title_pattern", "(?i)matrix.*1080p").is_ok());
        assert!(
            pattern("title_pattern", "MATRIX")
                .unwrap()
                .is_match("the.matrix")
        );
    }

    #[test]
    fn resolutions() {
        assert_eq!(resolution("4K").unwrap(), "2160p");
        assert_eq!(resolution("1080p").unwrap(), "1080p");
        assert!(resolution("huge").is_err());
    }
}
