//! Content limits: the gate every discovery answer passes for a limited person. It drops what
//! the limits forbid and counts it (never saying which), reads a rating from the title's details
//! when a row came without one (bounded), and fails the call when limits or ratings cannot be
//! read: a limited person never gets an unchecked list. Owners and admins are never filtered.

use std::{collections::HashMap, sync::Arc};

use adapters_catalogue::{
    Catalogue, Certification, CertificationCeiling, Error as CatalogueError, MusicItem,
    TitleDetails, TitleSummary,
};
use domain::MediaType;
use futures::{StreamExt, stream};
use store::ContentLimits;

use super::{
    catalogues::Entry,
    ratings::{Ladder, is_unrated_label},
    render,
};
use governance::ErrorCode;
use governance::{context::Ctx, contract::ToolError};

/// Rows whose rating is read from details per call, at most; rows past it are hidden and counted.
const MAX_RESOLVE: usize = 20;
/// Details read at once while resolving.
const RESOLVE_CONCURRENCY: usize = 4;

/// What a details call answers for a title the limits forbid, word for word.
pub const NOT_AVAILABLE: &str = "That title is not available for this account.";

pub(crate) fn not_available() -> ToolError {
    ToolError::new(ErrorCode::NotAvailable, NOT_AVAILABLE)
}

fn unreadable(instance: &str, why: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        super::LIMITS_UNREADABLE,
        format!(
            "this account's content limits cannot be checked against the catalogue \"{instance}\" ({why}), so nothing is shown; the owner can adjust the limits with `marquee people set-limits`"
        ),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Allow,
    Hide,
    /// The row's rating for the limits' region is not known yet.
    NeedRating,
}

/// Rows that passed, and how many were hidden.
pub(crate) struct Filtered<T> {
    pub rows: Vec<T>,
    pub hidden: u32,
}

/// A limited person's gate on one catalogue.
pub(crate) struct Gate<'e> {
    limits: ContentLimits,
    /// The rating region, upper case ("US" when the limits name none).
    pub region: String,
    entry: &'e Entry,
    catalogue: Arc<dyn Catalogue>,
    /// Ladders read so far, per media type.
    ladders: HashMap<MediaType, Arc<Ladder>>,
    /// Caps' ranks read so far, per media type.
    cap_ranks: HashMap<MediaType, Option<u32>>,
    /// The blocked genres, folded ([`fold`]).
    blocked: Vec<String>,
}

/// Lower-case letters and digits only: "Sci-Fi" and "sci fi" compare equal.
fn fold(s: &str) -> String {
    let f: String = if s.is_ascii() {
        // The same letters as below, without decoding characters.
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect()
    } else {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    match f.as_str() {
        "scifi" | "sf" => "sciencefiction".into(),
        _ => f,
    }
}

/// Whether `fold(s) == folded`, for a `folded` that [`fold`] wrote, without writing `fold(s)`.
fn folds_to(s: &str, folded: &str) -> bool {
    let letters = |s: &str, target: &str| -> bool {
        if s.is_ascii() {
            s.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| b.to_ascii_lowercase())
                .eq(target.bytes())
        } else {
            s.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .eq(target.chars())
        }
    };
    match folded {
        "sciencefiction" => ["sciencefiction", "scifi", "sf"]
            .iter()
            .any(|t| letters(s, t)),
        _ => letters(s, folded),
    }
}

/// True when a row's genre is a blocked one (`blocked`: folded, see [`fold`]), or a combined
/// genre ("War & Politics") holds it. Folds nothing into new strings: a kid's page judges every
/// genre of the catalogue.
fn genre_blocked(blocked: &[String], genre: &str) -> bool {
    let parts = genre.split(['&', '/', ',']).flat_map(|p| p.split(" and "));
    std::iter::once(genre)
        .chain(parts)
        .any(|g| blocked.iter().any(|b| !b.is_empty() && folds_to(g, b)))
}

