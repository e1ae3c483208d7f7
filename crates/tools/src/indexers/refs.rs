//! Release references of indexer rows: `idx:<instance>:<32 hex>`, random, so nothing about
//! the release (its download link, magnet, GUID or the indexer's key) can be read from one.
//! What a reference stands for stays here, in memory: bound to the person whose search made
//! it, valid for an hour, and used once (a grab takes it). A reference of another person, an
//! expired one, or one already grabbed is refused the same way as one Marquee never made.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use adapters_indexers::Release;
use domain::PersonId;
use parking_lot::Mutex;
use rand::Rng;

/// How long a reference may be grabbed after its search.
pub(crate) const VALID_FOR: Duration = Duration::from_secs(60 * 60);

/// The most references held at once; the oldest go first.
const MAX_HELD: usize = 20_000;

/// The prefix every indexer reference starts with.
pub(crate) const PREFIX: &str = "idx:";

/// What a reference stands for.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    pub person: PersonId,
    pub made: Instant,
    /// The indexer instance whose answer carried it.
    pub instance: String,
    /// The indexer (`instance/id` or `instance`) and its name.
    pub indexer_key: String,
    pub indexer_name: String,
    pub release: Release,
    /// The title the search was for, when it named one ("The Matrix (1999)", media id).
    pub title: Option<String>,
    pub media: Option<String>,
    /// The identity searched for, as given.
    pub media_id: Option<domain::MediaId>,
    /// Set once a grab took it.
    pub grabbed: bool,
}

/// Why a reference cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not one of Marquee's, or not this person's (the same answer: a reference is no proof
    /// that another person's search exists).
    Unknown,
    Expired,
    Grabbed,
}

#[derive(Default)]
pub struct Refs {
    held: Mutex<HashMap<String, Held>>,
}

impl Refs {
    /// A fresh reference for `held`.
    pub(crate) fn issue(&self, held: Held) -> String {
        let mut bytes = [0u8; 16];
        rand::rng().fill(&mut bytes);
        let reference = format!("{PREFIX}{}:{}", held.instance, hex::encode(bytes));
        let mut map = self.held.lock();
        if map.len() >= MAX_HELD {
            map.retain(|_, h| h.made.elapsed() < VALID_FOR && !h.grabbed);
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

    /// What `reference` stands for, when `person` may grab it now. Nothing is changed.
    pub(crate) fn look(&self, reference: &str, person: PersonId) -> Result<Held, Refused> {
        let map = self.held.lock();
        let held = map
            .get(reference.trim())
            .filter(|h| h.person == person)
            .ok_or(Refused::Unknown)?;
        if held.grabbed {
            return Err(Refused::Grabbed);
        }
        if held.made.elapsed() >= VALID_FOR {
            return Err(Refused::Expired);
        }
        Ok(held.clone())
    }

    /// Marks `reference` grabbed; false when another call took it first (two grabs of one
    /// reference at once: one adds, the other is refused).
    pub(crate) fn take(&self, reference: &str, person: PersonId) -> bool {
        let mut map = self.held.lock();
        match map.get_mut(reference.trim()) {
            Some(h) if h.person == person && !h.grabbed => {
                h.grabbed = true;
                true
            }
            _ => false,
        }
    }

    /// Gives `reference` back after a grab that added nothing.
    pub(crate) fn give_back(&self, reference: &str) {
        if let Some(h) = self.held.lock().get_mut(reference.trim()) {
            h.grabbed = false;
        }
    }

    /// Makes `reference` old (tests of expiry).
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
    use adapters_indexers::{Link, Protocol};

    use super::*;

    fn held(person: i64) -> Held {
        Held {
            person: PersonId(person),
            made: Instant::now(),
            instance: "feed".into(),
            indexer_key: "feed".into(),
            indexer_name: "feed".into(),
            release: Release {
                title: "x".into(),
                guid: Link::new("g"),
                indexer: String::new(),
                indexer_id: None,
                size: None,
                seeders: None,
                leechers: None,
                grabs: None,
                published: None,
                info_hash: None,
                protocol: Protocol::Torrent,
                download: Some(Link::new("http://idx/dl?apikey=SECRET")),
                magnet: None,
                description: None,
                categories: vec![],
                tags: vec![],
                imdb: None,
                tvdb: None,
            },
            title: None,
            media: None,
            media_id: None,
            grabbed: false,
        }
    }

    #[test]
    fn a_reference_names_its_origin_and_nothing_else() {
        let refs = Refs::default();
        let r = refs.issue(held(1));
        assert!(r.starts_with("idx:feed:"), "{r}");
        assert_eq!(r.len(), "idx:feed:".len() + 32);
        assert!(!r.contains("SECRET"));
    }

    #[test]
    fn bound_to_its_person_expiring_and_used_once() {
        let refs = Refs::default();
        let r = refs.issue(held(1));
        assert_eq!(refs.look(&r, PersonId(2)).unwrap_err(), Refused::Unknown);
        assert!(refs.look(&r, PersonId(1)).is_ok());
        assert!(!refs.take(&r, PersonId(2)));
        assert!(refs.take(&r, PersonId(1)));
        assert_eq!(refs.look(&r, PersonId(1)).unwrap_err(), Refused::Grabbed);
        assert!(!refs.take(&r, PersonId(1)), "a second grab is refused");
        refs.give_back(&r);
        assert!(refs.look(&r, PersonId(1)).is_ok());
        refs.age(&r, VALID_FOR);
        assert_eq!(refs.look(&r, PersonId(1)).unwrap_err(), Refused::Expired);
        assert_eq!(
            refs.look("idx:feed:00000000000000000000000000000000", PersonId(1))
                .unwrap_err(),
            Refused::Unknown
        );
    }
}
