//! The one closed registry: every tool this build has, each declared in its own file.
//! Adding a tool is one file and one line here.

use crate::{contract::DynTool, discover, downloads, server};

pub fn all() -> Vec<Box<dyn DynTool>> {
    let mut all = server_tools();
    all.extend(downloads::tools());
    all.extend(discover::tools());
    all
}

fn server_tools() -> Vec<Box<dyn DynTool>> {
    vec![
        Box::new(server::whoami::Whoami),
        Box::new(server::get_guide::GetGuide),
        Box::new(server::diagnose::Diagnose),
        Box::new(server::list_instances::ListInstances),
        Box::new(server::get_activity::GetActivity),
    ]
}
