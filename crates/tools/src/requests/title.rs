//! The title a request names, read once for `get_request_options` and `request_media`: a movie or
//! show through its catalogue (with the caller's content limits), an album or book through the
//! library instance it would go to (Lidarr by MusicBrainz release-group id, Readarr by the book
//! source's id), since no catalogue here answers those ids.

use adapters_library::Found;
use domain::{MediaId, MediaSource, MediaType};

use crate::{
    discover::{
        identity::{self, TitleType},
        limits::{Gate, not_available},
        lookup,
    },
    library::{
        source::{Source, kind_for, library_for},
        title,
    },
};
use governance::{context::Ctx, contract::ToolError};

/// A requested title as the request tools show and store it.
pub(crate) struct Asked<'c> {
    pub id: MediaId,
    /// The other ids the catalogue gives the title (imdb, tvdb), for finding it on media servers.
    pub external_ids: Vec<MediaId>,
    pub media_type: MediaType,
    pub title: String,
    pub year: Option<i32>,
    /// TV: how many seasons the catalogue knows.
    pub seasons: Option<u32>,
    /// The instance the title was read from (a catalogue, or the library for albums and books).
    pub read_from: String,
    /// Albums and books: the library instance that answered, which is where they go.
    pub library: Option<&'c Source>,
    /// Albums and books: that instance's lookup answer, so the request's destination does not
    /// look the title up again.
    pub found: Option<Found>,
}

impl Asked<'_> {
    /// "Heat (1995)".
    pub fn label(&self) -> String {
        match self.year {
            Some(y) => format!("{} ({y})", self.title),
            None => self.title.clone(),
        }
    }
}

/// Reads the title named by the pair. `instance_id` names a catalogue (movies and tv only);
/// `library_instance_id` the library instance albums and books are read from.
pub(crate) async fn read<'c>(
    ctx: &'c Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: MediaType,
    instance_id: Option<&str>,
    library_instance_id: Option<&str>,
) -> Result<Asked<'c>, ToolError> {
    let title_type = match media_type {
        MediaType::Movie => Some(TitleType::Movie),
        MediaType::Tv => Some(TitleType::Tv),
        MediaType::Music | MediaType::Book => None,
    };
    if let Some(title_type) = title_type {
        let looked = lookup::title(ctx, source, id, title_type, instance_id).await?;
        let d = looked.details;
        return Ok(Asked {
            id: d.summary.id,
            external_ids: d.summary.external_ids,
            media_type,
            title: d.summary.title,
            year: d.summary.year,
            seasons: d.seasons,
            read_from: looked.entry.id.clone(),
            library: None,
            found: None,
        });
    }
    let id = identity::required(source, id)?;
    if instance_id.is_some() {
        return Err(ToolError::invalid(
            "instance_id names a catalogue; albums and books are read from their library instance, so name it with library_instance_id",
        ));
    }
    let Some(library) = library_for(ctx, media_type, library_instance_id)? else {
        return Err(ToolError::new(
            governance::ErrorCode::Unsupported,
            format!(
                "requesting {} needs a {} instance; none is configured",
                if media_type == MediaType::Book {
                    "books"
                } else {
                    "albums"
                },
                kind_for(media_type)
            ),
        ));
    };
    let media = title::media_ref(id.media_source, &id.media_id, media_type)?;
    let found = title::find(library, &media).await?;
    if Gate::for_caller_would_filter(ctx) && !unrated_allowed(ctx, &found.genres) {
        return Err(not_available());
    }
    Ok(Asked {
        id: MediaId::new(media.source, media.id),
        external_ids: Vec::new(),
        media_type,
        title: found.title.clone(),
        year: found.year.and_then(|y| i32::try_from(y).ok()),
        seasons: None,
        read_from: library.id.clone(),
        library: Some(library),
        found: Some(found),
    })
}

/// Albums and books carry no ratings: a limited person's "block unrated" refuses them, and so
/// does any blocked genre among the service's genres (as `search_music` filters its rows).
fn unrated_allowed(ctx: &Ctx, genres: &[String]) -> bool {
    let limits = &ctx.caller.authority.person.limits;
    if limits.block_unrated {
        return false;
    }
    !genres.iter().any(|g| {
        limits
            .blocked_genres
            .iter()
            .any(|b| b.trim().eq_ignore_ascii_case(g.trim()))
    })
}
