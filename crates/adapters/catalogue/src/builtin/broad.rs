//! Broad words: the ranking of every one-word query that matches many films ("the", "love",
//! "john"), computed once at load, so such a query reads its first page off a list instead of
//! scoring and selecting thousands of matches. A word matching fewer films is ranked per query,
//! which is as cheap; so are queries of several words (their matches are the intersection) and
//! prefixes that are no word of the data ("th"), which rank per query too.

use super::{
    Builtin,
    films::{Film, Pos, pos},
    search::Scores,
};

/// A one-word query matching at least this many films has its ranking computed at load.
pub(crate) const BROAD: usize = 1_000;

/// The precomputed rankings of broad words.
#[derive(Default)]
pub(crate) struct Broad {
    /// Ids (in the index's sorted vocabulary) of the terms that have a ranking, ascending.
    terms: Box<[u32]>,
    /// The ranking of `terms[k]`: film positions, best first, as `Builtin::rank_tokens` orders
    /// them. Each is written once at its exact size, as it is ranked.
    rankings: Box<[Box<[Pos]>]>,
}

impl Broad {
    /// Ranks every term of `b`'s vocabulary whose one-word query matches at least [`BROAD`] films.
    /// `b`'s own `broad` is not read (it is empty while this runs).
    pub fn build(b: &Builtin) -> Broad {
        let reach: Vec<(u32, usize)> = (0..b.index.term_count())
            .map(|t| (t, b.index.reach(t)))
            .filter(|&(_, reach)| reach >= BROAD)
            .collect();
        let mut terms = Vec::with_capacity(reach.len());
        let mut rankings = Vec::with_capacity(reach.len());
        // One buffer for every word's scores, big enough for the broadest (its reach may count
        // a film twice, so at most every film).
        let most = reach.iter().map(|&(_, reach)| reach).max().unwrap_or(0);
        let mut scores = Scores::with_capacity(most.min(b.films.len()));
        for (t, _) in reach {
            let word = b.index.term_text(t).to_string();
            if b.rank_with(&[word], None, usize::MAX, &mut scores) < BROAD {
                continue;
            }
            terms.push(t);
            rankings.push(scores.films().map(pos).collect());
        }
        Broad {
            terms: terms.into_boxed_slice(),
            rankings: rankings.into_boxed_slice(),
        }
    }

    /// The precomputed ranking of the one-word query `term`, if it is broad.
    pub fn ranking(&self, term: u32) -> Option<&[Pos]> {
        let k = self.terms.binary_search(&term).ok()?;
        Some(&self.rankings[k])
    }

    /// How many words have a ranking, and how many film positions they hold (for the load log).
    pub fn size(&self) -> (usize, usize) {
        (
            self.terms.len(),
            self.rankings.iter().map(|r| r.len()).sum(),
        )
    }
}

/// The first `want` films of `ranking` that pass `keep`, and how many pass in all.
pub(crate) fn take(
    b: &Builtin,
    ranking: &[Pos],
    keep: Option<&dyn Fn(Film<'_>) -> bool>,
    want: usize,
) -> (Vec<u32>, usize) {
    let ranking = ranking.iter().map(|&d| u32::from(d));
    let Some(keep) = keep else {
        return (ranking.clone().take(want).collect(), ranking.len());
    };
    let mut docs = Vec::with_capacity(want.min(ranking.len()));
    let mut total = 0;
    for d in ranking {
        if keep(b.films.get(d)) {
            if docs.len() < want {
                docs.push(d);
            }
            total += 1;
        }
    }
    (docs, total)
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::builtin::filter::FilmFilter;

    #[test]
    fn every_broad_ranking_equals_ranking_the_word_afresh() {
        let b = Builtin::shared().expect("the shipped data loads");
        let (words, _) = b.broad.size();
        assert!(words > 10, "only {words} broad words");
        let mut rng = StdRng::seed_from_u64(14);
        for (k, &t) in b.broad.terms.iter().enumerate() {
            let word = b.index.term_text(t).to_string();
            let ranking = b.broad.ranking(t).expect("a ranking");
            let year = rng.random_bool(0.5).then(|| rng.random_range(1940..2015));
            let filter = FilmFilter::years(year);
            let keep = |f: Film<'_>| filter.allows(f);
            let keep: Option<&dyn Fn(Film<'_>) -> bool> = year.map(|_| &keep as _);
            let want = 20 * rng.random_range(1..40);
            let fresh = b.rank_tokens(std::slice::from_ref(&word), keep, want);
            assert_eq!(
                take(&b, ranking, keep, want),
                fresh,
                "word {k}: {word:?}, {year:?}"
            );
            assert_eq!(b.rank(&word, keep, want), fresh, "query {word:?}, {year:?}");
        }
    }

    #[test]
    fn a_rare_word_has_no_ranking_and_a_broad_one_has() {
        let b = Builtin::shared().expect("the shipped data loads");
        let the = b.index.term("the").expect("a term");
        assert!(b.broad.ranking(the).is_some_and(|r| r.len() >= BROAD));
        let heat = b.index.term("heat").expect("a term");
        assert_eq!(b.broad.ranking(heat), None);
    }
}
