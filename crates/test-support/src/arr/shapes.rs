//! The fields each service always sends for a resource, in its own shape: what `insert` fills in
//! before a test's own fields are laid over them.

use serde_json::{Value, json};

use super::{ArrKind, Resource};

/// The quality a fresh download or file has on this service.
pub(crate) fn quality(kind: ArrKind) -> Value {
    let quality = match kind {
        ArrKind::Radarr => {
            json!({ "id": 7, "name": "Bluray-1080p", "source": "bluray", "resolution": 1080, "modifier": "none" })
        }
        ArrKind::Sonarr => {
            json!({ "id": 7, "name": "Bluray-1080p", "source": "bluray", "resolution": 1080 })
        }
        ArrKind::Lidarr => json!({ "id": 6, "name": "FLAC" }),
        ArrKind::Readarr => json!({ "id": 3, "name": "EPUB" }),
    };
    json!({ "quality": quality, "revision": { "version": 1, "real": 0, "isRepack": false } })
}

pub(crate) fn english() -> Value {
    json!([{ "id": 1, "name": "English" }])
}

/// What the service reports after analysing a file.
pub(crate) fn media_info(kind: ArrKind) -> Value {
    match kind {
        ArrKind::Radarr | ArrKind::Sonarr => json!({
            "id": 0, "audioBitrate": 640000, "audioChannels": 5.1, "audioCodec": "EAC3",
            "audioLanguages": "eng", "audioStreamCount": 1, "videoBitDepth": 8,
            "videoBitrate": 8000000, "videoCodec": "x264", "videoFps": 23.976,
            "videoDynamicRange": "", "videoDynamicRangeType": "", "resolution": "1920x1080",
            "runTime": "1:58:00", "scanType": "Progressive", "subtitles": "eng/spa"
        }),
        ArrKind::Lidarr | ArrKind::Readarr => json!({
            "id": 0, "audioChannels": 2.0, "audioBitRate": "1411 kbps", "audioCodec": "FLAC",
            "audioBits": "16bit", "audioSampleRate": "44.1 kHz"
        }),
    }
}

fn with_languages(kind: ArrKind, mut value: Value) -> Value {
    if matches!(kind, ArrKind::Radarr | ArrKind::Sonarr) {
        value["languages"] = english();
    }
    value
}

