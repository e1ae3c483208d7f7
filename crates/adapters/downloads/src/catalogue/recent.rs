//! The matching rows of recent queries, in page order, kept until the rows change.
//!
//! Rows change only at a refresh (every few seconds), so between two refreshes the same filter
//! and sort always match the same rows in the same order. Remembering that order makes the next
//! page of a result, or the same question asked again, cost one page instead of a scan and sort
//! of every row. An entry is used only while the catalogue's row generation is the one it was
//! built under, and the caller holds the rows' read lock while it uses the indices, so an index
//! can never point at a row that moved.

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
}

#[derive(Debug)]
struct Entry {
    generation: u64,
    /// The query without its page.
    query: TorrentQuery,
    order: Arc<[u32]>,
}

impl RecentMatches {
    /// Indices into `state`'s rows of the rows matching `q`, in page order. Valid only while
    /// the caller keeps `state` locked.
    pub(crate) fn order(&self, state: &CatalogueState, q: &TorrentQuery) -> Arc<[u32]> {
        let generation = state.generation();
        let key = q.without_page();
        {
            let mut entries = self.entries.lock();
            if let Some(i) = entries
                .iter()
                .position(|e| e.generation == generation && e.query == key)
            {
                let hit = entries.remove(i);
                let order = hit.order.clone();
                entries.insert(0, hit);
                return order;
            }
        }
        // Built outside the lock: readers of other queries are not held up by this scan.
        let order: Arc<[u32]> = matching_order(state.rows(), q).into();
        let mut entries = self.entries.lock();
        entries.retain(|e| e.generation == generation && e.query != key);
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
}
