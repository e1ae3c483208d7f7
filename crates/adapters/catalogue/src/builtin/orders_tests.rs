//! The precomputed orders against the plain way: for a few hundred random filter combinations
//! (seeded, so a failure repeats), browsing through the orders gives the same pages as filtering
//! the whole catalogue and sorting it; recommendations from the people and genre orders equal a
//! scan of every film; ranking by title rank equals ranking by the folded title.

use std::{cmp::Reverse, sync::Arc};

use domain::{MediaId, MediaSource, MediaType};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::{Builtin, films::List, filter::FilmFilter};
use crate::{BrowseFilters, Catalogue, CertificationCeiling, PAGE_SIZE};

fn catalogue() -> Arc<Builtin> {
    Builtin::shared().expect("the shipped data loads")
}

/// The plain browse: every film through the filter, then sorted newest first, then by folded title.
fn browse_reference(b: &Builtin, filter: &FilmFilter) -> Vec<u32> {
    let mut docs: Vec<u32> = (0..b.films.len() as u32)
        .filter(|&i| filter.allows(b.films.get(i)))
        .collect();
    docs.sort_by(|&x, &y| {
        let (fx, fy) = (b.films.get(x), b.films.get(y));
        fy.year().cmp(&fx.year()).then_with(|| {
            let titles = &b.index.folded_titles;
            titles.get(x).cmp(titles.get(y))
        })
    });
    docs
}

/// The plain recommendations: every film scored, then sorted.
fn similar_reference(b: &Builtin, of: u32) -> Vec<u32> {
    let f = b.films.get(of);
    let shared = |g: super::films::Film<'_>, which| {
        let mine = f.list(which);
        g.list(which).iter().filter(|x| mine.contains(x)).count()
    };
    let mut scored = Vec::new();
    for (i, g) in b.films.iter().enumerate() {
        if i as u32 == of || (g.title_id() == f.title_id() && g.year() == f.year()) {
            continue;
        }
        let (directors, cast) = (shared(g, List::Directors), shared(g, List::Cast));
        let genres = shared(g, List::Genres);
        let all_genres = !f.genres().is_empty() && genres == f.genres().len();
        if directors + cast == 0 && !all_genres {
            continue;
        }
        let score = 3 * directors + 2 * cast + genres;
        scored.push((
            Reverse(score),
            (g.year() - f.year()).abs(),
            g.title(),
            i as u32,
        ));
    }
    scored.sort_unstable();
    scored.into_iter().map(|s| s.3).collect()
}

/// Random browse filters over what the data holds: genres required and refused, year ranges,
/// languages, certification ceilings, runtimes, and a page.
fn random_filters(rng: &mut StdRng, genres: &[String]) -> BrowseFilters {
    let mut f = BrowseFilters::new(MediaType::Movie);
    let pick = |rng: &mut StdRng| genres[rng.random_range(0..genres.len())].clone();
    for _ in 0..rng.random_range(0..3) {
        f.genres.push(pick(rng));
    }
    if rng.random_bool(0.3) {
        f.without_genres.push(pick(rng));
    }
    if rng.random_bool(0.6) {
        let from = rng.random_range(1935..2016);
        f.year_from = rng.random_bool(0.8).then_some(from);
        f.year_to = rng.random_bool(0.8).then(|| from + rng.random_range(0..30));
    }
    if rng.random_bool(0.2) {
        f.original_language = Some(["en", "fr", "it", "ja", "de"][rng.random_range(0..5)].into());
    }
    if rng.random_bool(0.3) {
        f.certification = Some(CertificationCeiling {
            region: "US".into(),
            max: ["G", "PG", "PG-13", "R"][rng.random_range(0..4)].into(),
        });
    }
    if rng.random_bool(0.2) {
        f.runtime_min = Some(rng.random_range(60..120));
    }
    f.page = if rng.random_bool(0.7) {
        1
    } else {
        rng.random_range(1..30)
    };
    f
}

