//! Answers of catalogue reads, kept until a catalogue they read changes.
//!
//! A catalogue changes only when a refresh or a write lands (every few seconds at most), and
//! between two changes a read over it is a pure function of its arguments and the instances
//! it read. So an answer is kept with the version of every catalogue it read and handed out
//! again, rendered once, while all of those versions are unchanged; any change makes it a miss.

use std::{
    borrow::Borrow,
    hash::{Hash, Hasher},
};

use kept::Kept;

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

/// A tool's arguments as a key. They need not hash (a query holds ratios): the few answers of
/// one tool share one bucket and are told apart by `==`, as a scan of them would.
#[derive(Clone)]
struct Args<A>(A);

/// The arguments a lookup is made with, borrowed (`&A`) or kept (`Args<A>`): a hit builds no key.
trait Lookup<A> {
    fn args(&self) -> &A;
}

impl<A> Lookup<A> for A {
    fn args(&self) -> &A {
        self
    }
}

impl<A> Lookup<A> for Args<A> {
    fn args(&self) -> &A {
        &self.0
    }
}

impl<'a, A: 'a> Borrow<dyn Lookup<A> + 'a> for Args<A> {
    fn borrow(&self) -> &(dyn Lookup<A> + 'a) {
        self
    }
}

impl<A: PartialEq> PartialEq for dyn Lookup<A> + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.args() == other.args()
    }
}

impl<A: PartialEq> Eq for dyn Lookup<A> + '_ {}

impl<A> Hash for dyn Lookup<A> + '_ {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl<A: PartialEq> PartialEq for Args<A> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<A: PartialEq> Eq for Args<A> {}

/// Hashes as its [`Lookup`] does: nothing.
impl<A> Hash for Args<A> {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// Kept answers of one tool, keyed by its arguments `A`, valid while the versions they read
/// are unchanged.
pub(crate) struct Memo<A> {
    entries: Kept<Args<A>, Versions, Output>,
}

impl<A: PartialEq + Clone> Default for Memo<A> {
    fn default() -> Memo<A> {
        Memo {
            entries: Kept::new(KEPT),
        }
    }
}

impl<A: PartialEq + Clone> Memo<A> {
    /// The versions of `sources` now, and the kept answer to `args` under them, if any.
    pub(crate) fn get(&self, sources: &[&Source], args: &A) -> (Versions, Option<Output>) {
        let now = Versions::of(sources);
        let hit = self.entries.get(args as &dyn Lookup<A>, &now);
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
        // Answers over older versions can never be handed out again.
        self.entries.retain(|_, v| !v.outdated_by(&read));
        self.entries.insert(Args(args), read, out.clone());
        out
    }
}
