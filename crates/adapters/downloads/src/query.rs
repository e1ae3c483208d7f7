//! Filtering, sorting and paging cached rows: never a backend call.

use std::cmp::Ordering;

use serde::Serialize;

use crate::{
    catalogue::tally::Fields,
    model::{Torrent, TorrentState},
    tracker_class::TrackerErrorClass,
};

/// The largest page a query returns.
pub const MAX_LIMIT: usize = 200;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    #[default]
    Name,
    Size,
    Progress,
    Ratio,
    AddedAt,
    DlSpeed,
    UlSpeed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CategoryFilter {
    /// Torrents without a category.
    None,
    /// Torrents in exactly this category.
    Is(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackerErrorFilter {
    /// Any tracker complaint.
    Any,
    Class(TrackerErrorClass),
}

/// A search over one or several catalogues. Every filter is optional; all given ones must hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TorrentQuery {
    /// Any of these states (empty: any state).
    pub states: Vec<TorrentState>,
    pub category: Option<CategoryFilter>,
    /// Carries this tag (exact name).
    pub tag: Option<String>,
    /// Case-insensitive substring of the name.
    pub name_contains: Option<String>,
    pub tracker_error: Option<TrackerErrorFilter>,
    pub min_ratio: Option<f64>,
    pub max_ratio: Option<f64>,
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
    /// Added at or after (unix seconds).
    pub added_after: Option<i64>,
    /// Added strictly before (unix seconds).
    pub added_before: Option<i64>,
    pub sort: SortKey,
    pub descending: bool,
    /// Rows per page, clamped to 1..=[`MAX_LIMIT`]; 0 means the maximum.
    pub limit: usize,
    pub offset: usize,
}

/// One page of results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Page<T> {
    pub rows: Vec<T>,
    /// How many rows matched in all.
    pub total: usize,
    pub offset: usize,
    /// The offset of the next page, when there is one.
    pub next_offset: Option<usize>,
}

impl TorrentQuery {
    pub fn effective_limit(&self) -> usize {
        if self.limit == 0 {
            MAX_LIMIT
        } else {
            self.limit.min(MAX_LIMIT)
        }
    }

    /// The page `[start, end)` out of `total` matching rows, and the next page's offset.
    pub(crate) fn window(&self, total: usize) -> (usize, usize, Option<usize>) {
        let start = self.offset.min(total);
        let end = self
            .offset
            .saturating_add(self.effective_limit())
            .min(total);
        (start, end, (end < total).then_some(end))
    }

    /// This query without its page: what decides which rows match and in what order.
    pub(crate) fn without_page(&self) -> TorrentQuery {
        TorrentQuery {
            limit: 0,
            offset: 0,
            ..self.clone()
        }
    }

    /// The row fields this query's filters and order read: a kept order of its matches holds
    /// while none of them changes (nor the rows' places).
    pub(crate) fn reads(&self) -> Fields {
        let mut f = match self.sort {
            SortKey::Name => Fields::NAME,
            SortKey::Size => Fields::SIZE,
            SortKey::Progress => Fields::PROGRESS,
            SortKey::Ratio => Fields::RATIO,
            SortKey::AddedAt => Fields::ADDED,
            SortKey::DlSpeed => Fields::DL_SPEED,
            SortKey::UlSpeed => Fields::UL_SPEED,
        };
        let filters = [
            (!self.states.is_empty(), Fields::STATE),
            (self.category.is_some(), Fields::CATEGORY),
            (self.tag.is_some(), Fields::TAGS),
            (self.name_contains.is_some(), Fields::NAME),
            (self.tracker_error.is_some(), Fields::TRACKER_ERROR),
            (
                self.min_ratio.is_some() || self.max_ratio.is_some(),
                Fields::RATIO,
            ),
            (
                self.min_size.is_some() || self.max_size.is_some(),
                Fields::SIZE,
            ),
            (
                self.added_after.is_some() || self.added_before.is_some(),
                Fields::ADDED,
            ),
        ];
        for (used, field) in filters {
            if used {
                f = f.with(field);
            }
        }
        f
    }

