//! `get_request_options`: what can be requested of a title (the movie, album or book, or which
//! seasons, and what is already requested), and a quota preview of the selection: its cost, what is left, and when
//! it would fit. Reserves nothing.

use std::collections::BTreeMap;

use domain::{Capability, InstanceKind, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use store::{MediaRequest, QuotaCheck, RequestStatus};

use super::{
    NO_LIBRARY, QuotaData, RequestRow, arrive, library_configured, quota_data, quota_sentence,
    seasons::{SeasonScope, select},
    title,
};
use crate::{
    discover::render::media_type_str,
    library::source::{Source, library_for},
};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::Requests];
pub struct GetRequestOptions;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Where the id comes from, as a discovery row gave it; always with media_id.
    #[schemars(required)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source; always with media_source.
    #[schemars(required)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// movie, tv, music (an album: a MusicBrainz release group) or book (search_books' goodreads id).
    pub media_type: MediaType,
    /// TV only: the seasons to price (default: every season not yet requested).
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub seasons: Option<Vec<u32>>,
    /// TV only: all, first or latest, instead of seasons.
    #[serde(default)]
    pub season_scope: Option<SeasonScope>,
    /// Movies and tv: the catalogue to read the title from, as list_instances shows it.
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// The library instance the title would go to (default: the default radarr, sonarr, lidarr or readarr instance); albums and books are read from it.
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub library_instance_id: Option<String>,
}

impl Tool for GetRequestOptions {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Options<'static>>);
    const META: Meta = Meta {
        name: "get_request_options",
        title: "Request options",
        description: "Before request_media: shows what can be requested of a title (the movie, album or book, or its seasons and which are already requested) and previews the request quota for the selection (cost in units, what is left, when it would fit). Reserves nothing.",
        effect: Effect::Read,
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let show_people = super::sees_all(ctx);
        let view = stored::view(ctx, (show_people, &input));
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || {
                options(ctx, input, show_people)
            })
            .await
    }
}

/// The options and the quota preview. Kept while the database is unchanged (and the quota
/// preview reads the same) when the title came from the builtin catalogue and no library
/// instance was asked: then nothing else was read.
async fn options(ctx: &Ctx, input: Input, show_people: bool) -> Result<(Output, Keep), ToolError> {
    let resolved = resolve(ctx, input).await?;
    let destination = read_destination(&resolved).await?;
    let keep = keep(ctx, &resolved);
    Ok((render(ctx, &resolved, destination, show_people)?, keep))
}

/// The title, the selection asked, what open requests already hold, and the quota preview.
struct Resolved<'c> {
    title: title::Asked<'c>,
    /// Seasons were named (or scoped) rather than defaulted.
    explicit: bool,
    asked: Vec<u32>,
    open: Vec<MediaRequest>,
    /// TV: each season an open request holds, with that request's status.
    taken: BTreeMap<u32, RequestStatus>,
    /// TV: the asked seasons no open request holds; what a request would add.
    new: Option<Vec<u32>>,
    units: u32,
    quota: QuotaCheck,
    /// The library instance the title would go to.
    library: Option<&'c Source>,
}

/// Reads the title, the open requests for it and the quota preview of the selection, and
/// names the library instance it would go to.
async fn resolve(ctx: &Ctx, input: Input) -> Result<Resolved<'_>, ToolError> {
    let d = title::read(
        ctx,
        input.media_source,
        input.media_id,
        input.media_type,
        input.instance_id.as_deref(),
        input.library_instance_id.as_deref(),
    )
    .await?;
    let explicit = input.seasons.is_some() || input.season_scope.is_some();
    let asked = select(
        input.media_type,
        input.seasons.as_deref(),
        input.season_scope,
        d.seasons,
        true,
    )?;
    let open = ctx.store().open_requests_for(&d.id).await?;
    let mut taken: BTreeMap<u32, RequestStatus> = BTreeMap::new();
    for r in &open {
        for s in &r.seasons {
            taken.entry(*s).or_insert(r.status);
        }
    }
    let (new, units) = if input.media_type == MediaType::Tv {
        let new: Vec<u32> = asked
            .iter()
            .copied()
            .filter(|s| !taken.contains_key(s))
            .collect();
        let units = new.len() as u32;
        (Some(new), units)
    } else {
        (None, u32::from(open.is_empty()))
    };
    let me = ctx.caller.authority.person.id;
    let quota = ctx.store().quota_check(me, input.media_type, units).await?;
    let library = match d.library {
        Some(source) => Some(source),
        None => library_for(ctx, input.media_type, input.library_instance_id.as_deref())?,
    };
    Ok(Resolved {
        title: d,
        explicit,
        asked,
        open,
        taken,
        new,
        units,
        quota,
        library,
    })
}

/// Where the title would go: the library instance's profiles and folders, and whether it
/// already holds the title.
async fn read_destination(r: &Resolved<'_>) -> Result<Option<arrive::Destination>, ToolError> {
    let Some(source) = r.library else {
        return Ok(None);
    };
    let d = &r.title;
    let dest = arrive::destination(
        source,
        &d.id,
        d.media_type,
        r.asked.as_slice(),
        (None, None),
        d.found
            .as_ref()
            .filter(|_| d.library.is_some_and(|l| l.id == source.id)),
    )
    .await?;
    Ok(Some(dest))
}

