//! Reading just enough of torrent files, magnet links and tracker URLs: info hashes and redaction.

use domain::InfoHash;
use sha1::{Digest, Sha1};

use crate::error::{Error, Result};

const MAX_DEPTH: usize = 64;

/// The v1 info hash of a .torrent file: SHA-1 of the bencoded `info` dictionary.
/// Refuses anything that is not a well-formed torrent file, before it is sent anywhere.
pub fn info_hash_of_torrent(bytes: &[u8]) -> Result<InfoHash> {
    let bad = |why: &str| Error::invalid(format!("the torrent file is not valid: {why}"));
    if bytes.first() != Some(&b'd') {
        return Err(bad("it is not a bencoded dictionary"));
    }
    let mut i = 1;
    let mut info = None;
    while bytes.get(i) != Some(&b'e') {
        let key_end = skip(bytes, i, 0).ok_or_else(|| bad("malformed key"))?;
        let key = string_value(&bytes[i..key_end]).ok_or_else(|| bad("a key is not a string"))?;
        let value_end = skip(bytes, key_end, 0).ok_or_else(|| bad("malformed value"))?;
        if key == b"info" {
            if bytes[key_end] != b'd' {
                return Err(bad("\"info\" is not a dictionary"));
            }
            info = Some(&bytes[key_end..value_end]);
        }
        i = value_end;
    }
    let info = info.ok_or_else(|| bad("it has no \"info\" dictionary"))?;
    let digest: [u8; 20] = Sha1::digest(info).into();
    Ok(InfoHash::from_bytes(digest))
}

/// The URLs a .torrent file makes its client contact: its trackers (`announce`,
/// `announce-list`) and web seeds (`url-list`, `httpseeds`). Entries that are not text are
/// skipped; a file that is not a torrent has none.
pub fn contact_urls_of_torrent(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    if bytes.first() != Some(&b'd') {
        return out;
    }
    let mut i = 1;
    while bytes.get(i).is_some_and(|&b| b != b'e') {
        let Some(key_end) = skip(bytes, i, 0) else {
            break;
        };
        let Some(value_end) = skip(bytes, key_end, 0) else {
            break;
        };
        let key = string_value(&bytes[i..key_end]).unwrap_or_default();
        if matches!(
            key,
            b"announce" | b"announce-list" | b"url-list" | b"httpseeds"
        ) {
            strings_in(&bytes[key_end..value_end], 0, &mut out);
        }
        i = value_end;
    }
    out
}

/// Every string inside one bencoded value, as text.
fn strings_in(b: &[u8], depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match b.first() {
        Some(c) if c.is_ascii_digit() => {
            if let Some(text) = string_value(b).and_then(|v| std::str::from_utf8(v).ok()) {
                out.push(text.to_string());
            }
        }
        Some(b'l') => {
            let mut j = 1;
            while b.get(j).is_some_and(|&c| c != b'e') {
                let Some(end) = skip(b, j, depth + 1) else {
                    return;
                };
                strings_in(&b[j..end], depth + 1, out);
                j = end;
            }
        }
        _ => {}
    }
}

/// The URLs a magnet link makes its client contact: trackers (`tr`), web seeds (`ws`) and
/// sources of the .torrent (`xs`, `as`), decoded.
pub fn contact_urls_of_magnet(uri: &str) -> Vec<String> {
    let Some(query) = uri.strip_prefix("magnet:?") else {
        return Vec::new();
    };
    url::form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| {
            let k = k.split('.').next().unwrap_or_default();
            matches!(k, "tr" | "ws" | "xs" | "as")
        })
        .map(|(_, v)| v.into_owned())
        .collect()
}

/// The payload of a bencoded string token (`4:spam` -> `spam`).
fn string_value(token: &[u8]) -> Option<&[u8]> {
    let colon = token.iter().position(|&b| b == b':')?;
    Some(&token[colon + 1..])
}

