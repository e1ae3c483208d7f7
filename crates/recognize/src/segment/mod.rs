//! One part of a path read on its own: its words claimed by the known tables, the episode
//! markers, dates, years, languages, sites and checksums, then the title, episode title and
//! release group taken from what no rule claimed.

mod layout;
mod markers;
mod words;

use crate::{
    tables::{Prop, Says},
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
    pub version: Option<u32>,
    pub cd: Option<u32>,
    pub cd_count: Option<u32>,
    pub part: Option<u32>,
    pub episode_count: Option<u32>,
    pub season_count: Option<u32>,
    /// `4.8GB`, `177MB`: a size written in the name.
    pub size: Option<String>,
    pub uuid: Option<String>,
    pub website: Option<String>,
    pub country: Option<&'static str>,
    pub absolute_episode: Vec<u32>,
    pub alternative_title: Vec<String>,
    /// `[1C98686A]`: the checksum a release wrote in its name.
    pub crc32: Option<String>,
    pub disc: Vec<u32>,
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
    r.absolute();
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

    fn year_at(&self, i: usize) -> Option<u32> {
        let t = &self.toks[i];
        if t.lower.len() != 4 || !self.free(i) {
            return None;
        }
        t.number().filter(|y| (1900..=2039).contains(y))
    }

    /// Gathers the claimed properties.
    fn collect(&mut self) {
        let mut last: Option<Says> = None;
        // Each proper, repack or real is counted (`PROPER.REPACK` is two).
        let propers = self
            .claim
            .iter()
            .zip(&self.toks)
            .filter(|(c, t)| {
                matches!(c, Claim::Known(s) if s.contains(&(Prop::Other, "Proper")))
                    && matches!(t.lower.as_str(), "proper" | "repack" | "rerip")
            })
            .count();
        if propers > 0 {
            // `real` outside the title (whose words are no longer free here).
            let real = self
                .toks
                .iter()
                .zip(&self.claim)
                .filter(|(t, c)| t.lower == "real" && **c == Claim::Free)
                .count();
            self.out.proper_count = (propers + real) as u32;
        }
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
