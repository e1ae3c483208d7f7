//! Ranking free-text queries over the builtin index, and the "recommendations" it can honestly compute.
//!
//! Ranking, best first: the folded title equals the query; every query word is a title word; some query
//! words are title words; only people (directors, cast) match. A four-digit year in the query may match the
//! release year instead of a word. Words matched only as a prefix (the last query word, "heat" -> "heathers")
//! rank after whole words, and titles with fewer other words rank first ("The Godfather" before
//! "The Godfather Part II"). Remaining ties go to the newer film, then to the title. When no film matches every word,
//! films matching the most words come back instead.

use std::cmp::Reverse;

use super::{
    Builtin, broad,
    films::{Film, List, Pos},
    index::Bits,
    orders::Facet,
};
use crate::text::tokens;

/// The sort key of one match, best first: field order is ranking order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    /// More query words matched (only differs when no film matched them all).
    matched: Reverse<usize>,
    /// 0 exact title, 1 all words in the title, 2 some, 3 people only.
    tier: u8,
    /// Words matched in the title only as a prefix.
    prefix_only: usize,
    /// Title words the query did not match.
    other_words: usize,
    newer: Reverse<i32>,
    /// The folded title's rank in title order ([`super::orders::Orders::title_rank`]).
    title: u32,
    film: u32,
}

/// Room for the scores of one query's matches; after ranking, its best ones in order.
#[derive(Default)]
pub(crate) struct Scores(Vec<Rank>);

impl Scores {
    pub fn with_capacity(matches: usize) -> Scores {
        Scores(Vec::with_capacity(matches))
    }

    /// The films ranked last, best first.
    pub fn films(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.0.iter().map(|s| s.film)
    }
}

