//! Pages over two catalogues: every page of a merged result equals the same slice of one
//! reference sort, a repeated query sees rows a refresh changed, and pages never overlap.

#![allow(clippy::unwrap_used)]

use adapters_downloads::{MergedPage, SortKey, TorrentCatalogue, TorrentQuery, query_merged};
use domain::InstanceKind;
use serde_json::{Value, json};

fn offline(id: &str) -> TorrentCatalogue {
    TorrentCatalogue::offline(id, InstanceKind::Qbittorrent).unwrap()
}

fn hash(i: usize) -> String {
    format!("{:040x}", (i as u128 + 1) * 0x9E37_79B9_7F4A_7C15)
}

/// `n` torrents with sizes that repeat (ties), two categories, names out of order.
fn maindata(rows: impl Iterator<Item = usize>, full: bool) -> Vec<u8> {
    let torrents: serde_json::Map<String, Value> = rows
        .map(|i| {
            let category = ["movies", "tv"][i % 2];
            let row = json!({
                "name": format!("t{:03}", (i * 37) % 101), "state": "uploading",
                "size": 1000 + (i % 7) as u64, "category": category,
                "added_on": 1_600_000_000 + i as i64, "tags": "",
            });
            (hash(i), row)
        })
        .collect();
    serde_json::to_vec(&json!({"rid": 1, "full_update": full, "torrents": torrents})).unwrap()
}

/// (instance, hash) of each row of a page.
fn ids(merged: &MergedPage) -> Vec<(String, String)> {
    merged
        .page
        .rows
        .iter()
        .map(|r| (r.instance.0.clone(), r.torrent.info_hash.to_string()))
        .collect()
}

/// (instance, hash) of every row of every page, walking next_offset.
fn walk(cats: &[&TorrentCatalogue], q: &TorrentQuery) -> Vec<(String, String)> {
    let mut q = q.clone();
    let mut out = Vec::new();
    loop {
        let merged = query_merged(cats, &q);
        out.extend(ids(&merged));
        match merged.page.next_offset {
            Some(n) => q.offset = n,
            None => return out,
        }
    }
}

#[test]
fn merged_pages_are_slices_of_one_sort_and_follow_changes() {
    let a = offline("qb-a");
    let b = offline("qb-b");
    a.apply_maindata_bytes(&maindata(0..60, true)).unwrap();
    // Instance b shares hashes 30..60 with a: the same torrent on two clients.
    b.apply_maindata_bytes(&maindata(30..95, true)).unwrap();
    let cats = [&a, &b];
    for (sort, descending) in [
        (SortKey::Size, false),
        (SortKey::Size, true),
        (SortKey::Name, false),
    ] {
        let q = TorrentQuery {
            category: Some(adapters_downloads::CategoryFilter::Is("movies".into())),
            sort,
            descending,
            limit: 7,
            ..TorrentQuery::default()
        };
        let page = |offset: usize, limit: usize| {
            let q = TorrentQuery {
                offset,
                limit,
                ..q.clone()
            };
            query_merged(&cats, &q)
        };
        let everything = page(0, 200);
        let expected = ids(&everything);
        assert_eq!(
            everything.page.total,
            30 + 33,
            "{sort:?}: even rows of both"
        );
        assert_eq!(walk(&cats, &q), expected, "{sort:?} desc={descending}");
        // A page at every offset (found by binary search in each order) is that slice.
        for offset in 0..=expected.len() {
            let want = &expected[offset..(offset + 3).min(expected.len())];
            let got = ids(&page(offset, 3));
            assert_eq!(got, want, "{sort:?} desc={descending} offset {offset}");
        }
        // The reference order: key, then hash, then instance.
        let mut reference = expected.clone();
        let size = |r: &(String, String)| {
            let cat = if r.0 == "qb-a" { &a } else { &b };
            cat.get(&r.1.parse().unwrap()).unwrap()
        };
        reference.sort_by(|x, y| {
            let (tx, ty) = (size(x), size(y));
            let primary = match sort {
                SortKey::Size => tx.size.cmp(&ty.size),
                _ => tx.name.to_lowercase().cmp(&ty.name.to_lowercase()),
            };
            let primary = if descending {
                primary.reverse()
            } else {
                primary
            };
            primary.then(x.1.cmp(&y.1)).then(x.0.cmp(&y.0))
        });
        assert_eq!(expected, reference, "{sort:?} desc={descending}");
    }

    // A refresh that moves a torrent out of "movies" is seen by the same query at once.
    let q = TorrentQuery {
        category: Some(adapters_downloads::CategoryFilter::Is("movies".into())),
        sort: SortKey::Size,
        limit: 200,
        ..TorrentQuery::default()
    };
    assert_eq!(query_merged(&cats, &q).page.total, 63);
    let moved = json!({"rid": 2, "torrents": {hash(0): {"category": "tv"}}});
    a.apply_maindata_bytes(&serde_json::to_vec(&moved).unwrap())
        .unwrap();
    let after = query_merged(&cats, &q).page;
    assert_eq!(after.total, 62);
    assert!(
        !after
            .rows
            .iter()
            .any(|r| r.instance.0 == "qb-a" && r.torrent.info_hash.to_string() == hash(0))
    );
    assert_eq!(a.query(&q).total, 29, "one catalogue's own query too");
}

#[test]
fn a_count_is_the_total_of_the_same_query() {
    let a = offline("qb-a");
    a.apply_maindata_bytes(&maindata(0..95, true)).unwrap();
    for category in ["movies", "tv", "music"] {
        let q = TorrentQuery {
            category: Some(adapters_downloads::CategoryFilter::Is(category.into())),
            ..TorrentQuery::default()
        };
        let expected = match category {
            "movies" => 48,
            "tv" => 47,
            _ => 0,
        };
        assert_eq!(a.count(&q), expected, "{category}");
        assert_eq!(a.count(&q), a.query(&q).total, "{category}");
    }
}
