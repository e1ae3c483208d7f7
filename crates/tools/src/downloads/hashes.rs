//! Validating the info hashes a call names: the whole list is checked before anything happens,
//! and one bad entry refuses the whole call.

use domain::InfoHash;

use governance::contract::ToolError;

/// The most torrents one write names.
pub(crate) const MAX_HASHES: usize = 100;
/// The most torrents one deletion names.
pub(crate) const MAX_DELETE: usize = 50;

/// Parses one `info_hash` argument: 40 hexadecimal characters, any case.
pub(crate) fn one(raw: &str) -> Result<InfoHash, ToolError> {
    raw.parse().map_err(|_| {
        ToolError::invalid(format!(
            "info_hash \"{}\" is not a 40-character hexadecimal info hash; find_torrents shows them",
            shown(raw)
        ))
    })
}

/// Parses `info_hashes`: non-empty, at most `max`, each 40 hex characters (any case). Repeats
/// are dropped (the first one stays); the second value says how many were.
pub(crate) fn list(raw: &[String], max: usize) -> Result<(Vec<InfoHash>, usize), ToolError> {
    if raw.is_empty() {
        return Err(ToolError::invalid(
            "info_hashes is empty; name at least one torrent by its info hash (find_torrents shows them)",
        ));
    }
    let parsed: Vec<Result<InfoHash, _>> = raw.iter().map(|h| h.parse::<InfoHash>()).collect();
    let bad: Vec<String> = parsed
        .iter()
        .zip(raw)
        .enumerate()
        .filter(|(_, (p, _))| p.is_err())
        .map(|(i, (_, h))| format!("info_hashes[{i}] \"{}\"", shown(h)))
        .collect();
    if !bad.is_empty() {
        let more = bad.len().saturating_sub(5);
        let mut listed = bad.into_iter().take(5).collect::<Vec<_>>().join(", ");
        if more > 0 {
            listed.push_str(&format!(" and {more} more"));
        }
        return Err(ToolError::invalid(format!(
            "{listed}: not a 40-character hexadecimal info hash; nothing was changed"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let out: Vec<InfoHash> = parsed
        .into_iter()
        .flatten()
        .filter(|h| seen.insert(*h))
        .collect();
    if out.len() > max {
        return Err(ToolError::invalid(format!(
            "info_hashes names {} torrents; at most {max} per call, so split the list; nothing was changed",
            out.len()
        )));
    }
    let repeats = raw.len() - out.len();
    Ok((out, repeats))
}

/// At most 64 characters of what the caller sent, for messages.
fn shown(raw: &str) -> String {
    raw.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn validates_the_whole_list() {
        let a = "A".repeat(40);
        let (hashes, repeats) = list(&strings(&[&a, &"a".repeat(40), &"b".repeat(40)]), 2).unwrap();
        assert_eq!(
            (hashes.len(), repeats, hashes[0].to_hex()),
            (2, 1, "a".repeat(40))
        );
        assert!(list(&[], 5).unwrap_err().message.contains("empty"));
        let e = list(&strings(&[&a, "nope", &"z".repeat(40)]), 5).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "info_hashes[1] \"nope\", info_hashes[2] \"{}\": not a 40-character hexadecimal info hash; nothing was changed",
                "z".repeat(40)
            )
        );
        let three = strings(&[&a, &"b".repeat(40), &"c".repeat(40)]);
        assert!(list(&three, 2).unwrap_err().message.contains("at most 2"));
        assert!(one(" aaaa").is_err());
    }
}
