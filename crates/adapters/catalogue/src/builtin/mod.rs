//! The builtin catalogue: 17,470 films (1940-2014, CC0 Wikidata extract) shipped inside the binary,
//! searched offline through an inverted index over titles and people's names.
//!
//! Ids are `builtin` + the IMDb id ("tt0113277"); `imdb` + the same id is answered too. Certifications
//! are US only (blank in the data = unrated). What the data cannot know is refused with
//! [`Error::Unsupported`] naming TMDB: trending, TV, collections, votes, providers, keywords, companies.

mod broad;
mod catalogue;
mod films;
mod filter;
mod index;
mod load;
mod orders;
#[cfg(test)]
mod orders_tests;
mod search;
mod strs;
mod tables;

use std::{
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use domain::{MediaId, MediaSource, MediaType};

use self::{
    broad::Broad,
    films::{Film, Films, List, Pos},
    index::Index,
    orders::Orders,
};
use crate::{Certification, Error, PAGE_SIZE, Page, Result, TitleSummary, text};

/// The offline catalogue. Cheap to share: load it once ([`Builtin::shared`]) and hand out the `Arc`.
pub struct Builtin {
    films: Films,
    /// Genre names; films hold indices into this.
    genres: Vec<Box<str>>,
    /// The same names folded (`text::fold`), as a filter's genre is matched.
    folded_genres: Box<[String]>,
    index: Index,
    /// Browse, genre, title and people orders, computed at load.
    orders: Orders,
    /// The rankings of one-word queries that match many films, computed at load.
    broad: Broad,
    /// Film positions sorted by IMDb id: by its number ([`id_number`]), then as text (stable:
    /// the last of equal ids answers).
    by_id: Box<[Pos]>,
    /// The [`id_number`] of each of `by_id`'s films, in its order: a lookup searches these
    /// 70 KB instead of reading a film's id text at every step.
    id_numbers: Box<[u32]>,
    /// How long loading took, for the start-up log and the benchmark.
    load_time: Duration,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builtin")
            .field("films", &self.films.len())
            .field("load_time", &self.load_time)
            .finish()
    }
}

impl Builtin {
    /// Decompresses, parses and indexes the embedded data, one record at a time.
    pub fn load() -> Result<Builtin> {
        Builtin::from_gz(load::MOVIES_CSV_GZ)
    }

    /// The process-wide instance, loaded on first use.
    pub fn shared() -> Result<Arc<Builtin>> {
        static SHARED: OnceLock<Arc<Builtin>> = OnceLock::new();
        if let Some(b) = SHARED.get() {
            return Ok(b.clone());
        }
        let loaded = Arc::new(Builtin::load()?);
        Ok(SHARED.get_or_init(|| loaded).clone())
    }

    /// Loads a gzipped CSV in the shipped data's layout (tests use small ones).
    pub fn from_gz(gz: &[u8]) -> Result<Builtin> {
        let started = Instant::now();
        // Every step sizes its tables once and keeps few temporaries: memory the load touches and
        // frees stays resident with the allocator until it purges, which an idle thread never asks.
        let loaded = load::parse_gz(gz)?;
        let index = Index::build(&loaded.films);
        let orders = Orders::build(&loaded.films, &index, loaded.genres.len());
        let table = &loaded.films;
        let numbers: Vec<u32> = (0..table.len() as u32)
            .map(|i| id_number(table.get(i).imdb_id()))
            .collect();
        let mut by_id: Box<[Pos]> = (0..table.len() as u32).map(films::pos).collect();
        let key = |p: Pos| (numbers[usize::from(p)], table.get(p.into()).imdb_id());
        by_id.sort_by(|&a, &b| key(a).cmp(&key(b)));
        let id_numbers = by_id.iter().map(|&p| numbers[usize::from(p)]).collect();
        let mut builtin = Builtin {
            films: loaded.films,
            folded_genres: loaded.genres.iter().map(|g| text::fold(g)).collect(),
            genres: loaded.genres,
            index,
            orders,
            broad: Broad::default(),
            by_id,
            id_numbers,
            load_time: Duration::ZERO,
        };
        builtin.broad = Broad::build(&builtin);
        builtin.load_time = started.elapsed();
        let (broad_words, broad_rows) = builtin.broad.size();
        tracing::debug!(
            films = builtin.films.len(),
            broad_words,
            broad_rows,
            load_time = ?builtin.load_time,
            "builtin catalogue loaded"
        );
        Ok(builtin)
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.films.len() == 0
    }

    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    fn summary(&self, i: u32, region: &str) -> TitleSummary {
        let f = self.films.get(i);
        let languages = f.list(List::Languages);
        TitleSummary {
            id: MediaId::new(MediaSource::Builtin, f.imdb_id()),
            media_type: MediaType::Movie,
            title: f.title().to_string(),
            year: Some(f.year()),
            certification: us_certification(f, region),
            genres: f
                .genres()
                .iter()
                .map(|g| self.genres[*g as usize].to_string())
                .collect(),
            overview: None,
            original_language: (languages.len() == 1)
                .then(|| self.films.name(languages[0]).to_string()),
            vote_average: None,
            vote_count: None,
            poster_url: None,
            external_ids: vec![MediaId::new(MediaSource::Imdb, f.imdb_id())],
        }
    }

