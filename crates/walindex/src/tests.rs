//! The header rule on hand-made WAL-index files: consistent copies are read, a write under
//! way or an uninitialised header is not, and a change is seen at the next read.

use std::{fs, os::unix::fs::FileExt, path::Path};

use super::*;

/// A header as SQLite writes it: `change` in iChange, isInit set, the checksum right.
fn header(change: u32) -> [u8; HEADER] {
    let mut words = [0u32; WORDS];
    words[0] = 3_007_000; // iVersion
    words[2] = change;
    words[3] = u32::from_ne_bytes([1, 0, 0, 0]); // isInit, bigEndCksum
    words[6] = 17; // mxFrame
    let (a, b) = checksum(&words[..10]);
    words[10] = a;
    words[11] = b;
    bytes(&words)
}

/// Writes both copies (second first, as SQLite does) and a tail as the rest of the file.
fn write(path: &Path, first: &[u8; HEADER], second: &[u8; HEADER]) {
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    f.write_all_at(second, HEADER as u64).unwrap();
    f.write_all_at(first, 0).unwrap();
    f.write_all_at(&[0u8; 64], MAPPED as u64).unwrap();
}

#[test]
fn matching_initialised_copies_are_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    write(&path, &header(1), &header(1));
    let index = WalIndex::open(&path).unwrap();
    assert_eq!(index.header(), Some(header(1)));
    assert!(!index.unlinked());
}

#[test]
fn a_change_by_another_writer_is_seen_at_the_next_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    write(&path, &header(1), &header(1));
    let index = WalIndex::open(&path).unwrap();
    assert_eq!(index.header(), Some(header(1)));
    write(&path, &header(2), &header(2));
    assert_eq!(index.header(), Some(header(2)));
}

#[test]
fn copies_that_differ_are_a_write_under_way_and_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    write(&path, &header(1), &header(2));
    assert_eq!(WalIndex::open(&path).unwrap().header(), None);
}

#[test]
fn an_uninitialised_or_torn_header_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    let mut uninit = header(1);
    uninit[12] = 0;
    write(&path, &uninit, &uninit);
    let index = WalIndex::open(&path).unwrap();
    assert_eq!(index.header(), None, "isInit is clear");
    let mut torn = header(1);
    torn[24] ^= 1; // mxFrame changed, checksum not
    write(&path, &torn, &torn);
    assert_eq!(index.header(), None, "the checksum does not match");
    write(&path, &header(5), &header(5));
    assert_eq!(index.header(), Some(header(5)));
}

#[test]
fn a_file_shorter_than_the_header_is_not_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    fs::write(&path, [0u8; 3]).unwrap();
    assert!(WalIndex::open(&path).is_err());
    assert!(WalIndex::open(&dir.path().join("missing")).is_err());
}

#[test]
fn a_deleted_file_is_unlinked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db-shm");
    write(&path, &header(1), &header(1));
    let index = WalIndex::open(&path).unwrap();
    fs::remove_file(&path).unwrap();
    assert!(index.unlinked());
}