/// The region's rating the row carries, if it is for `region`.
fn for_region<'c>(cert: &'c Certification, region: &str) -> Option<Option<&'c str>> {
    match cert {
        Certification::Rated { region: r, rating } if r.eq_ignore_ascii_case(region) => {
            Some((!is_unrated_label(rating)).then_some(rating.as_str()))
        }
        Certification::Unrated { region: None } => Some(None),
        Certification::Unrated { region: Some(r) } if r.eq_ignore_ascii_case(region) => Some(None),
        _ => None,
    }
}

impl<'e> Gate<'e> {
    /// The caller's gate on `entry`, or `None` when nothing is filtered (admins, owners, no limits).
    pub fn for_caller(
        ctx: &Ctx,
        entry: &'e Entry,
        catalogue: Arc<dyn Catalogue>,
    ) -> Option<Gate<'e>> {
        if !Gate::for_caller_would_filter(ctx) {
            return None;
        }
        let person = &ctx.caller.authority.person;
        let limits = person.limits.clone();
        let region = limits
            .rating_region
            .as_deref()
            .map(|r| r.trim().to_ascii_uppercase())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "US".into());
        Some(Gate {
            blocked: limits.blocked_genres.iter().map(|g| fold(g)).collect(),
            limits,
            region,
            entry,
            catalogue,
            ladders: HashMap::new(),
            cap_ranks: HashMap::new(),
        })
    }

    /// Whether the caller's answers pass a gate at all.
    pub fn for_caller_would_filter(ctx: &Ctx) -> bool {
        ctx.caller.scope.content_limited
    }

    fn cap_name(&self, media_type: MediaType) -> Option<&str> {
        match media_type {
            MediaType::Movie => self.limits.max_movie_cert.as_deref(),
            MediaType::Tv => self.limits.max_tv_rating.as_deref(),
            _ => None,
        }
    }

    async fn ladder(&mut self, media_type: MediaType) -> Result<Arc<Ladder>, ToolError> {
        if let Some(l) = self.ladders.get(&media_type) {
            return Ok(l.clone());
        }
        let ladder = match self
            .catalogue
            .certifications(media_type, &self.region)
            .await
        {
            Ok(list) => Ladder::from_list(&self.region, &list),
            Err(CatalogueError::Unsupported { .. }) if self.region == "US" => {
                Ladder::us_fallback(media_type).ok_or_else(|| {
                    unreadable(&self.entry.id, "it has no rating list for this media type")
                })?
            }
            Err(e @ CatalogueError::Backend { .. }) => {
                return Err(render::catalogue_error(e, &self.entry.id));
            }
            Err(e) => return Err(unreadable(&self.entry.id, e)),
        };
        let ladder = Arc::new(ladder);
        self.ladders.insert(media_type, ladder.clone());
        Ok(ladder)
    }

    /// The cap for a media type as (spelling, rank); fails closed when it is not on the region's list.
    async fn cap(&mut self, media_type: MediaType) -> Result<Option<(String, u32)>, ToolError> {
        let Some(cap) = self.cap_name(media_type).map(str::to_owned) else {
            return Ok(None);
        };
        let ladder = self.ladder(media_type).await?;
        match (ladder.rank(&cap), ladder.spelling(&cap)) {
            (Some(rank), Some(spelling)) => Ok(Some((spelling.to_string(), rank))),
            _ => Err(unreadable(
                &self.entry.id,
                format!(
                    "the limit \"{cap}\" is not a {} rating; valid: {}",
                    ladder.region,
                    ladder.names().join(", ")
                ),
            )),
        }
    }

    /// The cap's rank for a media type, read once per call (every row asks it).
    async fn cap_rank(&mut self, media_type: MediaType) -> Result<Option<u32>, ToolError> {
        if let Some(&rank) = self.cap_ranks.get(&media_type) {
            return Ok(rank);
        }
        let rank = self.cap(media_type).await?.map(|(_, rank)| rank);
        self.cap_ranks.insert(media_type, rank);
        Ok(rank)
    }

    async fn verdict(
        &mut self,
        media_type: MediaType,
        genres: &[String],
        cert: &Certification,
    ) -> Result<Verdict, ToolError> {
        if genres.iter().any(|g| self.genre_is_blocked(g)) {
            return Ok(Verdict::Hide);
        }
        let cap = self.cap_rank(media_type).await?;
        if cap.is_none() && !self.limits.block_unrated {
            return Ok(Verdict::Allow);
        }
        let Some(rating) = for_region(cert, &self.region) else {
            return Ok(Verdict::NeedRating);
        };
        Ok(match (rating, cap) {
            (None, _) if self.limits.block_unrated => Verdict::Hide,
            (None, _) => Verdict::Allow,
            (Some(_), None) => Verdict::Allow,
            (Some(rating), Some(max)) => {
                let ladder = self.ladder(media_type).await?;
                match ladder.rank(rating) {
                    Some(rank) if rank <= max => Verdict::Allow,
                    // Stricter than the cap, or a rating the region's list does not know.
                    _ => Verdict::Hide,
                }
            }
        })
    }

    /// Whether a row's genre is blocked ([`genre_blocked`]).
    fn genre_is_blocked(&self, genre: &str) -> bool {
        genre_blocked(&self.blocked, genre)
    }

    /// The ceiling to push into an upstream query for this media type, when there is a cap.
    pub async fn ceiling(
        &mut self,
        media_type: MediaType,
    ) -> Result<Option<CertificationCeiling>, ToolError> {
        Ok(self
            .cap(media_type)
            .await?
            .map(|(max, _)| CertificationCeiling {
                region: self.region.clone(),
                max,
            }))
    }

    /// The catalogue's genres for `media_type` that the blocked genres forbid, spelled as its genre
    /// list spells them, to push into an upstream query (the rows are still checked on the answer).
    /// Empty when nothing is blocked or the catalogue keeps no genre list.
    pub async fn excluded_genres(
        &mut self,
        media_type: MediaType,
    ) -> Result<Vec<String>, ToolError> {
        if self.blocked.is_empty() {
            return Ok(Vec::new());
        }
        match self.catalogue.genres(media_type).await {
            Ok(mut names) => {
                names.retain(|g| self.genre_is_blocked(g));
                Ok(names)
            }
            Err(CatalogueError::Unsupported { .. }) => Ok(Vec::new()),
            Err(e) => Err(render::catalogue_error(e, &self.entry.id)),
        }
    }

    /// The rank of a rating on the region's ladder (for combining a caller's ceiling with the cap).
    pub async fn rank(
        &mut self,
        media_type: MediaType,
        rating: &str,
    ) -> Result<Option<u32>, ToolError> {
        Ok(self.ladder(media_type).await?.rank(rating))
    }

    /// Drops forbidden rows; rows without a rating for the region get it from details first.
    pub async fn titles(
        &mut self,
        rows: Vec<TitleSummary>,
    ) -> Result<Filtered<TitleSummary>, ToolError> {
        let mut slots: Vec<Option<TitleSummary>> = Vec::with_capacity(rows.len());
        let mut unresolved: Vec<usize> = Vec::new();
        let mut hidden = 0;
        for mut row in rows {
            if for_region(&row.certification, &self.region).is_none()
                && let Some(cached) = self
                    .entry
                    .ratings
                    .get(&row.id, row.media_type, &self.region)
            {
                row.certification = cached;
            }
            match self
                .verdict(row.media_type, &row.genres, &row.certification)
                .await?
            {
                Verdict::Allow => slots.push(Some(row)),
                Verdict::Hide => {
                    hidden += 1;
                    slots.push(None);
                }
                Verdict::NeedRating => {
                    unresolved.push(slots.len());
                    slots.push(Some(row));
                }
            }
        }
        for &i in unresolved.iter().skip(MAX_RESOLVE) {
            slots[i] = None;
            hidden += 1;
        }
        let asks: Vec<(usize, TitleSummary)> = unresolved
            .iter()
            .take(MAX_RESOLVE)
            .filter_map(|&i| slots[i].clone().map(|r| (i, r)))
            .collect();
        let catalogue = self.catalogue.clone();
        let region = self.region.clone();
        let answers: Vec<(usize, TitleSummary, Result<TitleDetails, CatalogueError>)> =
            stream::iter(asks)
                .map(|(i, row)| {
                    let catalogue = catalogue.clone();
                    let region = region.clone();
                    async move {
                        let details = catalogue
                            .title_details(&row.id, row.media_type, &region)
                            .await;
                        (i, row, details)
                    }
                })
                .buffered(RESOLVE_CONCURRENCY)
                .collect()
                .await;
        for (i, mut row, details) in answers {
            let details = match details {
                Ok(d) => d,
                Err(CatalogueError::NotFound { .. }) => {
                    slots[i] = None;
                    hidden += 1;
                    continue;
                }
                Err(e) => return Err(render::catalogue_error(e, &self.entry.id)),
            };
            let cert = details.summary.certification;
            self.entry
                .ratings
                .put(&row.id, row.media_type, &self.region, cert.clone());
            row.certification = cert;
            match self
                .verdict(row.media_type, &row.genres, &row.certification)
                .await?
            {
                Verdict::Allow => slots[i] = Some(row),
                Verdict::Hide => {
                    slots[i] = None;
                    hidden += 1;
                }
                Verdict::NeedRating => {
                    return Err(unreadable(
                        &self.entry.id,
                        format!("it does not rate titles for the region {}", self.region),
                    ));
                }
            }
        }
        Ok(Filtered {
            rows: slots.into_iter().flatten().collect(),
            hidden,
        })
    }

    /// Whether a title's details pass; a rating that cannot be read fails the call.
    pub async fn allows(&mut self, details: &TitleDetails) -> Result<bool, ToolError> {
        let s = &details.summary;
        match self
            .verdict(s.media_type, &s.genres, &s.certification)
            .await?
        {
            Verdict::Allow => Ok(true),
            Verdict::Hide => Ok(false),
            Verdict::NeedRating => Err(unreadable(
                &self.entry.id,
                format!("it does not rate titles for the region {}", self.region),
            )),
        }
    }

    /// Music carries no ratings: blocked genres (tags) hide a row, and so does "block unrated".
    pub fn music(&mut self, mut rows: Vec<MusicItem>) -> Filtered<MusicItem> {
        let before = rows.len();
        if self.limits.block_unrated {
            rows.clear();
        }
        rows.retain(|m| !m.genres.iter().any(|g| self.genre_is_blocked(g)));
        Filtered {
            hidden: (before - rows.len()) as u32,
            rows,
        }
    }
}

