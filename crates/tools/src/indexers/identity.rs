//! The identity a search asks for: `media_source` + `media_id` read through the catalogue as
//! every title tool reads it (its title and year, and the IMDb id of a builtin or TMDB movie),
//! or a TVDB id taken as it is; and whether a recognised release row is that title.

use adapters_indexers::{Query, SearchKind};
use domain::{MediaSource, MediaType};
use recognize::Recognition;

use crate::discover::{identity::TitleType, lookup};
use governance::{Ctx, ToolError};

/// What was asked, resolved.
#[derive(Debug, Default, Clone)]
pub(crate) struct Wanted {
    pub title: Option<String>,
    pub year: Option<i32>,
    pub imdb: Option<String>,
    pub tvdb: Option<u64>,
    pub tv: bool,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    /// "builtin tt0133093", for answers and download history.
    pub media: Option<String>,
    /// The identity asked for, as given: what a grab's request is found by.
    pub id: Option<domain::MediaId>,
}

impl Wanted {
    /// "The Matrix (1999)", "Show season 2 episode 3".
    pub(crate) fn label(&self) -> Option<String> {
        let mut out = self.title.clone().or_else(|| self.media.clone())?;
        if let Some(y) = self.year {
            out.push_str(&format!(" ({y})"));
        }
        match (self.season, self.episode) {
            (Some(s), Some(e)) => out.push_str(&format!(" S{s:02}E{e:02}")),
            (Some(s), None) => out.push_str(&format!(" season {s}")),
            _ => {}
        }
        Some(out)
    }

    /// The adapter's query: by id where there is one, with the title as text for indexers
    /// that search by name (or cannot search by that id: a feed's caps say).
    pub(crate) fn query(&self, text: Option<&str>, limit: u32) -> Query {
        let text = text.map(str::to_string).or_else(|| self.title.clone());
        Query {
            text,
            kind: if self.media.is_none() {
                SearchKind::Any
            } else if self.tv {
                SearchKind::Tv
            } else {
                SearchKind::Movie
            },
            imdb: self.imdb.clone(),
            tvdb: self.tvdb,
            season: self.season,
            episode: self.episode,
            limit,
        }
    }
}

/// Resolves the identity of a search; `None` when the search is by free text only.
pub(crate) async fn resolve(
    ctx: &Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: Option<TitleType>,
    season: Option<u32>,
    episode: Option<u32>,
) -> Result<Option<Wanted>, ToolError> {
    let Some(media) = crate::discover::identity::optional(source, id)? else {
        if season.is_some() || episode.is_some() {
            return Err(ToolError::invalid(
                "season and episode narrow a search by media identity: give media_source and media_id (a tv title) too",
            ));
        }
        return Ok(None);
    };
    if episode.is_some() && season.is_none() {
        return Err(ToolError::invalid("an episode needs its season"));
    }
    let tv = match (media.media_source, media_type) {
        (MediaSource::Tvdb, Some(TitleType::Movie)) => {
            return Err(ToolError::invalid(
                "a tvdb id names a tv title; give media_type tv, or a movie's builtin, imdb or tmdb id",
            ));
        }
        (MediaSource::Tvdb, _) => true,
        (_, Some(t)) => t == TitleType::Tv,
        (MediaSource::Tmdb, None) => {
            return Err(ToolError::invalid(
                "media_type is required with a tmdb id (movie or tv): tmdb numbers movies and shows separately",
            ));
        }
        _ => season.is_some(),
    };
    if !tv && season.is_some() {
        return Err(ToolError::invalid("season and episode are for tv titles"));
    }
    let label = format!("{} {}", media.media_source, media.media_id);
    let mut wanted = Wanted {
        tv,
        season,
        episode,
        media: Some(label),
        id: Some(media.clone()),
        ..Wanted::default()
    };
    match media.media_source {
        MediaSource::Tvdb => {
            let n = media.media_id.trim().parse::<u64>().ok().filter(|n| *n > 0);
            wanted.tvdb = Some(n.ok_or_else(|| {
                ToolError::invalid("invalid argument \"media_id\": a tvdb id is a number")
            })?);
            return Ok(Some(wanted));
        }
        MediaSource::Musicbrainz | MediaSource::Goodreads | MediaSource::Lrclib => {
            return Err(ToolError::invalid(
                "indexers are searched for movies and tv shows by identity: use media_source builtin, imdb, tmdb or tvdb, or a free query",
            ));
        }
        _ => {}
    }
    let title_type = if tv { TitleType::Tv } else { TitleType::Movie };
    let looked = lookup::title(
        ctx,
        Some(media.media_source),
        Some(media.media_id.clone()),
        title_type,
        None,
    )
    .await;
    match looked {
        Ok(l) => {
            let s = &l.details.summary;
            wanted.title = Some(s.title.clone());
            wanted.year = s.year;
            wanted.imdb = std::iter::once(&s.id)
                .chain(&s.external_ids)
                .find(|m| {
                    matches!(m.media_source, MediaSource::Imdb | MediaSource::Builtin)
                        && m.media_id.starts_with("tt")
                })
                .map(|m| m.media_id.clone())
                .filter(|_| s.media_type == MediaType::Movie);
        }
        // An IMDb id is searched as it is when no catalogue can name its title.
        Err(_) if media.media_source == MediaSource::Imdb => {}
        Err(e) => return Err(e),
    }
    if media.media_source == MediaSource::Imdb && wanted.imdb.is_none() {
        let id = media.media_id.trim();
        if !(id.starts_with("tt") && id.len() > 2 && id[2..].chars().all(|c| c.is_ascii_digit())) {
            return Err(ToolError::invalid(
                "invalid argument \"media_id\": an imdb id reads like tt0133093",
            ));
        }
        wanted.imdb = Some(id.to_string());
    }
    Ok(Some(wanted))
}

