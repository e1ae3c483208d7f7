//! Season and episode markers, season and episode words in many languages, counts (`5 of 12`),
//! CJK markers and dates.

use super::{Claim, Reader};
use crate::episode::{self, EPISODE_WORDS, NUMBER_FIRST, SEASON_WORDS};

impl Reader<'_> {
    /// `S01E02`, `1x02`, `E05` and what continues them: `-03`, `E03`, `+04`, `& S01E05`.
    pub(super) fn markers(&mut self) {
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
            // S07D1-3&5: discs of the season.
            if let Some(d) = self
                .lower(i)
                .split_once('d')
                .filter(|(s, _)| s.starts_with('s'))
                .and_then(|(_, d)| d.parse::<u32>().ok())
            {
                let mut discs = vec![d];
                let mut j = i + 1;
                while j < n && self.free(j) {
                    let Some(b) = self.toks[j].number() else {
                        break;
                    };
                    let last = discs.last().copied().unwrap_or(d);
                    match self.toks[j].sep.as_str() {
                        "-" if b > last && b - last < 20 => discs.extend(last + 1..=b),
                        "&" | "+" => discs.push(b),
                        _ => break,
                    }
                    self.claim[j] = Claim::Episode;
                    j += 1;
                }
                self.out.disc = discs;
            }
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

    /// Absolute episode numbers written beside a season marker: `s16e03-04 313-314`.
    pub(super) fn absolute(&mut self) {
        if self.out.episode.is_empty() {
            return;
        }
        let n = self.n();
        let mut i = 0;
        while i < n {
            let beside = |j: usize| self.claim.get(j) == Some(&Claim::Episode);
            let t = &self.toks[i];
            let Some(a) = t.number().filter(|_| t.lower.len() >= 3 && self.free(i)) else {
                i += 1;
                continue;
            };
            let mut last = i;
            let mut values = vec![a];
            if i + 1 < n
                && self.free(i + 1)
                && self.toks[i + 1].sep == "-"
                && let Some(b) = self.toks[i + 1].number().filter(|b| *b > a && b - a < 100)
            {
                values = (a..=b).collect();
                last = i + 1;
            }
            let year_like = (1900..2040).contains(&a) && t.lower.len() == 4;
            let range = last > i;
            if !year_like
                && (range || (i > 0 && beside(i - 1)))
                && ((i > 0 && beside(i - 1)) || beside(last + 1))
            {
                for j in i..=last {
                    self.claim[j] = Claim::Noise;
                }
                self.out.absolute_episode = values;
            }
            i = last + 1;
        }
    }

    /// `Season 2`, `Saison VII`, `Seasons 1 & 2`, `Season 1-3`, `2 сезон`, `Temporada1`.
    pub(super) fn season_words(&mut self) {
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
            }) && !(EPISODE_WORDS.contains(&self.lower(i + 2))
                && i + 3 < n
                && self.toks[i + 3].number().is_some());
            let before_first = before.is_some() && (after.is_none() || after_taken);
            if let Some(s) = after.filter(|s| *s < 1900 && !before_first) {
                self.claim[i] = Claim::Episode;
                self.claim[i + 1] = Claim::Episode;
                self.out.episodic = true;
                self.add_seasons(&[s]);
                // 2of5
                if let Some((_, rest)) = self.lower(i + 1).split_once("of") {
                    self.out.season_count = rest.parse().ok();
                }
                // `Temporada 1 de 5`, `Stagione 1 di 5`
                if i + 3 < n
                    && matches!(self.lower(i + 2), "de" | "di" | "of" | "von" | "van" | "из")
                    && let Some(count) = self.toks[i + 3].number()
                {
                    self.out.season_count = Some(count);
                    self.claim[i + 2] = Claim::Episode;
                    self.claim[i + 3] = Claim::Episode;
                }
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
    pub(super) fn number_before(&self, i: usize, word: &str) -> Option<(usize, u32)> {
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
    pub(super) fn season_list(&mut self, mut j: usize, first: u32) {
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
    pub(super) fn episode_words(&mut self) {
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
                // `S02E31 - Episode 55`: words of the episode's title, not another marker.
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
                    if j < n
                        && self.lower(j).len() > 1
                        && self.lower(j).starts_with('v')
                        && self.lower(j)[1..].bytes().all(|b| b.is_ascii_digit())
                    {
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
                        self.out.episode_count = self.toks[j + 1].number();
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
            }
        }
    }

    /// `14 of 21`, `1of4`, `3of9` (an episode of a count), and `2of5` after a season word.
    pub(super) fn of_counts(&mut self) {
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
                let count = b.parse().ok();
                if i > 0 && self.claim[i - 1] == Claim::Episode && self.out.season.is_empty() {
                    self.add_seasons(&[a]);
                    self.out.season_count = count;
                } else {
                    self.add_episodes(&[a]);
                    self.out.episode_count = count;
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
                    self.out.episode_count = Some(b);
                }
                self.out.episodic = true;
            }
        }
    }

    pub(super) fn cjk(&mut self) {
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
    pub(super) fn dates(&mut self) {
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
}

fn season_number(t: &str) -> Option<u32> {
    if let Some((a, _)) = t.split_once("of") {
        return a.parse().ok();
    }
    episode::ordinal(t).or_else(|| episode::word_number(t))
}

fn date(y: &str, m: &str, d: &str) -> Option<String> {
    let (y, m, d): (u32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1920..=2039).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}