#[tokio::test]
async fn browse_orders_give_the_rows_of_filtering_and_sorting_everything() {
    let b = catalogue();
    let genres = b.genres(MediaType::Movie).await.expect("genres");
    let mut rng = StdRng::seed_from_u64(14);
    let mut nonempty = 0;
    for _ in 0..400 {
        let filters = random_filters(&mut rng, &genres);
        let filter = b
            .resolve(&filters)
            .expect("filters built from the data resolve");
        let all = browse_reference(&b, &filter);
        let start = (filters.page as usize - 1) * PAGE_SIZE;
        let expected: Vec<&str> = all
            .iter()
            .skip(start)
            .take(PAGE_SIZE)
            .map(|&i| b.films.get(i).imdb_id())
            .collect();
        let page = b.browse(&filters).await.expect("browse");
        let got: Vec<&str> = page.items.iter().map(|t| t.id.media_id.as_str()).collect();
        assert_eq!(got, expected, "rows for {filters:?}");
        assert_eq!(
            page.total_results,
            all.len() as u64,
            "total for {filters:?}"
        );
        nonempty += usize::from(!got.is_empty());
    }
    assert!(nonempty > 100, "only {nonempty} of 400 filters found films");
}

#[tokio::test]
async fn recommendations_from_the_orders_equal_a_scan_of_every_film() {
    let b = catalogue();
    let mut rng = StdRng::seed_from_u64(1995);
    for _ in 0..300 {
        let of = rng.random_range(0..b.films.len() as u32);
        let all = similar_reference(&b, of);
        // A page, five pages, everything, and counts that end inside a year's films.
        for want in [1, 7, PAGE_SIZE, 5 * PAGE_SIZE, usize::MAX] {
            let first: Vec<u32> = all.iter().copied().take(want).collect();
            assert_eq!(b.similar(of, want), (first, all.len()), "film {of}, {want}");
        }
    }
    // Films listed twice (same title, same year): the other listing is left out of the count.
    let mut listings = std::collections::HashMap::new();
    for i in 0..b.films.len() as u32 {
        let f = b.films.get(i);
        *listings.entry((f.title_id(), f.year())).or_insert(0) += 1;
    }
    let mut twins: Vec<u32> = (0..b.films.len() as u32)
        .filter(|&i| {
            let f = b.films.get(i);
            listings[&(f.title_id(), f.year())] > 1
        })
        .collect();
    assert!(!twins.is_empty(), "the data has films listed twice");
    twins.truncate(60);
    for of in twins {
        let all = similar_reference(&b, of);
        for want in [1, PAGE_SIZE, usize::MAX] {
            let first: Vec<u32> = all.iter().copied().take(want).collect();
            assert_eq!(b.similar(of, want), (first, all.len()), "film {of}, {want}");
        }
    }
    let heat = MediaId::new(MediaSource::Builtin, "tt0113277");
    let page = b.recommendations(&heat, MediaType::Movie, 1).await;
    assert_eq!(page.expect("heat").items.len(), PAGE_SIZE);
}

#[test]
fn every_film_keeps_the_rank_of_its_certification() {
    let b = catalogue();
    let mut ranked = 0;
    for f in b.films.iter() {
        let expected = f.certification().and_then(super::tables::us_order);
        assert_eq!(f.cert_rank(), expected, "{}", f.imdb_id());
        ranked += usize::from(expected.is_some());
    }
    assert!(
        ranked > 1000,
        "only {ranked} films have a ranked certification"
    );
}

#[test]
fn title_ranks_order_films_as_their_folded_titles_do() {
    let b = catalogue();
    let mut rng = StdRng::seed_from_u64(7);
    let titles = &b.index.folded_titles;
    for _ in 0..20_000 {
        let x = rng.random_range(0..b.films.len() as u32);
        let y = rng.random_range(0..b.films.len() as u32);
        let ranks = b.orders.title_rank[x as usize].cmp(&b.orders.title_rank[y as usize]);
        assert_eq!(ranks, titles.get(x).cmp(titles.get(y)), "films {x} and {y}");
    }
}
