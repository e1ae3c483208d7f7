//! The inverted index of the builtin catalogue: folded tokens of titles and of people's names
//! (directors and cast), each with its postings, plus a sorted vocabulary for prefix lookups.

use std::collections::HashMap;

use super::load::Film;
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

#[derive(Default)]
struct Postings {
    title: Vec<u32>,
    people: Vec<u32>,
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

pub(crate) struct Index {
    terms: HashMap<Box<str>, Postings>,
    /// Every term, sorted, for prefix lookups.
    sorted: Vec<Box<str>>,
    /// Each film's folded title, for exact-title matches.
    pub folded_titles: Vec<Box<str>>,
    /// Each title's words that are not stop words ("the", "of", ...), to favour focused matches.
    pub title_words: Vec<u8>,
    len: usize,
}

impl Index {
    pub fn build(films: &[Film]) -> Index {
        let mut terms: HashMap<Box<str>, Postings> = HashMap::with_capacity(60_000);
        let mut folded_titles = Vec::with_capacity(films.len());
        let mut title_words = Vec::with_capacity(films.len());
        for (i, film) in films.iter().enumerate() {
            let i = i as u32;
            let folded = fold(&film.title);
            for t in folded.split(' ').filter(|t| !t.is_empty()) {
                push_unique(&mut postings(&mut terms, t).title, i);
            }
            let words = folded
                .split(' ')
                .filter(|t| !t.is_empty() && !STOP_WORDS.contains(t))
                .count();
            title_words.push(words.min(255) as u8);
            folded_titles.push(folded.into_boxed_str());
            for name in film.directors.iter().chain(&film.cast) {
                let folded = fold(name);
                for t in folded.split(' ').filter(|t| !t.is_empty()) {
                    push_unique(&mut postings(&mut terms, t).people, i);
                }
            }
        }
        let mut sorted: Vec<Box<str>> = terms.keys().cloned().collect();
        sorted.sort_unstable();
        Index {
            terms,
            sorted,
            folded_titles,
            title_words,
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
        if let Some(p) = self.terms.get(token) {
            p.title.iter().for_each(|&i| hits.title_exact.set(i));
            p.people.iter().for_each(|&i| hits.people.set(i));
        }
        hits.title.or_with(&hits.title_exact);
        if prefix {
            let start = self.sorted.partition_point(|t| &**t < token);
            for term in self.sorted[start..]
                .iter()
                .take_while(|t| t.starts_with(token))
            {
                if **term == *token {
                    continue;
                }
                let p = &self.terms[term];
                p.title.iter().for_each(|&i| hits.title.set(i));
                p.people.iter().for_each(|&i| hits.people.set(i));
            }
        }
        hits
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// The postings of `term`, allocating its key only the first time it is seen.
fn postings<'a>(terms: &'a mut HashMap<Box<str>, Postings>, term: &str) -> &'a mut Postings {
    if !terms.contains_key(term) {
        terms.insert(term.into(), Postings::default());
    }
    terms.get_mut(term).expect("inserted above")
}

/// Words that do not make a title match less focused.
const STOP_WORDS: [&str; 14] = [
    "a", "an", "and", "de", "des", "du", "in", "la", "le", "les", "of", "on", "the", "to",
];

fn push_unique(v: &mut Vec<u32>, i: u32) {
    if v.last() != Some(&i) {
        v.push(i);
    }
}

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
