//! The one closed list of families: every tool this build has comes from one of them, each
//! tool declared in its own file. Adding a family is one module and one line here.

use std::sync::Arc;

use governance::Family;

use crate::{
    changes, discover, downloads, federated, files, indexers, library, media, requests, server,
    settings, shortlists, subtitles, tasks,
};

/// Every family of this build, in the order their jobs and checks run.
pub fn families() -> Vec<Arc<dyn Family>> {
    vec![
        Arc::new(server::ServerFamily),
        Arc::new(downloads::DownloadsFamily),
        Arc::new(discover::DiscoverFamily),
        Arc::new(requests::RequestsFamily),
        Arc::new(library::LibraryFamily),
        Arc::new(files::FilesFamily),
        Arc::new(media::MediaFamily),
        Arc::new(indexers::IndexersFamily),
        Arc::new(subtitles::SubtitlesFamily),
        Arc::new(tasks::TasksFamily),
        Arc::new(shortlists::ShortlistsFamily),
        Arc::new(settings::SettingsFamily),
        Arc::new(changes::ChangesFamily),
        Arc::new(federated::FederatedFamily),
    ]
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn the_tools_that_spend_an_allowance_and_which() {
        let spending: Vec<String> = families()
            .iter()
            .flat_map(|f| f.tools())
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
                "search_releases searches",
                "grab_release grabs",
                "remove_queue_item destructive",
                "search_indexers searches",
            ]
        "#]]
        .assert_debug_eq(&spending);
    }

    #[test]
    fn no_two_families_declare_a_tool_of_the_same_name() {
        let mut names: Vec<&str> = families()
            .iter()
            .flat_map(|f| f.tools())
            .map(|t| t.meta().name)
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
    }
}
