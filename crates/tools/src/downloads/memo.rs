//! Answers of catalogue reads, kept until a catalogue they read changes.
//!
//! A catalogue changes only when a refresh or a write lands (every few seconds at most), and
//! between two changes a read over it is a pure function of its arguments and the instances
//! it read. So an answer is kept with the version of every catalogue it read and handed out
//! again, rendered once, while all of those versions are unchanged; any change makes it a miss.

use parking_lot::Mutex;

use super::Source;
use governance::{Output, ToolError};

/// Answers kept per tool.
const KEPT: usize = 8;

/// The instances an answer read, each with its catalogue's version (`None`: no catalogue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Versions(Vec<(String, Option<u64>)>);

impl Versions {
    pub(crate) fn of(sources: &[&Source]) -> Versions {
        Versions(
            sources
                .iter()
                .map(|s| {
                    let version = s.working().map(|b| b.catalogue.version());
                    (s.id.clone(), version)
                })
                .collect(),
        )
    }

    /// Some instance both read has changed since `self` was taken.
    fn outdated_by(&self, newer: &Versions) -> bool {
        self.0.iter().any(|(id, v)| {
            newer
                .0
                .iter()
                .any(|(newer_id, newer_v)| newer_id == id && newer_v != v)
        })
    }
}

/// Kept answers of one tool, keyed by its arguments `A` and the versions they read.
pub(crate) struct Memo<A> {
    /// Most recently used first.
    entries: Mutex<Vec<(Versions, A, Output)>>,
}

impl<A> Default for Memo<A> {
    fn default() -> Memo<A> {
        Memo {
            entries: Mutex::new(Vec::new()),
        }
    }
}

impl<A: PartialEq> Memo<A> {
    /// The versions of `sources` now, and the kept answer to `args` under them, if any.
    pub(crate) fn get(&self, sources: &[&Source], args: &A) -> (Versions, Option<Output>) {
        let now = Versions::of(sources);
        let mut entries = self.entries.lock();
        let hit = entries
            .iter()
            .position(|(v, a, _)| *v == now && a == args)
            .map(|i| {
                let entry = entries.remove(i);
                let out = entry.2.clone();
                entries.insert(0, entry);
                out
            });
        (now, hit)
    }

    /// The kept answer to `args` over `sources`, or `compute`'s, then kept (failures are not).
    pub(crate) fn answer(
        &self,
        sources: &[&Source],
        args: A,
        compute: impl FnOnce() -> Result<Output, ToolError>,
    ) -> Result<Output, ToolError> {
        let (read, kept) = self.get(sources, &args);
        if let Some(out) = kept {
            return Ok(out);
        }
        Ok(self.put(sources, read, args, compute()?))
    }

    /// Keeps `out`, computed under `read`, unless a catalogue changed while it was computed.
    /// Returns the answer to give, sharing its rendered form with the kept copy.
    pub(crate) fn put(&self, sources: &[&Source], read: Versions, args: A, out: Output) -> Output {
        if Versions::of(sources) != read {
            return out;
        }
        let out = out.shared();
        let mut entries = self.entries.lock();
        // Drop answers over older versions, and an earlier copy of this one.
        entries.retain(|(v, a, _)| !(v.outdated_by(&read) || (v == &read && a == &args)));
        entries.insert(0, (read, args, out.clone()));
        entries.truncate(KEPT);
        out
    }
}
