//! The WAL-index header of a SQLite database, read from a shared mapping of its `-shm` file
//! with no system call: what the store's fresh reads compare to tell whether the database
//! changed since an answer was kept.
//!
//! SQLite's documented `walformat`: the file starts with two copies of a 48-byte header
//! (iVersion, unused, iChange, isInit, bigEndCksum, szPage, mxFrame, nPage, aFrameCksum,
//! aSalt, aCksum). A writer writes the second copy, then the first; a reader reads the first,
//! then the second, and trusts them only when both match, `isInit` is set and the checksum of
//! the first 40 bytes is right (`walIndexTryHdr`). [`WalIndex::header`] follows that rule and
//! answers `None` when it cannot tell (a write under way, a file not yet initialised), so the
//! caller reads the database instead.
//!
//! A deleted or replaced `-shm` is not seen through a mapping: [`WalIndex::unlinked`] asks the
//! kernel (one `fstat`) whether the mapped file still has a name.

use std::{
    fs::File,
    io,
    os::unix::fs::MetadataExt,
    path::Path,
    sync::atomic::{Ordering, fence},
};

use memmap2::{Mmap, MmapOptions};

/// Bytes of one header copy.
pub const HEADER: usize = 48;
/// Bytes mapped: both copies.
const MAPPED: usize = 2 * HEADER;
/// `u32` words in one copy.
const WORDS: usize = HEADER / 4;
/// Reads of a header that a writer is changing, before giving up for this call.
const TRIES: usize = 3;

/// An open, mapped `-shm` file.
#[derive(Debug)]
pub struct WalIndex {
    file: File,
    map: Mmap,
    inode: u64,
}

impl WalIndex {
    /// Maps the header of the WAL index at `path`. Fails when the file is missing or shorter
    /// than the two header copies (SQLite has not initialised it).
    pub fn open(path: &Path) -> io::Result<WalIndex> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.len() < MAPPED as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the WAL index is shorter than its header",
            ));
        }
        // SAFETY: a read-only shared mapping of a file SQLite itself maps the same way. Its
        // bytes change under us (other processes write them), so they are only ever read
        // through `read_volatile` in `copy`, never as a Rust reference. SQLite shortens the
        // file to 3 bytes (never 0) when it re-initialises it, so the first page stays backed.
        #[allow(unsafe_code)]
        let map = unsafe { MmapOptions::new().len(MAPPED).map(&file)? };
        Ok(WalIndex {
            inode: meta.ino(),
            file,
            map,
        })
    }

    /// The mapped file's inode number.
    pub fn inode(&self) -> u64 {
        self.inode
    }

    /// Whether the mapped file has lost its name (deleted or replaced): then the path names
    /// another file, and this mapping says nothing about the database. An error counts as yes.
    pub fn unlinked(&self) -> bool {
        !self.file.metadata().is_ok_and(|m| m.nlink() > 0)
    }

    /// A consistent copy of the header, or `None` when it cannot be told: the copies differ
    /// (a write under way), the header is not initialised or its checksum is wrong.
    pub fn header(&self) -> Option<[u8; HEADER]> {
        (0..TRIES).find_map(|_| {
            let first = self.copy(0);
            // The writer writes the second copy before the first: read them the other way.
            fence(Ordering::Acquire);
            let second = self.copy(1);
            (first == second && valid(&first)).then(|| bytes(&first))
        })
    }

    /// Header copy `n` (0 or 1), word by word.
    fn copy(&self, n: usize) -> [u32; WORDS] {
        let base = self.map.as_ptr().cast::<u32>();
        let mut out = [0u32; WORDS];
        for (i, word) in out.iter_mut().enumerate() {
            // SAFETY: the mapping is `MAPPED` bytes long, page-aligned (so `u32`-aligned),
            // and `n * WORDS + i` < `2 * WORDS`; a volatile read of a plain integer is sound
            // whatever another process writes there at the same time.
            #[allow(unsafe_code)]
            let value = unsafe { base.add(n * WORDS + i).read_volatile() };
            *word = value;
        }
        out
    }
}

/// `isInit` is set and `aCksum` is the checksum of the first 40 bytes.
fn valid(words: &[u32; WORDS]) -> bool {
    // isInit is the byte at offset 12 (the fourth word's first byte in memory order).
    let is_init = words[3].to_ne_bytes()[0];
    is_init == 1 && checksum(&words[..10]) == (words[10], words[11])
}

/// SQLite's WAL checksum over native-order words, starting from zero (`walChecksumBytes`
/// with `nativeCksum` 1, as the WAL-index header is always checksummed).
fn checksum(words: &[u32]) -> (u32, u32) {
    let (mut s1, mut s2) = (0u32, 0u32);
    for pair in words.chunks_exact(2) {
        s1 = s1.wrapping_add(pair[0]).wrapping_add(s2);
        s2 = s2.wrapping_add(pair[1]).wrapping_add(s1);
    }
    (s1, s2)
}

fn bytes(words: &[u32; WORDS]) -> [u8; HEADER] {
    let mut out = [0u8; HEADER];
    for (chunk, word) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    out
}

#[cfg(test)]
mod tests;
