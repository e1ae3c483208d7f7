//! Media servers: Jellyfin, Emby and Plex as the household's own library. Each server's items
//! are kept in memory, keyed by provider ids (`index.rs`, synced by a background job), so
//! "is it in the library" is a lookup; a person's continue watching and history are read live
//! for the media-server user they are linked to (`whose.rs`); kids see only titles within their
//! limits (`limits.rs`). A server that cannot be read is named in a warning; the others answer.

mod get_continue_watching;
mod get_now_playing;
mod get_recently_added;
mod get_watch_history;
pub(crate) mod index;
mod ladders;
pub(crate) mod limits;
pub(crate) mod playable;
mod query_library_exists;
pub(crate) mod rows;
pub(crate) mod servers;
mod watched;
mod whose;

pub use servers::MediaServers;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{CheckFuture, Ctx, DynTool, InstanceSpec, Instances, Job, Slots};

/// The media servers: Jellyfin, Emby and Plex.
pub struct MediaFamily;

impl governance::Family for MediaFamily {
    fn name(&self) -> &'static str {
        "media"
    }

    fn group(&self) -> &'static str {
        "discover"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[
            InstanceKind::Jellyfin,
            InstanceKind::Emby,
            InstanceKind::Plex,
        ]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(query_library_exists::QueryLibraryExists),
            Box::new(get_continue_watching::GetContinueWatching),
            Box::new(get_recently_added::GetRecentlyAdded),
            Box::new(get_now_playing::GetNowPlaying),
            Box::new(get_watch_history::GetWatchHistory),
        ]
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(MediaServers::from_instances(instances));
    }

    /// Each server's library sync (`media.sync:<id>`, see `index.rs`).
    fn jobs(&self, slots: &Slots) -> Vec<Job> {
        slots
            .get::<MediaServers>()
            .map_or_else(Vec::new, MediaServers::jobs)
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<MediaServers>()?.check(spec).await })
    }
}

/// The media servers, as the family installed them (none in a core without it).
pub(crate) fn servers(ctx: &Ctx) -> &MediaServers {
    static NONE: std::sync::OnceLock<MediaServers> = std::sync::OnceLock::new();
    ctx.family::<MediaServers>()
        .unwrap_or_else(|_| NONE.get_or_init(MediaServers::default))
}
