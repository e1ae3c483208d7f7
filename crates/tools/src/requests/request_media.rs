//! `request_media`: asks for a movie, seasons of a show, an album or a book. The title is read
//! (and checked against the caller's content limits) first; then the store checks open requests and quotas and charges
//! them in one transaction. Already requested is answered as such; over quota is a structured
//! `request_quota_exceeded` refusal and nothing is created. Where the call is ambiguous (a
//! title named by words that several titles share; a show without seasons) the person is asked
//! to choose (`ask.rs`); the answer only fills in the argument, so everything after it is
//! checked as for a direct call, and a kid's request still waits for an admin's decision.
//! A movie or show the household's media servers already have (`media/playable.rs`) is answered
//! "already in the library on <server>" and nothing is created; for a show, asked seasons a
//! server has are left out and only the missing ones requested.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::{MediaRequest, NewRequest, QuotaCheck, RequestOutcome, RequestStatus};

use super::{
    NO_LIBRARY, QuotaData, RequestRow, arrive, by_title, library_configured, quota_data,
    quota_refusal, quota_sentence, request_label,
    seasons::{self, SeasonScope, select},
    title,
};
use crate::{
    library::source::library_for,
    media::playable::{self, PlayableOn},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RequestMedia;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Where the id comes from, as a discovery row gave it; always with media_id. Or use title.
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source; always with media_source.
    #[serde(default)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// Movies and tv: the title's name, instead of media_source + media_id; several titles of that name are put to the person to choose.
    #[serde(default)]
    #[schemars(length(max = super::by_title::MAX_TITLE))]
    pub title: Option<String>,
    /// With title: the year it was first released.
    #[serde(default)]
    pub year: Option<i32>,
    /// movie, tv, music (an album: a MusicBrainz release group) or book (search_books' goodreads id).
    pub media_type: MediaType,
    /// TV only: the season numbers to request (each costs one quota unit). Or use season_scope.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub seasons: Option<Vec<u32>>,
    /// TV only: all, first or latest season(s), instead of seasons.
    #[serde(default)]
    pub season_scope: Option<SeasonScope>,
    /// Movies and tv: the catalogue to read the title from, as list_instances shows it (default: one that answers media_source).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// The library instance the title goes to (default: the default radarr, sonarr, lidarr or readarr instance); albums and books are read from it.
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub library_instance_id: Option<String>,
    /// A quality profile id from get_request_options (default: the library's first profile).
    #[serde(default)]
    pub quality_profile_id: Option<i64>,
    /// A root folder path from get_request_options (default: the library's first root folder).
    #[serde(default)]
    pub root_folder: Option<String>,
}

impl Tool for RequestMedia {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Requested<'static>>);
    const META: Meta = Meta {
        name: "request_media",
        title: "Request a title",
        description: "Requests a movie, seasons of a show (seasons or season_scope; without either the person is asked), an album (music: media_source musicbrainz, a release group from search_music) or a book (media_source goodreads, from search_books), named by media_source + media_id (movies and shows also by title and year; several matches are put to the person). A title the library already holds is answered \"already available\"; one a household media server (Jellyfin, Emby, Plex) has is answered \"already in the library\" with playable_on and nothing is created (a show's seasons a server has are left out of the request). Checks and charges the request quota atomically: over quota is refused with request_quota_exceeded, earliest_fits_at and how to reduce the selection. A title already requested is answered as such. Requests wait for an admin's decision (decide_request).",
        effect: Effect::Write,
        capability: Capability::Request,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    const ASKS: bool = true;

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let resolved = resolve(ctx, input).await?;
        let outcome = act(ctx, &resolved).await?;
        render(ctx, &resolved, outcome)
    }
}

/// What a call asks for, checked and read: the title, the seasons, and where it would go.
struct Resolved<'c> {
    title: title::Asked<'c>,
    media_type: MediaType,
    seasons: Vec<u32>,
    /// The library instance the title would go to, its profile and folder checked.
    destination: Option<arrive::Destination>,
    /// The media servers that have the title (a show: with their seasons).
    playable_on: Vec<PlayableOn>,
    /// Every asked season (every one for a movie) is on a media server: nothing is requested.
    playable: bool,
    /// Asked seasons a media server has, left out of the request.
    in_library_seasons: Vec<u32>,
    /// Media servers that could not be read while checking.
    media_warnings: Vec<String>,
}

