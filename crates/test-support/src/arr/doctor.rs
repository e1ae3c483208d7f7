//! Stuck downloads shaped as the services report them, one per Import Doctor verdict: the queue
//! status, tracked download state and status, and the status message texts Sonarr and Radarr
//! write (their import rejections and download client warnings), plus the manual import
//! candidates and health entries that go with them.

use serde_json::{Value, json};

use super::{
    ArrKind, Resource,
    state::{State, merge},
};

/// Why a download is not progressing, in the Import Doctor's closed list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub const ALL: [Verdict; 9] = [
        Verdict::SampleFile,
        Verdict::NeedsUnpacking,
        Verdict::WrongEpisodeMapping,
        Verdict::NotAnUpgrade,
        Verdict::MissingRemotePathMapping,
        Verdict::NoEligibleFiles,
        Verdict::StalledDownload,
        Verdict::DownloadClientUnreachable,
        Verdict::Unknown,
    ];

    /// The verdict as `diagnose_queue` names it.
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

/// Puts a stuck download of `unit_id` into the queue; returns its queue id.
pub(crate) fn seed(state: &mut State, unit_id: i64, verdict: Verdict) -> i64 {
    let kind = state.kind;
    let unit = state.get(kind.unit(), unit_id).unwrap_or_default();
    let name = unit["title"]
        .as_str()
        .unwrap_or("Unknown")
        .replace(' ', ".");
    let title = format!(
        "{name}.{}.1080p.WEB-DL-GRP",
        verdict.name().replace('_', ".")
    );
    let size = 1_500_000_000_i64;
    let id = state.start_download(unit_id, &title, size, None);
    if let Some(download) = state.downloads.get_mut(&id) {
        download.stuck = true;
    }
    let item = state.get(Resource::Queue, id).unwrap_or_default();
    let download_id = item["downloadId"].clone();
    let folder = format!("/downloads/complete/{title}");
    let app = kind.name();
    let noun = if kind == ArrKind::Radarr {
        "movie"
    } else {
        "episode"
    };
    let blocked = |messages: Vec<(String, String)>| {
        json!({
            "status": "completed", "sizeleft": 0.0, "trackedDownloadStatus": "warning",
            "trackedDownloadState": "importBlocked",
            "statusMessages": messages.into_iter().map(|(t, m)| json!({ "title": t, "messages": [m] })).collect::<Vec<_>>()
        })
    };
    let fields = match verdict {
        Verdict::SampleFile => {
            let file = format!("{title}/{name}.sample.mkv");
            candidate(
                state,
                unit_id,
                &format!("/downloads/complete/{file}"),
                40_000_000,
                &download_id,
                &["Sample"],
            );
            blocked(vec![(format!("{name}.sample.mkv"), "Sample".into())])
        }
        Verdict::NeedsUnpacking => blocked(vec![(
            title.clone(),
            "Found archive file, might need to be extracted".into(),
        )]),
        Verdict::WrongEpisodeMapping => {
            let message = match kind {
                ArrKind::Sonarr => {
                    let (s, e) = (
                        unit["seasonNumber"].as_i64().unwrap_or(1),
                        unit["episodeNumber"].as_i64().unwrap_or(1),
                    );
                    format!(
                        "Episode {s}x{:02} was unexpected considering the {title} folder name",
                        e + 1
                    )
                }
                _ => format!(
                    "Found matching {} via grab history, but release was matched to {} by ID. Manual Import required.",
                    kind.unit().path(),
                    kind.unit().path()
                ),
            };
            let file = format!("{folder}/{title}.mkv");
            candidate(state, unit_id, &file, size, &download_id, &[&message]);
            blocked(vec![(format!("{title}.mkv"), message)])
        }
        Verdict::NotAnUpgrade => blocked(vec![(
            format!("{title}.mkv"),
            format!(
                "Not an upgrade for existing {noun} file(s). Existing quality: Bluray-1080p. New Quality WEBDL-1080p."
            ),
        )]),
        Verdict::MissingRemotePathMapping => {
            health(
                state,
                json!({ "source": "RemotePathMappingCheck", "type": "error",
                "message": "Remote download client qBittorrent reports files in /downloads/complete but this directory does not appear to exist. Likely missing remote path mapping.",
                "wikiUrl": "https://wiki.servarr.com/radarr/system#remote-path-mapping" }),
            );
            json!({
                "status": "completed", "sizeleft": 0.0, "trackedDownloadStatus": "warning",
                "trackedDownloadState": "importPending", "outputPath": folder,
                "statusMessages": [{ "title": title, "messages": [format!("Import failed, path does not exist or is not accessible by {app}: {folder}. Ensure the path exists and the user running {app} has the correct permissions to access this file/folder")] }]
            })
        }
        Verdict::NoEligibleFiles => blocked(vec![(
            title.clone(),
            format!("No files found are eligible for import in {folder}"),
        )]),
        Verdict::StalledDownload => json!({
            "status": "warning", "sizeleft": (size / 2) as f64, "trackedDownloadStatus": "warning",
            "trackedDownloadState": "downloading", "errorMessage": "The download is stalled with no connections",
            "statusMessages": []
        }),
        Verdict::DownloadClientUnreachable => {
            health(
                state,
                json!({ "source": "DownloadClientCheck", "type": "error",
                "message": "Unable to communicate with qBittorrent. Connection refused (qbittorrent:8080)",
                "wikiUrl": "https://wiki.servarr.com/radarr/system#download-clients-unavailable" }),
            );
            json!({
                "status": "downloadClientUnavailable", "sizeleft": (size / 3) as f64,
                "trackedDownloadStatus": "warning", "trackedDownloadState": "downloading", "statusMessages": []
            })
        }
        Verdict::Unknown => json!({
            "status": "failed", "trackedDownloadStatus": "error", "trackedDownloadState": "failedPending",
            "errorMessage": "qBittorrent is reporting an error",
            "statusMessages": [{ "title": title, "messages": ["Download client reported an unexpected state"] }]
        }),
    };
    state.update(Resource::Queue, id, fields);
    id
}

