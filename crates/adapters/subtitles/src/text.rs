//! Subtitle files as text: decoded to UTF-8 (a UTF-8 or UTF-16 byte-order mark, valid UTF-8,
//! else Windows-1252, the superset of Latin-1 most old subtitle files are written in), then
//! checked to be SubRip or Advanced SubStation Alpha. Binary data or any other text is refused.

/// A subtitle format this crate recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Srt,
    Ass,
}

impl Format {
    /// The file extension it is written with.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Srt => "srt",
            Format::Ass => "ass",
        }
    }
}

/// Which encoding the bytes were read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
    Windows1252,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
            Encoding::Windows1252 => "Windows-1252",
        }
    }
}

/// A subtitle file, checked and decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// UTF-8, without a byte-order mark.
    pub text: String,
    pub format: Format,
    /// What the bytes were written in.
    pub encoding: Encoding,
    /// How many cues (SRT blocks, ASS dialogue lines) it holds.
    pub cues: usize,
}

/// Why bytes are not a subtitle file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotSubtitle {
    #[error("it is not text (binary data)")]
    NotText,
    #[error("it is text, but neither SubRip (SRT) nor SubStation Alpha (ASS) subtitles")]
    NotSubtitle,
}

/// Decodes and checks `bytes`.
pub fn check(bytes: &[u8]) -> Result<Checked, NotSubtitle> {
    let (text, encoding) = decode(bytes)?;
    let text = text.trim_start_matches('\u{feff}').to_owned();
    if text
        .chars()
        .any(|c| c == '\0' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{0c}')))
    {
        return Err(NotSubtitle::NotText);
    }
    let (format, cues) = if let Some(n) = ass_cues(&text) {
        (Format::Ass, n)
    } else if let Some(n) = srt_cues(&text) {
        (Format::Srt, n)
    } else {
        return Err(NotSubtitle::NotSubtitle);
    };
    Ok(Checked {
        text,
        format,
        encoding,
        cues,
    })
}

fn decode(bytes: &[u8]) -> Result<(String, Encoding), NotSubtitle> {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, encoding_rs::UTF_16LE).map(|t| (t, Encoding::Utf16Le));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, encoding_rs::UTF_16BE).map(|t| (t, Encoding::Utf16Be));
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    if bytes.contains(&0) {
        return Err(NotSubtitle::NotText);
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok((t.to_owned(), Encoding::Utf8)),
        Err(_) => {
            let (t, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
            Ok((t.into_owned(), Encoding::Windows1252))
        }
    }
}

fn utf16(bytes: &[u8], encoding: &'static encoding_rs::Encoding) -> Result<String, NotSubtitle> {
    let (t, malformed) = encoding.decode_without_bom_handling(bytes);
    if malformed {
        return Err(NotSubtitle::NotText);
    }
    Ok(t.into_owned())
}

/// The cues of an SRT text: blocks of an index line, a timing line
/// (`00:00:01,000 --> 00:00:02,500`) and text. `None` unless most blocks are well formed and
/// there is at least one.
fn srt_cues(text: &str) -> Option<usize> {
    let normal = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut good = 0usize;
    let mut bad = 0usize;
    for block in normal
        .split("\n\n")
        .map(str::trim)
        .filter(|b| !b.is_empty())
    {
        let mut lines = block.lines();
        let first = lines.next().unwrap_or_default().trim();
        let timing = if first.chars().all(|c| c.is_ascii_digit()) {
            lines.next().unwrap_or_default()
        } else {
            first
        };
        if is_timing(timing) {
            good += 1;
        } else {
            bad += 1;
        }
    }
    (good > 0 && bad <= good / 10 + 1).then_some(good)
}

/// `HH:MM:SS,mmm --> HH:MM:SS,mmm` (a dot for the comma, and position words after, allowed).
fn is_timing(line: &str) -> bool {
    let Some((from, to)) = line.split_once("-->") else {
        return false;
    };
    let to = to.split_whitespace().next().unwrap_or_default();
    is_time(from.trim()) && is_time(to)
}

fn is_time(t: &str) -> bool {
    let Some((hms, ms)) = t.split_once([',', '.']) else {
        return false;
    };
    let parts: Vec<&str> = hms.split(':').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()))
        && (1..=3).contains(&ms.len())
        && ms.chars().all(|c| c.is_ascii_digit())
}

/// The dialogue lines of an ASS/SSA text with its `[Script Info]` and `[Events]` sections.
fn ass_cues(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("[script info]") || !lower.contains("[events]") {
        return None;
    }
    let n = text
        .lines()
        .filter(|l| l.trim_start().starts_with("Dialogue:"))
        .count();
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const SRT: &str =
        "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nWorld\n";

    #[test]
    fn utf8_srt_is_taken_as_it_is() {
        let c = check(SRT.as_bytes()).unwrap();
        assert_eq!(
            (c.format, c.encoding, c.cues),
            (Format::Srt, Encoding::Utf8, 2)
        );
        assert_eq!(c.text, SRT);
        let bom = [b"\xEF\xBB\xBF".as_slice(), SRT.as_bytes()].concat();
        assert_eq!(check(&bom).unwrap().text, SRT, "the BOM is dropped");
    }

    #[test]
    fn utf16_with_a_bom_and_latin1_are_converted() {
        let text = "1\r\n00:00:00,000 --> 00:00:01,000\r\nÇa déjà vu – «oui»\r\n";
        let mut le = vec![0xFF, 0xFE];
        le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let c = check(&le).unwrap();
        assert_eq!((c.encoding, c.text.as_str()), (Encoding::Utf16Le, text));
        let mut be = vec![0xFE, 0xFF];
        be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(check(&be).unwrap().text, text);
        let latin1 = b"1\n00:00:00,000 --> 00:00:01,000\n\xC7a d\xE9j\xE0 vu\n";
        let c = check(latin1).unwrap();
        assert_eq!(c.encoding, Encoding::Windows1252);
        assert!(c.text.contains("Ça déjà vu"), "{}", c.text);
    }

    #[test]
    fn ass_is_recognised() {
        let ass = "[Script Info]\nTitle: x\n\n[Events]\nFormat: Layer, Start, End, Style, Text\nDialogue: 0,0:00:00.00,0:00:01.00,Default,Hello\n";
        let c = check(ass.as_bytes()).unwrap();
        assert_eq!((c.format, c.cues), (Format::Ass, 1));
    }

    #[test]
    fn binary_and_other_text_are_refused() {
        assert_eq!(
            check(b"\x1A\x45\xDF\xA3\x00\x00\x01").unwrap_err(),
            NotSubtitle::NotText
        );
        assert_eq!(
            check(b"<html><body>Not found</body></html>").unwrap_err(),
            NotSubtitle::NotSubtitle
        );
        assert_eq!(check(b"").unwrap_err(), NotSubtitle::NotSubtitle);
        assert_eq!(
            check(b"PK\x03\x04\x14\x00\x00\x00\x08\x00").unwrap_err(),
            NotSubtitle::NotText
        );
    }
}
