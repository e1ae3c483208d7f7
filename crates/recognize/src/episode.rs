//! Season and episode markers: `S01E02`, `S01E01E03`, `1x02x03`, `S06xE01`, `E05`, roman and
//! CJK numbers, ordinals (`04ª`, `5-й`); the words that name seasons and episodes in many
//! languages.

/// Words meaning "season" (a number follows, or for some, precedes).
pub(crate) const SEASON_WORDS: &[&str] = &[
    "season",
    "seasons",
    "saison",
    "saisons",
    "temporada",
    "temporadas",
    "temp",
    "tem",
    "stagione",
    "staffel",
    "seizoen",
    "sezon",
    "säsong",
    "sasong",
    "évad",
    "evad",
    "сезон",
    "sezonul",
    "kausi",
    "sæson",
    "sesong",
];

/// Words meaning "episode".
pub(crate) const EPISODE_WORDS: &[&str] = &[
    "episode",
    "episodes",
    "ep",
    "épisode",
    "episodio",
    "capitulo",
    "capítulo",
    "cap",
    "folge",
    "aflevering",
    "episodul",
    "avsnitt",
    "odcinek",
    "bolum",
    "bölüm",
    "серия",
    "эпизод",
    "rész",
    "resz",
    "jakso",
    "afsnit",
];

/// Words after which the number may come first (`2 сезон`, `2. évad`, `7.Bolum`).
pub(crate) const NUMBER_FIRST: &[&str] = &[
    "сезон",
    "серия",
    "évad",
    "evad",
    "rész",
    "resz",
    "staffel",
    "bolum",
    "bölüm",
    "sezon",
    "temporada",
];

/// A season and episode marker read from one token.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Marker {
    pub season: Option<u32>,
    pub episodes: Vec<u32>,
}

fn digits(s: &str) -> Option<(u32, &str)> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 || end > 4 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// Reads `s01e02e03`, `s01`, `s01d1`, `e05`, `ep05`, `1x02`, `1x02x03`, `s06xe01`, `2×7`;
/// `None` when the token is none of them.
pub(crate) fn marker(token: &str) -> Option<Marker> {
    let t = token.replace('×', "x");
    let b = t.as_str();
    if let Some(rest) = b.strip_prefix('s')
        && let Some((season, mut rest)) = digits(rest)
    {
        let mut m = Marker {
            season: Some(season),
            ..Marker::default()
        };
        if rest.is_empty() || rest == "extras" || rest == "xall" {
            return Some(m);
        }
        if let Some(r) = rest.strip_prefix('d')
            && digits(r).is_some_and(|(_, tail)| tail.is_empty())
        {
            return Some(m);
        }
        rest = rest.strip_prefix('x').unwrap_or(rest);
        while let Some(r) = rest.strip_prefix('e') {
            let (ep, tail) = digits(r)?;
            m.episodes.push(ep);
            rest = tail;
        }
        return (rest.is_empty() && !m.episodes.is_empty()).then_some(m);
    }
    // T02E22, T01XE08 (temporada)
    if let Some(rest) = b.strip_prefix('t')
        && let Some((season, rest)) = digits(rest)
        && let Some(rest) = rest.strip_prefix("xe").or_else(|| rest.strip_prefix('e'))
        && let Some((ep, "")) = digits(rest)
    {
        return Some(Marker {
            season: Some(season),
            episodes: vec![ep],
        });
    }
    for prefix in ["ep", "e"] {
        if let Some(rest) = b.strip_prefix(prefix)
            && let Some((ep, tail)) = digits(rest)
            && version(tail) == Some("")
        {
            let mut m = Marker {
                episodes: vec![ep],
                ..Marker::default()
            };
            let mut rest = tail;
            while let Some(r) = rest.strip_prefix('e') {
                let Some((ep, tail)) = digits(r) else { break };
                m.episodes.push(ep);
                rest = tail;
            }
            return Some(m);
        }
    }
    // 1x02, 1x02x03
    let (season, rest) = digits(b)?;
    let mut rest = rest.strip_prefix('x')?;
    if rest == "all" {
        return Some(Marker {
            season: Some(season),
            ..Marker::default()
        });
    }
    let mut m = Marker {
        season: Some(season),
        ..Marker::default()
    };
    loop {
        rest = rest.strip_prefix('e').unwrap_or(rest);
        let (ep, tail) = digits(rest)?;
        m.episodes.push(ep);
        if tail.is_empty() {
            break;
        }
        rest = tail.strip_prefix('x')?;
    }
    // 1280x720 is a resolution, not season 1280.
    (season < 100 || (1900..2100).contains(&season)).then_some(m)
}

