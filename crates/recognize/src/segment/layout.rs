//! Where the words stand: the title, the year, bare episode numbers, the episode title and the
//! release group, from what no rule claimed.

use super::{Claim, Reader, STOPWORDS, SUB_WORDS};
use crate::{episode, tables::Prop, tokens::Token};

impl Reader<'_> {
    /// Title, year, bare episode numbers, episode title and release group.
    pub(super) fn layout(&mut self) {
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
            let sep = self.toks.get(j).map_or("", |t| t.sep.as_str());
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
        // Nothing left after the leading markers: no title run.
        let Some(group) = self.toks.get(start).map(|t| t.group) else {
            self.group_and_episode_title(leading_group, None);
            return;
        };
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
            // Not a number opening an episode's title (`S07E22 - 2000 Light Years`).
            year_idx = (end..n).find(|&k| {
                self.year_at(k).is_some()
                    && k > start
                    && !(self.toks[k].part_break() && k + 1 < n && self.free(k + 1))
            });
            if year_idx.is_none() && start + 1 == end && self.year_at(start).is_some() && end < n {
                // Only a year before the markers: it is the title (`1983.S01E01`, `2012.720p`).
            }
        }
        if let Some(k) = year_idx {
            self.out.year = self.year_at(k);
            self.claim[k] = Claim::Year;
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
        // `Show - Other Name - 02`: other names, each after a dash, before anything known.
        let marker_first = (0..start).any(|j| self.claim[j] == Claim::Episode);
        let mut j = title_end;
        while !marker_first
            && title_end > start
            && j < n
            && self.free(j)
            && self.toks[j].part_break()
            && self.toks[j].group == 0
        {
            let mut to = j + 1;
            while to < n && self.free(to) && self.toks[to].group == 0 && !self.toks[to].part_break()
            {
                to += 1;
            }
            let stops_at_known = to == n || !self.free(to) || self.toks[to].group != 0;
            if to == n && self.out.season.is_empty() && self.out.episode.is_empty() {
                break;
            }
            let alt = self.render(j, to);
            if !alt.is_empty() {
                self.out.alternative_title.push(alt);
            }
            for c in &mut self.claim[j..to] {
                *c = Claim::Noise;
            }
            if stops_at_known {
                break;
            }
            j = to;
        }
        self.group_and_episode_title(leading_group, Some(title_end));
    }

    /// The number a name writes alone for its episode: `Show - 05`, `Show.Name.10.720p`,
    /// `the.100.109` (season 1, episode 9), `Show 13-16`.
    pub(super) fn bare_episode(
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
        if let Some(v) = t.lower.split_once('v').and_then(|(_, v)| v.parse().ok()) {
            self.out.version = Some(v);
        }
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
    pub(super) fn group_and_episode_title(
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
        // `-NL`, `-AR`: a group named like a language code, last after a dash; `x264-UHDTV`:
        // one named like a source, straight after the codec.
        if end > 1
            && self.toks[end - 1].sep == "-"
            && ((matches!(self.claim[end - 1], Claim::Language(_))
                && self.toks[end - 1].lower.len() == 2
                && self.claim[end - 2] != Claim::Free)
                || (matches!(self.claim[end - 1], Claim::Known(s) if s.iter().any(|(p, _)| *p == Prop::Source))
                    && matches!(self.claim[end - 2], Claim::Known(s) if s.iter().any(|(p, _)| *p == Prop::VideoCodec))))
        {
            self.claim[end - 1] = Claim::Free;
        }
        // `-sample`, `-Obfuscated`, `-xpost` after the group; a language tag after it (`.eng`).
        while end > 1
            && (((self.toks[end - 1].dash_before()
                || (self.toks[end - 1].sep == "."
                    && matches!(
                        self.lower(end - 1),
                        "sample" | "proof" | "obfuscated" | "xpost"
                    )))
                && matches!(self.claim[end - 1], Claim::Known(s) if !s.is_empty() && s.iter().all(|(p, _)| *p == Prop::Other)))
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
            && (self.claim[c] != Claim::Noise || self.toks[c].group == 0)
            && self.claim[c] != Claim::Episode
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
            let text = text
                .strip_prefix("by ")
                .or_else(|| text.strip_prefix("By "))
                .unwrap_or(text);
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
        } else if let Some(by) = (0..end).rev().find(|&j| {
            matches!(self.lower(j), "by" | "par")
                && self.free(j)
                && j + 1 < end
                && end - j <= 3
                && (0..j).any(|k| matches!(self.claim[k], Claim::Known(s) if s.iter().any(|(p, _)| p.strong())))
                && (j + 1..end).all(|k| self.free(k))
        }) {
            // `DLMux by UBi`, `DVDrip.Spanish.DivX.by.Artik[SEDG]`
            let stop = if end < n && self.toks[end].sep.ends_with('[') && end + 1 == n {
                self.text.len()
            } else {
                self.toks[end - 1].end
            };
            let text = &self.text[self.toks[by + 1].start..stop];
            self.out.release_group = Some(text.trim_end_matches(['.', ' ']).to_owned());
            for c in &mut self.claim[by..end] {
                *c = Claim::Noise;
            }
        } else if let Some((a, b)) = leading {
            let text = &self.text[self.toks[a].start..self.toks[b - 1].end];
            self.out.release_group = Some(text.to_owned());
        } else if let Some(j) = (0..n).find(|&j| {
            let g = self.toks[j].group;
            g != 0
                && self.toks[j].lower.ends_with("subs")
                && self.toks[j].lower.len() > 4
                && (0..n).filter(|&k| self.toks[k].group == g).count() == 1
        }) {
            // `[HorribleSubs]` elsewhere than first.
            self.out.release_group = Some(self.raw(j).to_owned());
        }
        // Episode title: the free run after the last marker or date, or after the title when
        // the marker came first (`003. Show Name - Ep Name`).
        if self.out.season.is_empty() && self.out.episode.is_empty() && self.out.date.is_none() {
            return;
        }
        let last_of = |claim: Claim| (0..n).rev().find(|&j| self.claim[j] == claim);
        let (Some(m), other) = (
            last_of(Claim::Episode).or(last_of(Claim::Date)),
            last_of(Claim::Date),
        ) else {
            return;
        };
        let run = |from: usize| {
            let mut to = from;
            let details = |j: usize| matches!(self.claim[j], Claim::Known(s) if !s.is_empty() && s.iter().all(|(p, _)| *p == Prop::EpisodeDetails));
            while to < n
                && (self.free(to) || details(to))
                && self.toks[to].group == 0
                && (to == from || !self.toks[to].part_break())
            {
                to += 1;
            }
            to
        };
        let mut from = m + 1;
        // `S00E01.REPACK.Grant.OBrien`: tags between the marker and the title.
        let mut skip = from;
        while skip < n
            && matches!(self.claim[skip], Claim::Known(s) if !s.is_empty() && s.iter().all(|(p, _)| *p == Prop::Other))
        {
            skip += 1;
        }
        // Only when words follow the tags, before anything strong.
        if skip > from && run(skip) > skip + 1 {
            from = skip;
        }
        let mut to = run(from);
        if to == from
            && let Some(d) = other.filter(|d| *d > m)
        {
            from = d + 1;
            to = run(from);
        }
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
    pub(super) fn render(&self, a: usize, b: usize) -> String {
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
}
