//! What a fresh install of each service holds before a test seeds anything: two quality profiles,
//! a root folder, a tag, a custom format, an indexer, a download client, a delay profile and the
//! disk space; and the template of a release an indexer returns.

use serde_json::{Value, json};

use super::{
    ArrKind, Resource, shapes,
    state::{State, merge},
};

/// Indexer API key a fresh fake's indexer carries (older services echo it back unmasked), so a
/// redaction test has something to find.
pub const INDEXER_API_KEY: &str = "fake-indexer-apikey-7f6e5d4c";

pub(crate) fn template(kind: ArrKind, resource: Resource, id: i64, now: &str) -> Value {
    shapes::template(kind, resource, id, now)
}

pub(crate) fn install(state: &mut State) {
    let kind = state.kind;
    let (folder, category) = match kind {
        ArrKind::Radarr => ("/data/media/movies", "radarr"),
        ArrKind::Sonarr => ("/data/media/tv", "tv-sonarr"),
        ArrKind::Lidarr => ("/data/media/music", "lidarr"),
        ArrKind::Readarr => ("/data/media/books", "readarr"),
    };
    for (name, cutoff) in [("HD-1080p", 7), ("Ultra-HD", 19)] {
        let mut profile = json!({
            "name": name, "upgradeAllowed": true, "cutoff": cutoff,
            "items": [{ "quality": shapes::quality(kind)["quality"], "items": [], "allowed": true }],
            "minFormatScore": 0, "cutoffFormatScore": 0, "formatItems": []
        });
        if matches!(kind, ArrKind::Radarr | ArrKind::Sonarr) {
            profile["minUpgradeFormatScore"] = json!(1);
        }
        if kind == ArrKind::Radarr {
            profile["language"] = json!({ "id": 1, "name": "English" });
        }
        state.insert(Resource::QualityProfile, profile);
    }
    let mut root = json!({ "path": folder, "accessible": true, "freeSpace": 500_000_000_000_i64 });
    match kind {
        ArrKind::Radarr | ArrKind::Sonarr => root["unmappedFolders"] = json!([]),
        ArrKind::Lidarr | ArrKind::Readarr => {
            merge(
                &mut root,
                json!({ "name": "Library", "defaultMetadataProfileId": 1, "defaultQualityProfileId": 1,
                    "defaultMonitorOption": "all", "defaultNewItemMonitorOption": "all", "defaultTags": [],
                    "totalSpace": 2_000_000_000_000_i64 }),
            );
            let profile = if kind == ArrKind::Readarr {
                json!({ "name": "Standard", "minPopularity": 0.0, "skipMissingDate": false,
                    "skipMissingIsbn": false, "skipPartsAndSets": false, "skipSeriesSecondary": false,
                    "allowedLanguages": "eng", "minPages": 0, "ignored": [] })
            } else {
                json!({ "name": "Standard", "primaryAlbumTypes": [], "secondaryAlbumTypes": [], "releaseStatuses": [] })
            };
            state.insert(Resource::MetadataProfile, profile);
        }
    }
    state.insert(Resource::RootFolder, root);
    state.insert(Resource::Tag, json!({ "label": "kids" }));
    state.insert(
        Resource::CustomFormat,
        json!({ "name": "x265", "includeCustomFormatWhenRenaming": false, "specifications": [] }),
    );
    state.insert(
        Resource::Indexer,
        json!({
            "name": "FakeIndexer (Prowlarr)", "implementationName": "Torznab",
            "implementation": "Torznab", "configContract": "TorznabSettings",
            "fields": [
                { "order": 0, "name": "baseUrl", "label": "URL", "value": "http://prowlarr:9696/1/", "type": "textbox", "advanced": false, "privacy": "normal", "isFloat": false },
                { "order": 1, "name": "apiKey", "label": "API Key", "value": INDEXER_API_KEY, "type": "textbox", "advanced": false, "privacy": "apiKey", "isFloat": false }
            ],
            "tags": [], "enableRss": true, "enableAutomaticSearch": true,
            "enableInteractiveSearch": true, "supportsRss": true, "supportsSearch": true,
            "protocol": "torrent", "priority": 25, "downloadClientId": 0
        }),
    );
    state.insert(
        Resource::DownloadClient,
        json!({
            "name": "qBittorrent", "implementationName": "qBittorrent",
            "implementation": "QBittorrent", "configContract": "QBittorrentSettings",
            "fields": [
                { "order": 0, "name": "host", "label": "Host", "value": "qbittorrent", "type": "textbox", "advanced": false, "privacy": "normal", "isFloat": false },
                { "order": 1, "name": "port", "label": "Port", "value": 8080, "type": "textbox", "advanced": false, "privacy": "normal", "isFloat": false },
                { "order": 2, "name": "username", "label": "Username", "value": "admin", "type": "textbox", "advanced": false, "privacy": "userName", "isFloat": false },
                { "order": 3, "name": "password", "label": "Password", "value": "********", "type": "password", "advanced": false, "privacy": "password", "isFloat": false },
                { "order": 4, "name": "category", "label": "Category", "value": category, "type": "textbox", "advanced": false, "privacy": "normal", "isFloat": false }
            ],
            "tags": [], "enable": true, "protocol": "torrent", "priority": 1,
            "removeCompletedDownloads": true, "removeFailedDownloads": true
        }),
    );
    if kind == ArrKind::Readarr {
        // Readarr's `Field` has no `privacy`.
        for resource in [Resource::Indexer, Resource::DownloadClient] {
            for mut value in state.all(resource) {
                for field in value["fields"].as_array_mut().into_iter().flatten() {
                    field.as_object_mut().map(|f| f.remove("privacy"));
                }
                let id = value["id"].as_i64().unwrap_or_default();
                state.update(resource, id, json!({ "fields": value["fields"] }));
            }
        }
    }
    state.insert(
        Resource::DelayProfile,
        json!({
            "enableUsenet": true, "enableTorrent": true, "preferredProtocol": "torrent",
            "usenetDelay": 0, "torrentDelay": 0, "bypassIfHighestQuality": true,
            "bypassIfAboveCustomFormatScore": false, "minimumCustomFormatScore": 0,
            "order": 2147483647, "tags": []
        }),
    );
    state.insert(
        Resource::DiskSpace,
        json!({ "path": "/data", "label": "data", "freeSpace": 500_000_000_000_i64, "totalSpace": 2_000_000_000_000_i64 }),
    );
}

