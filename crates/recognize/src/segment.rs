//! One part of a path read on its own: its words claimed by the known tables, the episode
//! markers, dates, years, languages, sites and checksums, then the title, episode title and
//! release group taken from what no rule claimed.

use crate::{
    episode::{self, EPISODE_WORDS, NUMBER_FIRST, SEASON_WORDS},
    language,
    tables::{self, Prop, Says},
    tokens::{Token, tokenize},
};

/// What a rule took a token for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Claim {
    Free,
    Known(Says),
    /// A season or episode marker, or a word belonging to one.
    Episode,
    Year,
    Date,
    Language(&'static str),
    Subtitle(&'static str),
    Country,
    /// Checksums, hashes, sites, sizes, versions, discs: not title, not group.
    Noise,
}

impl Claim {
    fn weak(self) -> bool {
        match self {
            Claim::Known(says) => !says.iter().any(|(p, _)| p.strong()),
            Claim::Language(_) | Claim::Subtitle(_) | Claim::Country => true,
            _ => false,
        }
    }
}

/// What one segment says.
#[derive(Clone, Debug, Default)]
pub(crate) struct Segment {
    pub title: Option<String>,
    /// The title was found after a leading episode marker (`2x05 - Show - Name`): a folder's
    /// title is better.
    pub title_after_marker: bool,
    pub year: Option<u32>,
    pub season: Vec<u32>,
    pub episode: Vec<u32>,
    pub episode_title: Option<String>,
    pub date: Option<String>,
    pub props: Vec<(Prop, &'static str)>,
    pub language: Vec<&'static str>,
    pub subtitle_language: Vec<&'static str>,
    pub release_group: Option<String>,
    pub screen_size: Option<String>,
    pub proper_count: u32,
    /// A season or episode word or marker was seen (an episode, even without numbers).
    pub episodic: bool,
    /// How many strong properties were found: how much this segment looks like a release.
    pub strength: usize,
}

const SUB_WORDS: &[&str] = &[
    "sub",
    "subs",
    "subbed",
    "subtitle",
    "subtitles",
    "subtitulado",
    "subtitulada",
    "legendado",
    "legendas",
    "legenda",
    "st",
    "vost",
    "soft",
    "custom",
    "subforced",
];

const DUB_WORDS: &[&str] = &["dubbed", "dub", "dublado", "audio", "doblado"];

const TLDS: &[&str] = &[
    "com", "org", "net", "ru", "info", "tv", "to", "me", "fr", "de", "io", "co", "cc", "se", "nu",
    "vip",
];

/// Top-level domains that are also words: a site only in brackets or after `www`.
const WORD_TLDS: &[&str] = &["tv", "to", "me", "fr", "de", "io", "co", "cc", "se", "nu"];

const SITES: &[&str] = &["rarbg", "ettv", "eztv", "rartv", "glodls", "utr", "eng"];

const STOPWORDS: &[&str] = &[
    "the", "a", "an", "of", "in", "on", "at", "to", "and", "le", "la", "les", "de", "du", "des",
    "el", "los", "il", "der", "die", "das", "is", "for", "with", "from", "my", "by",
];

struct Reader<'a> {
    text: &'a str,
    /// Where a `-f21-` film number stands: the title is what follows it.
    film_at: Option<usize>,
    toks: Vec<Token>,
    claim: Vec<Claim>,
    out: Segment,
}

/// Reads one segment (a file name without its extension, or a folder name).
pub(crate) fn read(text: &str) -> Segment {
    let spaced;
    let text = if text.contains('第') || text.contains("シーズン") {
        spaced = text.replace('第', " 第").replace("シーズン", " シーズン");
        spaced.as_str()
    } else {
        text
    };
    let toks = tokenize(text);
    let claim = vec![Claim::Free; toks.len()];
    let mut r = Reader {
        text,
        film_at: None,
        toks,
        claim,
        out: Segment::default(),
    };
    r.noise();
    r.known();
    r.abbreviations();
    r.screen_sizes();
    r.channels();
    r.markers();
    r.season_words();
    r.episode_words();
    r.of_counts();
    r.cjk();
    r.dates();
    r.languages();
    r.countries();
    r.layout();
    r.collect();
    r.out
}

impl Reader<'_> {
    fn n(&self) -> usize {
        self.toks.len()
    }

    fn free(&self, i: usize) -> bool {
        self.claim.get(i) == Some(&Claim::Free)
    }

    fn lower(&self, i: usize) -> &str {
        self.toks.get(i).map(|t| t.lower.as_str()).unwrap_or("")
    }

    fn raw(&self, i: usize) -> &str {
        &self.text[self.toks[i].start..self.toks[i].end]
    }

    /// Checksums, hashes, sites, sizes, versions and discs.
    fn noise(&mut self) {
        let n = self.n();
        for i in 0..n {
            let t = &self.toks[i];
            let l = t.lower.as_str();
            let hex = l.len() == 8 && l.bytes().all(|b| b.is_ascii_hexdigit());
            let has_digit = l.bytes().any(|b| b.is_ascii_digit());
            let long_hash = l.len() >= 20
                && episode::marker(l).is_none()
                && l.bytes().all(|b| b.is_ascii_alphanumeric())
                && has_digit
                && l.bytes().any(|b| b.is_ascii_alphabetic());
            let unit = [
                "mb", "gb", "tb", "kbps", "mbps", "kbit", "mbits", "fps", "kb",
            ]
            .iter()
            .any(|u| {
                l.strip_suffix(u)
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            });
            let version = l.len() <= 3
                && l.starts_with('v')
                && l[1..].bytes().all(|b| b.is_ascii_digit())
                && l.len() > 1;
            let cd = ["cd", "disc", "disk", "dvd"].iter().any(|p| {
                l.strip_prefix(p).is_some_and(|rest| {
                    !rest.is_empty()
                        && rest
                            .split("of")
                            .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
            });
            if (hex && t.group != 0 && has_digit) || long_hash || unit || version || cd {
                self.claim[i] = Claim::Noise;
                if unit && i > 0 && self.toks[i].sep == "." && self.toks[i - 1].is_digits() {
                    self.claim[i - 1] = Claim::Noise;
                }
            }
        }
        // Sites: word.tld, www.…, and the known tags.
        for i in 0..n {
            let l = self.lower(i).to_owned();
            let tld = i > 0
                && TLDS.contains(&l.as_str())
                && self.toks[i].sep == "."
                && (!WORD_TLDS.contains(&l.as_str())
                    || self.toks[i].group != 0
                    || (1..=2).any(|d| i >= d && self.lower(i - d) == "www"));
            if l == "www" || (tld && self.lower(i - 1) != "s") {
                let group = self.toks[i].group;
                if group != 0 {
                    for j in 0..n {
                        if self.toks[j].group == group {
                            self.claim[j] = Claim::Noise;
                        }
                    }
                } else {
                    let mut j = i;
                    self.claim[j] = Claim::Noise;
                    while j > 0 && (self.toks[j].sep == "." || self.lower(j - 1) == "www") {
                        j -= 1;
                        self.claim[j] = Claim::Noise;
                        if self.lower(j) == "www" || i - j >= 2 {
                            break;
                        }
                    }
                    if l == "www" {
                        let mut k = i + 1;
                        while k < n && self.toks[k].sep == "." && !TLDS.contains(&self.lower(k)) {
                            self.claim[k] = Claim::Noise;
                            k += 1;
                        }
                        if k < n && TLDS.contains(&self.lower(k)) {
                            self.claim[k] = Claim::Noise;
                        }
                    }
                }
            }
            if SITES.contains(&l.as_str()) && self.toks[i].group != 0 && i + 1 == n && l != "eng" {
                self.claim[i] = Claim::Noise;
            }
        }
    }

    /// Known words, joining up to three tokens (`WEB-DL`, `DD5.1`, `H.264`).
    fn known(&mut self) {
        let n = self.n();
        let mut i = 0;
        while i < n {
            if !self.free(i) {
                i += 1;
                continue;
            }
            let mut matched = 0;
            for len in (1..=3).rev() {
                if i + len > n {
                    continue;
                }
                let joinable = (i + 1..i + len).all(|j| {
                    self.free(j)
                        && self.toks[j].group == self.toks[i].group
                        && matches!(self.toks[j].sep.as_str(), "." | "-" | " " | "_" | "'")
                });
                if !joinable
                    || (len > 1 && (i..i + len).all(|j| self.lower(j).chars().count() == 1))
                {
                    continue;
                }
                let mut key: String = (i..i + len).map(|j| self.lower(j)).collect();
                // `DD+5.1`: the plus is part of the codec's name.
                if key == "dd" && self.toks.get(i + 1).is_some_and(|t| t.sep.starts_with('+')) {
                    key = "ddp".into();
                }
                if let Some(says) = tables::lookup(&key) {
                    // A lone weak or short word at the very start is a title word.
                    let strong = says.iter().any(|(p, _)| p.strong());
                    if i == 0 && len == 1 && (!strong || key.len() < 4) {
                        continue;
                    }
                    // `Opus.2025`, `Spiders.Web.2019`: a title word before the year.
                    let before_year = i + 1 < n
                        && self.free(i + 1)
                        && self.toks[i + 1].lower.len() == 4
                        && self.toks[i + 1]
                            .number()
                            .is_some_and(|y| (1900..=2039).contains(&y));
                    if len == 1
                        && before_year
                        && says
                            .iter()
                            .any(|(p, _)| matches!(p, Prop::AudioCodec | Prop::Source))
                    {
                        continue;
                    }
                    for j in i..i + len {
                        self.claim[j] = Claim::Known(says);
                    }
                    matched = len;
                    break;
                }
            }
            i += matched.max(1);
        }
    }

    /// Words that say something only written so (`DC`, `SE`), parts, films, bonuses and the
    /// words a complete series is sold as.
    fn abbreviations(&mut self) {
        static DC: [(Prop, &str); 1] = [(Prop::Edition, "Director's Cut")];
        static SE: [(Prop, &str); 1] = [(Prop::Edition, "Special")];
        static OM: [(Prop, &str); 1] = [(Prop::Other, "Open Matte")];
        static CONVERT: [(Prop, &str); 1] = [(Prop::Other, "Converted")];
        let n = self.n();
        for i in 1..n {
            if !self.free(i) {
                continue;
            }
            let says: Option<Says> = match self.raw(i) {
                "DC" => Some(&DC),
                "SE" => Some(&SE),
                "OM" => Some(&OM),
                "CONVERT" => Some(&CONVERT),
                _ => None,
            };
            if let Some(says) = says {
                self.claim[i] = Claim::Known(says);
                continue;
            }
            let l = self.lower(i).to_owned();
            let l = l.as_str();
            // Part 3, Part III
            if matches!(l, "part" | "pt")
                && i + 1 < n
                && self.free(i + 1)
                && (self.toks[i + 1].number().is_some_and(|p| p < 100)
                    || episode::word_number(self.lower(i + 1)).is_some())
            {
                self.claim[i] = Claim::Noise;
                self.claim[i + 1] = Claim::Noise;
                continue;
            }
            // -f21- (a film of a series), -x02- (a bonus)
            let numbered = |p: char| {
                l.strip_prefix(p).is_some_and(|d| {
                    (1..=2).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())
                })
            };
            let after_season =
                episode::marker(self.lower(i - 1)).is_some_and(|m| m.episodes.is_empty());
            if self.toks[i].dash_before() && (numbered('f') || (numbered('x') && !after_season)) {
                self.claim[i] = Claim::Noise;
                if numbered('f') {
                    self.film_at = Some(i);
                }
                continue;
            }
            if matches!(l, "series" | "miniseries" | "coffret")
                && [i - 1, i + 1].iter().any(|&j| {
                    matches!(self.claim.get(j), Some(Claim::Known(s)) if s.contains(&(Prop::Other, "Complete")))
                })
            {
                self.claim[i] = Claim::Noise;
                self.out.episodic = true;
            }
            if l == "edition"
                && [i - 1, i + 1]
                    .iter()
                    .any(|&j| matches!(self.claim.get(j), Some(Claim::Known(s)) if s.iter().any(|(p, _)| *p == Prop::Edition)))
            {
                self.claim[i] = Claim::Noise;
            }
        }
        if self.toks.iter().any(|t| t.lower == "coffret") {
            for i in 1..n {
                if self.lower(i) == "coffret" {
                    self.claim[i] = Claim::Noise;
                }
            }
        }
    }

    /// `720p`, `1080i`, `1920x1080`, `1280*720`, `4K`, and a bare `720` beside known words.
    fn screen_sizes(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let l = self.lower(i).to_owned();
            let size = if let Some(d) = l.strip_suffix('p').or_else(|| l.strip_suffix('i')) {
                d.parse::<u32>()
                    .ok()
                    .filter(|h| (240..=4320).contains(h))
                    .map(|h| format!("{h}{}", &l[l.len() - 1..]))
            } else if l == "4k" || l == "uhd4k" {
                Some("2160p".to_owned())
            } else if let Some((w, h)) = l.split_once('x') {
                match (w.parse::<u32>(), h.parse::<u32>()) {
                    (Ok(w), Ok(h)) if w >= 320 && h >= 200 && w < 8000 && h < 5000 => {
                        Some(standard(w, h))
                    }
                    _ => None,
                }
            } else {
                None
            };
            if let Some(s) = size {
                self.claim[i] = Claim::Known(&[]);
                self.out.screen_size.get_or_insert(s);
                self.out.strength += 1;
                continue;
            }
            // 1280*720 (split by the separator)
            if let (Some(w), Some(h)) = (
                self.toks[i].number(),
                self.toks
                    .get(i + 1)
                    .filter(|t| t.sep == "*")
                    .and_then(Token::number),
            ) && w >= 320
                && h >= 200
            {
                self.claim[i] = Claim::Known(&[]);
                self.claim[i + 1] = Claim::Known(&[]);
                self.out.screen_size.get_or_insert(standard(w, h));
            }
        }
        // A bare 720/1080 next to known words.
        for i in 0..n {
            let Some(h) = self.toks[i].number() else {
                continue;
            };
            if !self.free(i)
                || ![480, 576, 720, 1080, 2160].contains(&h)
                || self.toks[i].part_break()
            {
                continue;
            }
            let beside = |j: Option<usize>| {
                j.and_then(|j| self.claim.get(j))
                    .is_some_and(|c| matches!(c, Claim::Known(s) if s.iter().any(|(p, _)| p.strong()) || s.is_empty()))
            };
            if beside(i.checked_sub(1)) || beside(Some(i + 1)) {
                self.claim[i] = Claim::Known(&[]);
                self.out.screen_size.get_or_insert(format!("{h}p"));
            }
        }
    }

    /// `5.1`, `2.0`, `7.1` after a known word; `5.1Ch`.
    fn channels(&mut self) {
        let n = self.n();
        for i in 1..n.saturating_sub(1) {
            let (a, b) = (self.lower(i), self.lower(i + 1));
            let value = match (a, b) {
                ("5", "1" | "1ch") | ("6", "1") => "5.1",
                ("7", "1" | "1ch") => "7.1",
                ("2", "0" | "0ch") => "2.0",
                ("1", "0") => "1.0",
                _ => continue,
            };
            if !self.free(i) || !self.free(i + 1) || self.toks[i + 1].sep != "." {
                continue;
            }
            if matches!(self.claim[i - 1], Claim::Known(_)) {
                static SAYS: [[(Prop, &str); 1]; 4] = [
                    [(Prop::AudioChannels, "5.1")],
                    [(Prop::AudioChannels, "7.1")],
                    [(Prop::AudioChannels, "2.0")],
                    [(Prop::AudioChannels, "1.0")],
                ];
                let says: Says = match value {
                    "5.1" => &SAYS[0],
                    "7.1" => &SAYS[1],
                    "2.0" => &SAYS[2],
                    _ => &SAYS[3],
                };
                self.claim[i] = Claim::Known(says);
                self.claim[i + 1] = Claim::Known(says);
            }
        }
    }

    fn add_episodes(&mut self, eps: &[u32]) {
        for e in eps {
            if !self.out.episode.contains(e) {
                self.out.episode.push(*e);
            }
        }
    }

    fn add_seasons(&mut self, seasons: &[u32]) {
        for s in seasons {
            if !self.out.season.contains(s) {
                self.out.season.push(*s);
            }
        }
    }

    /// `S01E02`, `1x02`, `E05` and what continues them: `-03`, `E03`, `+04`, `& S01E05`.
    fn markers(&mut self) {
        let n = self.n();
        // `1 x 03`
        for i in 0..n.saturating_sub(2) {
            if self.lower(i + 1) == "x"
                && (i..i + 3).all(|j| self.free(j))
                && let (Some(s), Some(e)) = (self.toks[i].number(), self.toks[i + 2].number())
                && s < 100
                && self.toks[i].lower.len() <= 2
                && self.toks[i + 2].lower.len() <= 3
            {
                for j in i..i + 3 {
                    self.claim[j] = Claim::Episode;
                }
                self.add_seasons(&[s]);
                self.add_episodes(&[e]);
                self.out.episodic = true;
            }
        }
        let mut i = 0;
        while i < n {
            let Some(m) = self
                .free(i)
                .then(|| episode::marker(self.lower(i)))
                .flatten()
            else {
                i += 1;
                continue;
            };
            // `E05` at the very start of a lone word is rarely an episode of nothing: keep it.
            self.claim[i] = Claim::Episode;
            self.out.episodic = true;
            let season_only = m.episodes.is_empty();
            let mut last_season = m.season;
            let mut last_ep = m.episodes.last().copied();
            if let Some(s) = m.season {
                self.add_seasons(&[s]);
            }
            self.add_episodes(&m.episodes);
            let mut j = i + 1;
            while j < n && self.free(j) {
                let sep = self.toks[j].sep.clone();
                let lower = self.lower(j).to_owned();
                if lower == "and" || lower == "to" {
                    if j + 1 < n && self.free(j + 1) && episode::marker(self.lower(j + 1)).is_some()
                    {
                        self.claim[j] = Claim::Episode;
                        j += 1;
                        continue;
                    }
                    break;
                }
                let range = sep.contains('-');
                let joined = range || sep.contains('+') || sep.contains('&');
                if let Some(next) = episode::marker(&lower) {
                    let same_season = next.season.is_none() || next.season == last_season;
                    if season_only && next.episodes.is_empty() && range {
                        // S01-S04
                        if let (Some(a), Some(b)) = (last_season, next.season) {
                            self.add_seasons(&(a..=b).collect::<Vec<_>>());
                        }
                    } else if !next.episodes.is_empty() && (same_season || !range) {
                        if let (true, Some(a), Some(&b)) = (range, last_ep, next.episodes.first())
                            && b > a
                            && b - a < 100
                        {
                            self.add_episodes(&(a..=b).collect::<Vec<_>>());
                        }
                        if let Some(s) = next.season {
                            self.add_seasons(&[s]);
                        }
                        self.add_episodes(&next.episodes);
                    } else {
                        break;
                    }
                    last_season = next.season.or(last_season);
                    last_ep = next.episodes.last().copied().or(last_ep);
                    self.claim[j] = Claim::Episode;
                    j += 1;
                    continue;
                }
                if season_only
                    && range
                    && let Some(Ok(e)) = lower.strip_prefix('x').map(str::parse::<u32>)
                {
                    self.add_episodes(&[e]);
                    self.claim[j] = Claim::Episode;
                    j += 1;
                    continue;
                }
                if season_only
                    && last_ep.is_none()
                    && self.toks[j].part_break()
                    && self.toks[j].lower.len() <= 3
                    && let Some(e) = self.toks[j].number()
                {
                    self.add_episodes(&[e]);
                    last_ep = Some(e);
                    self.claim[j] = Claim::Episode;
                    j += 1;
                    continue;
                }
                let tight = matches!(sep.as_str(), "-" | "+" | "&" | " & " | "_" | ".&." | " + ");
                if joined
                    && tight
                    && let (Some(a), Some(b)) = (last_ep, self.toks[j].number())
                    && self.toks[j].lower.len() <= 3
                {
                    if range && b > a && b - a < 100 {
                        self.add_episodes(&(a..=b).collect::<Vec<_>>());
                    } else {
                        self.add_episodes(&[b]);
                    }
                    last_ep = Some(b);
                    self.claim[j] = Claim::Episode;
                    j += 1;
                    continue;
                }
                break;
            }
            i = j;
        }
    }

    /// `Season 2`, `Saison VII`, `Seasons 1 & 2`, `Season 1-3`, `2 сезон`, `Temporada1`.
    fn season_words(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let l = self.lower(i).to_owned();
            // Temporada1
            if let Some(d) = SEASON_WORDS
                .iter()
                .find_map(|w| l.strip_prefix(w).filter(|d| !d.is_empty()))
                && let Ok(s) = d.parse::<u32>()
            {
                self.claim[i] = Claim::Episode;
                self.out.episodic = true;
                self.add_seasons(&[s]);
                continue;
            }
            if !SEASON_WORDS.contains(&l.as_str()) {
                continue;
            }
            let before = self.number_before(i, &l);
            let after = (i + 1 < n && self.free(i + 1))
                .then(|| season_number(self.lower(i + 1)))
                .flatten();
            let after_taken = (i + 2..(i + 4).min(n)).any(|j| {
                EPISODE_WORDS.contains(&self.lower(j)) && NUMBER_FIRST.contains(&self.lower(j))
            }) && !EPISODE_WORDS.contains(&self.lower(i + 2));
            let before_first = before.is_some() && (after.is_none() || after_taken);
            if let Some(s) = after.filter(|s| *s < 1900 && !before_first) {
                self.claim[i] = Claim::Episode;
                self.claim[i + 1] = Claim::Episode;
                self.out.episodic = true;
                self.add_seasons(&[s]);
                // 2of5
                if let Some((_, rest)) = self.lower(i + 1).split_once("of")
                    && rest.bytes().all(|b| b.is_ascii_digit())
                {}
                self.season_list(i + 2, s);
            } else if let Some((j, s)) = before {
                self.claim[i] = Claim::Episode;
                for k in j..i {
                    self.claim[k] = Claim::Episode;
                }
                self.out.episodic = true;
                self.add_seasons(&[s]);
            }
        }
    }

    /// A number written before a word that takes one (`2 сезон`, `5-й сезон`, `04ª Temporada`).
    fn number_before(&self, i: usize, word: &str) -> Option<(usize, u32)> {
        if !NUMBER_FIRST.contains(&word) || i == 0 {
            return None;
        }
        let mut j = i - 1;
        if matches!(self.lower(j), "й" | "я" | "го") && j > 0 {
            j -= 1;
        }
        if !self.free(j) {
            return None;
        }
        episode::ordinal(self.lower(j)).map(|n| (j, n))
    }

    /// The rest of a season list: `-3`, `& 2`, `.3.4`, `to 5`.
    fn season_list(&mut self, mut j: usize, first: u32) {
        let n = self.n();
        let mut last = first;
        while j < n && self.free(j) {
            let sep = self.toks[j].sep.clone();
            let l = self.lower(j).to_owned();
            if (l == "to" || l == "a") && j + 1 < n {
                if let Some(b) = self.toks[j + 1].number().filter(|b| *b > last && *b < 100) {
                    self.add_seasons(&(last..=b).collect::<Vec<_>>());
                    self.claim[j] = Claim::Episode;
                    self.claim[j + 1] = Claim::Episode;
                    last = b;
                    j += 2;
                    continue;
                }
                break;
            }
            let Some(b) = self.toks[j]
                .number()
                .filter(|b| *b < 100 && self.toks[j].lower.len() <= 2)
            else {
                break;
            };
            if sep.contains('-') && b > last {
                self.add_seasons(&(last..=b).collect::<Vec<_>>());
            } else if sep.contains('&') || sep == "." || sep == " " && b > last {
                // `Season.1.3.4`: a list only when more follow or it grows.
                if sep == "." && b <= last {
                    break;
                }
                self.add_seasons(&[b]);
            } else {
                break;
            }
            self.claim[j] = Claim::Episode;
            last = b;
            j += 1;
        }
    }

    /// `Ep 5`, `Episode 366v2`, `Cap.102_104`, `Folge 5`, `5.серия`.
    fn episode_words(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let l = self.lower(i).to_owned();
            if !EPISODE_WORDS.contains(&l.as_str()) {
                continue;
            }
            let before = self.number_before(i, &l);
            let had_markers = !self.out.episode.is_empty();
            let next = (i + 1 < n && self.free(i + 1))
                .then(|| {
                    let t = self.lower(i + 1);
                    episode::ordinal(t).or_else(|| episode::versioned(t))
                })
                .flatten();
            if had_markers && next.is_some() {
                // `S02E31 - Episode 55`: an absolute number beside the marker.
                self.claim[i] = Claim::Noise;
                self.claim[i + 1] = Claim::Noise;
                continue;
            }
            if let Some(e) = next {
                self.claim[i] = Claim::Episode;
                self.claim[i + 1] = Claim::Episode;
                self.out.episodic = true;
                let mut j = i + 2;
                if l == "cap" && self.toks[i + 1].lower.len() >= 3 {
                    self.add_seasons(&[e / 100]);
                    let first = e % 100;
                    self.add_episodes(&[first]);
                    if j < n
                        && self.toks[j].sep.contains('_')
                        && let Some(b) = self.toks[j].number()
                    {
                        let b = b % 100;
                        if b > first {
                            self.add_episodes(&(first..=b).collect::<Vec<_>>());
                        }
                        self.claim[j] = Claim::Episode;
                    }
                } else {
                    self.add_episodes(&[e]);
                    if j < n && self.lower(j).starts_with('v') && self.lower(j).len() <= 3 {
                        self.claim[j] = Claim::Noise;
                        j += 1;
                    }
                    // `5 de 12`, `5 of 12`
                    if j + 1 < n
                        && matches!(
                            self.lower(j),
                            "de" | "of" | "di" | "von" | "van" | "din" | "из"
                        )
                        && self.toks[j + 1].is_digits()
                    {
                        self.claim[j] = Claim::Episode;
                        self.claim[j + 1] = Claim::Episode;
                    } else if j < n
                        && self.toks[j].sep.contains('-')
                        && let Some(b) = self.toks[j].number()
                        && b > e
                        && b - e < 100
                    {
                        self.add_episodes(&(e..=b).collect::<Vec<_>>());
                        self.claim[j] = Claim::Episode;
                    }
                }
            } else if let Some((j, e)) = before {
                for k in j..=i {
                    self.claim[k] = Claim::Episode;
                }
                self.out.episodic = true;
                self.add_episodes(&[e]);
                if i + 2 < n && self.lower(i + 1) == "из" && self.toks[i + 2].is_digits() {
                    self.claim[i + 1] = Claim::Episode;
                    self.claim[i + 2] = Claim::Episode;
                }
            } else if l == "episode" && self.out.episode.is_empty() {
                self.claim[i] = Claim::Episode;
            }
        }
    }

    /// `14 of 21`, `1of4`, `3of9` (an episode of a count), and `2of5` after a season word.
    fn of_counts(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let l = self.lower(i).to_owned();
            if let Some((a, b)) = l.split_once("of")
                && let (Ok(a), true) = (
                    a.parse::<u32>(),
                    b.bytes().all(|c| c.is_ascii_digit()) && !b.is_empty(),
                )
            {
                self.claim[i] = Claim::Episode;
                if i > 0 && self.claim[i - 1] == Claim::Episode && self.out.season.is_empty() {
                    self.add_seasons(&[a]);
                } else {
                    self.add_episodes(&[a]);
                }
                self.out.episodic = true;
                continue;
            }
            if matches!(l.as_str(), "of" | "de" | "di" | "von" | "van" | "din")
                && i > 0
                && i + 1 < n
                && self.free(i - 1)
                && self.free(i + 1)
                && self.toks[i - 1].lower.len() <= 2
                && self.toks[i + 1].lower.len() <= 2
                && let (Some(a), Some(b)) = (self.toks[i - 1].number(), self.toks[i + 1].number())
                && a <= b
                && a > 0
            {
                self.claim[i - 1] = Claim::Episode;
                self.claim[i] = Claim::Episode;
                self.claim[i + 1] = Claim::Episode;
                if self.out.episode.is_empty() {
                    self.add_episodes(&[a]);
                }
                self.out.episodic = true;
            }
        }
    }

    fn cjk(&mut self) {
        if self.text.is_ascii() {
            return;
        }
        let n = self.n();
        for i in 0..n {
            let (s, e) = episode::cjk(self.raw(i));
            if s.is_some() || e.is_some() {
                self.claim[i] = Claim::Episode;
                self.out.episodic = true;
                if let Some(s) = s {
                    self.add_seasons(&[s]);
                }
                if let Some(e) = e {
                    self.add_episodes(&[e]);
                }
            }
        }
    }

    /// `2014.10.31`, `2016-07-08`, `03-29-2012`, `20021107`.
    fn dates(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let t = &self.toks[i];
            if t.lower.len() == 8
                && t.is_digits()
                && let Some(d) = date(&t.lower[..4], &t.lower[4..6], &t.lower[6..])
            {
                self.claim[i] = Claim::Date;
                self.out.date.get_or_insert(d);
                continue;
            }
            if i + 2 >= n
                || !(i..i + 3).all(|j| {
                    self.free(j)
                        && self.toks[j].is_digits()
                        && self.toks[j].group == self.toks[i].group
                })
                || self.toks[i + 1].sep != self.toks[i + 2].sep
                || self.toks[i + 1].sep.chars().count() != 1
            {
                continue;
            }
            let (a, b, c) = (self.lower(i), self.lower(i + 1), self.lower(i + 2));
            let found = match (a.len(), b.len(), c.len()) {
                (4, 1 | 2, 1 | 2) => date(a, b, c),
                (1 | 2, 1 | 2, 4) => {
                    // Day first, unless the second number cannot be a month.
                    if b.parse::<u32>().unwrap_or(0) > 12 {
                        date(c, a, b)
                    } else {
                        date(c, b, a)
                    }
                }
                _ => None,
            };
            if let Some(d) = found {
                for j in i..i + 3 {
                    self.claim[j] = Claim::Date;
                }
                self.out.date.get_or_insert(d);
            }
        }
    }

    /// Language names anywhere; two-letter codes in brackets, in capitals or beside a
    /// subtitle word; subtitles where a subtitle word stands beside.
    fn languages(&mut self) {
        let n = self.n();
        for i in 0..n {
            if !self.free(i) && !matches!(self.claim[i], Claim::Known(_)) {
                continue;
            }
            let l = self.lower(i).to_owned();
            // VOSTFR, SUBFRENCH, NLsubs, HebSubs, SWESUB
            let sub = l
                .strip_prefix("vost")
                .or_else(|| l.strip_prefix("subforced"))
                .or_else(|| l.strip_prefix("sub"))
                .filter(|r| !r.is_empty())
                .or_else(|| {
                    l.strip_suffix("subs")
                        .or_else(|| l.strip_suffix("sub"))
                        .filter(|r| !r.is_empty())
                })
                .and_then(|r| language::code(r, true));
            if let Some(c) = sub {
                self.claim[i] = Claim::Subtitle(c);
                continue;
            }
            if l == "pt" && i + 1 < n && self.lower(i + 1) == "br" && self.toks[i + 1].sep == "-" {
                let c = if self.near_sub(i) || self.near_sub(i + 1) {
                    Claim::Subtitle("pt-BR")
                } else {
                    Claim::Language("pt-BR")
                };
                self.claim[i] = c;
                self.claim[i + 1] = c;
                continue;
            }
            if !self.free(i) {
                continue;
            }
            let raw = self.raw(i);
            let capitals = raw.len() >= 2 && raw.chars().all(|c| c.is_ascii_uppercase());
            let short_ok = self.toks[i].group != 0 || capitals || self.near_sub(i);
            let Some(c) = language::code(&l, short_ok) else {
                continue;
            };
            // A three-letter code in lowercase inside a title is a word: only beside others.
            if l.len() <= 3 && !short_ok && i == 0 {
                continue;
            }
            self.claim[i] = if self.near_sub(i) && !matches!(l.as_str(), "dublado") {
                Claim::Subtitle(c)
            } else {
                Claim::Language(c)
            };
        }
        for i in 0..n {
            let l = self.lower(i);
            if self.free(i) && (SUB_WORDS.contains(&l) || DUB_WORDS.contains(&l)) && i > 0 {
                let beside = [i.checked_sub(1), Some(i + 1)]
                    .into_iter()
                    .flatten()
                    .any(|j| {
                        matches!(
                            self.claim.get(j),
                            Some(Claim::Language(_) | Claim::Subtitle(_))
                        )
                    });
                if beside
                    || SUB_WORDS.contains(&l) && l.len() > 3
                    || DUB_WORDS.contains(&l) && l != "audio"
                {
                    self.claim[i] = Claim::Noise;
                }
            }
            if self.lower(i) == "legendado" && self.claim[i] == Claim::Noise {
                // Legendado alone: Brazilian subtitles.
                let any = self.claim.iter().any(|c| matches!(c, Claim::Subtitle(_)));
                if !any {
                    self.claim[i] = Claim::Subtitle("pt-BR");
                }
            }
        }
    }

    /// Whether a subtitle word stands beside token `i` (or two before, `Sub Ita Eng`).
    fn near_sub(&self, i: usize) -> bool {
        let is_sub = |j: usize| SUB_WORDS.contains(&self.lower(j)) && j < self.n();
        let before = (1..=2).any(|d| {
            i.checked_sub(d).is_some_and(|j| {
                is_sub(j) && (j + 1..i).all(|k| language::code(self.lower(k), true).is_some())
            })
        });
        before
            || (i + 1 < self.n()
                && is_sub(i + 1)
                && self.lower(i + 1) != "st"
                && !self.toks[i + 1].part_break())
            || (i + 2 < self.n() && matches!(self.lower(i + 1), "soft" | "custom") && is_sub(i + 2))
    }

    /// `US`, `UK`, `AU` in capitals: a country, not part of the title.
    fn countries(&mut self) {
        for i in 1..self.n() {
            if self.free(i) && matches!(self.raw(i), "US" | "UK" | "AU" | "NZ" | "GB") {
                self.claim[i] = Claim::Country;
            }
        }
    }

    fn year_at(&self, i: usize) -> Option<u32> {
        let t = &self.toks[i];
        if t.lower.len() != 4 || !self.free(i) {
            return None;
        }
        t.number().filter(|y| (1900..=2039).contains(y))
    }

    /// Title, year, bare episode numbers, episode title and release group.
    fn layout(&mut self) {
        let n = self.n();
        if n == 0 {
            return;
        }
        let mut start = 0;
        let mut leading_group = None;
        // Leading bracket groups: sites and tags skipped, the first free one a release group.
        while start < n && self.toks[start].group != 0 {
            let g = self.toks[start].group;
            let end = (start..n).find(|&j| self.toks[j].group != g).unwrap_or(n);
            if end == n {
                break;
            }
            // Free words, and words a group's name may hold (`Fansub`, `Subs`).
            let all_free = (start..end).any(|j| self.free(j))
                && (start..end).all(|j| {
                    self.free(j)
                        || matches!(self.claim[j], Claim::Known(_)) && self.claim[j].weak()
                        || SUB_WORDS.contains(&self.lower(j))
                });
            if all_free && leading_group.is_none() {
                leading_group = Some((start, end));
                for j in start..end {
                    self.claim[j] = Claim::Noise;
                }
            } else if all_free {
                break;
            }
            start = end;
        }
        let crc = self
            .claim
            .iter()
            .zip(&self.toks)
            .any(|(c, t)| *c == Claim::Noise && t.group != 0 && t.lower.len() == 8);
        let anime = leading_group.is_some()
            || crc
            || self.toks.iter().any(|t| {
                t.lower.starts_with("vostfr")
                    || t.lower == "fansub"
                    || t.lower.split_once('x').is_some_and(|(w, h)| {
                        w.len() >= 3
                            && h.len() >= 3
                            && (w.to_owned() + h).bytes().all(|b| b.is_ascii_digit())
                    })
            });
        if leading_group.is_some() && crc {
            self.out.episodic = true;
        }
        if let Some(f) = self.film_at {
            start = start.max(f + 1);
        }
        // A file named by its episode number alone.
        if n == 1
            && self.free(0)
            && self.toks[0].lower.len() <= 3
            && let Some(e) = self.toks[0].number()
        {
            self.claim[0] = Claim::Episode;
            self.add_episodes(&[e]);
            self.out.episodic = true;
            return;
        }
        // The leading weak word is a title word (`Proof`, `The English`).
        let no_markers = self.out.season.is_empty() && self.out.episode.is_empty();
        // A leading episode number: `003. Show`, `03-Show`, `01 - Name`.
        let later_year = (start + 1..n).any(|k| self.year_at(k).is_some());
        if no_markers
            && !later_year
            && start + 1 < n
            && self.free(start)
            && self.toks[start].lower.len() <= 3
            && let Some(e) = self.toks[start].number()
        {
            let mut j = start + 1;
            let mut eps = vec![e];
            if self.toks[j].sep == "-"
                && let Some(b) = self.toks[j].number().filter(|b| *b > e && b - e < 100)
            {
                eps = (e..=b).collect();
                self.claim[j] = Claim::Episode;
                j += 1;
            }
            let sep = &self.toks[j].sep;
            let spaced = sep == " " && leading_group.is_some();
            if j < n
                && (sep.contains('-') || sep.starts_with('.') || spaced)
                && self.free(j)
                && !self.toks[j].is_digits()
            {
                self.claim[start] = Claim::Episode;
                self.add_episodes(&eps);
                self.out.episodic = true;
                self.out.title_after_marker = true;
                start = j;
            }
        }
        // The title run.
        let mut title_after_marker = false;
        if start < n && !self.free(start) && self.claim[start] != Claim::Year {
            // After a leading marker: the next free run.
            let Some(next) = (start..n).find(|&j| self.free(j) && self.toks[j].group == 0) else {
                self.group_and_episode_title(leading_group, None);
                return;
            };
            title_after_marker = (start..next).any(|j| self.claim[j] == Claim::Episode);
            start = next;
        }
        let group = self.toks[start].group;
        let mut end = start;
        loop {
            while end < n
                && (self.free(end) || end == start && self.claim[end].weak())
                && self.toks[end].group == group
                && (end == start || !self.toks[end].part_break())
            {
                end += 1;
            }
            // A weak word after a stopword, or a title of one stopword: still title.
            let then_year = end + 1 < n && self.year_at(end + 1).is_some();
            if end < n
                && end > start
                && (matches!(self.claim[end], Claim::Language(_) | Claim::Country)
                    || (self.claim[end].weak() && then_year))
                && self.toks[end].group == group
                && !self.toks[end].part_break()
            {
                let last = self.lower(end - 1);
                if STOPWORDS.contains(&last) {
                    self.claim[end] = Claim::Free;
                    continue;
                }
            }
            break;
        }
        // The year ends the title; a later one is the year of something else.
        let mut title_end = end;
        let mut year_idx = None;
        for k in start + 1..end {
            if self.year_at(k).is_some() {
                if k + 1 < end && self.year_at(k + 1).is_some() {
                    continue;
                }
                year_idx = Some(k);
                title_end = k;
                break;
            }
        }
        if year_idx.is_none() {
            // A year in brackets or after the markers.
            year_idx = (end..n).find(|&k| self.year_at(k).is_some() && k > start);
            if year_idx.is_none() && start + 1 == end && self.year_at(start).is_some() && end < n {
                // Only a year before the markers: it is the title (`1983.S01E01`, `2012.720p`).
            }
        }
        if let Some(k) = year_idx {
            self.out.year = self.year_at(k);
            self.claim[k] = Claim::Year;
        }
        // `Show 313-315 s16e03-05`: absolute numbers before the marker are not title.
        if year_idx.is_none_or(|y| y >= title_end)
            && title_end < n
            && self.claim[title_end] == Claim::Episode
        {
            while title_end > start + 1
                && self.toks[title_end - 1].is_digits()
                && self.toks[title_end - 1].lower.len() >= 3
            {
                title_end -= 1;
            }
        }
        if title_end < n
            && title_end > start + 1
            && self.claim[title_end].weak()
            && self.lower(title_end - 1) == "the"
        {
            title_end -= 1;
        }
        // Bare episode numbers, when no marker said one.
        if self.out.season.is_empty() && self.out.episode.is_empty() {
            self.bare_episode(start, &mut title_end, end, year_idx, anime);
        }
        if title_end > start {
            let title = self.render(start, title_end);
            if !title.is_empty() {
                self.out.title = Some(title);
                self.out.title_after_marker |= title_after_marker;
            }
        }
        for j in start..title_end {
            if self.claim[j] == Claim::Free {
                self.claim[j] = Claim::Noise;
            }
        }
        self.group_and_episode_title(leading_group, Some(title_end));
    }

    /// The number a name writes alone for its episode: `Show - 05`, `Show.Name.10.720p`,
    /// `the.100.109` (season 1, episode 9), `Show 13-16`.
    fn bare_episode(
        &mut self,
        start: usize,
        title_end: &mut usize,
        end: usize,
        year_idx: Option<usize>,
        anime: bool,
    ) {
        let n = self.n();
        // Candidates: numbers in the title run after its first word, and right after a break
        // or the year.
        let mut limit = end;
        let lone_number = |j: usize| {
            let g = self.toks[j].group;
            self.toks[j].is_digits()
                && (j == 0 || self.toks[j - 1].group != g)
                && (j + 1 == n || self.toks[j + 1].group != g)
        };
        while limit < n
            && (self.free(limit) || self.claim[limit] == Claim::Year)
            && (self.toks[limit].group == 0 || lone_number(limit))
        {
            limit += 1;
        }
        let mut pick = None;
        for k in start + 1..limit.min(n) {
            if Some(k) == year_idx || !self.free(k) {
                continue;
            }
            let t = &self.toks[k];
            let num = t
                .number()
                .filter(|_| t.lower.len() <= 4)
                .or_else(|| episode::versioned(&t.lower));
            let Some(num) = num else { continue };
            let continues =
                matches!(t.sep.as_str(), "-" | "&" | " & " | ".&.") && self.toks[k - 1].is_digits();
            if continues {
                continue;
            }
            if t.lower.len() == 4 && !t.lower.starts_with('0') && !anime && !t.part_break() {
                continue;
            }
            let padded = t.lower.starts_with('0');
            let after_year = year_idx.is_some_and(|y| y + 1 == k);
            let next_is_year =
                k + 1 < n && self.year_at(k + 1).is_some() && self.toks[k + 1].group == 0;
            let episode_like = t.part_break()
                || padded
                || after_year
                || num >= 10
                || anime
                || episode::versioned(&t.lower).is_some();
            if !episode_like || next_is_year {
                continue;
            }
            pick = Some(k);
            if k >= end {
                break;
            }
        }
        let Some(k) = pick else { return };
        let t = &self.toks[k];
        let num = t
            .number()
            .or_else(|| episode::versioned(&t.lower))
            .unwrap_or(0);
        let mut eps = vec![num];
        let mut last = k;
        // 13-16, 493-498 & 500-507
        let mut j = k + 1;
        while j < n && self.free(j) {
            let sep = &self.toks[j].sep;
            let Some(b) = self.toks[j].number() else {
                break;
            };
            let a = *eps.last().unwrap_or(&num);
            if sep.contains('-') && b > a && b - a < 100 {
                eps.extend(a + 1..=b);
            } else if sep.contains('&') && b > a {
                eps.push(b);
            } else {
                break;
            }
            last = j;
            j += 1;
        }
        let digits = t.lower.trim_start_matches('0').len();
        let split = eps.len() == 1
            && !anime
            && (t.lower.len() == 3 && digits == 3
                || t.lower.len() == 4 && t.lower.starts_with('0'));
        if split {
            self.add_seasons(&[num / 100]);
            self.add_episodes(&[num % 100]);
        } else {
            self.add_episodes(&eps);
        }
        for c in &mut self.claim[k..=last] {
            *c = Claim::Episode;
        }
        self.out.episodic = true;
        *title_end = (*title_end).min(k);
    }

    /// The release group (after the last dash, or a leading bracket) and the episode title
    /// (the free words after the last episode marker).
    fn group_and_episode_title(
        &mut self,
        leading: Option<(usize, usize)>,
        title_end: Option<usize>,
    ) {
        let n = self.n();
        let mut end = n;
        while end > 0
            && matches!(self.claim[end - 1], Claim::Noise)
            && self.toks[end - 1].group != 0
        {
            end -= 1;
        }
        // `-sample`, `-Obfuscated`, `-xpost` after the group; a language tag after it (`.eng`).
        while end > 1
            && ((self.toks[end - 1].dash_before()
                && matches!(self.claim[end - 1], Claim::Known(s) if s.iter().all(|(p, _)| *p == Prop::Other)))
                || (end == n
                    && matches!(self.claim[end - 1], Claim::Language(_) | Claim::Subtitle(_))))
        {
            end -= 1;
        }
        let last_claimed = (0..end).rev().find(|&j| self.claim[j] != Claim::Free);
        let mut group = None;
        let group_dash = |t: &Token| {
            t.sep
                .strip_prefix('-')
                .or_else(|| t.sep.strip_prefix(".-"))
                .is_some_and(|rest| rest.chars().all(|c| matches!(c, '[' | '(')))
        };
        if let Some(c) = last_claimed
            && c + 1 < end
            && group_dash(&self.toks[c + 1])
            && title_end.is_some_and(|t| c + 1 > t)
            && self.claim[c] != Claim::Noise
        {
            group = Some((c + 1, end));
        }
        // One or two free words after the last strong word, without a dash: `x264.YIFY`,
        // `XViD.Etc-Group`, `AC3 TiTAN`.
        if group.is_none()
            && let Some(c) = last_claimed
            && c + 1 < end
            && end - (c + 1) <= 2
            && title_end.is_some_and(|t| c + 1 > t)
            && (0..=c).rev().take(4).any(|j| {
                matches!(self.claim[j], Claim::Known(s) if s.is_empty() || s.iter().any(|(p, _)| p.strong()))
            })
            && (c + 1..end).all(|j| self.toks[j].group == self.toks[c + 1].group)
            && (c + 2..end).all(|j| self.toks[j].sep == "-" || self.toks[j].sep == " ")
        {
            group = Some((c + 1, end));
        }
        if let Some((a, b)) = group {
            // `LOL[ettv]`: a site tag written onto the group belongs to its name.
            let mut stop = self.toks[b - 1].end;
            if b < n && self.toks[b].sep == "[" && b + 1 == n {
                stop = self.text.len();
            }
            let text = &self.text[self.toks[a].start..stop];
            let text = text.trim_start_matches(['[', '(', '-', '.', ' ']);
            let text = if text.ends_with(']') && text.contains('[') {
                text
            } else {
                text.trim_end_matches([']', ')', '-', '.', ' ', '['])
            };
            if !text.is_empty() {
                self.out.release_group = Some(text.to_owned());
            }
            for c in &mut self.claim[a..b] {
                *c = Claim::Noise;
            }
        } else if let Some((a, b)) = leading {
            let text = &self.text[self.toks[a].start..self.toks[b - 1].end];
            self.out.release_group = Some(text.to_owned());
        }
        // Episode title: the free run after the last marker or date, or after the title when
        // the marker came first (`003. Show Name - Ep Name`).
        if self.out.season.is_empty() && self.out.episode.is_empty() && self.out.date.is_none() {
            return;
        }
        let Some(m) = (0..n)
            .rev()
            .find(|&j| matches!(self.claim[j], Claim::Episode | Claim::Date))
        else {
            return;
        };
        let run = |from: usize| {
            let mut to = from;
            while to < n
                && self.free(to)
                && self.toks[to].group == 0
                && (to == from || !self.toks[to].part_break())
            {
                to += 1;
            }
            to
        };
        let mut from = m + 1;
        let mut to = run(from);
        if to == from
            && let Some(t) = title_end
            && t < n
            && t > m
            && self.toks[t].part_break()
        {
            from = t;
            to = run(from);
        }
        if to > from {
            let t = self.render(from, to);
            if !t.is_empty() {
                self.out.episode_title = Some(t);
            }
        }
    }

    /// The words `a..b` as text: dots and underscores as spaces when they separate words,
    /// acronyms (`S.H.I.E.L.D`) kept whole.
    fn render(&self, a: usize, b: usize) -> String {
        let raw = &self.text[self.toks[a].start..self.toks[b - 1].end];
        let dotted = !raw.contains(' ') || raw.contains('_');
        let mut out = String::with_capacity(raw.len());
        let chars: Vec<char> = raw.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let acronym = c == '.'
                && i >= 1
                && chars[i - 1].is_alphabetic()
                && (i < 2 || !chars[i - 2].is_alphanumeric())
                && chars.get(i + 1).is_some_and(|n| n.is_alphabetic())
                && chars.get(i + 2).is_none_or(|n| !n.is_alphanumeric());
            if (c == '.' && dotted && !acronym) || c == '_' {
                out.push(' ');
            } else {
                out.push(c);
            }
        }
        let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
        out.trim_matches(|c: char| matches!(c, '-' | ',' | ' ' | '(' | '[' | '.'))
            .to_owned()
    }

    /// Gathers the claimed properties.
    fn collect(&mut self) {
        let mut last: Option<Says> = None;
        for (i, c) in self.claim.iter().enumerate() {
            match *c {
                Claim::Known(says) => {
                    if last.is_some_and(|l| std::ptr::eq(l, says))
                        && i > 0
                        && self.claim[i - 1] == *c
                    {
                        continue;
                    }
                    last = Some(says);
                    for &(p, v) in says {
                        if p.strong() {
                            self.out.strength += 1;
                        }
                        if v == "Proper" {
                            self.out.proper_count += 1;
                        }
                        if !self.out.props.contains(&(p, v)) {
                            self.out.props.push((p, v));
                        }
                    }
                }
                Claim::Language(l) if !self.out.language.contains(&l) => self.out.language.push(l),
                Claim::Subtitle(l) if !self.out.subtitle_language.contains(&l) => {
                    self.out.subtitle_language.push(l)
                }
                Claim::Episode | Claim::Date => self.out.strength += 1,
                _ => {}
            }
            if !matches!(c, Claim::Known(_)) {
                last = None;
            }
        }
    }
}

fn season_number(t: &str) -> Option<u32> {
    if let Some((a, _)) = t.split_once("of") {
        return a.parse().ok();
    }
    episode::ordinal(t).or_else(|| episode::word_number(t))
}

fn standard(w: u32, h: u32) -> String {
    let known = [
        (640, 360),
        (720, 480),
        (1024, 576),
        (1280, 720),
        (1920, 1080),
        (2560, 1440),
        (3840, 2160),
        (960, 540),
    ];
    if known.contains(&(w, h))
        || [360, 480, 540, 576, 720, 1080, 1440, 2160].contains(&h) && w * 9 == h * 16
    {
        format!("{h}p")
    } else {
        format!("{w}x{h}")
    }
}

fn date(y: &str, m: &str, d: &str) -> Option<String> {
    let (y, m, d): (u32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1920..=2039).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}
