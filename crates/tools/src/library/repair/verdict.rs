//! The Import Doctor's closed list of verdicts, read from what the service itself reports about a
//! queue item: its status, tracked download state and status, and its status messages, matched
//! against the exact texts Sonarr and Radarr write (an unrecognised message is `unknown`, never a
//! guess); and from what the download client holding the item says of it, for the verdicts that
//! are about the download rather than the import.

use adapters_downloads::TorrentState;
use adapters_library::QueueItem;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    SampleFile,
    NeedsUnpacking,
    WrongEpisodeMapping,
    NotAnUpgrade,
    MissingRemotePathMapping,
    NoEligibleFiles,
    StalledDownload,
    DownloadClientUnreachable,
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::SampleFile => "sample_file",
            Verdict::NeedsUnpacking => "needs_unpacking",
            Verdict::WrongEpisodeMapping => "wrong_episode_mapping",
            Verdict::NotAnUpgrade => "not_an_upgrade",
            Verdict::MissingRemotePathMapping => "missing_remote_path_mapping",
            Verdict::NoEligibleFiles => "no_eligible_files",
            Verdict::StalledDownload => "stalled_download",
            Verdict::DownloadClientUnreachable => "download_client_unreachable",
            Verdict::Unknown => "unknown",
        }
    }
}

/// What the download client holding an item adds to its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientSays {
    /// Nothing: no instance the caller may read holds it, or it is no torrent.
    Nothing,
    /// The instance holding it reports this state.
    State(TorrentState),
    /// The instance holding it cannot be read now (its row is as last seen).
    Unreachable,
    /// No instance that could be read holds it, and some instance could not be read.
    MaybeUnreachable,
}

/// Whether an item is not progressing: the service flags it, or it cannot import.
pub fn stuck(q: &QueueItem) -> bool {
    q.tracked_status.as_deref().is_some_and(|s| s != "ok")
        || matches!(
            q.status.as_str(),
            "warning" | "failed" | "downloadClientUnavailable"
        )
        || matches!(
            q.tracked_state.as_deref(),
            Some("importBlocked" | "failedPending" | "failed")
        )
        || q.error.is_some()
}

/// The verdict of a stuck item: the service's import messages first (they name what is wrong
/// with the files), then the download client's own account of the download, then the service's
/// status.
pub fn verdict(q: &QueueItem, client: ClientSays) -> Verdict {
    let service = from_service(q);
    match (service, client) {
        (Verdict::Unknown | Verdict::StalledDownload, ClientSays::State(TorrentState::Stalled)) => {
            Verdict::StalledDownload
        }
        (Verdict::Unknown | Verdict::StalledDownload, ClientSays::Unreachable)
        | (Verdict::Unknown, ClientSays::MaybeUnreachable) => Verdict::DownloadClientUnreachable,
        _ => service,
    }
}

/// The verdict from what the service reports alone.
fn from_service(q: &QueueItem) -> Verdict {
    let any = |f: &dyn Fn(&str) -> bool| q.messages.iter().any(|m| f(m));
    if any(&|m| m == "Sample") {
        Verdict::SampleFile
    } else if any(&|m| m == "Found archive file, might need to be extracted") {
        Verdict::NeedsUnpacking
    } else if any(&|m| {
        m.contains(" was unexpected considering the ")
            || (m.starts_with("Found matching ")
                && m.contains(" via grab history, but release was matched to "))
    }) {
        Verdict::WrongEpisodeMapping
    } else if any(&|m| {
        m.starts_with("Not an upgrade for existing")
            || m.starts_with("Not a Custom Format upgrade for existing")
    }) {
        Verdict::NotAnUpgrade
    } else if any(&|m| m.starts_with("Import failed, path does not exist or is not accessible by "))
    {
        Verdict::MissingRemotePathMapping
    } else if any(&|m| m.starts_with("No files found are eligible for import in ")) {
        Verdict::NoEligibleFiles
    } else if q.status == "downloadClientUnavailable" {
        Verdict::DownloadClientUnreachable
    } else if q.error.as_deref().is_some_and(|e| e.contains("stalled")) {
        Verdict::StalledDownload
    } else {
        Verdict::Unknown
    }
}

