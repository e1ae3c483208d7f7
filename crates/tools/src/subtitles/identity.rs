//! What a subtitle search is about: a catalogue identity read through the catalogue as every
//! title tool reads it (IMDb, TMDB and TVDB numbers), or a video in a folder instance (its
//! OpenSubtitles movie hash read through the confined handle, and what the scan or its name
//! says it is).

use domain::{KindFamily, MediaSource, MediaType};

use super::search_subtitles::Input;
use crate::discover::{identity::TitleType, lookup};
use governance::{Ctx, ErrorCode, ToolError};

/// What the search is about, resolved.
#[derive(Debug, Default, Clone)]
pub(crate) struct Ident {
    pub label: String,
    pub tv: bool,
    pub imdb: Option<u64>,
    pub tmdb: Option<u64>,
    pub tvdb: Option<u64>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    /// Free text, when no id is known.
    pub text: Option<String>,
    pub hash: Option<String>,
}

/// What the search is about: the identity asked, or the local file (its hash, its scanned
/// identity, else its recognised name).
pub(crate) async fn resolve(ctx: &Ctx, input: &Input) -> Result<Ident, ToolError> {
    let media = crate::discover::identity::optional(input.media_source, input.media_id.clone())?;
    let mut ident = Ident {
        season: input.season,
        episode: input.episode,
        ..Ident::default()
    };
    match (&input.instance_id, &input.path) {
        (Some(instance), Some(path)) => {
            local(ctx, instance, path, &mut ident, media.is_none()).await?;
        }
        (None, None) => {}
        _ => {
            return Err(ToolError::invalid(
                "instance_id and path go together: the folder instance and the video's path in it",
            ));
        }
    }
    if let Some(media) = media {
        identity(
            ctx,
            media.media_source,
            media.media_id,
            input.media_type,
            &mut ident,
        )
        .await?;
    }
    if ident.label.is_empty() {
        return Err(ToolError::invalid(
            "say what the subtitles are for: media_source + media_id, or instance_id + path of a video",
        ));
    }
    if ident.episode.is_some() && ident.season.is_none() {
        return Err(ToolError::invalid("an episode needs its season"));
    }
    Ok(ident)
}

/// Fills `ident` from a catalogue identity.
async fn identity(
    ctx: &Ctx,
    source: MediaSource,
    id: String,
    media_type: Option<TitleType>,
    ident: &mut Ident,
) -> Result<(), ToolError> {
    let tv = match (source, media_type) {
        (MediaSource::Tvdb, _) => true,
        (_, Some(t)) => t == TitleType::Tv,
        _ => ident.season.is_some(),
    };
    ident.tv = tv;
    if source == MediaSource::Tvdb {
        ident.tvdb = Some(id.trim().parse().map_err(|_| {
            ToolError::invalid("invalid argument \"media_id\": a tvdb id is a number")
        })?);
        ident.label = format!("tvdb {id}");
        return Ok(());
    }
    if matches!(
        source,
        MediaSource::Musicbrainz | MediaSource::Goodreads | MediaSource::Lrclib
    ) {
        return Err(ToolError::invalid(
            "subtitles are for movies and shows: use media_source builtin, imdb, tmdb or tvdb",
        ));
    }
    let kind = if tv { TitleType::Tv } else { TitleType::Movie };
    match lookup::title(ctx, Some(source), Some(id.clone()), kind, None).await {
        Ok(l) => {
            let s = &l.details.summary;
            ident.tv = s.media_type == MediaType::Tv;
            ident.label = match s.year {
                Some(y) => format!("{} ({y})", s.title),
                None => s.title.clone(),
            };
            for m in std::iter::once(&s.id).chain(&s.external_ids) {
                match m.media_source {
                    MediaSource::Imdb | MediaSource::Builtin if m.media_id.starts_with("tt") => {
                        ident.imdb = ident.imdb.or_else(|| imdb_number(&m.media_id));
                    }
                    MediaSource::Tmdb => {
                        ident.tmdb = ident.tmdb.or_else(|| m.media_id.parse().ok())
                    }
                    MediaSource::Tvdb => {
                        ident.tvdb = ident.tvdb.or_else(|| m.media_id.parse().ok())
                    }
                    _ => {}
                }
            }
        }
        Err(_) if source == MediaSource::Imdb => {
            ident.imdb = Some(imdb_number(&id).ok_or_else(|| {
                ToolError::invalid("invalid argument \"media_id\": an imdb id reads like tt0133093")
            })?);
            ident.label = id.clone();
        }
        Err(e) => return Err(e),
    }
    if let (Some(s), Some(e)) = (ident.season, ident.episode) {
        ident.label.push_str(&format!(" S{s:02}E{e:02}"));
    }
    Ok(())
}

