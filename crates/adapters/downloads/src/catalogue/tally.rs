//! What a refresh keeps up to date besides the rows, so reads need no scan of them: the counts
//! and sums the overview, categories, tags and tracker-error groups show, and which row fields
//! changed at which generation, so a kept order knows whether it still holds.

use std::{
    collections::{BTreeMap, HashMap},
    hash::Hash,
    sync::Arc,
};

use crate::{
    model::{Torrent, TorrentState},
    tracker_class::TrackerErrorClass,
};

/// A set of row fields, as bits. A query reads some of them (see `TorrentQuery::reads`); a row
/// change writes some; a kept order stays valid while nothing it reads was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fields(u16);

impl Fields {
    /// Rows were added, removed or moved: every kept row index is stale.
    pub(crate) const PLACE: Fields = Fields(1);
    pub(crate) const NAME: Fields = Fields(1 << 1);
    pub(crate) const STATE: Fields = Fields(1 << 2);
    pub(crate) const CATEGORY: Fields = Fields(1 << 3);
    pub(crate) const TAGS: Fields = Fields(1 << 4);
    pub(crate) const TRACKER_ERROR: Fields = Fields(1 << 5);
    pub(crate) const RATIO: Fields = Fields(1 << 6);
    pub(crate) const SIZE: Fields = Fields(1 << 7);
    pub(crate) const ADDED: Fields = Fields(1 << 8);
    pub(crate) const PROGRESS: Fields = Fields(1 << 9);
    pub(crate) const DL_SPEED: Fields = Fields(1 << 10);
    pub(crate) const UL_SPEED: Fields = Fields(1 << 11);
    const COUNT: usize = 12;

    pub(crate) fn with(self, other: Fields) -> Fields {
        Fields(self.0 | other.0)
    }

    fn has(self, bit: usize) -> bool {
        self.0 & (1 << bit) != 0
    }

    /// The query-relevant fields that differ between two versions of one row.
    fn between(a: &Torrent, b: &Torrent) -> Fields {
        let pairs = [
            (a.name != b.name, Fields::NAME),
            (a.state != b.state, Fields::STATE),
            (a.category != b.category, Fields::CATEGORY),
            (a.tags != b.tags, Fields::TAGS),
            (a.tracker_error != b.tracker_error, Fields::TRACKER_ERROR),
            (a.ratio.to_bits() != b.ratio.to_bits(), Fields::RATIO),
            (a.size != b.size, Fields::SIZE),
            (a.added_at != b.added_at, Fields::ADDED),
            (
                a.progress.to_bits() != b.progress.to_bits(),
                Fields::PROGRESS,
            ),
            (a.dl_speed != b.dl_speed, Fields::DL_SPEED),
            (a.ul_speed != b.ul_speed, Fields::UL_SPEED),
        ];
        pairs
            .into_iter()
            .filter(|(changed, _)| *changed)
            .fold(Fields::default(), |all, (_, f)| all.with(f))
    }
}

/// The generation at which each field last changed in some row.
#[derive(Clone, Debug, Default)]
pub(crate) struct Changes([u64; Fields::COUNT]);

impl Changes {
    pub(crate) fn mark(&mut self, fields: Fields, generation: u64) {
        for bit in 0..Fields::COUNT {
            if fields.has(bit) {
                self.0[bit] = generation;
            }
        }
    }

    /// `old` and `new` are two versions of one row, changed at `generation`.
    pub(crate) fn mark_row(&mut self, old: &Torrent, new: &Torrent, generation: u64) {
        self.mark(Fields::between(old, new), generation);
    }

    /// Some of `fields` changed after `generation`.
    pub(crate) fn since(&self, generation: u64, fields: Fields) -> bool {
        (0..Fields::COUNT).any(|bit| fields.has(bit) && self.0[bit] > generation)
    }
}

/// Counts and sums over every row, kept as rows come and go.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    pub(crate) by_state: BTreeMap<TorrentState, usize>,
    /// Rows with a tracker error, by class and message (`None`: no message).
    pub(crate) tracker_errors: HashMap<(TrackerErrorClass, Option<Arc<str>>), usize>,
    pub(crate) by_category: HashMap<Arc<str>, usize>,
    pub(crate) by_tag: HashMap<Arc<str>, usize>,
    pub(crate) dl_speed: u64,
    pub(crate) ul_speed: u64,
    pub(crate) size: u64,
}

impl Tally {
    pub(crate) fn add(&mut self, t: &Torrent) {
        *self.by_state.entry(t.state).or_insert(0) += 1;
        if let Some(class) = t.tracker_error {
            *self
                .tracker_errors
                .entry((class, t.tracker_message.clone()))
                .or_insert(0) += 1;
        }
        if let Some(c) = &t.category {
            *self.by_category.entry(c.clone()).or_insert(0) += 1;
        }
        for tag in t.tags.iter() {
            *self.by_tag.entry(tag.clone()).or_insert(0) += 1;
        }
        self.dl_speed = self.dl_speed.wrapping_add(t.dl_speed);
        self.ul_speed = self.ul_speed.wrapping_add(t.ul_speed);
        self.size = self.size.wrapping_add(t.size);
    }