    /// The filter part, prepared once per query.
    pub(crate) fn matcher(&self) -> Matcher<'_> {
        let needle = self
            .name_contains
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        Matcher {
            q: self,
            needle_lower: needle.map(str::to_lowercase),
        }
    }

    /// The numeric sort field as an order-preserving `u64` (direction applied), so sorting
    /// compares integers held beside the row pointers instead of reaching into every row.
    /// Name sorts key on the first 8 bytes of the lowercased name (zero-padded), which never
    /// contradicts [`cmp_name`]; equal keys fall back to [`TorrentQuery::compare`].
    pub(crate) fn sort_key(&self, t: &Torrent) -> u64 {
        let f = |v: f64| {
            let bits = v.to_bits();
            if bits >> 63 == 1 {
                !bits
            } else {
                bits | 1 << 63
            }
        };
        let key = match self.sort {
            SortKey::Name => name_prefix(&t.name),
            SortKey::Size => t.size,
            SortKey::Progress => f(t.progress),
            SortKey::Ratio => f(t.ratio),
            SortKey::AddedAt => (t.added_at as u64) ^ (1 << 63),
            SortKey::DlSpeed => t.dl_speed,
            SortKey::UlSpeed => t.ul_speed,
        };
        if self.descending { !key } else { key }
    }

    pub(crate) fn compare(&self, a: &Torrent, b: &Torrent) -> Ordering {
        let primary = match self.sort {
            SortKey::Name => cmp_name(&a.name, &b.name),
            SortKey::Size => a.size.cmp(&b.size),
            SortKey::Progress => a.progress.total_cmp(&b.progress),
            SortKey::Ratio => a.ratio.total_cmp(&b.ratio),
            SortKey::AddedAt => a.added_at.cmp(&b.added_at),
            SortKey::DlSpeed => a.dl_speed.cmp(&b.dl_speed),
            SortKey::UlSpeed => a.ul_speed.cmp(&b.ul_speed),
        };
        let primary = if self.descending {
            primary.reverse()
        } else {
            primary
        };
        // Ties always break by info hash, ascending, so pages are stable.
        primary.then_with(|| a.info_hash.cmp(&b.info_hash))
    }
}

/// The first 8 bytes of `name`, ASCII-lowercased, big-endian and zero-padded: `a` before `b`
/// by [`cmp_name`] gives `name_prefix(a) <= name_prefix(b)`.
fn name_prefix(name: &str) -> u64 {
    let mut key = [0u8; 8];
    for (k, c) in key.iter_mut().zip(name.bytes()) {
        *k = c.to_ascii_lowercase();
    }
    u64::from_be_bytes(key)
}

/// Case-insensitive for ASCII letters, then byte order, so "alpha" and "Alpha" sit together.
fn cmp_name(a: &str, b: &str) -> Ordering {
    let la = a.bytes().map(|c| c.to_ascii_lowercase());
    let lb = b.bytes().map(|c| c.to_ascii_lowercase());
    la.cmp(lb).then_with(|| a.cmp(b))
}

pub(crate) struct Matcher<'q> {
    q: &'q TorrentQuery,
    needle_lower: Option<String>,
}

impl Matcher<'_> {
    pub(crate) fn matches(&self, t: &Torrent) -> bool {
        let q = self.q;
        if !q.states.is_empty() && !q.states.contains(&t.state) {
            return false;
        }
        match &q.category {
            Some(CategoryFilter::None) if t.category.is_some() => return false,
            Some(CategoryFilter::Is(c)) if t.category.as_deref() != Some(c.as_str()) => {
                return false;
            }
            _ => {}
        }
        if let Some(tag) = &q.tag
            && !t.tags.iter().any(|x| **x == **tag)
        {
            return false;
        }
        match q.tracker_error {
            Some(TrackerErrorFilter::Any) if t.tracker_error.is_none() => return false,
            Some(TrackerErrorFilter::Class(c)) if t.tracker_error != Some(c) => return false,
            _ => {}
        }
        let outside = |v: f64, lo: Option<f64>, hi: Option<f64>| {
            lo.is_some_and(|lo| v < lo) || hi.is_some_and(|hi| v > hi)
        };
        if outside(t.ratio, q.min_ratio, q.max_ratio) {
            return false;
        }
        if q.min_size.is_some_and(|m| t.size < m) || q.max_size.is_some_and(|m| t.size > m) {
            return false;
        }
        if q.added_after.is_some_and(|a| t.added_at < a)
            || q.added_before.is_some_and(|b| t.added_at >= b)
        {
            return false;
        }
        match &self.needle_lower {
            Some(n) => contains_ci(&t.name, n),
            None => true,
        }
    }
}

/// `needle` is already lowercase. ASCII needles are searched without allocating.
fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_ascii() {
        let (h, n) = (hay.as_bytes(), needle.as_bytes());
        n.len() <= h.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
    } else {
        hay.to_lowercase().contains(needle)
    }
}

/// Indices of the rows that match `q`, in page order: the sort key, ties by info hash.
pub(crate) fn matching_order(rows: &[Torrent], q: &TorrentQuery) -> Vec<u32> {
    let m = q.matcher();
    let mut keyed: Vec<(u64, u32)> = rows
        .iter()
        .enumerate()
        .filter(|(_, t)| m.matches(t))
        .map(|(i, t)| (q.sort_key(t), i as u32))
        .collect();
    keyed.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| q.compare(&rows[a.1 as usize], &rows[b.1 as usize]))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests;
