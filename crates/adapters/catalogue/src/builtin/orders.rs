//! Orders of the builtin catalogue computed once at load, so a question reads a slice instead of
//! sorting the catalogue: every film in browse order (newest first, then by folded title), the
//! same order per genre (a year range is then a contiguous run, found by binary search), the rank
//! of each film's title, folded and as written (ranking compares integers, not strings), each
//! person's films, and each film's genres, year and certification packed for filter scans.

use super::{
    films::{Films, List, NO_RANK, Pos, pos},
    index::Index,
};

/// What a browse filter tests of one film, packed, so a scan over thousands of films stays in
/// the cache instead of reading each film's row and lists.
#[derive(Clone, Copy)]
pub(crate) struct Facet {
    /// Bit `g` for each genre `g` the film carries.
    pub genres: u64,
    pub year: i32,
    /// The film's `cert_rank` (`films::NO_RANK` when unranked).
    pub cert_rank: u8,
}

/// Genre ids a [`Facet`] can hold.
pub(crate) const FACET_GENRES: usize = 64;

pub(crate) struct Orders {
    /// Per film, its [`Facet`]; `None` when the data has more than [`FACET_GENRES`] genres.
    pub facets: Option<Box<[Facet]>>,
    /// Each set of genres the facets hold (as their bits), with how many films carry exactly
    /// it: a few thousand sets stand for all the films when counting those with some genres.
    genre_sets: Box<[(u64, u32)]>,
    /// Every film, newest first, then by folded title, then by position.
    browse: Box<[Pos]>,
    /// Genre `g`'s films, in browse order, are `by_genre[genre_starts[g]..genre_starts[g + 1]]`.
    genre_starts: Box<[u32]>,
    by_genre: Box<[Pos]>,
    /// Per film, the rank of its folded title among all folded titles (equal titles, equal ranks).
    pub title_rank: Box<[Pos]>,
    /// Per film, the rank of its title as written (compared as strings), the same way.
    pub written_rank: Box<[Pos]>,
    /// The films of the person named by string id `s` (director or cast), ascending, are
    /// `person_films[person_starts[s]..person_starts[s + 1]]`.
    person_starts: Box<[u32]>,
    person_films: Box<[Pos]>,
}

impl Orders {
    pub fn build(films: &Films, index: &Index, genres: usize) -> Orders {
        let n = films.len() as u32;
        let title_rank = ranks(n, |i| index.folded_titles.get(i));
        let written_rank = ranks(n, |i| films.get(i).title());
        let mut browse: Vec<Pos> = (0..n).map(pos).collect();
        browse.sort_unstable_by_key(|&i| {
            (
                std::cmp::Reverse(films.get(i.into()).year()),
                title_rank[usize::from(i)],
                i,
            )
        });
        let mut genre_starts = vec![0u32; genres + 1];
        for f in films.iter() {
            for &g in f.genres() {
                genre_starts[g as usize + 1] += 1;
            }
        }
        for g in 1..genre_starts.len() {
            genre_starts[g] += genre_starts[g - 1];
        }
        let mut by_genre = vec![0; genre_starts[genres] as usize];
        let mut next = genre_starts.clone();
        for &i in &browse {
            for &g in films.get(i.into()).genres() {
                by_genre[next[g as usize] as usize] = i;
                next[g as usize] += 1;
            }
        }
        let (person_starts, person_films) = people(films);
        let facets = (genres <= FACET_GENRES).then(|| {
            films
                .iter()
                .map(|f| Facet {
                    genres: f.genres().iter().fold(0, |bits, &g| bits | 1 << g),
                    year: f.year(),
                    cert_rank: f.cert_rank().map_or(NO_RANK, |r| r as u8),
                })
                .collect()
        });
        let genre_sets = facets.as_deref().map(genre_sets).unwrap_or_default();
        Orders {
            facets,
            genre_sets,
            browse: browse.into_boxed_slice(),
            genre_starts: genre_starts.into_boxed_slice(),
            by_genre: by_genre.into_boxed_slice(),
            title_rank,
            written_rank,
            person_starts,
            person_films,
        }
    }