    /// Takes back what [`Tally::add`] counted for `t`.
    pub(crate) fn remove(&mut self, t: &Torrent) {
        take(&mut self.by_state, &t.state);
        if let Some(class) = t.tracker_error {
            take_hashed(
                &mut self.tracker_errors,
                &(class, t.tracker_message.clone()),
            );
        }
        if let Some(c) = &t.category {
            take_hashed(&mut self.by_category, c);
        }
        for tag in t.tags.iter() {
            take_hashed(&mut self.by_tag, tag);
        }
        self.dl_speed = self.dl_speed.wrapping_sub(t.dl_speed);
        self.ul_speed = self.ul_speed.wrapping_sub(t.ul_speed);
        self.size = self.size.wrapping_sub(t.size);
    }
}

fn take<K: Ord>(counts: &mut BTreeMap<K, usize>, key: &K) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

fn take_hashed<K: Eq + Hash>(counts: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::InfoHash;

    use super::*;
    use crate::{
        catalogue::{recent::RecentMatches, state::CatalogueState},
        query::{SortKey, TorrentQuery},
    };

    const STATES: [TorrentState; 4] = [
        TorrentState::Seeding,
        TorrentState::Paused,
        TorrentState::Downloading,
        TorrentState::Error,
    ];

    /// A small deterministic generator, so a failure replays.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    fn recount(s: &CatalogueState) -> Tally {
        let mut t = Tally::default();
        for row in s.rows() {
            t.add(row);
        }
        t
    }

    fn same(a: &Tally, b: &Tally) -> bool {
        a.by_state == b.by_state
            && a.tracker_errors == b.tracker_errors
            && a.by_category == b.by_category
            && a.by_tag == b.by_tag
            && (a.dl_speed, a.ul_speed, a.size) == (b.dl_speed, b.ul_speed, b.size)
    }

    #[test]
    fn kept_counts_equal_a_recount_after_any_changes() {
        let mut rng = Lcg(14);
        let mut s = CatalogueState::default();
        for step in 0..3000 {
            let hash = InfoHash::from_bytes([rng.next(40) as u8; 20]);
            if rng.next(5) == 0 {
                s.remove(&hash);
            } else {
                let (st, cat, tag, err) = (rng.next(4), rng.next(3), rng.next(3), rng.next(4));
                let (speed, size) = (rng.next(1000), rng.next(1 << 40));
                s.upsert(hash, |t, i| {
                    t.state = STATES[st as usize];
                    t.category = (cat > 0).then(|| i.str(&format!("c{cat}")));
                    t.tags = i.tags(
                        (0..tag)
                            .map(|n| format!("t{n}"))
                            .collect::<Vec<_>>()
                            .iter()
                            .map(String::as_str),
                    );
                    t.tracker_error = (err > 1).then_some(TrackerErrorClass::Unregistered);
                    t.tracker_message = (err == 3).then(|| i.str("unregistered torrent"));
                    t.dl_speed = speed;
                    t.size = size;
                });
            }
            assert!(same(s.tally(), &recount(&s)), "step {step}");
        }
    }

    fn h(n: u8) -> InfoHash {
        InfoHash::from_bytes([n; 20])
    }

    fn named(n: u8) -> CatalogueState {
        let mut s = CatalogueState::default();
        for k in 0..n {
            s.upsert(h(k), |t, i| t.name = i.str(&format!("row {}", n - k)));
        }
        s
    }

    #[test]
    fn a_kept_order_outlives_changes_to_fields_its_query_does_not_read() {
        let mut s = named(5);
        let recent = RecentMatches::default();
        let by_name = TorrentQuery::default();
        let first = recent.order(&s, &by_name);
        s.upsert(h(2), |t, _| t.dl_speed = 900);
        assert!(std::sync::Arc::ptr_eq(&first, &recent.order(&s, &by_name)));
        let by_speed = TorrentQuery {
            sort: SortKey::DlSpeed,
            descending: true,
            ..TorrentQuery::default()
        };
        assert_eq!(recent.order(&s, &by_speed)[0], 2);
    }

    #[test]
    fn a_kept_order_is_rebuilt_when_a_field_it_reads_or_a_row_place_changes() {
        let mut s = named(5);
        let recent = RecentMatches::default();
        let by_name = TorrentQuery::default();
        assert_eq!(&*recent.order(&s, &by_name), [4, 3, 2, 1, 0]);
        s.upsert(h(0), |t, i| t.name = i.str("row 0"));
        assert_eq!(&*recent.order(&s, &by_name), [0, 4, 3, 2, 1]);
        s.remove(&h(4));
        assert_eq!(&*recent.order(&s, &by_name), [0, 3, 2, 1]);
    }

    #[test]
    fn an_upsert_that_changes_nothing_keeps_the_generation() {
        let mut s = named(3);
        let before = s.generation();
        s.upsert(h(1), |t, i| t.name = i.str("row 2"));
        assert_eq!(s.generation(), before);
        s.upsert(h(1), |t, _| t.eta = Some(5));
        assert!(s.generation() > before);
    }
}
