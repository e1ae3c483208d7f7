//! The inverted index of the builtin catalogue: folded tokens of titles and of people's names
//! (directors and cast), each with its postings, plus a sorted vocabulary for prefix lookups.

use super::{
    films::{Films, List},
    strs::{Interner, Strs},
};
use crate::text::fold;

/// A set of film positions, one bit each: 17,470 films fit in 273 words, so set algebra is cheap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    pub fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }

    pub fn get(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1 << (i % 64)) != 0
    }

    pub fn and_with(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }

    pub fn or_with(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a |= b);
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// Positions of set bits, ascending.
    pub fn ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(wi as u32 * 64 + b)
            })
        })
    }
}

/// Which films one query token hits, and where.
pub(crate) struct TokenHits {
    /// The token is a whole word of the title.
    pub title_exact: Bits,
    /// The token is a whole word of the title, or (for a prefix lookup) starts one.
    pub title: Bits,
    /// The token is, or starts, a word of a director's or cast member's name.
    pub people: Bits,
}

/// Where a posting was found; title postings sort before people postings.
const TITLE: u64 = 0;
const PEOPLE: u64 = 1 << 31;

pub(crate) struct Index {
    /// Every term, sorted, so exact and prefix lookups are binary searches.
    terms: Strs,
    /// Term `t`'s title postings are `postings[starts[2t]..starts[2t + 1]]`, its people postings run on
    /// to `starts[2t + 2]`.
    starts: Box<[u32]>,
    /// Film positions, ascending within each list.
    postings: Box<[u32]>,
    /// Each film's folded title, for exact-title matches.
    pub folded_titles: Strs,
    /// Each title's words that are not stop words ("the", "of", ...), to favour focused matches.
    pub title_words: Box<[u8]>,
    len: usize,
}

impl Index {
    pub fn build(films: &Films) -> Index {
        let mut vocab = Interner::new();
        // (term << 32 | where | film), sorted below into postings lists.
        let mut found: Vec<u64> = Vec::with_capacity(films.len() * 20);
        let mut folded_titles = Strs::default();
        let mut title_words = Vec::with_capacity(films.len());
        for (i, film) in films.iter().enumerate() {
            let i = i as u64;
            let folded = fold(film.title());
            for t in folded.split(' ').filter(|t| !t.is_empty()) {
                found.push(u64::from(vocab.intern(t)) << 32 | TITLE | i);
            }
            let words = folded
                .split(' ')
                .filter(|t| !t.is_empty() && !STOP_WORDS.contains(t))
                .count();
            title_words.push(words.min(255) as u8);
            folded_titles.push(&folded);
            for name in film.names(List::Directors).chain(film.names(List::Cast)) {
                let folded = fold(name);
                for t in folded.split(' ').filter(|t| !t.is_empty()) {
                    found.push(u64::from(vocab.intern(t)) << 32 | PEOPLE | i);
                }
            }
        }
        // Renumber terms in sorted order, then group postings by term.
        let mut order: Vec<u32> = (0..vocab.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| vocab.get(a).cmp(vocab.get(b)));
        let mut rank = vec![0u32; order.len()];
        let mut terms = Strs::default();
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
            terms.push(vocab.get(id));
        }
        drop((vocab, order));
        terms.shrink_to_fit();
        for p in &mut found {
            *p = u64::from(rank[(*p >> 32) as usize]) << 32 | (*p & 0xffff_ffff);
        }
        drop(rank);
        found.sort_unstable();
        found.dedup();
        let mut starts = vec![0u32; terms.len() * 2 + 1];
        for p in &found {
            starts[((p >> 32) * 2 + (p >> 31 & 1)) as usize + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let postings = found.iter().map(|p| (p & 0x7fff_ffff) as u32).collect();
        drop(found);
        folded_titles.shrink_to_fit();
        Index {
            terms,
            starts: starts.into_boxed_slice(),
            postings,
            folded_titles,
            title_words: title_words.into_boxed_slice(),
            len: films.len(),
        }
    }

    /// Films hit by one folded token; with `prefix`, also by every term starting with it.
    pub fn lookup(&self, token: &str, prefix: bool) -> TokenHits {
        let mut hits = TokenHits {
            title_exact: Bits::new(self.len),
            title: Bits::new(self.len),
            people: Bits::new(self.len),
        };
        let mut t = self.terms.lower_bound(token);
        if (t as usize) < self.terms.len() && self.terms.get(t) == token {
            self.title_postings(t)
                .iter()
                .for_each(|&i| hits.title_exact.set(i));
            self.people_postings(t)
                .iter()
                .for_each(|&i| hits.people.set(i));
            t += 1;
        }
        hits.title.or_with(&hits.title_exact);
        if prefix {
            while (t as usize) < self.terms.len() && self.terms.get(t).starts_with(token) {
                self.title_postings(t)
                    .iter()
                    .for_each(|&i| hits.title.set(i));
                self.people_postings(t)
                    .iter()
                    .for_each(|&i| hits.people.set(i));
                t += 1;
            }
        }
        hits
    }

    /// The id of `token` in the sorted vocabulary, when it is a term.
    pub fn term(&self, token: &str) -> Option<u32> {
        let t = self.terms.lower_bound(token);
        ((t as usize) < self.terms.len() && self.terms.get(t) == token).then_some(t)
    }

    pub fn term_count(&self) -> u32 {
        self.terms.len() as u32
    }

    pub fn term_text(&self, t: u32) -> &str {
        self.terms.get(t)
    }

    /// At least as many postings as films a one-word query of term `t` can match (as the last
    /// query word, it also matches the terms it starts when it has two letters or more; see
    /// `lookup`): an upper bound, cheap enough to ask of every term.
    pub fn reach(&self, t: u32) -> usize {
        let word = self.terms.get(t);
        let postings = |t: u32| {
            let t = t as usize * 2;
            (self.starts[t + 2] - self.starts[t]) as usize
        };
        if word.len() < 2 {
            return postings(t);
        }
        (t..self.terms.len() as u32)
            .take_while(|&u| self.terms.get(u).starts_with(word))
            .map(postings)
            .sum()
    }

    fn title_postings(&self, t: u32) -> &[u32] {
        let t = t as usize * 2;
        &self.postings[self.starts[t] as usize..self.starts[t + 1] as usize]
    }

    fn people_postings(&self, t: u32) -> &[u32] {
        let t = t as usize * 2 + 1;
        &self.postings[self.starts[t] as usize..self.starts[t + 1] as usize]
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// Words that do not make a title match less focused.
const STOP_WORDS: [&str; 14] = [
    "a", "an", "and", "de", "des", "du", "in", "la", "le", "les", "of", "on", "the", "to",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_iterate_in_order() {
        let mut b = Bits::new(200);
        [3, 64, 65, 199].into_iter().for_each(|i| b.set(i));
        assert_eq!(b.ones().collect::<Vec<_>>(), [3, 64, 65, 199]);
        let mut c = Bits::new(200);
        c.set(64);
        b.and_with(&c);
        assert_eq!(b.ones().collect::<Vec<_>>(), [64]);
        assert!(!b.is_empty() && b.get(64) && !b.get(3));
    }
}
