//! Subtitle references: `sub:<instance>:<32 hex>`, random, so nothing about the subtitle (its
//! file id, a provider's token, a link) can be read from one. What a reference stands for stays
//! here, in memory: bound to the person whose search made it and valid for a day. A reference
//! of another person or an expired one is refused like one Marquee never made.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use adapters_subtitles::bazarr::{Offer, Target};
use domain::PersonId;
use parking_lot::Mutex;
use rand::Rng;

/// How long a reference may be downloaded after its search.
pub(crate) const VALID_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The most references held at once; the oldest go first.
const MAX_HELD: usize = 20_000;

pub(crate) const PREFIX: &str = "sub:";

/// What a reference fetches.
#[derive(Clone, Debug)]
pub(crate) enum What {
    /// An OpenSubtitles file.
    File { file_id: u64 },
    /// A Bazarr provider result for a movie or an episode.
    Bazarr { target: Target, offer: Box<Offer> },
}

/// What a reference stands for.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    pub person: PersonId,
    pub made: Instant,
    /// The subtitle instance whose answer carried it.
    pub instance: String,
    pub what: What,
    /// ISO 639-1 (with a region where meant).
    pub language: String,
    pub hearing_impaired: bool,
    pub forced: bool,
    /// What the row showed: its release name.
    pub release: Option<String>,
}

#[derive(Default)]
pub struct Refs {
    held: Mutex<HashMap<String, Held>>,
}

impl Refs {
    pub(crate) fn issue(&self, held: Held) -> String {
        let mut bytes = [0u8; 16];
        rand::rng().fill(&mut bytes);
        let reference = format!("{PREFIX}{}:{}", held.instance, hex::encode(bytes));
        let mut map = self.held.lock();
        if map.len() >= MAX_HELD {
            map.retain(|_, h| h.made.elapsed() < VALID_FOR);
            if map.len() >= MAX_HELD
                && let Some(oldest) = map
                    .iter()
                    .min_by_key(|(_, h)| h.made)
                    .map(|(k, _)| k.clone())
            {
                map.remove(&oldest);
            }
        }
        map.insert(reference.clone(), held);
        reference
    }

    /// What `reference` stands for, when `person` may use it now; `None` for one of another
    /// person, an expired one, or one Marquee never made (one answer for all three).
    pub(crate) fn look(&self, reference: &str, person: PersonId) -> Option<Held> {
        let map = self.held.lock();
        map.get(reference.trim())
            .filter(|h| h.person == person && h.made.elapsed() < VALID_FOR)
            .cloned()
    }

    #[cfg(test)]
    pub(crate) fn age(&self, reference: &str, by: Duration) {
        if let Some(h) = self.held.lock().get_mut(reference)
            && let Some(t) = h.made.checked_sub(by)
        {
            h.made = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_is_bound_to_its_person_and_expires() {
        let refs = Refs::default();
        let r = refs.issue(Held {
            person: PersonId(1),
            made: Instant::now(),
            instance: "os".into(),
            what: What::File { file_id: 424242 },
            language: "en".into(),
            hearing_impaired: false,
            forced: false,
            release: None,
        });
        assert!(r.starts_with("sub:os:") && !r.contains("424242"), "{r}");
        assert!(refs.look(&r, PersonId(2)).is_none());
        assert!(refs.look(&r, PersonId(1)).is_some());
        refs.age(&r, VALID_FOR);
        assert!(refs.look(&r, PersonId(1)).is_none());
    }
}
