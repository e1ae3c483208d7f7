//! `get_lyrics`: a song's words from a lyrics source (LRCLIB), plain or time-stamped. The song
//! is named by an LRCLIB record id, by a MusicBrainz recording (its title, credited artist and
//! length are read from MusicBrainz and looked up by that signature), or by track and artist.
//! Lyrics carry no rating: a person whose limits hide unrated titles gets none.

use adapters_catalogue::{Lyrics, LyricsQuery, MusicKind};
use domain::{Capability, InstanceKind, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    catalogues::{Entry, pick},
    identity,
    limits::{not_available, unrated_rows},
    render,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetLyrics;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// lrclib (a lyrics record, as search_music on a lyrics instance shows it) or musicbrainz (a
    /// recording); with media_id. Or give track and artist instead.
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source.
    #[serde(default)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// The song's title, with artist (instead of media_source + media_id).
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub track: Option<String>,
    /// The performing artist, with track.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub artist: Option<String>,
    /// The album, to pick the right recording among several.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub album: Option<String>,
    /// true for time-stamped lines ("[00:12.30] …") where the source has them (default false: plain lines).
    #[serde(default)]
    pub synced: Option<bool>,
    /// The lyrics source to read, as list_instances shows it (default: the lrclib instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

/// What the answer carries.
#[derive(Serialize, JsonSchema)]
struct LyricsData<'a> {
    instance_id: &'a str,
    media_source: MediaSource,
    media_id: &'a str,
    track: &'a str,
    artist: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    album: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_seconds: Option<f64>,
    /// The song has no words.
    instrumental: bool,
    /// "synced" (time-stamped lines) or "plain".
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'static str>,
    /// The words; absent for an instrumental or a song the source holds no words for.
    #[serde(skip_serializing_if = "Option::is_none")]
    lyrics: Option<&'a str>,
    /// Whether time-stamped lines exist (ask with synced true).
    synced_available: bool,
}

impl Tool for GetLyrics {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<LyricsData<'static>>);
    const META: Meta = Meta {
        name: "get_lyrics",
        title: "Song lyrics",
        description: "Reads a song's lyrics from LRCLIB, plain or time-stamped (synced true): name the song by media_source lrclib or musicbrainz (a recording) with media_id, or by track and artist (album narrows it).",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Metadata),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let named = identity::optional(input.media_source, input.media_id.clone())?;
        if named.is_some() && (input.track.is_some() || input.artist.is_some()) {
            return Err(ToolError::invalid(
                "name the song one way: media_source + media_id, or track + artist",
            ));
        }
        if let Some(id) = &named
            && !matches!(
                id.media_source,
                MediaSource::Lrclib | MediaSource::Musicbrainz
            )
        {
            return Err(ToolError::invalid(format!(
                "media_source \"{}\" names no song; use lrclib or musicbrainz (a recording), or give track and artist",
                id.media_source
            )));
        }
        if named.is_none() && (input.track.is_none() || input.artist.is_none()) {
            return Err(ToolError::invalid(
                "name the song: media_source + media_id, or track and artist together",
            ));
        }
        let entry = pick(
            ctx,
            input.instance_id.as_deref(),
            &[InstanceKind::Lrclib],
            "lyrics",
        )?;
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || async {
                let query = match named {
                    Some(id) if id.media_source == MediaSource::Musicbrainz => {
                        recording(ctx, id).await?
                    }
                    Some(id) => LyricsQuery::Id(id),
                    None => LyricsQuery::Song {
                        track: input.track.clone().unwrap_or_default(),
                        artist: input.artist.clone().unwrap_or_default(),
                        album: input.album.clone(),
                        duration: None,
                    },
                };
                lyrics(ctx, entry, &query, input.synced.unwrap_or(false)).await
            })
            .await
    }
}

/// A MusicBrainz recording as the signature a lyrics source looks songs up by.
async fn recording(ctx: &Ctx, id: domain::MediaId) -> Result<LyricsQuery, ToolError> {
    let mb = pick(
        ctx,
        None,
        &[InstanceKind::Musicbrainz],
        "reading a MusicBrainz recording",
    )?;
    let item = mb
        .catalogue()
        .await?
        .music_details(&id, MusicKind::Recording)
        .await
        .map_err(|e| render::catalogue_error(e, &mb.id))?;
    let artist = item.artist.ok_or_else(|| {
        ToolError::invalid(format!(
            "MusicBrainz credits no artist on {id}; give track and artist instead"
        ))
    })?;
    Ok(LyricsQuery::Song {
        track: item.title,
        artist,
        album: None,
        duration: item.length_ms.map(|ms| ms as f64 / 1000.0),
    })
}

async fn lyrics(
    ctx: &Ctx,
    entry: &Entry,
    query: &LyricsQuery,
    synced: bool,
) -> Result<Output, ToolError> {
    let found = entry
        .catalogue()
        .await?
        .lyrics(query)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let passed = unrated_rows(ctx, vec![found], |_: &Lyrics| -> &[String] { &[] });
    let Some(l) = passed.rows.into_iter().next() else {
        return Err(not_available());
    };
    let (format, words) = match (synced, &l.synced, &l.plain) {
        (true, Some(s), _) => (Some("synced"), Some(s.as_str())),
        (_, _, Some(p)) => (Some("plain"), Some(p.as_str())),
        (false, Some(s), None) => (Some("synced"), Some(s.as_str())),
        _ => (None, None),
    };
    let mut summary = format!("\"{}\" by {}", l.track, l.artist);
    if let Some(album) = &l.album {
        summary.push_str(&format!(" (from {album})"));
    }
    summary.push_str(&match (l.instrumental, format) {
        (true, _) => " is an instrumental: it has no words.".to_string(),
        (false, Some(f)) => format!(": {f} lyrics, read from {}.", entry.id),
        (false, None) => format!(": {} holds no words for it.", entry.id),
    });
    if synced && format == Some("plain") {
        summary.push_str(" No time-stamped lines exist for it.");
    }
    let data = LyricsData {
        instance_id: &entry.id,
        media_source: l.id.media_source,
        media_id: &l.id.media_id,
        track: &l.track,
        artist: &l.artist,
        album: l.album.as_deref(),
        duration_seconds: l.duration,
        instrumental: l.instrumental,
        format,
        lyrics: words,
        synced_available: l.synced.is_some(),
    };
    Output::typed(summary, &data)
}
