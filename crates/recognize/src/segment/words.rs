//! Known words, screen sizes, channels, sites, checksums, languages and countries.

use super::{Claim, DUB_WORDS, Reader, SITES, SUB_WORDS, TLDS, WORD_TLDS};
use crate::{
    episode, language,
    tables::{self, Prop, Says},
    tokens::Token,
};

impl Reader<'_> {
    /// Checksums, hashes, sites, sizes, versions and discs.
    pub(super) fn noise(&mut self) {
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
                let decimal =
                    unit && i > 0 && self.toks[i].sep == "." && self.toks[i - 1].is_digits();
                if decimal {
                    self.claim[i - 1] = Claim::Noise;
                }
                let l = self.lower(i).to_owned();
                if hex && self.toks[i].group != 0 && has_digit {
                    self.out.crc32 = Some(self.raw(i).to_owned());
                }
                if version {
                    self.out.version = l[1..].parse().ok();
                }
                if let Some(rest) = l.strip_prefix("cd").filter(|_| cd) {
                    let mut parts = rest.split("of").map(|d| d.parse::<u32>().ok());
                    self.out.cd = parts.next().flatten();
                    self.out.cd_count = parts.next().flatten();
                }
                if unit && ["mb", "gb", "tb"].iter().any(|u| l.ends_with(u)) {
                    let whole = if decimal {
                        format!("{}.{}", self.lower(i - 1), l)
                    } else {
                        l.clone()
                    };
                    self.out.size = Some(whole.to_uppercase());
                }
            }
        }
        // 8-4-4-4-12 hexadecimal: a UUID.
        for i in 0..n.saturating_sub(4) {
            let shape = [8, 4, 4, 4, 12];
            if (0..5).all(|k| {
                let t = &self.toks[i + k];
                t.lower.len() == shape[k]
                    && t.lower.bytes().all(|b| b.is_ascii_hexdigit())
                    && (k == 0 || t.sep == "-")
            }) {
                self.out.uuid =
                    Some(self.text[self.toks[i].start..self.toks[i + 4].end].to_owned());
                for k in 0..5 {
                    self.claim[i + k] = Claim::Noise;
                }
            }
        }
        // Sites: word.tld, www.…, and the known tags.
        let mut site: Vec<usize> = Vec::new();
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
                            site.push(j);
                        }
                    }
                } else {
                    let mut j = i;
                    self.claim[j] = Claim::Noise;
                    site.push(j);
                    while j > 0 && (self.toks[j].sep == "." || self.lower(j - 1) == "www") {
                        j -= 1;
                        self.claim[j] = Claim::Noise;
                        site.push(j);
                        if self.lower(j) == "www" || i - j >= 2 {
                            break;
                        }
                    }
                    if l == "www" {
                        let mut k = i + 1;
                        while k < n && self.toks[k].sep == "." && !TLDS.contains(&self.lower(k)) {
                            self.claim[k] = Claim::Noise;
                            site.push(k);
                            k += 1;
                        }
                        if k < n && TLDS.contains(&self.lower(k)) {
                            self.claim[k] = Claim::Noise;
                            site.push(k);
                        }
                    }
                }
            }
            if SITES.contains(&l.as_str()) && self.toks[i].group != 0 && i + 1 == n && l != "eng" {
                self.claim[i] = Claim::Noise;
            }
        }
        if let (Some(&a), Some(&b)) = (site.iter().min(), site.iter().max()) {
            let text = &self.text[self.toks[a].start..self.toks[b].end];
            self.out.website = Some(text.trim_matches(['.', ' ', '-']).to_owned());
        }
    }

    /// Known words, joining up to three tokens (`WEB-DL`, `DD5.1`, `H.264`).
    pub(super) fn known(&mut self) {
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
    pub(super) fn abbreviations(&mut self) {
        static DC: [(Prop, &str); 1] = [(Prop::Edition, "Director's Cut")];
        static SE: [(Prop, &str); 1] = [(Prop::Edition, "Special")];
        static OM: [(Prop, &str); 1] = [(Prop::Other, "Open Matte")];
        static CONVERT: [(Prop, &str); 1] = [(Prop::Other, "Converted")];
        static FINAL: [(Prop, &str); 1] = [(Prop::EpisodeDetails, "Final")];
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
                "FINAL" | "Final"
                    if self.toks.iter().any(|t| {
                        t.lower == "cap"
                            || episode::marker(&t.lower).is_some_and(|m| !m.episodes.is_empty())
                    }) =>
                {
                    Some(&FINAL)
                }
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
                self.out.part = self.toks[i + 1]
                    .number()
                    .or_else(|| episode::word_number(self.lower(i + 1)));

                continue;
            }
            // PART1
            if let Some(p) = l
                .strip_prefix("part")
                .filter(|d| !d.is_empty() && d.len() <= 2)
                .and_then(|d| d.parse().ok())
            {
                self.claim[i] = Claim::Noise;
                self.out.part = Some(p);
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
    pub(super) fn screen_sizes(&mut self) {
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
    pub(super) fn channels(&mut self) {
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

    /// Language names anywhere; two-letter codes in brackets, in capitals or beside a
    /// subtitle word; subtitles where a subtitle word stands beside.
    pub(super) fn languages(&mut self) {
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
        let any_language = self.claim.iter().any(|c| matches!(c, Claim::Language(_)));
        // `Subbed`, `Subtitles` with no language beside: subtitles of a language not said.
        let any_subtitle = self.claim.iter().any(|c| matches!(c, Claim::Subtitle(_)));
        if !any_subtitle
            && let Some(i) = (1..n).find(|&i| {
                matches!(
                    self.lower(i),
                    "subbed" | "subtitles" | "subs" | "legendado" | "legendas" | "subtitulado"
                ) && matches!(self.claim[i], Claim::Free | Claim::Noise)
            })
        {
            self.claim[i] = Claim::Subtitle("und");
        }
        for i in 1..n {
            // `German.DL`: German and another language (dual language).
            if self.free(i) && self.raw(i) == "DL" && any_language {
                self.claim[i] = Claim::Language("mul");
            }
        }
        for i in 0..n {
            let l = self.lower(i);
            if matches!(l, "dubbed" | "dublado")
                && !any_language
                && matches!(self.claim[i], Claim::Free | Claim::Language(_))
            {
                self.claim[i] = Claim::Language("und");
                continue;
            }
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
    pub(super) fn near_sub(&self, i: usize) -> bool {
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
    pub(super) fn countries(&mut self) {
        for i in 1..self.n() {
            let g = self.toks[i].group;
            let alone_in_brackets = g != 0
                && self.toks.iter().filter(|t| t.group == g).count() == 1
                && matches!(self.lower(i), "us" | "uk");
            if self.free(i) && alone_in_brackets {
                self.claim[i] = Claim::Country;
                self.out.country = Some(if self.lower(i) == "us" { "US" } else { "GB" });
                continue;
            }
            if self.free(i) && matches!(self.raw(i), "US" | "UK" | "AU" | "NZ" | "GB") {
                self.claim[i] = Claim::Country;
                self.out.country = Some(match self.raw(i) {
                    "US" => "US",
                    "AU" => "AU",
                    "NZ" => "NZ",
                    _ => "GB",
                });
            }
        }
    }
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