/// The `n`th release an indexer returns, before a test's own fields.
pub(crate) fn release(kind: ArrKind, n: usize, now: &str) -> Value {
    let hash = format!("{n:0>40}");
    let mut release = json!({
        "guid": format!("https://indexer.example/details/{n}"),
        "quality": shapes::quality(kind), "customFormats": [], "customFormatScore": 0,
        "qualityWeight": 1, "age": 1, "ageHours": 24.0, "ageMinutes": 1440.0,
        "size": 2_147_483_648_i64, "indexerId": 1, "indexer": "FakeIndexer (Prowlarr)",
        "releaseGroup": "FAKE", "title": format!("Release.{n}.1080p.BluRay.x264-FAKE"),
        "sceneSource": false, "approved": true, "temporarilyRejected": false, "rejected": false,
        "rejections": [], "publishDate": now,
        "downloadUrl": format!("http://prowlarr:9696/1/download?link={n}&apikey={INDEXER_API_KEY}"),
        "infoUrl": format!("https://indexer.example/info/{n}"),
        "magnetUrl": format!("magnet:?xt=urn:btih:{hash}&tr=udp://tracker.example:1337"),
        "infoHash": hash, "seeders": 10, "leechers": 1, "protocol": "torrent",
        "downloadAllowed": true, "releaseWeight": n
    });
    match kind {
        ArrKind::Radarr => {
            merge(
                &mut release,
                json!({ "languages": shapes::english(), "movieTitles": [], "movieRequested": true }),
            );
        }
        ArrKind::Sonarr => merge(
            &mut release,
            json!({ "languages": shapes::english(), "fullSeason": false, "episodeRequested": true,
                "indexerFlags": 0, "isDaily": false, "isAbsoluteNumbering": false,
                "isPossibleSpecialEpisode": false, "special": false }),
        ),
        ArrKind::Lidarr | ArrKind::Readarr => merge(
            &mut release,
            json!({ "discography": false, "indexerFlags": 0 }),
        ),
    }
    release
}