/// What the call did.
enum Acted {
    /// A media server has the title (a show: every asked season): nothing was requested.
    Playable,
    /// The library instance named already holds the title: nothing was requested.
    Available(String),
    /// Open requests already cover everything asked; nothing was created.
    AlreadyRequested(Vec<MediaRequest>),
    Created(Box<Created>),
}

/// A new request, as the store holds it after any hand-over.
struct Created {
    request: MediaRequest,
    /// The hand-over's sentence (empty while the request waits for a decision).
    handed: String,
    /// Asked seasons open requests already held, left out of this one.
    already_covered: Vec<u32>,
    quota: QuotaCheck,
}

/// Checks the arguments, reads the title (asking the person where the call is ambiguous),
/// selects the seasons and checks the destination. Creates nothing.
async fn resolve(ctx: &Ctx, input: Input) -> Result<Resolved<'_>, ToolError> {
    // Cheap checks first: no catalogue call for a selection that can never be valid.
    let named = input.media_source.is_some() || input.media_id.is_some();
    match (&input.title, named, input.year) {
        (Some(_), true, _) => {
            return Err(ToolError::invalid(
                "name the title by media_source + media_id or by title, not both",
            ));
        }
        (None, _, Some(_)) => {
            return Err(ToolError::invalid(
                "year goes with title; a title named by media_source + media_id needs none",
            ));
        }
        _ => {}
    }
    if input.media_type != MediaType::Tv {
        select(
            input.media_type,
            input.seasons.as_deref(),
            input.season_scope,
            None,
            false,
        )?;
    }
    let (media_source, media_id) = match &input.title {
        Some(words) => {
            let (source, id) = by_title::resolve(
                ctx,
                words,
                input.year,
                input.media_type,
                input.instance_id.as_deref(),
            )
            .await?;
            (Some(source), Some(id))
        }
        None => (input.media_source, input.media_id),
    };
    let d = title::read(
        ctx,
        media_source,
        media_id,
        input.media_type,
        input.instance_id.as_deref(),
        input.library_instance_id.as_deref(),
    )
    .await?;
    let (chosen, scope) = match (input.media_type, d.seasons) {
        // A show with neither: the person says which, rather than a silent default.
        (MediaType::Tv, Some(count))
            if count > 0 && input.seasons.is_none() && input.season_scope.is_none() =>
        {
            let question = seasons::question(&d.label(), count);
            seasons::answered(&ctx.choose(&question).await?.value)
        }
        _ => (input.seasons, input.season_scope),
    };
    let mut seasons = select(input.media_type, chosen.as_deref(), scope, d.seasons, false)?;
    let media = playable::for_caller(ctx).await;
    let playable_on = media
        .of(
            input.media_type,
            std::iter::once(&d.id).chain(&d.external_ids),
        )
        .unwrap_or_default();
    let media_warnings = media.warnings().to_vec();
    let mut in_library_seasons = Vec::new();
    if input.media_type == MediaType::Tv && !playable_on.is_empty() {
        let held: Vec<u32> = playable_on
            .iter()
            .flat_map(|p| p.seasons.iter().flatten().map(|s| s.season))
            .collect();
        in_library_seasons = seasons
            .iter()
            .copied()
            .filter(|s| held.contains(s))
            .collect();
        seasons.retain(|s| !held.contains(s));
    }
    let playable = !playable_on.is_empty() && seasons.is_empty();
    if playable {
        return Ok(Resolved {
            title: d,
            media_type: input.media_type,
            seasons,
            destination: None,
            playable_on,
            playable,
            in_library_seasons,
            media_warnings,
        });
    }
    let library = match d.library {
        Some(source) => Some(source),
        None => library_for(ctx, input.media_type, input.library_instance_id.as_deref())?,
    };
    let destination = match library {
        Some(source) => Some(
            arrive::destination(
                source,
                &d.id,
                input.media_type,
                &seasons,
                (input.quality_profile_id, input.root_folder.as_deref()),
                d.found
                    .as_ref()
                    .filter(|_| d.library.is_some_and(|l| l.id == source.id)),
            )
            .await?,
        ),
        None if input.quality_profile_id.is_some() || input.root_folder.is_some() => {
            return Err(ToolError::invalid(
                "quality_profile_id and root_folder need a library instance; none is configured for this media type",
            ));
        }
        None => None,
    };
    Ok(Resolved {
        title: d,
        media_type: input.media_type,
        seasons,
        destination,
        playable_on,
        playable,
        in_library_seasons,
        media_warnings,
    })
}

