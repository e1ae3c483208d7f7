//! Rating ladders (a region's certifications, mildest first, as ranks) and the cache of ratings
//! read from details for rows that came without one.

use std::{collections::HashMap, time::Duration};

use adapters_catalogue::{Certification, CertificationInfo};
use domain::{MediaId, MediaType};
use kept::Kept;

/// US film certifications, mildest first: the fallback when a catalogue has no list of its own.
const US_MOVIE: [&str; 5] = ["G", "PG", "PG-13", "R", "NC-17"];
/// US TV ratings, mildest first.
const US_TV: [&str; 6] = ["TV-Y", "TV-Y7", "TV-G", "TV-PG", "TV-14", "TV-MA"];

/// Labels that say "no rating" although they sit in a certification field.
pub(crate) fn is_unrated_label(rating: &str) -> bool {
    let r = rating.trim();
    r.is_empty()
        || ["NR", "N/R", "NOT RATED", "UNRATED"]
            .iter()
            .any(|l| r.eq_ignore_ascii_case(l))
}

/// One region's certifications for one media type, as ranks (higher is stricter).
#[derive(Debug, Clone)]
pub(crate) struct Ladder {
    pub region: String,
    ranks: HashMap<String, u32>,
    /// Names in rank order, for messages.
    names: Vec<String>,
}

impl Ladder {
    pub fn from_list(region: &str, list: &[CertificationInfo]) -> Ladder {
        let mut sorted: Vec<&CertificationInfo> = list
            .iter()
            .filter(|c| !is_unrated_label(&c.certification))
            .collect();
        sorted.sort_by_key(|c| c.order);
        Ladder {
            region: region.to_ascii_uppercase(),
            ranks: sorted
                .iter()
                .map(|c| (c.certification.trim().to_ascii_uppercase(), c.order))
                .collect(),
            names: sorted.iter().map(|c| c.certification.clone()).collect(),
        }
    }

    /// The built-in US ladders, for catalogues that publish no list.
    pub fn us_fallback(media_type: MediaType) -> Option<Ladder> {
        let names: &[&str] = match media_type {
            MediaType::Movie => &US_MOVIE,
            MediaType::Tv => &US_TV,
            _ => return None,
        };
        Some(Ladder {
            region: "US".into(),
            ranks: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.to_string(), i as u32 + 1))
                .collect(),
            names: names.iter().map(|n| n.to_string()).collect(),
        })
    }

    /// The rank of a rating; `None` when the region's list does not have it.
    pub fn rank(&self, rating: &str) -> Option<u32> {
        self.ranks.get(&rating.trim().to_ascii_uppercase()).copied()
    }

    /// The list's spelling of a rating.
    pub fn spelling(&self, rating: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(rating.trim()))
            .map(String::as_str)
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }
}

type Key = (MediaId, MediaType, String);

/// Ratings read from details, per catalogue instance, kept for a while so a kid's repeated
/// searches do not read the same details again.
pub(crate) struct RatingCache {
    ratings: Kept<Key, (), Certification>,
}

/// Entries kept at most; past it the least recently used goes.
const CACHE_CAP: usize = 20_000;

impl RatingCache {
    pub fn new(ttl: Duration) -> RatingCache {
        RatingCache {
            ratings: Kept::new(CACHE_CAP).with_time_limit(ttl),
        }
    }

    pub fn get(&self, id: &MediaId, media_type: MediaType, region: &str) -> Option<Certification> {
        self.ratings
            .get(&(id.clone(), media_type, region.to_string()), &())
    }

    pub fn put(&self, id: &MediaId, media_type: MediaType, region: &str, cert: Certification) {
        self.ratings
            .insert((id.clone(), media_type, region.to_string()), (), cert);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders_rank_and_leave_no_rating_labels_out() {
        let list = [("NR", 0), ("G", 1), ("PG", 2), ("R", 4), ("PG-13", 3)].map(|(c, o)| {
            CertificationInfo {
                region: "US".into(),
                certification: c.into(),
                meaning: String::new(),
                order: o,
            }
        });
        let l = Ladder::from_list("us", &list);
        assert_eq!(l.names(), ["G", "PG", "PG-13", "R"]);
        assert_eq!(
            (l.rank("pg-13"), l.rank("NR"), l.rank("X")),
            (Some(3), None, None)
        );
        assert_eq!(l.spelling("pg"), Some("PG"));
        let tv = Ladder::us_fallback(MediaType::Tv).unwrap();
        assert!(tv.rank("TV-Y7") < tv.rank("TV-PG"));
        assert!(is_unrated_label("Not Rated") && !is_unrated_label("G"));
    }
}
