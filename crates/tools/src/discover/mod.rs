//! Discover and request: catalogue search, details and recommendations within each person's
//! content limits, and requests with quotas.

use crate::{contract::DynTool, instances::Instances};

/// The catalogue instances (builtin, TMDB, MusicBrainz), built once at start.
#[derive(Default)]
pub struct Catalogues {}

impl Catalogues {
    pub fn from_instances(_instances: &Instances) -> Catalogues {
        Catalogues {}
    }
}

/// This family's tools, for the one registry.
pub fn tools() -> Vec<Box<dyn DynTool>> {
    vec![]
}