/// How long the answer may be kept: only when nothing but the database was read.
fn keep(ctx: &Ctx, r: &Resolved<'_>) -> Keep {
    let from_builtin = ctx
        .instances()
        .all()
        .iter()
        .any(|s| s.id == r.title.read_from && s.kind == InstanceKind::Builtin);
    match (r.library.is_none() && from_builtin, r.quota.changes_at) {
        (false, _) => Keep::Never,
        (true, None) => Keep::WhileUnchanged,
        (true, Some(at)) => Keep::Before(at),
    }
}

/// The answer's data: the title, what can be requested of it and at what cost, the quota,
/// open requests, and the library it would go to.
#[derive(Serialize, JsonSchema)]
struct Options<'a> {
    media_source: MediaSource,
    media_id: &'a str,
    media_type: &'static str,
    title: &'a str,
    year: Option<i32>,
    /// The catalogue instance the title was read from.
    instance_id: &'a str,
    requestable: bool,
    /// A show's seasons, each with the status of its open request (`null`: not requested).
    seasons: Option<Vec<SeasonRow>>,
    /// The seasons a request would ask for (`null` for a movie, album or book).
    selection: Option<&'a [u32]>,
    cost_units: u32,
    open_requests: Vec<RequestRow<'a>>,
    quota: QuotaData,
    library: Library,
}

/// One season of a show and whether it is requested already.
#[derive(Serialize, JsonSchema)]
struct SeasonRow {
    season: u32,
    requested: Option<&'static str>,
}

/// The library a request would go to, or why there is none.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Library {
    Configured {
        /// Always true here.
        configured: bool,
        instance_id: String,
        quality_profiles: Vec<ProfileRow>,
        root_folders: Vec<FolderRow>,
        default_quality_profile_id: i64,
        default_root_folder: String,
        in_library: bool,
        available: bool,
    },
    Missing {
        /// Always false here.
        configured: bool,
        note: &'static str,
        /// Always empty.
        profiles: Vec<ProfileRow>,
        /// Always empty.
        folders: Vec<FolderRow>,
    },
}

/// A quality profile a request may choose.
#[derive(Serialize, JsonSchema)]
struct ProfileRow {
    id: i64,
    name: String,
}

/// A root folder a request may choose.
#[derive(Serialize, JsonSchema)]
struct FolderRow {
    path: String,
    free_bytes: Option<i64>,
}

/// The summary, the data and the `request_media` call to make next.
fn render(
    ctx: &Ctx,
    r: &Resolved<'_>,
    destination: Option<arrive::Destination>,
    show_people: bool,
) -> Result<Output, ToolError> {
    let d = &r.title;
    let (units, quota) = (r.units, &r.quota);
    let requestable = units > 0;
    let label = d.label();
    let fits = if quota.fits_now() {
        "allows it now"
    } else {
        "does not allow it now"
    };
    let mut summary = if !requestable && !r.open.is_empty() {
        format!("{label} is already requested; nothing more to request.")
    } else if d.media_type == MediaType::Tv {
        format!(
            "{label}: {} season(s) to request{} ({} unit(s)); the quota {fits}.",
            units,
            if r.explicit {
                " as selected"
            } else {
                ", all not yet requested"
            },
            units,
        )
    } else {
        format!("{label} can be requested (1 unit); the quota {fits}.")
    };
    summary.push_str(&quota_sentence(quota));
    let library = if let Some(dest) = destination {
        if dest.available {
            summary.push_str(&format!(
                " It is already available in {}.",
                dest.instance_id
            ));
        }
        Library::Configured {
            configured: true,
            quality_profiles: dest
                .quality_profiles
                .iter()
                .map(|p| ProfileRow {
                    id: p.id,
                    name: p.name.clone(),
                })
                .collect(),
            root_folders: dest
                .root_folders
                .iter()
                .map(|r| FolderRow {
                    path: r.path.clone(),
                    free_bytes: r.free_bytes,
                })
                .collect(),
            instance_id: dest.instance_id,
            default_quality_profile_id: dest.quality_profile_id,
            default_root_folder: dest.root_folder,
            in_library: dest.in_library,
            available: dest.available,
        }
    } else {
        Library::Missing {
            configured: false,
            note: if library_configured(ctx) {
                "no library instance holds this media type"
            } else {
                NO_LIBRARY
            },
            profiles: Vec::new(),
            folders: Vec::new(),
        }
    };
    let selection = json!(r.new);
    let seasons_view = r.new.as_ref().map(|_| {
        (1..=d.seasons.unwrap_or(0))
            .map(|s| SeasonRow {
                season: s,
                requested: r.taken.get(&s).map(|st| st.as_str()),
            })
            .collect::<Vec<_>>()
    });
    let me = ctx.caller.authority.person.id;
    let data = Options {
        media_source: d.id.media_source,
        media_id: &d.id.media_id,
        media_type: media_type_str(d.media_type),
        title: &d.title,
        year: d.year,
        instance_id: &d.read_from,
        requestable,
        seasons: seasons_view,
        selection: r.new.as_deref(),
        cost_units: units,
        open_requests: r
            .open
            .iter()
            .map(|o| RequestRow::of(o, show_people || o.person == me))
            .collect(),
        quota: quota_data(quota),
        library,
    };
    let mut out = crate::typed::output(summary, &data)?;
    if requestable && quota.fits_now() {
        let id = &d.id;
        let extra = if d.media_type == MediaType::Tv {
            format!(",\"seasons\":{selection}")
        } else {
            String::new()
        };
        out = out.next(format!(
                "request_media {{\"media_source\":\"{}\",\"media_id\":\"{}\",\"media_type\":\"{}\"{extra}}}",
                id.media_source,
                id.media_id,
                media_type_str(d.media_type)
            ));
    }
    Ok(out)
}