/// The index just past the bencoded value starting at `i`.
fn skip(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(i)? {
        b'i' => {
            let end = i + 1 + b[i + 1..].iter().position(|&c| c == b'e')?;
            let digits = &b[i + 1..end];
            let ok = !digits.is_empty()
                && digits
                    .iter()
                    .enumerate()
                    .all(|(k, &c)| c.is_ascii_digit() || (k == 0 && c == b'-'));
            ok.then_some(end + 1)
        }
        b'l' => {
            let mut j = i + 1;
            while *b.get(j)? != b'e' {
                j = skip(b, j, depth + 1)?;
            }
            Some(j + 1)
        }
        b'd' => {
            let mut j = i + 1;
            while *b.get(j)? != b'e' {
                if !b[j].is_ascii_digit() {
                    return None;
                }
                j = skip(b, j, depth + 1)?;
                j = skip(b, j, depth + 1)?;
            }
            Some(j + 1)
        }
        c if c.is_ascii_digit() => {
            let colon = i + b[i..].iter().take(12).position(|&c| c == b':')?;
            let len: usize = std::str::from_utf8(&b[i..colon]).ok()?.parse().ok()?;
            let end = colon.checked_add(1)?.checked_add(len)?;
            (end <= b.len()).then_some(end)
        }
        _ => None,
    }
}

/// The v1 info hash named by a magnet link's `xt=urn:btih:` (hex or base32), if any.
pub fn info_hash_of_magnet(uri: &str) -> Option<InfoHash> {
    let query = uri.strip_prefix("magnet:?")?;
    query.split('&').find_map(|pair| {
        let value = pair.strip_prefix("xt=")?;
        let value = value
            .strip_prefix("urn:btih:")
            .or_else(|| value.strip_prefix("urn%3Abtih%3A"))?;
        match value.len() {
            40 => value.parse().ok(),
            32 => base32(value).map(InfoHash::from_bytes),
            _ => None,
        }
    })
}

fn base32(s: &str) -> Option<[u8; 20]> {
    let mut out = [0u8; 20];
    let (mut acc, mut bits, mut n) = (0u64, 0u32, 0usize);
    for c in s.bytes() {
        let v = match c.to_ascii_uppercase() {
            c @ b'A'..=b'Z' => c - b'A',
            c @ b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        acc = (acc << 5) | u64::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            *out.get_mut(n)? = (acc >> bits) as u8;
            n += 1;
        }
    }
    (n == 20).then_some(out)
}

/// Takes `user:password@` out of an instance URL, returning what it held (percent-decoded).
pub(crate) fn take_userinfo(url: &mut url::Url) -> Option<(String, String)> {
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    let decode = |s: &str| {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    let user = decode(url.username()).unwrap_or_default();
    let pass = url.password().and_then(decode).unwrap_or_default();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Some((user, pass))
}

/// The host of a URL, lowercase, if it has one.
pub(crate) fn host_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url.trim()).ok()?;
    u.host_str().map(|h| h.to_ascii_lowercase())
}

/// A tracker (or torrent) URL fit to show: no userinfo, no query, and path parts that look
/// like keys (long runs of letters and digits, as private trackers put passkeys there) as `***`.
pub fn redact_url(raw: &str) -> String {
    let Ok(u) = url::Url::parse(raw.trim()) else {
        return "(unreadable url)".to_string();
    };
    let mut out = format!("{}:", u.scheme());
    if let Some(host) = u.host_str() {
        out.push_str("//");
        out.push_str(host);
        if let Some(port) = u.port() {
            out.push_str(&format!(":{port}"));
        }
    }
    let path: Vec<&str> = u
        .path()
        .split('/')
        .map(|seg| if looks_like_key(seg) { "***" } else { seg })
        .collect();
    out.push_str(&path.join("/"));
    if u.query().is_some() {
        out.push_str("?***");
    }
    out
}