/// Creates and charges the request (nothing when the library already holds the title), plans
/// its arrival and, when it needs no decision, hands it to the library.
async fn act(ctx: &Ctx, r: &Resolved<'_>) -> Result<Acted, ToolError> {
    if r.playable {
        return Ok(Acted::Playable);
    }
    if let Some(dest) = r.destination.as_ref().filter(|d| d.available) {
        return Ok(Acted::Available(dest.instance_id.clone()));
    }
    let d = &r.title;
    let new = NewRequest {
        person: ctx.caller.authority.person.id,
        media: d.id.clone(),
        media_type: r.media_type,
        title: d.title.clone(),
        year: d.year,
        seasons: r.seasons.clone(),
        instance_id: Some(d.read_from.clone()),
        auto_approve: ctx.caller.scope.exempt,
    };
    let (request, already_covered, quota) = match ctx.store().create_request(&new).await? {
        RequestOutcome::QuotaExceeded(q) => return Err(quota_refusal(&q)),
        RequestOutcome::AlreadyRequested { open } => return Ok(Acted::AlreadyRequested(open)),
        RequestOutcome::Created {
            request,
            already_covered,
            quota,
        } => (request, already_covered, quota),
    };
    if let Some(dest) = &r.destination {
        ctx.store()
            .plan_arrival(
                request.id,
                &dest.instance_id,
                Some(dest.quality_profile_id),
                Some(&dest.root_folder),
            )
            .await?;
    }
    let handed = if request.status == RequestStatus::Approved {
        let known = d
            .library
            .zip(d.found.as_ref())
            .map(|(l, f)| (l.id.as_str(), f));
        arrive::hand_over(ctx, &request, known).await?
    } else {
        String::new()
    };
    let request = ctx.store().request(request.id).await?.unwrap_or(*request);
    Ok(Acted::Created(Box::new(Created {
        request,
        handed,
        already_covered,
        quota,
    })))
}

/// The answer: what was found, requested or left alone, and what to call next.
fn render(ctx: &Ctx, r: &Resolved<'_>, acted: Acted) -> Result<Output, ToolError> {
    let mut out = render_acted(ctx, r, acted)?;
    for w in &r.media_warnings {
        out = out.warn(w.clone());
    }
    Ok(out)
}