/// What is wrong, in the household's words; `unreachable` names the download instance Marquee
/// could not read, when that is what the verdict rests on.
pub fn sentence(v: Verdict, title: &str, instance: &str, unreachable: Option<&str>) -> String {
    match v {
        Verdict::SampleFile => format!(
            "{title} is only a sample clip, not the real file; it should be removed and another release found."
        ),
        Verdict::NeedsUnpacking => format!(
            "{title} arrived packed in an archive that was never unpacked, so {instance} cannot import it."
        ),
        Verdict::WrongEpisodeMapping => format!(
            "{title} was matched to a different episode or title than the file holds; it needs importing by hand with the right mapping."
        ),
        Verdict::NotAnUpgrade => format!(
            "{title} is not better than the file already in the library, so {instance} will not import it."
        ),
        Verdict::MissingRemotePathMapping => format!(
            "{instance} cannot see the folder the download client put {title} in: a remote path mapping is missing."
        ),
        Verdict::NoEligibleFiles => format!(
            "{title} holds no file {instance} can import (no video or audio of the expected kind)."
        ),
        Verdict::StalledDownload => {
            format!("{title} has stopped downloading: nobody is sharing it.")
        }
        Verdict::DownloadClientUnreachable => match unreachable {
            Some(client) => format!(
                "The download client {client}, which holds {title}, cannot be reached right now."
            ),
            None => format!("{instance} cannot reach the download client that holds {title}."),
        },
        Verdict::Unknown => format!(
            "{title} is stuck for a reason Marquee does not recognise; the service's own messages are in the evidence."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(
        status: &str,
        state: &str,
        tracked: &str,
        messages: &[&str],
        error: Option<&str>,
    ) -> QueueItem {
        QueueItem {
            id: 1,
            title: "T".into(),
            status: status.into(),
            tracked_state: Some(state.into()),
            tracked_status: Some(tracked.into()),
            item_id: None,
            episode_id: None,
            season: None,
            progress: 0.0,
            size: 0.0,
            size_left: 0.0,
            time_left: None,
            estimated_completion: None,
            download_client: None,
            indexer: None,
            protocol: None,
            quality: None,
            download_id: None,
            output_path: None,
            messages: messages.iter().map(|m| m.to_string()).collect(),
            error: error.map(String::from),
        }
    }

    #[test]
    fn each_upstream_message_gives_its_verdict_and_near_misses_do_not() {
        let cases = [
            item("completed", "importBlocked", "warning", &["Sample"], None),
            item(
                "completed",
                "importBlocked",
                "warning",
                &["Unable to determine if file is a sample"],
                None,
            ),
            item(
                "completed",
                "importBlocked",
                "warning",
                &["Found archive file, might need to be extracted"],
                None,
            ),
            item(
                "completed",
                "importBlocked",
                "warning",
                &["Episode 1x05 was unexpected considering the Show.S01E04 folder name"],
                None,
            ),
            item(
                "completed",
                "importBlocked",
                "warning",
                &[
                    "Not an upgrade for existing episode file(s). Existing quality: Bluray-1080p. New Quality WEBDL-1080p.",
                ],
                None,
            ),
            item(
                "completed",
                "importPending",
                "warning",
                &[
                    "Import failed, path does not exist or is not accessible by Sonarr: /downloads/x. Ensure the path exists",
                ],
                None,
            ),
            item(
                "completed",
                "importBlocked",
                "warning",
                &["No files found are eligible for import in /downloads/x"],
                None,
            ),
            item(
                "warning",
                "downloading",
                "warning",
                &[],
                Some("The download is stalled with no connections"),
            ),
            item(
                "downloadClientUnavailable",
                "downloading",
                "warning",
                &[],
                None,
            ),
            item(
                "failed",
                "failedPending",
                "error",
                &["Download client reported an unexpected state"],
                Some("qBittorrent is reporting an error"),
            ),
        ];
        let got: Vec<&str> = cases
            .iter()
            .map(|q| verdict(q, ClientSays::Nothing).name())
            .collect();
        expect_test::expect![[r#"
            [
                "sample_file",
                "unknown",
                "needs_unpacking",
                "wrong_episode_mapping",
                "not_an_upgrade",
                "missing_remote_path_mapping",
                "no_eligible_files",
                "stalled_download",
                "download_client_unreachable",
                "unknown",
            ]
        "#]]
        .assert_debug_eq(&got);
        assert!(cases.iter().all(stuck));
    }

    #[test]
    fn the_download_clients_account_decides_only_download_verdicts() {
        let stalled = ClientSays::State(TorrentState::Stalled);
        let fine_download = item("downloading", "downloading", "ok", &[], None);
        let failed = item(
            "failed",
            "failedPending",
            "error",
            &["Download client reported an unexpected state"],
            None,
        );
        let sample = item("completed", "importBlocked", "warning", &["Sample"], None);
        let unavailable = item(
            "downloadClientUnavailable",
            "downloading",
            "warning",
            &[],
            None,
        );
        let cases = [
            (&fine_download, stalled),
            (&fine_download, ClientSays::State(TorrentState::Downloading)),
            (&failed, ClientSays::Unreachable),
            (&failed, ClientSays::MaybeUnreachable),
            (&failed, ClientSays::State(TorrentState::Error)),
            (&sample, ClientSays::Unreachable),
            (&sample, stalled),
            (&unavailable, stalled),
        ];
        let got: Vec<String> = cases
            .iter()
            .map(|(q, c)| format!("{} + {c:?} -> {}", q.status, verdict(q, *c).name()))
            .collect();
        expect_test::expect![[r#"
            [
                "downloading + State(Stalled) -> stalled_download",
                "downloading + State(Downloading) -> unknown",
                "failed + Unreachable -> download_client_unreachable",
                "failed + MaybeUnreachable -> download_client_unreachable",
                "failed + State(Error) -> unknown",
                "completed + Unreachable -> sample_file",
                "completed + State(Stalled) -> sample_file",
                "downloadClientUnavailable + State(Stalled) -> download_client_unreachable",
            ]
        "#]]
        .assert_debug_eq(&got);
    }

    #[test]
    fn a_download_waiting_its_turn_to_import_is_not_stuck() {
        assert!(!stuck(&item("completed", "importPending", "ok", &[], None)));
        assert!(!stuck(&item("downloading", "downloading", "ok", &[], None)));
    }
}