/// Rows that carry no rating at all (books found through a library's own lookup) through the
/// caller's limits, as [`Gate::music`] treats music: every row hidden when the limits hide
/// unrated titles, else the rows of a blocked genre; all hidden ones counted. Unchanged when
/// the caller is not limited.
pub(crate) fn unrated_rows<T>(
    ctx: &Ctx,
    mut rows: Vec<T>,
    genres: impl Fn(&T) -> &[String],
) -> Filtered<T> {
    if !Gate::for_caller_would_filter(ctx) {
        return Filtered { rows, hidden: 0 };
    }
    let limits = &ctx.caller.authority.person.limits;
    let before = rows.len();
    if limits.block_unrated {
        rows.clear();
    }
    let blocked: Vec<String> = limits.blocked_genres.iter().map(|g| fold(g)).collect();
    rows.retain(|r| !genres(r).iter().any(|g| genre_blocked(&blocked, g)));
    Filtered {
        hidden: (before - rows.len()) as u32,
        rows,
    }
}

/// Titles through an optional gate: unchanged (nothing hidden) when the caller is not limited.
pub(crate) async fn pass_titles(
    gate: &mut Option<Gate<'_>>,
    rows: Vec<TitleSummary>,
) -> Result<Filtered<TitleSummary>, ToolError> {
    match gate {
        Some(g) => g.titles(rows).await,
        None => Ok(Filtered { rows, hidden: 0 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genres_fold_and_combined_genres_are_caught() {
        let blocked: Vec<String> = ["Horror", "War", "Sci-Fi"]
            .iter()
            .map(|g| fold(g))
            .collect();
        assert!(genre_blocked(&blocked, "horror"));
        assert!(genre_blocked(&blocked, "War & Politics"));
        assert!(genre_blocked(&blocked, "Science Fiction"));
        assert!(genre_blocked(&blocked, "Sci-Fi & Fantasy"));
        assert!(!genre_blocked(&blocked, "Warriors"));
        assert!(!genre_blocked(&blocked, "Animation"));
    }

    #[test]
    fn judging_a_genre_in_place_equals_comparing_its_folded_parts() {
        // The judgement as it was first written: every part folded into a new string.
        let by_folding = |blocked: &[String], genre: &str| -> bool {
            let parts = genre
                .split(['&', '/', ','])
                .flat_map(|p| p.split(" and "))
                .map(fold);
            std::iter::once(fold(genre))
                .chain(parts)
                .any(|g| !g.is_empty() && blocked.contains(&g))
        };
        let genres = [
            "Horror",
            "horror",
            "HORROR!",
            "Sci-Fi",
            "SF",
            "Science Fiction",
            "sci fi & Fantasy",
            "War & Politics",
            "Action and Adventure",
            "Mystery/Thriller",
            "R&B",
            "Comédie",
            "Comédie Dramatique",
            "Kids",
            "",
            " & ",
            "Film-Noir",
            "Drama, Romance",
            "scifi",
            "Horreur",
            "HorrorComedy",
        ];
        let lists: [&[&str]; 6] = [
            &["Horror"],
            &["Sci-Fi"],
            &["science fiction", "war"],
            &["comédie dramatique"],
            &["", "Romance"],
            &["thriller", "r&b", "Kids"],
        ];
        for list in lists {
            let blocked: Vec<String> = list.iter().map(|g| fold(g)).collect();
            for genre in genres {
                assert_eq!(
                    genre_blocked(&blocked, genre),
                    by_folding(&blocked, genre),
                    "{genre:?} against {list:?}"
                );
            }
        }
        assert!(genre_blocked(&[fold("Sci-Fi")], "Science Fiction"));
        assert!(genre_blocked(&[fold("war")], "War & Politics"));
        assert!(!genre_blocked(&[fold("war")], "Warriors"));
    }

    #[test]
    fn folding_ascii_bytes_equals_folding_characters() {
        let by_chars = |s: &str| -> String {
            let f: String = s
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            match f.as_str() {
                "scifi" | "sf" => "sciencefiction".into(),
                _ => f,
            }
        };
        let every_byte: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
        let names = [
            "Sci-Fi",
            "SF",
            "War & Politics",
            "TV Movie",
            "Film-Noir",
            "R&B",
            "123 Go!",
        ];
        for s in names
            .iter()
            .copied()
            .chain(every_byte.iter().map(String::as_str))
        {
            assert_eq!(fold(s), by_chars(s), "{s:?}");
        }
        assert_eq!(fold("Comédie Dramatique"), "comédiedramatique");
    }

    #[test]
    fn a_rating_counts_only_for_the_limits_region() {
        let us = Certification::Rated {
            region: "US".into(),
            rating: "PG".into(),
        };
        assert_eq!(for_region(&us, "US"), Some(Some("PG")));
        assert_eq!(for_region(&us, "GB"), None);
        let nr = Certification::Rated {
            region: "US".into(),
            rating: "NR".into(),
        };
        assert_eq!(for_region(&nr, "US"), Some(None));
        assert_eq!(for_region(&Certification::NotFetched, "US"), None);
        assert_eq!(
            for_region(&Certification::Unrated { region: None }, "DE"),
            Some(None)
        );
    }
}