    /// Page `page` of a ranking; `docs` holds at least the ranking's first `page` pages, `total` counts it all.
    fn page(&self, docs: &[u32], total: usize, page: u32) -> Result<Page<TitleSummary>> {
        if page == 0 {
            return Err(Error::invalid("page", "pages start at 1"));
        }
        let start = (page as usize - 1).saturating_mul(PAGE_SIZE);
        let items = docs
            .iter()
            .skip(start)
            .take(PAGE_SIZE)
            .map(|&i| self.summary(i, "US"))
            .collect();
        Ok(Page {
            items,
            page,
            total_pages: total.div_ceil(PAGE_SIZE) as u32,
            total_results: total as u64,
            unapplied_filters: Vec::new(),
        })
    }

    /// The film an id names: `builtin` or `imdb` + "tt…".
    fn find(&self, id: &MediaId) -> Result<u32> {
        if !matches!(id.media_source, MediaSource::Builtin | MediaSource::Imdb) {
            return Err(Error::foreign_id(id, MediaSource::Builtin));
        }
        let key = id.media_id.trim();
        let number = id_number(key);
        let from = self.id_numbers.partition_point(|&n| n < number);
        let to = from + self.id_numbers[from..].partition_point(|&n| n == number);
        let same = &self.by_id[from..to];
        let after = same.partition_point(|&i| self.films.get(i.into()).imdb_id() <= key);
        after
            .checked_sub(1)
            .map(|at| u32::from(same[at]))
            .filter(|&i| self.films.get(i).imdb_id() == key)
            .ok_or_else(|| Error::NotFound {
                what: "title",
                id: id.to_string(),
                catalogue: MediaSource::Builtin,
            })
    }
}

/// The number of an IMDb id ("tt0113277" is 113277), or `u32::MAX` for an id of another shape:
/// the first key of the id order. Ids of one number ("tt0113277", "tt113277") differ as text.
fn id_number(id: &str) -> u32 {
    id.strip_prefix("tt")
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u32>().ok())
        .filter(|&n| n != u32::MAX)
        .unwrap_or(u32::MAX)
}

fn us_certification(f: Film<'_>, region: &str) -> Certification {
    if !region.eq_ignore_ascii_case("US") {
        return Certification::NotFetched;
    }
    match f.certification() {
        Some(c) => Certification::Rated {
            region: "US".into(),
            rating: c.to_string(),
        },
        None => Certification::Unrated {
            region: Some("US".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn find(b: &Builtin, id: &str) -> Option<u32> {
        b.find(&MediaId::new(MediaSource::Builtin, id)).ok()
    }

    #[test]
    fn every_id_finds_the_last_film_of_that_id_as_a_plain_scan_does() {
        let b = Builtin::shared().expect("the shipped data loads");
        let mut last: HashMap<&str, u32> = HashMap::new();
        for i in 0..b.films.len() as u32 {
            last.insert(b.films.get(i).imdb_id(), i);
        }
        for (id, &i) in &last {
            assert_eq!(find(&b, id), Some(i), "{id}");
            assert_eq!(b.find(&MediaId::new(MediaSource::Imdb, *id)).ok(), Some(i));
        }
        // The same number written otherwise is another id; other shapes are no id at all.
        for id in last.keys().filter(|id| id.starts_with("tt0")).take(50) {
            let short = format!("tt{}", id[2..].trim_start_matches('0'));
            assert_eq!(
                find(&b, &short),
                last.get(short.as_str()).copied(),
                "{short}"
            );
        }
        for id in [
            "",
            "tt",
            "nm0000001",
            "tt99999999999",
            "TT0113277",
            "tt0113277x",
        ] {
            assert_eq!(find(&b, id), last.get(id).copied(), "{id:?}");
        }
    }
}