/// Lowercase words of letters and digits, a leading article dropped.
fn normal(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let start = usize::from(
        matches!(words.first().map(String::as_str), Some("the" | "a" | "an")) && words.len() > 1,
    );
    words[start..].join(" ")
}

/// Why a row is not the title asked for, or `None` when nothing says it is another.
pub(crate) fn mismatch(
    wanted: &Wanted,
    r: &Recognition,
    row_imdb: Option<&str>,
    row_tvdb: Option<u64>,
) -> Option<String> {
    if let (Some(w), Some(got)) = (&wanted.imdb, row_imdb)
        && w != got
    {
        return Some(format!("the indexer tags it as {got}"));
    }
    if let (Some(w), Some(got)) = (wanted.tvdb, row_tvdb)
        && w != got
    {
        return Some(format!("the indexer tags it as tvdb {got}"));
    }
    if let (Some(w), Some(got)) = (&wanted.title, &r.title) {
        let (w, g) = (normal(w), normal(got));
        if !w.is_empty() && !g.is_empty() && w != g {
            return Some(format!("its name reads as another title (\"{got}\")"));
        }
    }
    if let (Some(w), Some(got)) = (wanted.year, r.year)
        && (i64::from(w) - i64::from(got)).abs() > 1
    {
        return Some(format!("its year is {got}"));
    }
    if let Some(s) = wanted.season
        && !r.season.is_empty()
        && !r.season.contains(&s)
    {
        return Some(format!(
            "it is season {}",
            r.season
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(e) = wanted.episode
        && !r.episode.is_empty()
        && !r.episode.contains(&e)
    {
        return Some(format!(
            "it is episode {}",
            r.episode
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted() -> Wanted {
        Wanted {
            title: Some("The Matrix".into()),
            year: Some(1999),
            imdb: Some("tt0133093".into()),
            media: Some("builtin tt0133093".into()),
            ..Wanted::default()
        }
    }

    #[test]
    fn rows_of_another_title_are_named() {
        let w = wanted();
        let ok = recognize::recognize("The.Matrix.1999.1080p.BluRay.x264-GRP");
        assert_eq!(mismatch(&w, &ok, Some("tt0133093"), None), None);
        let other = recognize::recognize("The.Matrix.Reloaded.2003.1080p.BluRay.x264-GRP");
        assert!(mismatch(&w, &other, None, None).is_some());
        let tagged = recognize::recognize("The.Matrix.1999.720p.WEB-X");
        assert_eq!(
            mismatch(&w, &tagged, Some("tt0234215"), None).as_deref(),
            Some("the indexer tags it as tt0234215")
        );
        let year = recognize::recognize("The.Matrix.2021.1080p.WEB-X");
        assert_eq!(
            mismatch(&w, &year, None, None).as_deref(),
            Some("its year is 2021")
        );
    }
}