/// "jellyfin (seasons 1, 2), plex".
fn servers_sentence(on: &[PlayableOn]) -> String {
    on.iter()
        .map(|p| match p.seasons.as_deref() {
            Some(s) if !s.is_empty() => format!(
                "{} (season{} {})",
                p.instance_id,
                if s.len() == 1 { "" } else { "s" },
                s.iter()
                    .map(|s| s.season.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => p.instance_id.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_acted(ctx: &Ctx, r: &Resolved<'_>, acted: Acted) -> Result<Output, ToolError> {
    let d = &r.title;
    match acted {
        Acted::Playable => crate::typed::output(
            format!(
                "{} is already in the library on {}; nothing was requested and no quota was charged.",
                d.label(),
                servers_sentence(&r.playable_on)
            ),
            &Requested::InLibrary {
                already_in_library: true,
                playable_on: &r.playable_on,
            },
        ),
        Acted::Available(instance_id) => crate::typed::output(
            format!(
                "{} is already available in {}; nothing was requested and no quota was charged.",
                d.label(),
                instance_id
            ),
            &Requested::Available {
                already_available: true,
                instance_id: &instance_id,
            },
        ),
        Acted::AlreadyRequested(open) => {
            let me = ctx.caller.authority.person.id;
            let show_people = super::sees_all(ctx);
            let statuses: Vec<&str> = open.iter().map(|r| r.status.as_str()).collect();
            let rows: Vec<_> = open
                .iter()
                .map(|r| RequestRow::of(r, show_people || r.person == me))
                .collect();
            Ok(crate::typed::output(
                format!(
                    "{} is already requested ({}); nothing new was created and no quota was charged.",
                    d.label(),
                    statuses.join(", ")
                ),
                &Requested::Open {
                    already_requested: true,
                    requests: rows,
                },
            )?
            .next(format!(
                "check_request_status {{\"request_id\":{}}}",
                open[0].id
            )))
        }
        Acted::Created(created) => render_created(ctx, r, &created),
    }
}

/// A new request's answer: its state, the hand-over, seasons left out and the quota.
fn render_created(ctx: &Ctx, r: &Resolved<'_>, created: &Created) -> Result<Output, ToolError> {
    let Created {
        request,
        handed,
        already_covered,
        quota,
    } = created;
    let state =
        if request.status != RequestStatus::Approved && request.status != RequestStatus::Pending {
            request.status.to_string()
        } else if request.status == RequestStatus::Approved {
            if library_configured(ctx) {
                "approved".to_string()
            } else {
                format!("approved; {NO_LIBRARY}")
            }
        } else {
            "pending an admin's decision".to_string()
        };
    let mut summary = format!(
        "Requested {} (request {}): {state}.",
        request_label(request),
        request.id
    );
    summary.push_str(handed);
    if !already_covered.is_empty() {
        let list: Vec<String> = already_covered.iter().map(u32::to_string).collect();
        summary.push_str(&format!(
            " Season{} {} {} already requested and left out.",
            if list.len() == 1 { "" } else { "s" },
            list.join(", "),
            if list.len() == 1 { "was" } else { "were" }
        ));
    }
    if !r.in_library_seasons.is_empty() {
        let list: Vec<String> = r.in_library_seasons.iter().map(u32::to_string).collect();
        summary.push_str(&format!(
            " Season{} {} {} already in the library on {} and left out.",
            if list.len() == 1 { "" } else { "s" },
            list.join(", "),
            if list.len() == 1 { "is" } else { "are" },
            servers_sentence(&r.playable_on)
        ));
    }
    summary.push_str(&quota_sentence(quota));
    let data = Requested::Created {
        request: Box::new(RequestRow::of(request, true)),
        library: r.destination.as_ref().map(|d| Destined {
            instance_id: &d.instance_id,
            quality_profile_id: d.quality_profile_id,
            root_folder: &d.root_folder,
            in_library: d.in_library,
        }),
        already_requested_seasons: already_covered,
        in_library_seasons: &r.in_library_seasons,
        quota: quota_data(quota),
    };
    Ok(crate::typed::output(summary, &data)?.next(format!(
        "check_request_status {{\"request_id\":{}}}",
        request.id
    )))
}

/// The answer's data: the title was already available, already requested, or requested now.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Requested<'a> {
    InLibrary {
        /// Always true here.
        already_in_library: bool,
        /// The media servers that have it (a show: with the seasons each has).
        playable_on: &'a [PlayableOn],
    },
    Available {
        /// Always true here.
        already_available: bool,
        /// The library instance that holds it.
        instance_id: &'a str,
    },
    Open {
        /// Always true here.
        already_requested: bool,
        requests: Vec<RequestRow<'a>>,
    },
    Created {
        request: Box<RequestRow<'a>>,
        /// The library it goes to once approved (`null`: none holds this media type).
        library: Option<Destined<'a>>,
        /// Asked seasons open requests already held, left out of this one.
        already_requested_seasons: &'a [u32],
        /// Asked seasons a media server already has, left out of this request.
        #[serde(skip_serializing_if = "<[u32]>::is_empty")]
        in_library_seasons: &'a [u32],
        quota: QuotaData,
    },
}

/// Where a new request goes.
#[derive(Serialize, JsonSchema)]
struct Destined<'a> {
    instance_id: &'a str,
    quality_profile_id: i64,
    root_folder: &'a str,
    in_library: bool,
}
