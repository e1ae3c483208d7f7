//! Server tools: who am I, how does this work, is everything healthy, what is configured,
//! what happened.

pub(crate) mod checks;
pub mod diagnose;
pub mod find_tools;
pub mod get_activity;
pub mod get_guide;
pub mod list_instances;
pub mod whoami;

use governance::{DynTool, Family};

/// The server's own tools: whoami, get_guide, diagnose, list_instances, get_activity,
/// find_tools; every `tools/list` shows them (group `core`).
pub struct ServerFamily;

impl Family for ServerFamily {
    fn name(&self) -> &'static str {
        "server"
    }

    fn group(&self) -> &'static str {
        "core"
    }

    fn tools(&self) -> Vec<Box<dyn DynTool>> {
        vec![
            Box::new(whoami::Whoami),
            Box::new(get_guide::GetGuide),
            Box::new(diagnose::Diagnose),
            Box::new(list_instances::ListInstances),
            Box::new(get_activity::GetActivity),
            Box::new(find_tools::FindTools),
        ]
    }
}
