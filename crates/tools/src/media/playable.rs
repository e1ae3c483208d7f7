//! `playable_on` for discovery rows and requests: which of the household's media servers already
//! have a title, as `{instance_id, item_id}` (a show: with the seasons and episodes each server
//! has). A lookup in each server's kept index (`index.rs`) by the title's ids (tmdb, imdb, tvdb;
//! the builtin catalogue's ids are imdb ids), never a round trip per row. A server whose index is
//! not read yet is waited for briefly ([`WAIT`]) and never longer; one that cannot be read is
//! named in a warning, and the rows answer from the others (without the field when none could
//! be read). Shown to callers with `media.read`, for the servers their grant covers, and for a
//! limited person only items within their limits.

use std::{sync::Arc, time::Duration};

use adapters_media::ItemKind;
use domain::{Capability, MediaId, MediaSource, MediaType};
use governance::Ctx;
use schemars::JsonSchema;
use serde::Serialize;

use super::{index::Snapshot, limits::Gate, rows::Season};

/// The longest a discovery answer waits for a media server's first library read.
pub(crate) const WAIT: Duration = Duration::from_secs(2);

/// One media server that has the title.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct PlayableOn {
    pub instance_id: String,
    /// The server's own id of the movie or show.
    pub item_id: String,
    /// Shows: the seasons and episodes the server has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seasons: Option<Vec<Season>>,
}

/// The caller's view of the media servers for one answer.
#[derive(Default)]
pub(crate) struct Playable {
    /// Each readable server's index that could be read.
    read: Vec<(String, Arc<Snapshot>)>,
    /// Whether rows carry the field: the caller reads a media server and one could be read.
    shown: bool,
    gate: Option<Gate>,
    /// One sentence per server that could not be read.
    warnings: Vec<String>,
    /// Each readable server and its index's generation: part of a kept answer's key.
    key: String,
}

impl Playable {
    /// The servers that have the title named by `ids`: `None` leaves the field out (the caller
    /// reads no media server, none could be read, or the type is neither movie nor tv).
    pub(crate) fn of<'a>(
        &self,
        media_type: MediaType,
        ids: impl Iterator<Item = &'a MediaId>,
    ) -> Option<Vec<PlayableOn>> {
        if !self.shown {
            return None;
        }
        let kind = match media_type {
            MediaType::Movie => ItemKind::Movie,
            MediaType::Tv => ItemKind::Series,
            _ => return None,
        };
        let ids: Vec<(MediaSource, &str)> = ids
            .filter_map(|id| {
                let source = match id.media_source {
                    MediaSource::Builtin => MediaSource::Imdb,
                    s @ (MediaSource::Tmdb | MediaSource::Imdb | MediaSource::Tvdb) => s,
                    _ => return None,
                };
                Some((source, id.media_id.as_str()))
            })
            .collect();
        let mut out: Vec<PlayableOn> = Vec::new();
        for (instance, snapshot) in &self.read {
            for &(source, id) in &ids {
                for item in snapshot.lookup(source, id).filter(|i| i.kind == kind) {
                    if self.gate.as_ref().is_some_and(|g| !g.allows(item, None))
                        || out
                            .iter()
                            .any(|p| &p.instance_id == instance && p.item_id == item.id)
                    {
                        continue;
                    }
                    out.push(PlayableOn {
                        instance_id: instance.clone(),
                        item_id: item.id.clone(),
                        seasons: (kind == ItemKind::Series).then(|| {
                            snapshot
                                .seasons(&item.id)
                                .into_iter()
                                .map(|(season, episodes)| Season { season, episodes })
                                .collect()
                        }),
                    });
                }
            }
        }
        Some(out)
    }

    /// One sentence per media server that could not be read, for answers with movie or tv rows.
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What distinguishes this view of the media servers from another (empty when none).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

/// The caller's view: the indexes of the media servers its grant covers (with `media.read`),
/// each waited for at most [`WAIT`].
pub(crate) async fn for_caller(ctx: &Ctx) -> Playable {
    if !ctx.caller.can(Capability::MediaRead) {
        return Playable::default();
    }
    let servers: Vec<_> = super::servers(ctx).readable(ctx).collect();
    if servers.is_empty() {
        return Playable::default();
    }
    let reads = servers
        .iter()
        .map(|s| async move { (*s, s.index.get_within(&s.id, WAIT).await) });
    let mut view = Playable {
        gate: Gate::for_caller(ctx),
        ..Playable::default()
    };
    for (server, found) in futures::future::join_all(reads).await {
        view.key
            .push_str(&format!(" media:{}#{}", server.id, found.generation));
        match (found.snapshot, found.failure) {
            (Some(snapshot), failure) => {
                if let Some(why) = failure {
                    view.warnings
                        .push(format!("{why}; playable_on uses its library as last read"));
                }
                view.read.push((server.id.clone(), snapshot));
            }
            (None, Some(why)) => view
                .warnings
                .push(format!("{why}; playable_on leaves it out")),
            (None, None) => view.warnings.push(match server.client() {
                Err(why) => format!("{why}; playable_on leaves it out"),
                Ok(_) => format!(
                    "media server {} is still being read; playable_on leaves it out for now",
                    server.id
                ),
            }),
        }
    }
    view.shown = !view.read.is_empty();
    view
}
