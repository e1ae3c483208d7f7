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
    /// Film positions sorted by IMDb id (stable: the last of equal ids answers).
    by_id: Box<[Pos]>,
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
        let mut by_id: Box<[Pos]> = (0..loaded.films.len() as u32).map(films::pos).collect();
        by_id.sort_by(|&a, &b| {
            let films = &loaded.films;
            films
                .get(a.into())
                .imdb_id()
                .cmp(films.get(b.into()).imdb_id())
        });
        let mut builtin = Builtin {
            films: loaded.films,
            folded_genres: loaded.genres.iter().map(|g| text::fold(g)).collect(),
            genres: loaded.genres,
            index,
            orders,
            broad: Broad::default(),
            by_id,
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
        let after = self
            .by_id
            .partition_point(|&i| self.films.get(i.into()).imdb_id() <= key);
        after
            .checked_sub(1)
            .map(|at| u32::from(self.by_id[at]))
            .filter(|&i| self.films.get(i).imdb_id() == key)
            .ok_or_else(|| Error::NotFound {
                what: "title",
                id: id.to_string(),
                catalogue: MediaSource::Builtin,
            })
    }
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
