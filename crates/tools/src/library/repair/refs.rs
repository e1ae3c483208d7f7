//! Release references of `search_releases` rows, under the one reference policy of release
//! references (as `search_indexers`' are): bound to the person who searched, expiring an hour
//! after the search, naming their origin. `arr:<instance>:<valid until, unix seconds>:<tag>`,
//! where the tag is a keyed hash over the person and the time under the release's own keyed
//! reference (itself keyed by the instance's API key over instance, scope, indexer and GUID, and
//! never shown). So nothing about the release can be read from a reference, one cannot be made
//! for another person or time, and references hold across a restart while they are valid.

use domain::PersonId;
use governance::{ErrorCode, ToolError};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::indexers::refs::VALID_FOR;

/// The prefix every library release reference starts with.
pub(crate) const PREFIX: &str = "arr:";

/// A reference as given, its form checked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Given {
    /// The instance whose search made it.
    pub instance: String,
    until: u64,
    tag: [u8; 16],
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`.
fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = Hmac::<Sha256>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    mac.update(message);
    mac.finalize().into_bytes().into()
}

fn tag(keyed: &str, person: PersonId, until: u64) -> [u8; 16] {
    let full = hmac(
        keyed.as_bytes(),
        format!("{}\n{until}", person.0).as_bytes(),
    );
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// The reference `person` is shown for the release whose keyed reference is `keyed` on
/// `instance`, valid for [`VALID_FOR`] from now.
pub(crate) fn issue(instance: &str, keyed: &str, person: PersonId) -> String {
    issue_until(instance, keyed, person, now() + VALID_FOR.as_secs())
}

fn issue_until(instance: &str, keyed: &str, person: PersonId, until: u64) -> String {
    format!(
        "{PREFIX}{instance}:{until}:{}",
        hex::encode(tag(keyed, person, until))
    )
}

/// Reads a reference: refused when it is not of the form search_releases shows, or has expired.
pub(crate) fn given(text: &str) -> Result<Given, ToolError> {
    given_at(text, now())
}

fn given_at(text: &str, now: u64) -> Result<Given, ToolError> {
    let malformed = || {
        ToolError::invalid(
            "invalid argument \"release_ref\": give a release_ref exactly as search_releases showed it",
        )
    };
    let rest = text.trim().strip_prefix(PREFIX).ok_or_else(malformed)?;
    let (rest, tag_hex) = rest.rsplit_once(':').ok_or_else(malformed)?;
    let (instance, until) = rest.rsplit_once(':').ok_or_else(malformed)?;
    let until: u64 = until.parse().map_err(|_| malformed())?;
    let mut tag = [0u8; 16];
    hex::decode_to_slice(tag_hex, &mut tag).map_err(|_| malformed())?;
    if instance.is_empty() {
        return Err(malformed());
    }
    if now >= until {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            "that release_ref has expired (references last an hour); nothing was grabbed; run search_releases again",
        ));
    }
    Ok(Given {
        instance: instance.to_string(),
        until,
        tag,
    })
}

impl Given {
    /// Whether this reference was issued to `person` for the release whose keyed reference is
    /// `keyed` (compared in constant time).
    pub(crate) fn is(&self, keyed: &str, person: PersonId) -> bool {
        let want = tag(keyed, person, self.until);
        want.iter()
            .zip(self.tag.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYED: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn bound_to_its_person_and_release_naming_its_origin() {
        let r = issue("radarr", KEYED, PersonId(1));
        assert!(r.starts_with("arr:radarr:"), "{r}");
        assert!(!r.contains(KEYED));
        let g = given(&r).unwrap();
        assert_eq!(g.instance, "radarr");
        assert!(g.is(KEYED, PersonId(1)));
        assert!(!g.is(KEYED, PersonId(2)), "another person's");
        assert!(
            !g.is("fedcba9876543210fedcba9876543210", PersonId(1)),
            "another release's"
        );
        // A changed time does not carry the tag along.
        let later = r.replace(&format!(":{}:", g.until), &format!(":{}:", g.until + 3600));
        assert!(!given(&later).unwrap().is(KEYED, PersonId(1)));
    }

    #[test]
    fn expired_and_malformed_references_are_refused() {
        let r = issue_until("radarr", KEYED, PersonId(1), 1_000);
        assert!(given_at(&r, 999).is_ok());
        let e = given_at(&r, 1_000).unwrap_err();
        assert!(e.message.contains("expired"), "{}", e.message);
        for bad in [
            "0123456789abcdef0123456789abcdef",
            "arr:radarr:x:00",
            "arr::99999999999:00000000000000000000000000000000",
            "idx:feed:00000000000000000000000000000000",
            "arr:radarr:99999999999:zz",
        ] {
            let e = given(bad).unwrap_err();
            assert!(e.message.contains("exactly as search_releases"), "{bad}");
        }
    }
}
