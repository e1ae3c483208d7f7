//! The OpenSubtitles movie hash: the file's size plus the 64-bit little-endian words of its
//! first and last 64 KiB, summed with wrap-around, as 16 lowercase hex digits. Read through
//! whatever handle the caller opened (a confined one beneath a folder's root).

use std::io::{self, Read, Seek, SeekFrom};

/// The size of each end that is summed.
const CHUNK: u64 = 64 * 1024;

/// The hash of `file`, whose size is `size` bytes. A file smaller than one chunk sums what it
/// has at both ends (as OpenSubtitles' own tools do).
pub fn movie_hash<R: Read + Seek>(file: &mut R, size: u64) -> io::Result<String> {
    let mut sum = size;
    let head = CHUNK.min(size);
    file.seek(SeekFrom::Start(0))?;
    sum = sum.wrapping_add(sum_words(file, head)?);
    file.seek(SeekFrom::Start(size.saturating_sub(CHUNK)))?;
    sum = sum.wrapping_add(sum_words(file, head)?);
    Ok(format!("{sum:016x}"))
}

/// The wrapping sum of `len` bytes read as little-endian u64 words (a short last word padded
/// with zeros).
fn sum_words<R: Read>(file: &mut R, len: u64) -> io::Result<u64> {
    let mut buf = Vec::new();
    file.take(len).read_to_end(&mut buf)?;
    if (buf.len() as u64) < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file is shorter than it said",
        ));
    }
    let mut sum = 0u64;
    for word in buf.chunks(8) {
        let mut bytes = [0u8; 8];
        bytes[..word.len()].copy_from_slice(word);
        sum = sum.wrapping_add(u64::from_le_bytes(bytes));
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::Cursor;

    use super::*;

    /// The reference implementation, word by word with explicit positions.
    fn reference(data: &[u8]) -> String {
        let size = data.len() as u64;
        let mut h = size;
        let n = (CHUNK as usize).min(data.len());
        for part in [&data[..n], &data[data.len() - n..]] {
            for i in (0..part.len()).step_by(8) {
                let mut w = [0u8; 8];
                let end = (i + 8).min(part.len());
                w[..end - i].copy_from_slice(&part[i..end]);
                h = h.wrapping_add(u64::from_le_bytes(w));
            }
        }
        format!("{h:016x}")
    }

    #[test]
    fn the_hash_sums_size_head_and_tail() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let got = movie_hash(&mut Cursor::new(&data), data.len() as u64).unwrap();
        assert_eq!(got, reference(&data));
        assert_eq!(got.len(), 16);
        // All zeros: the hash is the size alone.
        let zeros = vec![0u8; 131_072];
        assert_eq!(
            movie_hash(&mut Cursor::new(&zeros), 131_072).unwrap(),
            "0000000000020000"
        );
    }

    #[test]
    fn a_small_file_sums_what_it_has() {
        let data = b"0123456789abcdef!".to_vec();
        let got = movie_hash(&mut Cursor::new(&data), data.len() as u64).unwrap();
        assert_eq!(got, reference(&data));
    }

    #[test]
    fn a_file_shorter_than_said_is_an_error() {
        let data = vec![1u8; 100];
        assert!(movie_hash(&mut Cursor::new(&data), 70_000).is_err());
    }
}
