//! The inverted index of the builtin catalogue: folded tokens of titles and of people's names
//! (directors and cast), each with its postings, plus a sorted vocabulary for prefix lookups.

use super::{
    films::{Film, Films, List, Pos, pos},
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

    /// How many positions are set.
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
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

/// Folds `film`'s title and its directors' and cast's names into `keys`: each term's vocabulary id
/// `v` as `2v` (a title word) or `2v + 1` (a word of a name), ascending, once each. Returns the
/// folded title.
fn film_keys(film: Film<'_>, vocab: &mut Interner, keys: &mut Vec<u32>) -> String {
    keys.clear();
    let folded = fold(film.title());
    keys.extend(words_of(&folded).map(|t| vocab.intern(t) * 2));
    for name in film.names(List::Directors).chain(film.names(List::Cast)) {
        keys.extend(words_of(&fold(name)).map(|t| vocab.intern(t) * 2 + 1));
    }
    keys.sort_unstable();
    keys.dedup();
    folded
}

fn words_of(folded: &str) -> impl Iterator<Item = &str> {
    folded.split(' ').filter(|t| !t.is_empty())
}

pub(crate) struct Index {
    /// Every term, sorted, so exact and prefix lookups are binary searches.
    terms: Strs,
    /// Term `t`'s title postings are `postings[starts[2t]..starts[2t + 1]]`, its people postings run on
    /// to `starts[2t + 2]`.
    starts: Box<[u32]>,
    /// Film positions, ascending within each list.
    postings: Box<[Pos]>,
    /// Each film's folded title, for exact-title matches.
    pub folded_titles: Strs,
    /// Each title's words that are not stop words ("the", "of", ...), to favour focused matches.
    pub title_words: Box<[u8]>,
    len: usize,
}

impl Index {
    /// Built in two passes over the films, folding each title and name twice instead of holding
    /// every (term, film) pair: the first learns the vocabulary and counts each list's postings,
    /// the second writes every posting straight into its place.
    pub fn build(films: &Films) -> Index {
        let title_bytes: usize = films.iter().map(|f| f.title().len()).sum();
        // The shipped data has two terms per film, 6.5 bytes long on average.
        let mut vocab = Interner::with_capacity(films.len() * 3, films.len() * 14);
        let mut folded_titles = Strs::with_capacity(films.len(), title_bytes);
        let mut title_words = Vec::with_capacity(films.len());
        // Per vocabulary id `v`: postings of `2v` (title) and `2v + 1` (people).
        let mut counts: Vec<u32> = Vec::with_capacity(films.len() * 4);
        let mut keys = Vec::new();
        for film in films.iter() {
            let folded = film_keys(film, &mut vocab, &mut keys);
            counts.resize(vocab.len() * 2, 0);
            keys.iter().for_each(|&k| counts[k as usize] += 1);
            let words = words_of(&folded)
                .filter(|t| !STOP_WORDS.contains(t))
                .count();
            title_words.push(words.min(255) as u8);
            folded_titles.push(&folded);
        }
        // Number terms in sorted order; `starts` first holds where each list begins.
        let mut order: Vec<u32> = (0..vocab.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| vocab.get(a).cmp(vocab.get(b)));
        let term_bytes = (0..vocab.len() as u32).map(|v| vocab.get(v).len()).sum();
        let mut terms = Strs::with_capacity(vocab.len(), term_bytes);
        let mut starts = vec![0u32; vocab.len() * 2 + 1];
        let mut next = 0;
        for (t, &v) in order.iter().enumerate() {
            terms.push(vocab.get(v));
            for w in 0..2 {
                starts[t * 2 + w] = next;
                next += counts[v as usize * 2 + w];
            }
        }
        starts[vocab.len() * 2] = next;
        drop(counts);
        let mut rank = vec![0u32; order.len()];
        for (t, &v) in order.iter().enumerate() {
            rank[v as usize] = t as u32;
        }
        drop(order);
        // Second pass: each posting goes to its list's next free place (`starts` counts up).
        let mut postings = vec![0; next as usize].into_boxed_slice();
        for (i, film) in films.iter().enumerate() {
            film_keys(film, &mut vocab, &mut keys);
            for &k in &keys {
                let at = &mut starts[(rank[(k / 2) as usize] * 2 + k % 2) as usize];
                postings[*at as usize] = pos(i as u32);
                *at += 1;
            }
        }
        drop((vocab, rank));
        // Each list's free place is now where the next one begins: shift them back to starts.
        let last = starts.len() - 1;
        starts.copy_within(..last, 1);
        starts[0] = 0;
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
                .for_each(|&i| hits.title_exact.set(i.into()));
            self.people_postings(t)
                .iter()
                .for_each(|&i| hits.people.set(i.into()));
            t += 1;
        }
        hits.title.or_with(&hits.title_exact);
        if prefix {
            while (t as usize) < self.terms.len() && self.terms.get(t).starts_with(token) {
                self.title_postings(t)
                    .iter()
                    .for_each(|&i| hits.title.set(i.into()));
                self.people_postings(t)
                    .iter()
                    .for_each(|&i| hits.people.set(i.into()));
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

    fn title_postings(&self, t: u32) -> &[Pos] {
        let t = t as usize * 2;
        &self.postings[self.starts[t] as usize..self.starts[t + 1] as usize]
    }

    fn people_postings(&self, t: u32) -> &[Pos] {
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
    use std::collections::BTreeMap;

    use super::*;
    use crate::builtin::Builtin;

    #[test]
    fn postings_equal_a_plain_index_of_the_shipped_data() {
        let b = Builtin::shared().expect("the shipped data loads");
        // term -> (title films, people films), each ascending and once.
        let mut plain: BTreeMap<String, (Vec<Pos>, Vec<Pos>)> = BTreeMap::new();
        for (i, film) in b.films.iter().enumerate() {
            let i = i as Pos;
            let people = film.names(List::Directors).chain(film.names(List::Cast));
            let words = std::iter::once((film.title(), false)).chain(people.map(|n| (n, true)));
            for (text, is_person) in words {
                for t in words_of(&fold(text)) {
                    let (title, people) = plain.entry(t.to_string()).or_default();
                    let list = if is_person { people } else { title };
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        let index = &b.index;
        assert_eq!(index.term_count() as usize, plain.len());
        for (t, (word, (title, people))) in plain.iter().enumerate() {
            let t = t as u32;
            assert_eq!(index.term_text(t), word);
            assert_eq!(index.title_postings(t), title, "title postings of {word:?}");
            assert_eq!(
                index.people_postings(t),
                people,
                "people postings of {word:?}"
            );
        }
        let folded: Vec<String> = b.films.iter().map(|f| fold(f.title())).collect();
        assert!((0..b.films.len()).all(|i| index.folded_titles.get(i as u32) == folded[i]));
    }

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
        assert_eq!(b.count(), 1);
    }
}
