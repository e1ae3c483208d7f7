//! Read-only views over cached rows: queries, overviews, categories, tracker-error groups, merges.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
    time::SystemTime,
};

use domain::{InstanceId, InstanceKind};
use serde::Serialize;

use super::{RefreshError, ServerStats, TorrentCatalogue};
use crate::{
    client::DownloadClient,
    model::{Categories, Category, CategoryModel, Torrent, TorrentState},
    query::{Page, TorrentQuery},
    tracker_class::TrackerErrorClass,
};

/// How fresh one catalogue is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceStatus {
    pub instance: InstanceId,
    pub kind: InstanceKind,
    pub rows: usize,
    /// When the last good refresh finished; `None` before the first one.
    pub observed_at: Option<SystemTime>,
    /// Set while the latest refresh failed; the rows are then from `observed_at`.
    pub last_error: Option<RefreshError>,
}

/// The figures of `downloads_overview` for one instance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Overview {
    pub status: SourceStatus,
    pub by_state: BTreeMap<TorrentState, usize>,
    pub tracker_errors: BTreeMap<TrackerErrorClass, usize>,
    /// The client's own totals when it reports them, else the sum over rows.
    pub dl_speed: u64,
    pub ul_speed: u64,
    pub free_space: Option<u64>,
    pub size: u64,
}

/// Torrents whose trackers complain, grouped by class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrackerErrorGroup {
    pub class: TrackerErrorClass,
    pub count: usize,
    /// The most frequent messages with their counts, most frequent first (at most 5).
    pub messages: Vec<(Arc<str>, usize)>,
}

/// A row of a merged query: the torrent and the instance it lives on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceTorrent {
    pub instance: InstanceId,
    #[serde(flatten)]
    pub torrent: Torrent,
}

/// A page over several catalogues, with each one's freshness.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MergedPage {
    #[serde(flatten)]
    pub page: Page<InstanceTorrent>,
    pub sources: Vec<SourceStatus>,
}

impl TorrentCatalogue {
    /// How many cached rows match `q` (its sort and page aside): one pass, nothing sorted or kept.
    pub fn count(&self, q: &TorrentQuery) -> usize {
        let m = q.matcher();
        self.state
            .read()
            .rows()
            .iter()
            .filter(|t| m.matches(t))
            .count()
    }

    /// Filters, sorts and pages the cached rows.
    pub fn query(&self, q: &TorrentQuery) -> Page<Torrent> {
        let s = self.state.read();
        let order = self.recent.order(&s, q);
        let (start, end, next_offset) = q.window(order.len());
        Page {
            rows: order[start..end]
                .iter()
                .map(|&i| s.rows()[i as usize].clone())
                .collect(),
            total: order.len(),
            offset: q.offset,
            next_offset,
        }
    }

    /// The overview's figures, from the counts each refresh keeps: no scan of the rows.
    pub fn overview(&self) -> Overview {
        let status = self.status();
        let s = self.state.read();
        let tally = s.tally();
        let mut tracker_errors = BTreeMap::new();
        for ((class, _), n) in &tally.tracker_errors {
            *tracker_errors.entry(*class).or_insert(0) += n;
        }
        let ServerStats {
            dl_speed,
            ul_speed,
            free_space,
        } = s.server;
        Overview {
            status,
            by_state: tally.by_state.clone(),
            tracker_errors,
            dl_speed: dl_speed.unwrap_or(tally.dl_speed),
            ul_speed: ul_speed.unwrap_or(tally.ul_speed),
            free_space,
            size: tally.size,
        }
    }

    /// How many cached rows are in the category `name`, from the kept counts.
    pub fn category_count(&self, name: &str) -> usize {
        let s = self.state.read();
        s.tally().by_category.get(name).copied().unwrap_or(0)
    }

    pub fn tracker_error_groups(&self) -> Vec<TrackerErrorGroup> {
        let s = self.state.read();
        let mut groups: BTreeMap<TrackerErrorClass, Vec<(Arc<str>, usize)>> = BTreeMap::new();
        let mut counts: BTreeMap<TrackerErrorClass, usize> = BTreeMap::new();
        for ((class, message), n) in &s.tally().tracker_errors {
            *counts.entry(*class).or_insert(0) += n;
            let messages = groups.entry(*class).or_default();
            if let Some(m) = message.as_ref().filter(|m| !m.is_empty()) {
                messages.push((m.clone(), *n));
            }
        }
        groups
            .into_iter()
            .map(|(class, mut messages)| {
                messages.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                messages.truncate(5);
                TrackerErrorGroup {
                    class,
                    count: counts.get(&class).copied().unwrap_or(0),
                    messages,
                }
            })
            .collect()
    }

