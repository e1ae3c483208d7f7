//! Tests of query filters, sorting and paging.

use std::sync::Arc;

use domain::InfoHash;

use super::*;

fn row(n: u8, name: &str, state: TorrentState) -> Torrent {
    let empty: Arc<str> = Arc::from("");
    let mut t = Torrent::blank(
        InfoHash::from_bytes([n; 20]),
        &empty,
        &Arc::from(Vec::new()),
    );
    t.name = Arc::from(name);
    t.state = state;
    t.size = u64::from(n) * 100;
    t.ratio = f64::from(n) / 10.0;
    t.added_at = i64::from(n) * 1000;
    t
}

fn rows() -> Vec<Torrent> {
    let mut v = vec![
        row(1, "Alpha.Movie.2020", TorrentState::Seeding),
        row(2, "beta show S01", TorrentState::Paused),
        row(3, "Gamma Ünïcode", TorrentState::Downloading),
        row(4, "alpha again", TorrentState::Seeding),
        row(5, "Delta", TorrentState::Error),
    ];
    v[0].category = Some(Arc::from("movies"));
    v[1].tags = Arc::from(vec![Arc::from("tv")]);
    v[2].tracker_error = Some(TrackerErrorClass::Unregistered);
    v[3].size = 100; // same size as row 1: the hash breaks the tie
    v
}

fn run(q: &TorrentQuery) -> (Vec<u8>, usize, Option<usize>) {
    let all = rows();
    let order = matching_order(&all, q);
    let (start, end, next) = q.window(order.len());
    (
        order[start..end]
            .iter()
            .map(|&i| all[i as usize].info_hash.as_bytes()[0])
            .collect(),
        order.len(),
        next,
    )
}

#[test]
fn filters() {
    let q = |f: fn(&mut TorrentQuery)| {
        let mut q = TorrentQuery::default();
        f(&mut q);
        run(&q).0
    };
    assert_eq!(q(|_| {}), [4, 1, 2, 5, 3]);
    assert_eq!(q(|q| q.states = vec![TorrentState::Seeding]), [4, 1]);
    assert_eq!(q(|q| q.name_contains = Some("ALPHA".into())), [4, 1]);
    assert_eq!(q(|q| q.name_contains = Some("ünï".into())), [3]);
    assert_eq!(
        q(|q| q.category = Some(CategoryFilter::Is("movies".into()))),
        [1]
    );
    assert_eq!(q(|q| q.category = Some(CategoryFilter::None)), [4, 2, 5, 3]);
    assert_eq!(q(|q| q.tag = Some("tv".into())), [2]);
    assert_eq!(q(|q| q.tracker_error = Some(TrackerErrorFilter::Any)), [3]);
    assert_eq!(
        q(|q| q.tracker_error = Some(TrackerErrorFilter::Class(TrackerErrorClass::Auth))),
        Vec::<u8>::new()
    );
    assert_eq!(
        q(|q| (q.min_ratio, q.max_ratio) = (Some(0.2), Some(0.4))),
        [4, 2, 3]
    );
    assert_eq!(
        q(|q| (q.min_size, q.max_size) = (Some(200), Some(300))),
        [2, 3]
    );
    assert_eq!(
        q(|q| (q.added_after, q.added_before) = (Some(2000), Some(4000))),
        [2, 3]
    );
}

#[test]
fn sorts_with_a_stable_tiebreak() {
    let sorted = |sort, descending| {
        run(&TorrentQuery {
            sort,
            descending,
            ..TorrentQuery::default()
        })
        .0
    };
    assert_eq!(sorted(SortKey::Size, false), [1, 4, 2, 3, 5]);
    assert_eq!(sorted(SortKey::Size, true), [5, 3, 2, 1, 4]);
    assert_eq!(sorted(SortKey::AddedAt, true), [5, 4, 3, 2, 1]);
    assert_eq!(sorted(SortKey::Ratio, false), [1, 2, 3, 4, 5]);
}

#[test]
fn pages() {
    let q = |limit, offset| {
        run(&TorrentQuery {
            sort: SortKey::AddedAt,
            limit,
            offset,
            ..TorrentQuery::default()
        })
    };
    assert_eq!(q(2, 0), (vec![1, 2], 5, Some(2)));
    assert_eq!(q(2, 2), (vec![3, 4], 5, Some(4)));
    assert_eq!(q(2, 4), (vec![5], 5, None));
    assert_eq!(q(2, 9), (vec![], 5, None));
    assert_eq!(q(0, 0).0.len(), 5);
    assert_eq!(
        TorrentQuery {
            limit: 10_000,
            ..TorrentQuery::default()
        }
        .effective_limit(),
        MAX_LIMIT
    );
}

#[test]
fn paging_through_everything_sees_each_row_once() {
    let mut all = Vec::new();
    let mut offset = 0;
    loop {
        let (rows, _, next) = run(&TorrentQuery {
            sort: SortKey::Name,
            limit: 2,
            offset,
            ..TorrentQuery::default()
        });
        all.extend(rows);
        match next {
            Some(n) => offset = n,
            None => break,
        }
    }
    assert_eq!(all, [4, 1, 2, 5, 3]);
}

#[test]
fn sort_keys_order_like_the_fields() {
    let mut a = row(1, "a", TorrentState::Seeding);
    let mut b = row(2, "b", TorrentState::Seeding);
    let sorts = [
        SortKey::Size,
        SortKey::Progress,
        SortKey::Ratio,
        SortKey::AddedAt,
        SortKey::DlSpeed,
        SortKey::UlSpeed,
    ];
    for sort in sorts {
        for (x, y) in [(0.0, 0.5), (0.5, 9999.0), (-1.0, 0.0), (0.5, 0.5)] {
            (a.progress, b.progress, a.ratio, b.ratio) = (x, y, x, y);
            (a.added_at, b.added_at) = ((x * 10.0) as i64 - 5, (y * 10.0) as i64 - 5);
            for descending in [false, true] {
                let q = TorrentQuery {
                    sort,
                    descending,
                    ..TorrentQuery::default()
                };
                let by_key = q
                    .sort_key(&a)
                    .cmp(&q.sort_key(&b))
                    .then_with(|| q.compare(&a, &b));
                assert_eq!(by_key, q.compare(&a, &b), "{sort:?} {x} {y} {descending}");
            }
        }
    }
}

#[test]
fn name_sort_keys_never_contradict_the_name_order() {
    let names = [
        "",
        "a",
        "A",
        "ab",
        "aB",
        "ab\0",
        "ab\0c",
        "abcdefgh",
        "abcdefghi",
        "ABCDEFGHZ",
        "abcdefgh ",
        "Ünïcode",
        "über",
        "zeta",
        "Z",
        "the.matrix.1999",
        "The Matrix",
        "~",
    ];
    for descending in [false, true] {
        let q = TorrentQuery {
            sort: SortKey::Name,
            descending,
            ..TorrentQuery::default()
        };
        for (i, x) in names.iter().enumerate() {
            for (j, y) in names.iter().enumerate() {
                let (a, b) = (
                    row(i as u8, x, TorrentState::Seeding),
                    row(j as u8, y, TorrentState::Seeding),
                );
                let by_key = q
                    .sort_key(&a)
                    .cmp(&q.sort_key(&b))
                    .then_with(|| q.compare(&a, &b));
                assert_eq!(by_key, q.compare(&a, &b), "{x:?} {y:?} {descending}");
            }
        }
    }
}