/// The rest of a token after an optional version `v2`.
fn version(tail: &str) -> Option<&str> {
    match tail.strip_prefix('v') {
        Some(v) => digits(v).map(|(_, rest)| rest),
        None => Some(tail),
    }
}

/// `05v2` → 5: a number with a version mark.
pub(crate) fn versioned(token: &str) -> Option<u32> {
    let (n, tail) = digits(token)?;
    let tail = tail.strip_prefix('v')?;
    digits(tail).filter(|(_, rest)| rest.is_empty())?;
    Some(n)
}

/// Roman numerals and a few number words a season may be written as.
pub(crate) fn word_number(token: &str) -> Option<u32> {
    const WORDS: &[(&str, u32)] = &[
        ("i", 1),
        ("ii", 2),
        ("iii", 3),
        ("iv", 4),
        ("v", 5),
        ("vi", 6),
        ("vii", 7),
        ("viii", 8),
        ("ix", 9),
        ("x", 10),
        ("one", 1),
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("seven", 7),
        ("eight", 8),
        ("nine", 9),
        ("ten", 10),
        ("deux", 2),
        ("trois", 3),
        ("quatre", 4),
        ("cinq", 5),
        ("sept", 7),
        ("huit", 8),
        ("neuf", 9),
        ("dix", 10),
    ];
    WORDS.iter().find(|(w, _)| *w == token).map(|(_, n)| *n)
}

/// A number, or one written with an ordinal mark: `04ª`, `1a`, `5-й` (as `5`, `й`).
pub(crate) fn ordinal(token: &str) -> Option<u32> {
    let (n, tail) = digits(token)?;
    matches!(tail, "" | "ª" | "a" | "º" | "o").then_some(n)
}

/// The CJK markers: `第3話`, `第二季`, `シーズン2`, `2期`, `第十一季`.
pub(crate) fn cjk(text: &str) -> (Option<u32>, Option<u32>) {
    let mut season = None;
    let mut episode = None;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let katakana = chars[i..].starts_with(&['シ', 'ー', 'ズ', 'ン']);
        if chars[i] == '第' || katakana {
            let from = if katakana { i + 4 } else { i + 1 };
            let (n, used) = cjk_number(&chars[from..]);
            if let Some(n) = n {
                match chars.get(from + used) {
                    Some('季' | '期' | '部') => season = Some(n),
                    Some('話' | '话' | '集' | '回') => episode = Some(n),
                    _ if katakana => season = Some(n),
                    _ => {}
                }
                i = from + used;
                continue;
            }
        }
        if chars[i].is_ascii_digit() {
            let (n, used) = cjk_number(&chars[i..]);
            if let (Some(n), Some('期')) = (n, chars.get(i + used)) {
                season = Some(n);
            }
            i += used.max(1);
            continue;
        }
        i += 1;
    }
    (season, episode)
}

fn cjk_number(chars: &[char]) -> (Option<u32>, usize) {
    let digits: String = chars.iter().take_while(|c| c.is_ascii_digit()).collect();
    if !digits.is_empty() {
        return (digits.parse().ok(), digits.len());
    }
    let value = |c: char| "〇一二三四五六七八九".chars().position(|d| d == c);
    let mut total = 0u32;
    let mut current = 0u32;
    let mut used = 0;
    for &c in chars {
        if let Some(v) = value(c) {
            current = v as u32;
        } else if c == '十' {
            total += current.max(1) * 10;
            current = 0;
        } else {
            break;
        }
        used += 1;
    }
    if used == 0 {
        return (None, 0);
    }
    (Some(total + current), used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_read_seasons_and_episodes() {
        let m = marker("s01e02e03").unwrap();
        assert_eq!((m.season, m.episodes), (Some(1), vec![2, 3]));
        let m = marker("5x44x45").unwrap();
        assert_eq!((m.season, m.episodes), (Some(5), vec![44, 45]));
        assert_eq!(marker("x264"), None);
        assert_eq!(marker("1280x720"), None);
        assert_eq!(marker("e576").unwrap().episodes, vec![576]);
        assert_eq!(cjk("庆余年第十一季 第二十三集"), (Some(11), Some(23)));
        assert_eq!(cjk("アニメ シーズン2 第3話"), (Some(2), Some(3)));
        assert_eq!(versioned("07v4"), Some(7));
    }
}