    /// The categories as of the last refresh, without a backend call. qBittorrent: its real
    /// categories. Transmission: the download sub-folders torrents use (see `transmission`).
    pub fn categories(&self) -> Categories {
        let s = self.state.read();
        match &*self.client {
            DownloadClient::Qbittorrent(_) => Categories {
                model: CategoryModel::Native,
                items: s
                    .categories
                    .iter()
                    .map(|(n, p)| Category {
                        name: n.to_string(),
                        save_path: p.as_deref().map(str::to_string),
                    })
                    .collect(),
            },
            DownloadClient::Transmission(c) => {
                let base = c
                    .download_dir
                    .lock()
                    .clone()
                    .unwrap_or_else(|| Arc::from(""));
                let names: BTreeSet<&str> = s.tally().by_category.keys().map(|c| &**c).collect();
                let base_s = base.trim_end_matches('/');
                Categories {
                    model: CategoryModel::DownloadDirSubfolder {
                        base: base.to_string(),
                    },
                    items: names
                        .into_iter()
                        .map(|n| Category {
                            name: n.to_string(),
                            save_path: Some(format!("{base_s}/{n}")),
                        })
                        .collect(),
                }
            }
        }
    }

    /// Known tags: qBittorrent's tag list plus every tag in use (Transmission: labels in use).
    pub fn tags(&self) -> Vec<String> {
        let s = self.state.read();
        let mut all: BTreeSet<&str> = s.tags.iter().map(|t| &**t).collect();
        all.extend(s.tally().by_tag.keys().map(|t| &**t));
        all.into_iter().map(str::to_string).collect()
    }
}

/// One query over several catalogues; rows carry their instance id. Ties between the same
/// torrent on two instances break by instance id.
pub fn query_merged(catalogues: &[&TorrentCatalogue], q: &TorrentQuery) -> MergedPage {
    let page = query_merged_map(catalogues, q, |instance, t| InstanceTorrent {
        instance: instance.clone(),
        torrent: t.clone(),
    });
    MergedPage {
        page,
        sources: catalogues.iter().map(|c| c.status()).collect(),
    }
}

/// How many rows of each of `orders` (each sorted by `cmp`, which orders rows of any two) come
/// before the row at place `rank` of their merge: where a page starting there begins in each.
///
/// Selection by steps, not a walk from the top: with `left` rows still to pass over `live`
/// orders that have rows left, look at the row `step = left / live` on in each (or its last),
/// and pass the order whose such row comes first by that many. At most `step - 1` rows of each
/// other order come before that row, so it is within the `left` rows to pass. Each step passes
/// a share of what is left or empties an order, so a page deep into a million rows costs a few
/// dozen comparisons, not one per row before it.
fn heads_at(
    orders: &[Arc<[u32]>],
    rank: usize,
    cmp: impl Fn(usize, u32, usize, u32) -> std::cmp::Ordering,
) -> Vec<usize> {
    let mut heads = vec![0; orders.len()];
    let mut left = rank;
    while left > 0 {
        let live = (0..orders.len())
            .filter(|&i| heads[i] < orders[i].len())
            .count();
        if live == 0 {
            break;
        }
        let step = (left / live).max(1);
        // (order, rows it would pass, the last of them)
        let mut first: Option<(usize, usize, u32)> = None;
        for (i, order) in orders.iter().enumerate() {
            let take = step.min(order.len() - heads[i]);
            if take == 0 {
                continue;
            }
            let r = order[heads[i] + take - 1];
            if first.is_none_or(|(j, _, b)| cmp(i, r, j, b).is_lt()) {
                first = Some((i, take, r));
            }
        }
        let Some((i, take, _)) = first else { break };
        heads[i] += take;
        left -= take;
    }
    heads
}

/// [`query_merged`] with each row of the page made by `f` while the rows are locked, so a
/// caller can render rows without copying them first.
pub fn query_merged_map<R>(
    catalogues: &[&TorrentCatalogue],
    q: &TorrentQuery,
    mut f: impl FnMut(&InstanceId, &Torrent) -> R,
) -> Page<R> {
    let guards: Vec<_> = catalogues.iter().map(|c| c.state.read()).collect();
    let orders: Vec<_> = catalogues
        .iter()
        .zip(&guards)
        .map(|(c, g)| c.recent.order(g, q))
        .collect();
    let total = orders.iter().map(|o| o.len()).sum();
    let (start, end, next_offset) = q.window(total);
    // The merge order: the query's order, then the instance (the same torrent on two clients).
    let row = |i: usize, r: u32| &guards[i].rows()[r as usize];
    let cmp = |i: usize, a: &Torrent, j: usize, b: &Torrent| {
        q.sort_key(a)
            .cmp(&q.sort_key(b))
            .then_with(|| q.compare(a, b))
            .then_with(|| catalogues[i].instance.cmp(&catalogues[j].instance))
    };
    // Each order is sorted already: find where the page starts in each, then merge their
    // heads until the page is complete.
    let next = |heads: &mut [usize]| {
        let mut best: Option<(usize, &Torrent)> = None;
        for (i, order) in orders.iter().enumerate() {
            let Some(&r) = order.get(heads[i]) else {
                continue;
            };
            let t = row(i, r);
            if best.is_none_or(|(j, b)| cmp(i, t, j, b).is_lt()) {
                best = Some((i, t));
            }
        }
        let (i, t) = best?;
        heads[i] += 1;
        Some((i, t))
    };
    let mut heads = heads_at(&orders, start, |i, a, j, b| cmp(i, row(i, a), j, row(j, b)));
    warm(orders.iter().enumerate().flat_map(|(i, order)| {
        order[heads[i]..]
            .iter()
            .take(end - start)
            .map(move |&r| row(i, r))
    }));
    let mut rows = Vec::with_capacity(end - start);
    for _ in start..end {
        let Some((i, t)) = next(&mut heads) else {
            break;
        };
        rows.push(f(&catalogues[i].instance, t));
    }
    Page {
        rows,
        total,
        offset: q.offset,
        next_offset,
    }
}

