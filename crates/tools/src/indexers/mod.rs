//! Indexers: Prowlarr instances (each of their indexers usable alone) and Torznab/Newznab
//! feeds, searched live without any *arr. `list_indexers` shows them with their health,
//! `search_indexers` asks them in parallel by identity or free text, and `grab_release` takes
//! the `release_ref`s it hands out (see `grab.rs`): references bound to the person who
//! searched, expiring, used once (`refs.rs`).

mod filters;
mod get_download_history;
pub(crate) mod grab;
mod identity;
mod list_indexers;
pub(crate) mod refs;
mod rows;
mod search_indexers;
mod source;

pub use source::Indexers;

use std::sync::Arc;

use domain::InstanceKind;
use governance::{CheckFuture, Ctx, DynTool, InstanceSpec, Instances, Slots};

/// The indexer instances: Prowlarr and Torznab feeds.
pub struct IndexersFamily;

impl governance::Family for IndexersFamily {
    fn name(&self) -> &'static str {
        "indexers"
    }

    fn group(&self) -> &'static str {
        "downloads"
    }

    fn kinds(&self) -> &'static [InstanceKind] {
        &[InstanceKind::Prowlarr, InstanceKind::Torznab]
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(list_indexers::ListIndexers),
            Box::new(search_indexers::SearchIndexers),
            Box::new(get_download_history::GetDownloadHistory),
        ]
    }

    fn install(&self, instances: &Arc<Instances>, slots: &mut Slots) {
        slots.insert(Indexers::from_instances(instances));
    }

    fn check<'a>(&'a self, slots: &'a Slots, spec: &'a InstanceSpec) -> CheckFuture<'a> {
        Box::pin(async move { slots.get::<Indexers>()?.check(&spec.id).await })
    }
}

/// The indexer instances, as the family installed them (none in a core without it).
pub(crate) fn indexers(ctx: &Ctx) -> &Indexers {
    static NONE: std::sync::OnceLock<Indexers> = std::sync::OnceLock::new();
    ctx.family::<Indexers>()
        .unwrap_or_else(|_| NONE.get_or_init(Indexers::default))
}