fn looks_like_key(seg: &str) -> bool {
    seg.len() >= 16
        && seg
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    // d8:announce..4:infod6:lengthi3e4:name1:a12:piece lengthi16384e6:pieces20:<20 bytes>ee
    fn sample() -> Vec<u8> {
        let mut v = b"d8:announce22:http://t.example/annou4:info".to_vec();
        v.extend_from_slice(b"d6:lengthi3e4:name1:a12:piece lengthi16384e6:pieces20:");
        v.extend_from_slice(&[7u8; 20]);
        v.extend_from_slice(b"ee");
        v
    }

    #[test]
    fn hashes_the_info_dictionary() {
        let bytes = sample();
        let start = bytes.windows(5).position(|w| w == b"infod").unwrap() + 4;
        let want: [u8; 20] = Sha1::digest(&bytes[start..bytes.len() - 1]).into();
        assert_eq!(
            info_hash_of_torrent(&bytes).unwrap(),
            InfoHash::from_bytes(want)
        );
    }

    #[test]
    fn refuses_garbage() {
        for bad in [
            &b""[..],
            b"<html>",
            b"d4:infoi3ee",
            b"d3:foo3:bare",
            b"d4:info",
            b"d99999999:x",
        ] {
            let e = info_hash_of_torrent(bad).unwrap_err();
            assert!(
                e.to_string().starts_with("the torrent file is not valid"),
                "{e}"
            );
        }
        let deep = "l".repeat(100_000);
        assert!(info_hash_of_torrent(format!("d1:a{deep}").as_bytes()).is_err());
    }

    #[test]
    fn reads_magnets() {
        let hex = "0123456789abcdef0123456789abcdef01234567";
        let h = info_hash_of_magnet(&format!("magnet:?dn=x&xt=urn:btih:{}", hex.to_uppercase()))
            .unwrap();
        assert_eq!(h.to_hex(), hex);
        // base32 of the same 20 bytes
        let b32 = "AERUKZ4JVPG66AJDIVTYTK6N54ASGRLH";
        assert_eq!(
            info_hash_of_magnet(&format!("magnet:?xt=urn:btih:{b32}"))
                .unwrap()
                .to_hex(),
            hex
        );
        assert!(info_hash_of_magnet("magnet:?dn=x").is_none());
        assert!(info_hash_of_magnet("http://x/y.torrent").is_none());
    }

    #[test]
    fn redacts_tracker_urls() {
        assert_eq!(
            redact_url("https://tracker.example:8443/a1b2c3d4e5f6a7b8c9d0/announce"),
            "https://tracker.example:8443/***/announce"
        );
        assert_eq!(
            redact_url("http://user:pw@t.example/announce.php?passkey=sekrit"),
            "http://t.example/announce.php?***"
        );
        assert_eq!(
            redact_url("magnet:?xt=urn:btih:abc&tr=http://t/k"),
            "magnet:?***"
        );
        assert_eq!(
            host_of("udp://Tracker.Example:1337/announce").as_deref(),
            Some("tracker.example")
        );
        let mut u = url::Url::parse("http://bob:s%40cret@h:1/x").unwrap();
        assert_eq!(take_userinfo(&mut u), Some(("bob".into(), "s@cret".into())));
        assert_eq!(u.as_str(), "http://h:1/x");
    }

    #[test]
    fn a_torrents_trackers_and_web_seeds_are_the_urls_its_client_contacts() {
        let mut v = b"d8:announce22:http://t.example/annou13:announce-listll21:udp://10.0.0.1:6969/ael19:http://[::1]:80/annee4:info".to_vec();
        v.extend_from_slice(b"d6:lengthi3e4:name1:a12:piece lengthi16384e6:pieces20:");
        v.extend_from_slice(&[7u8; 20]);
        v.extend_from_slice(b"e8:url-listl24:http://169.254.169.254/xee");
        assert_eq!(
            contact_urls_of_torrent(&v),
            [
                "http://t.example/annou",
                "udp://10.0.0.1:6969/a",
                "http://[::1]:80/ann",
                "http://169.254.169.254/x"
            ]
        );
        assert!(contact_urls_of_torrent(b"not a torrent").is_empty());
        assert_eq!(
            contact_urls_of_torrent(&sample()),
            ["http://t.example/annou"]
        );
    }

    #[test]
    fn a_magnets_trackers_seeds_and_sources_are_decoded() {
        let m = "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=x\
                 &tr=http%3A%2F%2F127.0.0.1%3A9091%2Fannounce&tr.1=udp://t.example:1\
                 &ws=http://192.168.1.2/f&xs=http://h.example/x.torrent&as=http://a/b";
        assert_eq!(
            contact_urls_of_magnet(m),
            [
                "http://127.0.0.1:9091/announce",
                "udp://t.example:1",
                "http://192.168.1.2/f",
                "http://h.example/x.torrent",
                "http://a/b"
            ]
        );
        assert!(contact_urls_of_magnet("http://not-a-magnet").is_empty());
    }
}