/// Reads a little of every row the page can draw from (each order's next rows from where the
/// page starts in it) before the merge picks them. A page deep into a large table finds those
/// rows, and their names (each an allocation of its own), mostly out of the CPU's caches; the
/// merge would wait for each in turn, one row's pick before the next row's read. Read here in a
/// loop with nothing in between, their fetches overlap (at a million torrents, most of what a
/// deep page cost more than a shallow one).
fn warm<'a>(rows: impl Iterator<Item = &'a Torrent>) {
    let touched = rows.fold(0u64, |acc, t| {
        acc ^ t.added_at as u64 ^ t.size ^ u64::from(t.name.bytes().next().unwrap_or(0))
    });
    std::hint::black_box(touched);
}

#[cfg(test)]
mod tests {
    use std::{cell::Cell, sync::Arc};

    use super::heads_at;

    /// The heads a walk from the top reaches after `rank` steps of the merge.
    fn walk(values: &[Vec<u32>], rank: usize) -> Vec<usize> {
        let mut heads = vec![0usize; values.len()];
        for _ in 0..rank {
            let next = (0..values.len())
                .filter(|&i| heads[i] < values[i].len())
                .min_by_key(|&i| (values[i][heads[i]], i));
            let Some(i) = next else { break };
            heads[i] += 1;
        }
        heads
    }

    /// `heads_at` over `values` (each sorted), ordered by value and then list (a total order
    /// over every (list, index)), and how many comparisons it made.
    fn select(values: &[Vec<u32>], rank: usize) -> (Vec<usize>, usize) {
        let orders: Vec<Arc<[u32]>> = values
            .iter()
            .map(|v| (0..v.len() as u32).collect())
            .collect();
        let compared = Cell::new(0);
        let cmp = |i: usize, a: u32, j: usize, b: u32| {
            compared.set(compared.get() + 1);
            values[i][a as usize]
                .cmp(&values[j][b as usize])
                .then(i.cmp(&j))
        };
        (heads_at(&orders, rank, cmp), compared.get())
    }

    /// Every rank (and one past the end) of the merge of lists with values in common, some
    /// empty, one to four of them: the selection finds the heads a walk from the top reaches.
    #[test]
    fn heads_at_every_rank_are_those_of_a_walk() {
        let mut seed = 0x2545_f491_u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for case in 0..60 {
            let lists = 1 + case % 4;
            let values: Vec<Vec<u32>> = (0..lists)
                .map(|_| {
                    let len = next(if case % 3 == 0 { 4 } else { 40 }) as usize;
                    let mut v: Vec<u32> = (0..len).map(|_| next(30) as u32).collect();
                    v.sort_unstable();
                    v
                })
                .collect();
            let total: usize = values.iter().map(Vec::len).sum();
            for rank in 0..=total + 1 {
                assert_eq!(
                    select(&values, rank).0,
                    walk(&values, rank),
                    "lists {values:?}, rank {rank}"
                );
            }
        }
    }

    /// A page deep into two orders of 500,000 rows each is found in a few dozen comparisons,
    /// not one per row before it.
    #[test]
    fn heads_at_deep_ranks_take_few_comparisons() {
        let values: Vec<Vec<u32>> = vec![
            (0..500_000).map(|x| x * 2).collect(),
            (0..500_000).map(|x| x * 2 + 1).collect(),
        ];
        for rank in [1, 777, 500_000, 999_950, 1_000_000] {
            let (heads, compared) = select(&values, rank);
            assert_eq!(heads, vec![rank.div_ceil(2), rank / 2], "rank {rank}");
            assert!(compared <= 64, "rank {rank}: {compared} comparisons");
        }
    }
}
