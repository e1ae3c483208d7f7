//! The films of the builtin catalogue, stored compactly: one fixed-size row per film, every string
//! interned once in a shared arena, and each film's name lists as ids in one shared `u32` array.

use super::strs::Strs;

/// No string: an absent certification or release date.
pub(crate) const NONE: u32 = u32::MAX;

/// [`Row::cert_rank`] of a film without a ranked US certification.
pub(crate) const NO_RANK: u8 = u8::MAX;

/// A film's position as the precomputed lists (postings, orders, rankings) store it: two bytes, so
/// those lists take half the memory. Positions are `u32` everywhere else.
pub(crate) type Pos = u16;

/// The most films a catalogue can hold, every position fitting a [`Pos`].
pub(crate) const MAX_FILMS: usize = Pos::MAX as usize + 1;

/// Film `i` as a stored position (`i` is below [`MAX_FILMS`], checked at load).
pub(crate) fn pos(i: u32) -> Pos {
    i as Pos
}

/// Which of a film's lists, in the order they are stored.
#[derive(Clone, Copy)]
pub(crate) enum List {
    Directors,
    Cast,
    Languages,
    Countries,
    Genres,
}

/// One film: ids into the string arena, and where its lists sit in [`Films::lists`].
pub(crate) struct Row {
    pub imdb_id: u32,
    pub title: u32,
    /// [`NONE`] when the data has none (unrated).
    pub certification: u32,
    /// The certification's rank in the US order (`tables::us_order`), worked out once at load so
    /// a filter compares a number; [`NO_RANK`] when unrated or not a US certification.
    pub cert_rank: u8,
    /// YYYY-MM-DD, or [`NONE`].
    pub released: u32,
    pub year: i32,
    pub runtime: Option<u32>,
    /// Start of this film's lists.
    pub lists: u32,
    /// Ends of each [`List`], counted from `lists`.
    pub ends: [u16; 5],
}

/// Every film. Names in lists are string ids (equal ids, equal names); genres index the genre table.
pub(crate) struct Films {
    pub rows: Vec<Row>,
    pub lists: Vec<u32>,
    pub strs: Strs,
}

impl Films {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn get(&self, i: u32) -> Film<'_> {
        Film {
            films: self,
            row: &self.rows[i as usize],
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Film<'_>> {
        self.rows.iter().map(|row| Film { films: self, row })
    }

    /// The string an id in a film's lists (other than genres) stands for.
    pub fn name(&self, id: u32) -> &str {
        self.strs.get(id)
    }

    /// Gives back spare capacity once loading is done.
    pub fn shrink_to_fit(&mut self) {
        self.rows.shrink_to_fit();
        self.lists.shrink_to_fit();
        self.strs.shrink_to_fit();
    }
}

/// A view of one film.
#[derive(Clone, Copy)]
pub(crate) struct Film<'a> {
    films: &'a Films,
    row: &'a Row,
}

impl<'a> Film<'a> {
    /// "tt0113277": the builtin id and the IMDb id.
    pub fn imdb_id(self) -> &'a str {
        self.films.strs.get(self.row.imdb_id)
    }

    pub fn title(self) -> &'a str {
        self.films.strs.get(self.row.title)
    }

    /// Equal for films with equal titles.
    pub fn title_id(self) -> u32 {
        self.row.title
    }

    pub fn year(self) -> i32 {
        self.row.year
    }

    /// US certification; None when the data has none (unrated).
    pub fn certification(self) -> Option<&'a str> {
        self.optional(self.row.certification)
    }

    /// The rank of the US certification in the US order, if it is a ranked one.
    pub fn cert_rank(self) -> Option<u32> {
        (self.row.cert_rank != NO_RANK).then_some(u32::from(self.row.cert_rank))
    }

    pub fn runtime(self) -> Option<u32> {
        self.row.runtime
    }

    /// YYYY-MM-DD.
    pub fn released(self) -> Option<&'a str> {
        self.optional(self.row.released)
    }

    /// Ids of one list: names (see [`Films::name`]) or, for genres, genre table indices.
    pub fn list(self, which: List) -> &'a [u32] {
        let k = which as usize;
        let start = if k == 0 { 0 } else { self.row.ends[k - 1] };
        let base = self.row.lists as usize;
        &self.films.lists[base + usize::from(start)..base + usize::from(self.row.ends[k])]
    }

    pub fn genres(self) -> &'a [u32] {
        self.list(List::Genres)
    }

    /// The names of one list.
    pub fn names(self, which: List) -> impl Iterator<Item = &'a str> {
        let films = self.films;
        self.list(which).iter().map(move |&id| films.name(id))
    }

    fn optional(self, id: u32) -> Option<&'a str> {
        (id != NONE).then(|| self.films.strs.get(id))
    }
}
