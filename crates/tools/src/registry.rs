//! The one closed registry: every tool this build has, each declared in its own file.
//! Adding a tool is one file and one line here.

use std::collections::HashMap;

use domain::KindFamily;

use crate::{changes, contract::DynTool, discover, downloads, library, requests, server};

pub fn all() -> Vec<Box<dyn DynTool>> {
    let mut all = server_tools();
    all.extend(downloads::tools());
    all.extend(discover::tools());
    all.extend(requests::tools());
    all.extend(library::tools());
    all.extend(changes::tools());
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

/// Tools that act on one family of backends, by name: they are listed only while an instance
/// of that family is configured and covered by the caller's grant (a household without a
/// torrent client should not pay context for fifteen torrent tools).
pub fn families() -> HashMap<&'static str, KindFamily> {
    let mut out = HashMap::new();
    for t in downloads::tools() {
        out.insert(t.meta().name, KindFamily::Download);
    }
    for t in library::tools() {
        out.insert(t.meta().name, KindFamily::Library);
    }
    for t in discover::tools() {
        out.insert(t.meta().name, KindFamily::Catalogue);
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn the_tools_that_spend_an_allowance_and_which() {
        let spending: Vec<String> = all()
            .iter()
            .filter_map(|t| {
                let m = t.meta();
                Some(format!("{} {}", m.name, m.allowance?.as_str()))
            })
            .collect();
        expect![[r#"
            [
                "add_torrent adds",
                "delete_torrents destructive",
                "trigger_search searches",
                "grab_release grabs",
                "remove_queue_item destructive",
            ]
        "#]]
        .assert_debug_eq(&spending);
    }
}