/// The template of one resource with id `id`, stamped `now`.
pub(crate) fn template(kind: ArrKind, resource: Resource, id: i64, now: &str) -> Value {
    use Resource::*;
    let ratings_votes = json!({ "votes": 0, "value": 0.0 });
    match resource {
        Movie => json!({
            "id": id, "title": "", "originalLanguage": { "id": 1, "name": "English" },
            "sortTitle": "", "sizeOnDisk": 0, "status": "released", "overview": "", "images": [],
            "year": 0, "path": "", "qualityProfileId": 1, "hasFile": false, "movieFileId": 0,
            "monitored": true, "minimumAvailability": "released", "isAvailable": true,
            "folderName": "", "runtime": 0, "cleanTitle": "", "tmdbId": 0, "titleSlug": "",
            "rootFolderPath": "", "genres": [], "keywords": [], "tags": [], "added": now,
            "ratings": {}, "popularity": 0.0,
            "statistics": { "movieFileCount": 0, "sizeOnDisk": 0, "releaseGroups": [] }
        }),
        Series => json!({
            "id": id, "title": "", "sortTitle": "", "status": "continuing", "ended": false,
            "overview": "", "network": "", "images": [], "originalLanguage": { "id": 1, "name": "English" },
            "seasons": [], "year": 0, "path": "", "qualityProfileId": 1, "seasonFolder": true,
            "monitored": true, "monitorNewItems": "all", "useSceneNumbering": false, "runtime": 0,
            "tvdbId": 0, "tvRageId": 0, "tvMazeId": 0, "tmdbId": 0, "seriesType": "standard",
            "cleanTitle": "", "titleSlug": "", "rootFolderPath": "", "genres": [], "tags": [],
            "added": now, "ratings": ratings_votes, "languageProfileId": 1
        }),
        Episode => json!({
            "id": id, "seriesId": 0, "tvdbId": 0, "episodeFileId": 0, "seasonNumber": 1,
            "episodeNumber": 1, "title": "", "runtime": 0, "overview": "", "hasFile": false,
            "monitored": true, "unverifiedSceneNumbering": false
        }),
        Artist => json!({
            "id": id, "status": "continuing", "ended": false, "artistName": "", "foreignArtistId": "",
            "tadbId": 0, "discogsId": 0, "overview": "", "artistType": "Group", "disambiguation": "",
            "links": [], "images": [], "path": "", "qualityProfileId": 1, "metadataProfileId": 1,
            "monitored": true, "monitorNewItems": "all", "rootFolderPath": "", "genres": [],
            "cleanName": "", "sortName": "", "tags": [], "added": now, "ratings": ratings_votes
        }),
        Album => json!({
            "id": id, "title": "", "disambiguation": "", "overview": "", "artistId": 0,
            "foreignAlbumId": "", "monitored": true, "anyReleaseOk": true, "profileId": 1,
            "duration": 0, "albumType": "Album", "secondaryTypes": [], "mediumCount": 1,
            "ratings": ratings_votes, "releases": [], "genres": [], "media": [], "images": [], "links": [],
            "statistics": { "trackFileCount": 0, "trackCount": 10, "totalTrackCount": 10, "sizeOnDisk": 0, "percentOfTracks": 0.0 }
        }),
        Author => json!({
            "id": id, "authorMetadataId": id, "status": "continuing", "ended": false, "authorName": "",
            "authorNameLastFirst": "", "foreignAuthorId": "", "titleSlug": "", "overview": "",
            "links": [], "images": [], "path": "", "qualityProfileId": 1, "metadataProfileId": 1,
            "monitored": true, "monitorNewItems": "all", "rootFolderPath": "", "genres": [],
            "cleanName": "", "sortName": "", "sortNameLastFirst": "", "tags": [], "added": now,
            "ratings": { "votes": 0, "value": 0.0, "popularity": 0.0 }
        }),
        Book => json!({
            "id": id, "title": "", "authorTitle": "", "seriesTitle": "", "disambiguation": "",
            "overview": "", "authorId": 0, "foreignBookId": "", "foreignEditionId": "", "titleSlug": "",
            "monitored": true, "anyEditionOk": true, "ratings": { "votes": 0, "value": 0.0, "popularity": 0.0 },
            "pageCount": 0, "genres": [], "images": [], "links": [], "added": now, "editions": [],
            "grabbed": false,
            "statistics": { "bookFileCount": 0, "bookCount": 1, "totalBookCount": 1, "sizeOnDisk": 0, "percentOfBooks": 0.0 }
        }),
        MovieFile => with_languages(
            kind,
            json!({
                "id": id, "movieId": 0, "relativePath": "", "path": "", "size": 0, "dateAdded": now,
                "releaseGroup": "", "edition": "", "quality": quality(kind), "customFormats": [],
                "customFormatScore": 0, "indexerFlags": 0, "mediaInfo": media_info(kind),
                "qualityCutoffNotMet": false
            }),
        ),
        EpisodeFile => with_languages(
            kind,
            json!({
                "id": id, "seriesId": 0, "seasonNumber": 1, "relativePath": "", "path": "", "size": 0,
                "dateAdded": now, "releaseGroup": "", "quality": quality(kind), "customFormats": [],
                "customFormatScore": 0, "indexerFlags": 0, "releaseType": "singleEpisode",
                "mediaInfo": media_info(kind), "qualityCutoffNotMet": false
            }),
        ),
        TrackFile => json!({
            "id": id, "artistId": 0, "albumId": 0, "path": "", "size": 0, "dateAdded": now,
            "releaseGroup": "", "quality": quality(kind), "qualityWeight": 1, "customFormats": [],
            "customFormatScore": 0, "indexerFlags": 0, "mediaInfo": media_info(kind),
            "qualityCutoffNotMet": false
        }),
        BookFile => json!({
            "id": id, "authorId": 0, "bookId": 0, "path": "", "size": 0, "dateAdded": now,
            "quality": quality(kind), "qualityWeight": 1, "indexerFlags": 0,
            "mediaInfo": media_info(kind), "qualityCutoffNotMet": false
        }),
        Queue => queue(kind, id, now),
        History => with_languages(
            kind,
            json!({
                "id": id, "sourceTitle": "", "quality": quality(kind), "customFormats": [],
                "customFormatScore": 0, "qualityCutoffNotMet": false, "date": now, "eventType": "grabbed",
                "data": {}
            }),
        ),
        Blocklist => {
            let mut value = with_languages(
                kind,
                json!({
                    "id": id, "sourceTitle": "", "quality": quality(kind), "customFormats": [],
                    "date": now, "protocol": "torrent", "indexer": "", "message": ""
                }),
            );
            if kind == ArrKind::Sonarr {
                value["episodeIds"] = json!([]);
            }
            value
        }
        _ => json!({ "id": id }),
    }
}

fn queue(kind: ArrKind, id: i64, now: &str) -> Value {
    let mut value = json!({
        "id": id, "quality": quality(kind), "customFormats": [], "customFormatScore": 0,
        "size": 0.0, "title": "", "sizeleft": 0.0, "status": "downloading",
        "trackedDownloadStatus": "ok", "trackedDownloadState": "downloading", "statusMessages": [],
        "downloadId": "", "protocol": "torrent", "downloadClient": "qBittorrent",
        "downloadClientHasPostImportCategory": false, "indexer": "", "outputPath": ""
    });
    if kind != ArrKind::Readarr {
        value["added"] = json!(now);
    }
    match kind {
        ArrKind::Radarr => value["languages"] = english(),
        ArrKind::Sonarr => {
            value["languages"] = english();
            value["episodeHasFile"] = json!(false);
        }
        ArrKind::Lidarr => {
            value["trackFileCount"] = json!(0);
            value["trackHasFileCount"] = json!(0);
            value["downloadForced"] = json!(false);
        }
        ArrKind::Readarr => value["downloadForced"] = json!(false),
    }
    value
}