/// A manual import candidate of a unit, parsed as the service parses it, with its rejections.
pub(crate) fn candidate(
    state: &mut State,
    unit_id: i64,
    path: &str,
    size: i64,
    download_id: &Value,
    rejections: &[&str],
) -> i64 {
    let kind = state.kind;
    let unit = state.get(kind.unit(), unit_id).unwrap_or_default();
    let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
    let rejections: Vec<Value> = rejections
        .iter()
        .map(|r| json!({ "reason": r, "type": "permanent" }))
        .collect();
    let mut value = json!({
        "path": path, "name": name, "size": size, "quality": super::shapes::quality(kind),
        "qualityWeight": 1, "downloadId": download_id, "indexerFlags": 0, "rejections": rejections
    });
    match kind {
        ArrKind::Radarr | ArrKind::Sonarr => merge(
            &mut value,
            json!({ "relativePath": name, "folderName": folder.rsplit('/').next().unwrap_or(""),
                "languages": super::shapes::english(), "customFormats": [], "customFormatScore": 0 }),
        ),
        ArrKind::Lidarr | ArrKind::Readarr => merge(
            &mut value,
            json!({ "additionalFile": false, "replaceExistingFiles": false, "disableReleaseSwitching": false }),
        ),
    }
    match kind {
        ArrKind::Radarr => value["movie"] = unit,
        ArrKind::Sonarr => {
            let series = unit["seriesId"]
                .as_i64()
                .and_then(|s| state.get(Resource::Series, s));
            value["series"] = series.unwrap_or_default();
            value["seasonNumber"] = unit["seasonNumber"].clone();
            value["episodes"] = json!([unit]);
            value["releaseType"] = json!("singleEpisode");
        }
        ArrKind::Lidarr => {
            let artist = unit["artistId"]
                .as_i64()
                .and_then(|a| state.get(Resource::Artist, a));
            value["artist"] = artist.unwrap_or_default();
            value["album"] = unit;
            value["albumReleaseId"] = json!(0);
            value["tracks"] = json!([]);
        }
        ArrKind::Readarr => {
            let author = unit["authorId"]
                .as_i64()
                .and_then(|a| state.get(Resource::Author, a));
            value["author"] = author.unwrap_or_default();
            value["book"] = unit;
        }
    }
    state.insert(Resource::ManualImport, value)
}

/// A health entry; Sonarr and Readarr document `wikiUrl` as an object, so it is left out there.
fn health(state: &mut State, mut entry: Value) {
    if matches!(state.kind, ArrKind::Sonarr | ArrKind::Readarr) {
        entry.as_object_mut().map(|e| e.remove("wikiUrl"));
    }
    state.insert(Resource::Health, entry);
}
