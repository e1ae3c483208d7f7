//! Downloads: the torrent tool family over qBittorrent and Transmission instances, answered
//! from each instance's cached catalogue.

use crate::{contract::DynTool, instances::Instances};

/// The download instances' clients and catalogues, built once at start.
#[derive(Default)]
pub struct Downloads {}

impl Downloads {
    pub fn from_instances(_instances: &Instances) -> Downloads {
        Downloads {}
    }
}

/// This family's tools, for the one registry.
pub fn tools() -> Vec<Box<dyn DynTool>> {
    vec![]
}