    /// Films in browse order that may pass a filter requiring every genre of `genres` and a year
    /// in `from..=to`: the run of the rarest required genre's order (or of the whole order) within
    /// those years. Every film outside it fails the filter; the ones inside still need checking.
    pub fn browse_candidates(
        &self,
        films: &Films,
        genres: &[u32],
        from: Option<i32>,
        to: Option<i32>,
    ) -> &[Pos] {
        let list = genres
            .iter()
            .map(|&g| self.genre(g))
            .min_by_key(|l| l.len())
            .unwrap_or(&self.browse);
        let year = |i: &Pos| films.get((*i).into()).year();
        let start = to.map_or(0, |to| list.partition_point(|i| year(i) > to));
        let end = from.map_or(list.len(), |from| list.partition_point(|i| year(i) >= from));
        &list[start..end.max(start)]
    }

    /// How many films carry every genre of `genres` (bits, as in [`Facet::genres`]); `None`
    /// without facets.
    pub fn films_with_genres(&self, genres: u64) -> Option<usize> {
        self.facets.as_ref()?;
        Some(
            self.genre_sets
                .iter()
                .filter(|(set, _)| set & genres == genres)
                .map(|&(_, films)| films as usize)
                .sum(),
        )
    }

    /// Genre `g`'s films, in browse order.
    pub fn genre(&self, g: u32) -> &[Pos] {
        let g = g as usize;
        match (self.genre_starts.get(g), self.genre_starts.get(g + 1)) {
            (Some(&a), Some(&b)) => &self.by_genre[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Films listing this name (a string id) as a director or cast member, ascending, once each.
    pub fn films_of(&self, name: u32) -> &[Pos] {
        let name = name as usize;
        match (
            self.person_starts.get(name),
            self.person_starts.get(name + 1),
        ) {
            (Some(&a), Some(&b)) => &self.person_films[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// The distinct genre sets of `facets`, each with how many films carry exactly it.
fn genre_sets(facets: &[Facet]) -> Box<[(u64, u32)]> {
    let mut sets: Vec<u64> = facets.iter().map(|f| f.genres).collect();
    sets.sort_unstable();
    let mut out: Vec<(u64, u32)> = Vec::new();
    for set in sets {
        match out.last_mut() {
            Some((last, films)) if *last == set => *films += 1,
            _ => out.push((set, 1)),
        }
    }
    out.into_boxed_slice()
}

/// Per film of `0..n`, the rank of its `text` among all of them (equal texts, equal ranks).
fn ranks<'a>(n: u32, text: impl Fn(u32) -> &'a str) -> Box<[Pos]> {
    let mut sorted: Vec<u32> = (0..n).collect();
    sorted.sort_unstable_by(|&a, &b| text(a).cmp(text(b)));
    let mut out = vec![0; n as usize].into_boxed_slice();
    let mut rank = 0;
    for (k, &i) in sorted.iter().enumerate() {
        if k > 0 && text(sorted[k - 1]) != text(i) {
            rank = pos(k as u32);
        }
        out[i as usize] = rank;
    }
    out
}

/// Each person's films, grouped by name id, counted first so each film is written once in place.
fn people(films: &Films) -> (Box<[u32]>, Box<[Pos]>) {
    let mut starts = vec![0u32; films.strs.len() + 1];
    let mut names = Vec::new();
    let each_film = |names: &mut Vec<u32>, i: u32| {
        let f = films.get(i);
        names.clear();
        names.extend(f.list(List::Directors).iter().chain(f.list(List::Cast)));
        names.sort_unstable();
        names.dedup();
    };
    for i in 0..films.len() as u32 {
        each_film(&mut names, i);
        names.iter().for_each(|&s| starts[s as usize + 1] += 1);
    }
    for s in 1..starts.len() {
        starts[s] += starts[s - 1];
    }
    // Filled through each name's next free place, which ends where the next name's films start.
    let mut person_films = vec![0; starts[starts.len() - 1] as usize].into_boxed_slice();
    for i in 0..films.len() as u32 {
        each_film(&mut names, i);
        for &s in &names {
            let at = &mut starts[s as usize];
            person_films[*at as usize] = pos(i);
            *at += 1;
        }
    }
    let last = starts.len() - 1;
    starts.copy_within(..last, 1);
    starts[0] = 0;
    (starts.into_boxed_slice(), person_films)
}
