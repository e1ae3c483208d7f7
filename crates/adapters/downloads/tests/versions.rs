//! A catalogue's two versions: `version` moves with everything an answer shows (freshness
//! included), `rows_version` only when a row changes, so live reads keyed by it outlast a
//! refresh that found nothing new.

#![allow(clippy::unwrap_used)]

use adapters_downloads::TorrentCatalogue;
use domain::InstanceKind;
use serde_json::json;

const HASH: &str = "0123456789abcdef0123456789abcdef01234567";

fn maindata(body: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&body).unwrap()
}

fn loaded() -> TorrentCatalogue {
    let c = TorrentCatalogue::offline("qb", InstanceKind::Qbittorrent).unwrap();
    let row = json!({"name": "one", "state": "uploading", "size": 10, "category": "", "tags": ""});
    c.apply_maindata_bytes(&maindata(
        json!({"rid": 1, "full_update": true, "torrents": {HASH: row}}),
    ))
    .unwrap();
    c
}

#[test]
fn a_refresh_that_finds_nothing_new_keeps_the_rows_version() {
    let c = loaded();
    let (version, rows) = (c.version(), c.rows_version());
    c.apply_maindata_bytes(&maindata(json!({"rid": 2})))
        .unwrap();
    assert!(c.version() > version, "the freshness changed");
    assert_eq!(c.rows_version(), rows);
    // A row sent again unchanged is no change either.
    c.apply_maindata_bytes(&maindata(
        json!({"rid": 3, "torrents": {HASH: {"name": "one"}}}),
    ))
    .unwrap();
    assert_eq!(c.rows_version(), rows);
}

#[test]
fn a_changed_row_moves_the_rows_version() {
    let c = loaded();
    let rows = c.rows_version();
    c.apply_maindata_bytes(&maindata(
        json!({"rid": 2, "torrents": {HASH: {"state": "pausedUP"}}}),
    ))
    .unwrap();
    let paused = c.rows_version();
    assert!(paused > rows);
    c.apply_maindata_bytes(&maindata(json!({"rid": 3, "torrents_removed": [HASH]})))
        .unwrap();
    assert!(c.rows_version() > paused);
}
