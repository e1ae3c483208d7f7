//! Discover: catalogue search, browsing, trending, details and recommendations, each answered
//! within the caller's content limits (`limits.rs`), with media named by `media_source` +
//! `media_id` (`identity.rs`) and catalogues picked per question (`catalogues.rs`).

pub mod browse_titles;
mod catalogues;
pub mod display_media;
pub mod get_lyrics;
pub mod get_recommendations;
pub mod get_title_details;
pub mod get_trending;
pub(crate) mod identity;
mod in_library;
mod kept;
pub(crate) mod limits;
pub(crate) mod lookup;
mod rating_list;
pub(crate) mod ratings;
pub(crate) mod render;
pub mod search_collections;
pub mod search_music;
pub mod search_titles;
mod standing;

pub use catalogues::Catalogues;
pub(crate) use catalogues::pick;
pub use rating_list::rating_names;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{
    CheckFuture, Ctx, DynTool, ErrorCode, ErrorKind, InstanceSpec, Instances, Job, Slots,
    ToolError, contract::BoxFuture,
};

/// What diagnose says about discovery: that books cannot be searched while no Readarr
/// instance (the book source) is configured.
fn notes(ctx: &Ctx) -> Vec<String> {
    let readarr = ctx
        .instances()
        .all()
        .iter()
        .any(|s| s.kind == InstanceKind::Readarr);
    if readarr {
        return Vec::new();
    }
    vec!["no book source: search_books needs a Readarr (library) instance, and none is configured; books cannot be searched or requested".into()]
}

/// The caller's content limits could not be checked against the catalogue: nothing is shown
/// rather than something the limits might hide.
pub const LIMITS_UNREADABLE: ErrorCode = ErrorCode::new("limits_unreadable", ErrorKind::Backend);

/// Discovery over the catalogue instances (builtin, TMDB, MusicBrainz).
pub struct DiscoverFamily;

impl governance::Family for DiscoverFamily {
    fn name(&self) -> &'static str {
        "discover"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[
            InstanceKind::Builtin,
            InstanceKind::Tmdb,
            InstanceKind::Musicbrainz,
            InstanceKind::Tvdb,
            InstanceKind::Anilist,
            InstanceKind::Lrclib,
        ]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        tools()
    }

    fn error_codes(&self) -> &'static [ErrorCode] {
        &[LIMITS_UNREADABLE]
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Catalogues::from_instances(instances));
    }

    /// Loading the builtin catalogue at start (`discover.builtin`).
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        slots
            .get::<Catalogues>()
            .map_or_else(Vec::new, Catalogues::jobs)
    }

    fn health<'a>(&'a self, ctx: &'a Ctx) -> BoxFuture<'a, Result<Vec<String>, ToolError>> {
        Box::pin(async move { Ok(notes(ctx)) })
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<Catalogues>()?.check(&spec.id).await })
    }
}

/// The catalogues, as the discover family installed them (none in a core without it).
pub(crate) fn catalogues(ctx: &Ctx) -> &Catalogues {
    static NONE: std::sync::OnceLock<Catalogues> = std::sync::OnceLock::new();
    ctx.family::<Catalogues>()
        .unwrap_or_else(|_| NONE.get_or_init(Catalogues::default))
}

fn tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(search_titles::SearchTitles),
        Box::new(search_collections::SearchCollections),
        Box::new(search_music::SearchMusic),
        Box::new(get_trending::GetTrending),
        Box::new(browse_titles::BrowseTitles),
        Box::new(get_title_details::GetTitleDetails),
        Box::new(get_recommendations::GetRecommendations),
        Box::new(get_lyrics::GetLyrics),
        Box::new(display_media::DisplayMedia),
    ]
}