fn imdb_number(id: &str) -> Option<u64> {
    id.trim().strip_prefix("tt")?.parse().ok()
}

/// Fills `ident` from a video in a folder instance: its movie hash, and (when no identity was
/// asked) what the scan knows of it or what its name says.
async fn local(
    ctx: &Ctx,
    instance: &str,
    path: &str,
    ident: &mut Ident,
    name_it: bool,
) -> Result<(), ToolError> {
    let (spec, _allowed) = ctx.instance(KindFamily::Files, Some(instance))?;
    let root = spec.path.clone().ok_or_else(|| {
        ToolError::new(
            ErrorCode::BackendMisconfigured,
            format!("the folder instance \"{}\" has no path", spec.id),
        )
    })?;
    let rel = path.to_owned();
    let hashed = tokio::task::spawn_blocking(move || {
        let root = adapters_folder::Root::open(&root)?;
        let (mut file, facts) = root.open_file(&rel)?;
        adapters_subtitles::hash::movie_hash(&mut file, facts.size).map_err(|e| {
            adapters_folder::FolderError::Io {
                path: rel.clone(),
                reason: e.to_string(),
            }
        })
    })
    .await
    .map_err(|_| ToolError::new(ErrorCode::Internal, "the file could not be read"))?;
    ident.hash = Some(hashed.map_err(|e| folder_error(&spec.id, path, e))?);
    if !name_it {
        return Ok(());
    }
    let rows = ctx
        .store()
        .find_local_media(&store::LocalMediaQuery {
            instance_ids: vec![spec.id.clone()],
            ..Default::default()
        })
        .await?;
    let scanned = rows.into_iter().find(|r| r.path == path);
    let name = path.rsplit('/').next().unwrap_or(path);
    let recognised = recognize::recognize(path);
    let title = scanned
        .as_ref()
        .and_then(|r| r.title.clone())
        .or_else(|| recognised.title.clone());
    ident.season = ident.season.or(scanned
        .as_ref()
        .and_then(|r| r.season)
        .and_then(|s| u32::try_from(s).ok())
        .or(recognised.season.first().copied()));
    ident.episode = ident.episode.or(scanned
        .as_ref()
        .and_then(|r| r.episode)
        .and_then(|s| u32::try_from(s).ok())
        .or(recognised.episode.first().copied()));
    ident.tv = ident.season.is_some();
    if let Some(r) = &scanned
        && let (Some(source), Some(id)) = (&r.media_source, &r.media_id)
    {
        match source.as_str() {
            "builtin" | "imdb" => ident.imdb = imdb_number(id),
            "tmdb" => ident.tmdb = id.parse().ok(),
            "tvdb" => ident.tvdb = id.parse().ok(),
            _ => {}
        }
    }
    ident.text = title;
    ident.label = name.to_owned();
    Ok(())
}

pub(crate) fn folder_error(
    instance: &str,
    path: &str,
    e: adapters_folder::FolderError,
) -> ToolError {
    use adapters_folder::FolderError;
    match e {
        FolderError::NotFound => ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no file \"{path}\" in the folder instance \"{instance}\"; paths are relative to its root"
            ),
        ),
        FolderError::RootUnavailable { .. } => ToolError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "the folder of the instance \"{instance}\" cannot be opened; diagnose says why"
            ),
        ),
        FolderError::Unreadable { .. } => ToolError::new(
            ErrorCode::BackendError,
            format!(
                "\"{path}\" in the folder instance \"{instance}\" cannot be read: permission denied"
            ),
        ),
        FolderError::Io { reason, .. } => ToolError::new(
            ErrorCode::BackendError,
            format!("reading \"{path}\" in the folder instance \"{instance}\" failed: {reason}"),
        ),
    }
}