impl Builtin {
    /// Positions of films matching `query` and passing `keep` (`None`: every film), best first.
    /// Only the best `want` come back sorted (enough for the page asked); the count is of every match.
    /// A broad word alone is read off its ranking computed at load (see `broad.rs`).
    pub(crate) fn rank(
        &self,
        query: &str,
        keep: Option<&dyn Fn(Film<'_>) -> bool>,
        want: usize,
    ) -> (Vec<u32>, usize) {
        let toks = tokens(query);
        if let [word] = toks.as_slice()
            && let Some(ranking) = self.index.term(word).and_then(|t| self.broad.ranking(t))
        {
            return broad::take(self, ranking, keep, want);
        }
        self.rank_tokens(&toks, keep, want)
    }

    /// [`Builtin::rank`] of folded query words, scoring every match.
    pub(crate) fn rank_tokens(
        &self,
        toks: &[String],
        keep: Option<&dyn Fn(Film<'_>) -> bool>,
        want: usize,
    ) -> (Vec<u32>, usize) {
        let mut scores = Scores::default();
        let total = self.rank_with(toks, keep, want, &mut scores);
        (scores.films().collect(), total)
    }

    /// [`Builtin::rank_tokens`] into `scores` (emptied first), which holds the best `want` in
    /// order afterwards; returns the count of every match. A caller ranking many queries in a
    /// row reuses one buffer instead of growing a new one for each.
    pub(crate) fn rank_with(
        &self,
        toks: &[String],
        keep: Option<&dyn Fn(Film<'_>) -> bool>,
        want: usize,
        scores: &mut Scores,
    ) -> usize {
        let scored = &mut scores.0;
        scored.clear();
        if toks.is_empty() {
            return 0;
        }
        let n = toks.len();
        let hits: Vec<_> = toks
            .iter()
            .enumerate()
            .map(|(i, t)| self.index.lookup(t, i + 1 == n && t.len() >= 2))
            .collect();
        let years: Vec<Option<i32>> = toks.iter().map(|t| year_token(t)).collect();
        let anys: Vec<Bits> = hits
            .iter()
            .zip(&years)
            .map(|(h, y)| {
                let mut any = h.title.clone();
                any.or_with(&h.people);
                if let Some(y) = y {
                    any.or_with(&self.year_bits(*y));
                }
                any
            })
            .collect();
        let mut candidates = anys[0].clone();
        anys[1..].iter().for_each(|a| candidates.and_with(a));
        if candidates.is_empty() && n > 1 {
            anys[1..].iter().for_each(|a| candidates.or_with(a));
            candidates.or_with(&anys[0]);
        }
        let query_folded = toks.join(" ");
        let without_years = toks
            .iter()
            .zip(&years)
            .filter(|(_, y)| y.is_none())
            .map(|(t, _)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ");

        scored.reserve(candidates.count());
        for d in candidates.ones() {
            let film = self.films.get(d);
            if keep.is_some_and(|keep| !keep(film)) {
                continue;
            }
            let (mut matched, mut in_title, mut exact) = (0, 0, 0);
            for (h, y) in hits.iter().zip(&years) {
                let by_year = *y == Some(film.year());
                matched += usize::from(h.title.get(d) || h.people.get(d) || by_year);
                in_title += usize::from(h.title.get(d) || by_year);
                exact += usize::from(h.title_exact.get(d) || by_year);
            }
            let folded = &self.index.folded_titles;
            let tier = if folded.is(d, &query_folded)
                || (years.contains(&Some(film.year())) && folded.is(d, &without_years))
            {
                0
            } else if in_title == n {
                1
            } else if in_title > 0 {
                2
            } else {
                3
            };
            let other_words =
                usize::from(self.index.title_words[d as usize]).saturating_sub(in_title);
            scored.push(Rank {
                matched: Reverse(matched),
                tier,
                prefix_only: in_title - exact,
                other_words,
                newer: Reverse(film.year()),
                title: self.orders.title_rank[d as usize].into(),
                film: d,
            });
        }
        let total = scored.len();
        if want < total {
            scored.select_nth_unstable(want);
            scored.truncate(want);
        }
        scored.sort_unstable();
        total
    }

    /// Films released in `year`.
    fn year_bits(&self, year: i32) -> Bits {
        let mut bits = Bits::new(self.films.len());
        self.films
            .iter()
            .enumerate()
            .filter(|(_, f)| f.year() == year)
            .for_each(|(i, _)| bits.set(i as u32));
        bits
    }

    /// The first `want` films like film `of`, in order, and how many there are in all; computed
    /// only from what the data holds: a shared director counts 3, a shared cast member 2, a shared
    /// genre 1. A film qualifies through a shared person, or by sharing every genre of `of`. Ties
    /// go to the film closest in year, then to the title. Not from viewing data. A film of one
    /// common genre has thousands of candidates that share only genres: those are counted, and
    /// only the nearest in year are collected and sorted.
    pub(crate) fn similar(&self, of: u32, want: usize) -> (Vec<u32>, usize) {
        let f = self.films.get(of);
        let shared = |g: Film<'_>, which| {
            let mine = f.list(which);
            g.list(which).iter().filter(|x| mine.contains(x)).count()
        };
        let same =
            |i: u32, g: Film<'_>| i == of || (g.title_id() == f.title_id() && g.year() == f.year());
        let mut scored: Vec<(Reverse<usize>, i32, u32)> = Vec::new();
        // Films listing one of its directors or cast, scored in full.
        let people = self.films_sharing_people(of);
        for &i in &people {
            let g = self.films.get(i);
            if same(i, g) {
                continue;
            }
            let directors = shared(g, List::Directors);
            let cast = shared(g, List::Cast);
            let genres = shared(g, List::Genres);
            let all_genres = !f.genres().is_empty() && genres == f.genres().len();
            if directors + cast == 0 && !all_genres {
                continue;
            }
            let score = 3 * directors + 2 * cast + genres;
            scored.push((Reverse(score), (g.year() - f.year()).abs(), i));
        }
        // The rest carry all of its genres (from its rarest genre's order) and share no one.
        let rarest = f
            .genres()
            .iter()
            .map(|&g| self.orders.genre(g))
            .min_by_key(|l| l.len())
            .unwrap_or_default();
        let mut total = scored.len();
        match self.orders.facets.as_deref() {
            Some(facets) => {
                let (near, count) = self.nearest_sharing_genres(of, &people, rarest, facets, want);
                scored.extend(near);
                total += count;
            }
            None => {
                for i in rarest.iter().map(|&i| u32::from(i)) {
                    let g = self.films.get(i);
                    let theirs = g.genres();
                    if !f.genres().iter().all(|x| theirs.contains(x))
                        || same(i, g)
                        || people.binary_search(&i).is_ok()
                    {
                        continue;
                    }
                    scored.push((
                        Reverse(shared(g, List::Genres)),
                        (g.year() - f.year()).abs(),
                        i,
                    ));
                    total += 1;
                }
            }
        }
        // Titles compare by their rank among titles as written: as strings would, without them.
        let title = |i: u32| self.orders.written_rank[i as usize];
        let order = |a: &(Reverse<usize>, i32, u32), b: &(Reverse<usize>, i32, u32)| {
            (a.0, a.1, title(a.2), a.2).cmp(&(b.0, b.1, title(b.2), b.2))
        };
        if want < scored.len() {
            scored.select_nth_unstable_by(want, order);
            scored.truncate(want);
        }
        scored.sort_unstable_by(order);
        (scored.into_iter().map(|s| s.2).collect(), total)
    }

    /// Of the films in `candidates` (film `of`'s rarest genre, in browse order: newest first) that
    /// carry every genre of `of` and are neither `of`, another listing of it, nor in `people`
    /// (scored already): the ones closest in year, at least `want` of them when there are, every
    /// film of each year distance taken whole; and how many qualify in all. They all score the
    /// same (their shared genres), so only the nearest can make a page: the count reads each
    /// candidate's packed facet once, and only the nearest are collected for sorting.
    fn nearest_sharing_genres(
        &self,
        of: u32,
        people: &[u32],
        candidates: &[Pos],
        facets: &[Facet],
        want: usize,
    ) -> (Vec<(Reverse<usize>, i32, u32)>, usize) {
        let f = self.films.get(of);
        let mine = f.genres().iter().fold(0u64, |bits, &g| bits | 1 << g);
        let score = Reverse(mine.count_ones() as usize);
        let mut scored_already = Bits::new(self.films.len());
        people.iter().for_each(|&i| scored_already.set(i));
        scored_already.set(of);
        let qualifies = |i: u32| {
            let facet = &facets[i as usize];
            facet.genres & mine == mine
                && !scored_already.get(i)
                && !(facet.year == f.year() && self.films.get(i).title_id() == f.title_id())
        };
        let year = |at: usize| facets[usize::from(candidates[at])].year;
        let start = candidates.partition_point(|&i| facets[usize::from(i)].year > f.year());
        // Every film carrying all of `of`'s genres is a candidate (the rarest genre's order holds
        // them all); the count takes them from the genre-set table, less those that do not
        // qualify: the ones scored already (`of` among them) and other listings of `of` (same
        // title, same year, so within `of`'s year of the candidates).
        let count = match self.orders.films_with_genres(mine) {
            Some(all) if !candidates.is_empty() => {
                let carries = |i: u32| facets[i as usize].genres & mine == mine;
                let scored = people
                    .iter()
                    .copied()
                    .chain((people.binary_search(&of).is_err()).then_some(of))
                    .filter(|&i| carries(i))
                    .count();
                let same_year = candidates[start..]
                    .iter()
                    .take_while(|&&i| facets[usize::from(i)].year == f.year())
                    .filter(|&&i| carries(i.into()) && !qualifies(i.into()))
                    .filter(|&&i| !scored_already.get(i.into()))
                    .count();
                all - scored - same_year
            }
            _ => candidates.iter().filter(|&&i| qualifies(i.into())).count(),
        };
        // Walk out from `of`'s year both ways, one year distance at a time: `before` moves to
        // newer films (towards the front), `after` to older ones.
        let (mut before, mut after) = (start, start);
        let mut near = Vec::new();
        while near.len() < want.min(count) {
            let newer = (before > 0).then(|| year(before - 1) - f.year());
            let older = (after < candidates.len()).then(|| f.year() - year(after));
            let Some(distance) = newer.into_iter().chain(older).min() else {
                break;
            };
            while before > 0 && year(before - 1) - f.year() == distance {
                before -= 1;
                let i = u32::from(candidates[before]);
                if qualifies(i) {
                    near.push((score, distance, i));
                }
            }
            while after < candidates.len() && f.year() - year(after) == distance {
                let i = u32::from(candidates[after]);
                if qualifies(i) {
                    near.push((score, distance, i));
                }
                after += 1;
            }
        }
        (near, count)
    }

    /// The films listing one of film `of`'s directors or cast (in either role), ascending, once
    /// each, from the people order.
    fn films_sharing_people(&self, of: u32) -> Vec<u32> {
        let f = self.films.get(of);
        let people = f.list(List::Directors).iter().chain(f.list(List::Cast));
        let mut out: Vec<u32> = people
            .flat_map(|&name| self.orders.films_of(name).iter().map(|&i| u32::from(i)))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A query word that reads as a release year of the data's era.
fn year_token(t: &str) -> Option<i32> {
    (t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
        .filter(|y| (1900..=2100).contains(y))
}
