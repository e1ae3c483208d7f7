//! What discovery rows say about the library: `in_library` true or false only when the library
//! instances that hold the row's media type could be read, and `null` (unknown) with a warning
//! naming the instance when one of them failed or none of that kind is configured. Rows leave
//! the flag out for a caller who reads no library. Movie and tv rows also say which media
//! servers can play the title now (`playable_on`, see `media/playable.rs`).

use std::collections::BTreeMap;

use domain::{Capability, InstanceKind, MediaId, MediaType};

use crate::{
    library::{held::Held, source::kind_for},
    media::playable::{self, Playable, PlayableOn},
};
use governance::context::Ctx;

/// The caller's view of the libraries for one discovery answer.
pub(crate) struct InLibrary {
    held: Held,
    /// Whether the caller reads any library instance: without one, rows carry no flag.
    shown: bool,
    /// Per library kind the caller cannot answer for: why (names the instance, or says that
    /// none of that kind is configured).
    unknown: BTreeMap<InstanceKind, String>,
    /// The caller's view of the media servers.
    playable: Playable,
}

impl InLibrary {
    /// A row's flag: `None` leaves it out (the caller reads no library); `Some(None)` is
    /// unknown; `Some(Some(held))` is known.
    pub(crate) fn of<'a>(
        &self,
        media_type: MediaType,
        ids: impl Iterator<Item = &'a MediaId>,
    ) -> Option<Option<bool>> {
        if !self.shown {
            return None;
        }
        if self.unknown.contains_key(&kind_for(media_type)) {
            return Some(None);
        }
        Some(self.held.of(ids))
    }

    /// A movie's or show's `playable_on` (`None` leaves it out).
    pub(crate) fn playable<'a>(
        &self,
        media_type: MediaType,
        ids: impl Iterator<Item = &'a MediaId>,
    ) -> Option<Vec<PlayableOn>> {
        self.playable.of(media_type, ids)
    }

    /// One warning per library kind that rows of `media_types` needed and could not be read,
    /// and one per media server that could not be read when there are movie or tv rows.
    pub(crate) fn warnings(&self, media_types: impl Iterator<Item = MediaType>) -> Vec<String> {
        let media_types: Vec<MediaType> = media_types.collect();
        let mut out = self.library_warnings(media_types.iter().copied());
        if media_types
            .iter()
            .any(|t| matches!(t, MediaType::Movie | MediaType::Tv))
        {
            out.extend(self.playable.warnings().iter().cloned());
        }
        out
    }

    fn library_warnings(&self, media_types: impl Iterator<Item = MediaType>) -> Vec<String> {
        if !self.shown {
            return Vec::new();
        }
        let mut kinds: Vec<InstanceKind> = media_types.map(kind_for).collect();
        kinds.sort_by_key(|k| k.as_str());
        kinds.dedup();
        kinds
            .iter()
            .filter_map(|k| self.unknown.get(k).cloned())
            .collect()
    }
}

/// The caller's view: the held sets of the library instances its grant covers (with
/// `library.read`), and which kinds cannot be answered for.
pub(crate) async fn for_caller(ctx: &Ctx) -> InLibrary {
    let (held, playable) = futures::join!(
        crate::library::held::for_caller(ctx),
        playable::for_caller(ctx)
    );
    if !ctx.caller.can(Capability::LibraryRead) {
        return InLibrary {
            held,
            shown: false,
            unknown: BTreeMap::new(),
            playable,
        };
    }
    let readable: Vec<_> = crate::library::libraries(ctx)
        .sources()
        .filter(|s| ctx.covers(&s.id))
        .collect();
    if readable.is_empty() {
        return InLibrary {
            held,
            shown: false,
            unknown: BTreeMap::new(),
            playable,
        };
    }
    let mut unknown = BTreeMap::new();
    // The sets were just read (or kept) by `held::for_caller`; these answer from its cache.
    let reads = readable
        .iter()
        .map(|s| async move { (*s, s.held_ids().await) });
    for (source, read) in futures::future::join_all(reads).await {
        let readable = matches!(read, Some((Some(_), _)));
        if !readable {
            unknown.entry(source.kind).or_insert_with(|| {
                format!(
                    "library instance {} could not be read; in_library is null (unknown) for {} titles; run diagnose",
                    source.id,
                    kind_word(source.kind)
                )
            });
        }
    }
    for kind in [
        InstanceKind::Radarr,
        InstanceKind::Sonarr,
        InstanceKind::Lidarr,
        InstanceKind::Readarr,
    ] {
        if !readable.iter().any(|s| s.kind == kind) {
            unknown.entry(kind).or_insert_with(|| {
                format!(
                    "no {kind} instance you can read is configured; in_library is null (unknown) for {} titles",
                    kind_word(kind)
                )
            });
        }
    }
    InLibrary {
        held,
        shown: true,
        unknown,
        playable,
    }
}

/// The titles a library kind holds, for messages.
fn kind_word(kind: InstanceKind) -> &'static str {
    match kind {
        InstanceKind::Radarr => "movie",
        InstanceKind::Sonarr => "tv",
        InstanceKind::Lidarr => "music",
        _ => "book",
    }
}
