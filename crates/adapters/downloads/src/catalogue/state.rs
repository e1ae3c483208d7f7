//! The in-memory state of one catalogue: dense rows, an index by info hash, interned strings.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Arc,
    time::{Instant, SystemTime},
};

use domain::InfoHash;
use serde::Serialize;

use super::tally::{Changes, Fields, Tally};
use crate::{error::ErrorClass, intern::Interner, model::Torrent};

/// Instance-wide figures the client reports besides its torrents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServerStats {
    /// Bytes per second over all torrents, as the client counts them.
    pub dl_speed: Option<u64>,
    pub ul_speed: Option<u64>,
    /// Free bytes in the default download folder.
    pub free_space: Option<u64>,
}

/// Why the last refresh failed; the rows stay as the last good refresh left them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefreshError {
    pub class: ErrorClass,
    pub message: String,
    pub at: SystemTime,
}

/// Rows live in one dense `Vec` (fast scans, small) with a hash index beside it.
#[derive(Debug, Default)]
pub(crate) struct CatalogueState {
    /// Changed only through `upsert`, `remove` and `clear_rows`, which bump `generation`.
    rows: Vec<Torrent>,
    /// Counts changes to anything a view shows (rows, labels, freshness), so what was derived
    /// from the state knows when it went stale.
    generation: u64,
    /// The generation of the last change to the rows themselves (a row changed, added or
    /// removed, or a write re-read): freshness and labels alone leave it.
    rows_generation: u64,
    index: HashMap<InfoHash, u32>,
    /// Counts and sums over `rows`, kept by the same three functions.
    tally: Tally,
    /// Which row fields changed at which generation, for kept orders.
    changes: Changes,
    pub(crate) interner: Interner,
    /// qBittorrent's categories (name -> save path). Unused for Transmission.
    pub(crate) categories: BTreeMap<Arc<str>, Option<Arc<str>>>,
    /// qBittorrent's known tags, used by a torrent or not. Unused for Transmission.
    pub(crate) tags: BTreeSet<Arc<str>>,
    pub(crate) server: ServerStats,
    pub(crate) observed_at: Option<SystemTime>,
    pub(crate) last_error: Option<RefreshError>,
    pub(crate) last_attempt: Option<Instant>,
}

impl CatalogueState {
    pub(crate) fn rows(&self) -> &[Torrent] {
        &self.rows
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn rows_generation(&self) -> u64 {
        self.rows_generation
    }

    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Some of `fields` changed in some row after `generation` (rows added, removed or moved
    /// count as [`Fields::PLACE`]).
    pub(crate) fn changed_since(&self, generation: u64, fields: Fields) -> bool {
        self.changes.since(generation, fields.with(Fields::PLACE))
    }

    /// Marks a change made outside `upsert`, `remove` and `clear_rows`.
    pub(crate) fn touch(&mut self) {
        self.generation += 1;
    }

    /// Marks the rows as changed though no field did (a write was just made to them).
    pub(crate) fn touch_rows(&mut self) {
        self.generation += 1;
        self.rows_generation = self.generation;
    }

    pub(crate) fn get(&self, hash: &InfoHash) -> Option<&Torrent> {
        self.index.get(hash).map(|&i| &self.rows[i as usize])
    }

    pub(crate) fn contains(&self, hash: &InfoHash) -> bool {
        self.index.contains_key(hash)
    }

    /// Changes the row of `hash`, creating a blank one first when it is new. A change that
    /// leaves the row as it was changes nothing, not even the generation.
    pub(crate) fn upsert(&mut self, hash: InfoHash, f: impl FnOnce(&mut Torrent, &mut Interner)) {
        if let Some(&i) = self.index.get(&hash) {
            let row = &mut self.rows[i as usize];
            let before = row.clone();
            f(row, &mut self.interner);
            if *row == before {
                return;
            }
            self.generation += 1;
            self.rows_generation = self.generation;
            self.tally.remove(&before);
            self.tally.add(row);
            self.changes.mark_row(&before, row, self.generation);
            return;
        }
        let mut row = Torrent::blank(hash, &self.interner.empty, &self.interner.no_tags);
        f(&mut row, &mut self.interner);
        self.generation += 1;
        self.rows_generation = self.generation;
        self.tally.add(&row);
        self.changes.mark(Fields::PLACE, self.generation);
        self.index.insert(hash, self.rows.len() as u32);
        self.rows.push(row);
    }

    pub(crate) fn remove(&mut self, hash: &InfoHash) -> bool {
        let Some(i) = self.index.remove(hash) else {
            return false;
        };
        let i = i as usize;
        self.generation += 1;
        self.rows_generation = self.generation;
        self.changes.mark(Fields::PLACE, self.generation);
        let gone = self.rows.swap_remove(i);
        self.tally.remove(&gone);
        if let Some(moved) = self.rows.get(i) {
            self.index.insert(moved.info_hash, i as u32);
        }
        true
    }

    /// Forgets every row and interned string, before a full refresh.
    pub(crate) fn clear_rows(&mut self) {
        self.generation += 1;
        self.rows_generation = self.generation;
        self.changes.mark(Fields::PLACE, self.generation);
        self.rows.clear();
        self.index.clear();
        self.tally = Tally::default();
        self.interner.clear();
    }

    /// Takes the rows (and their interned strings) of `staged`, built apart while a full
    /// refresh was read, in place of this state's.
    pub(crate) fn replace_rows(&mut self, staged: CatalogueState) {
        self.generation += 1;
        self.rows_generation = self.generation;
        self.changes.mark(Fields::PLACE, self.generation);
        self.rows = staged.rows;
        self.index = staged.index;
        self.tally = staged.tally;
        self.interner = staged.interner;
    }

    /// Returns memory a full refresh over-allocated.
    pub(crate) fn shrink(&mut self) {
        self.rows.shrink_to_fit();
        self.index.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(n: u8) -> InfoHash {
        InfoHash::from_bytes([n; 20])
    }

    #[test]
    fn swap_remove_keeps_the_index_right() {
        let mut s = CatalogueState::default();
        for n in 0..5 {
            s.upsert(h(n), |t, i| t.name = i.str(&format!("t{n}")));
        }
        assert!(s.remove(&h(1)));
        assert!(!s.remove(&h(1)));
        assert_eq!(s.rows().len(), 4);
        for n in [0, 2, 3, 4] {
            assert_eq!(&*s.get(&h(n)).unwrap().name, format!("t{n}"));
        }
        assert!(s.remove(&h(4)));
        assert_eq!(&*s.get(&h(3)).unwrap().name, "t3");
    }

    #[test]
    fn the_rows_generation_moves_with_the_rows_only() {
        let mut s = CatalogueState::default();
        s.upsert(h(1), |t, i| t.name = i.str("one"));
        let rows = s.rows_generation();
        s.touch();
        s.upsert(h(1), |t, i| t.name = i.str("one"));
        assert_eq!(s.rows_generation(), rows, "freshness and an unchanged row");
        assert!(s.generation() > rows);
        s.upsert(h(1), |t, i| t.name = i.str("uno"));
        let renamed = s.rows_generation();
        assert!(renamed > rows);
        s.touch_rows();
        let written = s.rows_generation();
        assert!(written > renamed);
        assert!(s.remove(&h(1)));
        assert!(s.rows_generation() > written);
    }
}
