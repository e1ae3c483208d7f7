//! Torrent identity: the v1 info hash, 40 hex characters.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// A torrent's info hash, stored lowercase. The only way writes name torrents.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InfoHash([u8; 20]);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoHashError {
    #[error("info hash \"{0}\" must be 40 hexadecimal characters")]
    Malformed(String),
}

impl InfoHash {
    pub fn from_bytes(bytes: [u8; 20]) -> InfoHash {
        InfoHash(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }

    /// Lowercase hex, as both torrent clients print it.
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(40);
        for b in self.0 {
            out.push(DIGITS[(b >> 4) as usize] as char);
            out.push(DIGITS[(b & 0xf) as usize] as char);
        }
        out
    }
}

impl FromStr for InfoHash {
    type Err = InfoHashError;
    fn from_str(s: &str) -> Result<InfoHash, InfoHashError> {
        let bad = || InfoHashError::Malformed(s.chars().take(64).collect());
        let bytes = s.as_bytes();
        if bytes.len() != 40 {
            return Err(bad());
        }
        let mut out = [0u8; 20];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16).ok_or_else(bad)?;
            let lo = (pair[1] as char).to_digit(16).ok_or_else(bad)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Ok(InfoHash(out))
    }
}

impl fmt::Display for InfoHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for InfoHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InfoHash({})", self.to_hex())
    }
}

impl Serialize for InfoHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for InfoHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<InfoHash, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mixed_case_and_prints_lowercase() {
        let h: InfoHash = "ABCDEF0123456789abcdef0123456789ABCDEF01".parse().unwrap();
        assert_eq!(h.to_hex(), "abcdef0123456789abcdef0123456789abcdef01");
    }

    #[test]
    fn refuses_wrong_length_and_non_hex() {
        assert!("abc".parse::<InfoHash>().is_err());
        assert!("g".repeat(40).parse::<InfoHash>().is_err());
        assert!("é".repeat(20).parse::<InfoHash>().is_err());
        assert!("a".repeat(41).parse::<InfoHash>().is_err());
    }
}
