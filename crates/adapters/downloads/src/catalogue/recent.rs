//! The matching rows of recent queries, in page order, kept while what they read is unchanged.
//!
//! Between two refreshes the same filter and sort always match the same rows in the same order,
//! and a refresh that changes only fields a query does not read (speeds, for a listing by name)
//! leaves its order right too. Remembering that order makes the next page of a result, or the
//! same question asked again, cost one page instead of a scan and sort of every row. An entry
//! is used only while no row field it reads changed, nor any row's place (see `tally::Fields`),
//! and the caller holds the rows' read lock while it uses the indices, so an index can never
//! point at a row that moved. One order is built at a time per catalogue: callers asking for
//! an order being built wait for it instead of sorting the same rows again.

use std::sync::Arc;

use parking_lot::Mutex;

use super::state::CatalogueState;
use crate::query::{TorrentQuery, matching_order};

/// Queries remembered per catalogue; each costs 4 bytes per matching row.
const KEPT: usize = 8;

#[derive(Debug, Default)]
pub(crate) struct RecentMatches {
    /// Most recently used first.
    entries: Mutex<Vec<Entry>>,
    /// Held while an order is built, so concurrent askers share one build.
    building: Mutex<()>,
}

#[derive(Debug)]
struct Entry {
    /// The rows' generation the order was built at.
    generation: u64,
    /// The query without its page.
    query: TorrentQuery,
    order: Arc<[u32]>,
}

impl RecentMatches {
    /// Indices into `state`'s rows of the rows matching `q`, in page order. Valid only while
    /// the caller keeps `state` locked.
    pub(crate) fn order(&self, state: &CatalogueState, q: &TorrentQuery) -> Arc<[u32]> {
        let key = q.without_page();
        if let Some(order) = self.kept(state, &key) {
            return order;
        }
        let _building = self.building.lock();
        // Another caller may have built it while this one waited.
        if let Some(order) = self.kept(state, &key) {
            return order;
        }
        // Built outside the entries' lock: readers of kept orders are not held up by this scan.
        let order: Arc<[u32]> = matching_order(state.rows(), q).into();
        let generation = state.generation();
        let mut entries = self.entries.lock();
        entries.retain(|e| e.query != key && !stale(state, e));
        entries.insert(
            0,
            Entry {
                generation,
                query: key,
                order: order.clone(),
            },
        );
        entries.truncate(KEPT);
        order
    }

    fn kept(&self, state: &CatalogueState, key: &TorrentQuery) -> Option<Arc<[u32]>> {
        let mut entries = self.entries.lock();
        let i = entries
            .iter()
            .position(|e| e.query == *key && !stale(state, e))?;
        let hit = entries.remove(i);
        let order = hit.order.clone();
        entries.insert(0, hit);
        Some(order)
    }
}

/// Some row field the entry's query reads changed since it was built.
fn stale(state: &CatalogueState, e: &Entry) -> bool {
    e.generation > state.generation() || state.changed_since(e.generation, e.query.reads())
}
