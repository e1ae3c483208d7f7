//! The fake clock: searches grab, downloads progress, finished downloads import (a history event,
//! a file with media info, the unit marked as held), and manual imports do the same on demand.

use std::time::Duration;

use serde_json::{Value, json};

use super::{
    ArrKind, Resource, commands,
    state::{Download, State, merge, stamp},
};

/// A finished download waits this long (on the fake clock) before it is imported.
const IMPORT_DELAY: i64 = 60;

/// A made-up download takes this long to arrive.
const DOWNLOAD_SECONDS: f64 = 600.0;

impl State {
    pub fn advance(&mut self, by: Duration) {
        commands::run_pending(self);
        let from = self.now;
        let to = from + chrono::Duration::from_std(by).unwrap_or_default();
        let seconds = by.as_secs_f64();
        let mut finished = Vec::new();
        for item in self.all(Resource::Queue) {
            let id = item["id"].as_i64().unwrap_or_default();
            let Some(download) = self.downloads.get(&id).cloned() else {
                continue;
            };
            if download.stuck {
                continue;
            }
            let left = item["sizeleft"].as_f64().unwrap_or(0.0);
            let now_left = (left - download.rate * seconds).max(0.0);
            let done_at = download.done_at.or_else(|| {
                (now_left == 0.0).then(|| {
                    from + chrono::Duration::milliseconds((left / download.rate * 1000.0) as i64)
                })
            });
            if let Some(done) = self.downloads.get_mut(&id) {
                done.done_at = done_at;
            }
            let remaining = (now_left / download.rate).round() as i64;
            let mut fields = json!({
                "sizeleft": now_left,
                "estimatedCompletionTime": stamp(to + chrono::Duration::seconds(remaining)),
            });
            if self.kind != ArrKind::Readarr {
                fields["timeleft"] = json!(format!(
                    "{:02}:{:02}:{:02}",
                    remaining / 3600,
                    remaining / 60 % 60,
                    remaining % 60
                ));
            }
            if let Some(done) = done_at {
                fields["status"] = json!("completed");
                fields["trackedDownloadState"] = json!("importPending");
                if to >= done + chrono::Duration::seconds(IMPORT_DELAY) {
                    finished.push(id);
                }
            }
            self.update(Resource::Queue, id, fields);
        }
        self.now = to;
        for id in finished {
            if let Some(item) = self.remove(Resource::Queue, id) {
                self.downloads.remove(&id);
                let unit = unit_id(self.kind, &item);
                let size = item["size"].as_f64().unwrap_or(0.0) as i64;
                self.import_file(
                    unit,
                    &item["title"],
                    size,
                    &item["downloadId"],
                    &item["quality"],
                );
            }
        }
    }

    /// Starts a download of `unit_id` into the queue with a `grabbed` history event; returns the
    /// queue id.
    pub fn start_download(
        &mut self,
        unit_id: i64,
        title: &str,
        size: i64,
        release: Option<&Value>,
    ) -> i64 {
        let hash = release
            .and_then(|r| r["infoHash"].as_str())
            .map(str::to_uppercase)
            .unwrap_or_else(|| format!("{:0>40X}", 0xA000 + self.all(Resource::History).len()));
        let ids = self.unit_ids(unit_id);
        let indexer = release.map_or(json!("FakeIndexer (Prowlarr)"), |r| r["indexer"].clone());
        let quality = release.map_or(json!(null), |r| r["quality"].clone());
        let mut item = json!({
            "title": title, "size": size as f64, "sizeleft": size as f64, "downloadId": hash,
            "indexer": indexer, "outputPath": format!("/downloads/complete/{title}"),
            "estimatedCompletionTime": stamp(self.now + chrono::Duration::seconds(DOWNLOAD_SECONDS as i64)),
        });
        if self.kind != ArrKind::Readarr {
            item["timeleft"] = json!("00:10:00");
        }
        if !quality.is_null() {
            item["quality"] = quality.clone();
        }
        merge(&mut item, ids.clone());
        let id = self.insert(Resource::Queue, item);
        self.downloads.insert(
            id,
            Download {
                rate: size.max(1) as f64 / DOWNLOAD_SECONDS,
                stuck: false,
                done_at: None,
            },
        );
        let mut data = json!({ "indexer": indexer, "downloadClient": "qBittorrent", "downloadClientName": "qBittorrent",
            "releaseGroup": "FAKE", "size": size.to_string(), "protocol": "2" });
        if let Some(release) = release {
            data["guid"] = release["guid"].clone();
            data["downloadUrl"] = release["downloadUrl"].clone();
            data["nzbInfoUrl"] = release["infoUrl"].clone();
        }
        let mut event = json!({ "sourceTitle": title, "downloadId": hash, "eventType": "grabbed", "data": data });
        if !quality.is_null() {
            event["quality"] = quality;
        }
        merge(&mut event, self.history_ids(unit_id));
        self.insert(Resource::History, event);
        id
    }

    /// The ids a queue item carries for a unit (movieId; seriesId, episodeId, seasonNumber; …).
    pub fn unit_ids(&self, unit_id: i64) -> Value {
        let unit = self.get(self.kind.unit(), unit_id).unwrap_or_default();
        match self.kind {
            ArrKind::Radarr => json!({ "movieId": unit_id }),
            ArrKind::Sonarr => {
                json!({ "seriesId": unit["seriesId"], "episodeId": unit_id, "seasonNumber": unit["seasonNumber"] })
            }
            ArrKind::Lidarr => json!({ "artistId": unit["artistId"], "albumId": unit_id }),
            ArrKind::Readarr => json!({ "authorId": unit["authorId"], "bookId": unit_id }),
        }
    }

    fn history_ids(&self, unit_id: i64) -> Value {
        let mut ids = self.unit_ids(unit_id);
        if let Some(ids) = ids.as_object_mut() {
            ids.remove("seasonNumber");
        }
        if self.kind == ArrKind::Lidarr {
            ids["trackId"] = json!(0);
        }
        ids
    }

    /// Imports a file for a unit: the file, the unit marked as held, a history event.
    pub fn import_file(
        &mut self,
        unit_id: i64,
        source: &Value,
        size: i64,
        download_id: &Value,
        quality: &Value,
    ) {
        let kind = self.kind;
        let unit = self.get(kind.unit(), unit_id).unwrap_or_default();
        let name = source.as_str().unwrap_or("import");
        let folder = match kind {
            ArrKind::Radarr => unit["path"]
                .as_str()
                .unwrap_or("/data/media/movies/Unknown")
                .to_string(),
            _ => {
                let parent = self.get(
                    kind.item(),
                    self.unit_ids(unit_id)[format!("{}Id", kind.item().path())]
                        .as_i64()
                        .unwrap_or(0),
                );
                parent
                    .and_then(|p| p["path"].as_str().map(String::from))
                    .unwrap_or_else(|| "/data/media/unknown".into())
            }
        };
        let extension = match kind {
            ArrKind::Lidarr => "flac",
            ArrKind::Readarr => "epub",
            _ => "mkv",
        };
        let relative = format!("{name}.{extension}");
        let mut file = json!({ "path": format!("{folder}/{relative}"), "size": size });
        if kind != ArrKind::Readarr {
            file["sceneName"] = json!(name);
            file["releaseGroup"] = json!("FAKE");
        }
        if !quality.is_null() {
            file["quality"] = quality.clone();
        }
        match kind {
            ArrKind::Radarr | ArrKind::Sonarr => {
                file["relativePath"] = json!(relative);
                file["originalFilePath"] = json!(format!("{name}/{relative}"));
            }
            _ => {}
        }
        let mut ids = self.unit_ids(unit_id);
        if let Some(ids) = ids.as_object_mut() {
            ids.remove("episodeId");
        }
        merge(&mut file, ids);
        if let (ArrKind::Sonarr, Some(file)) = (kind, file.as_object_mut()) {
            file.remove("originalFilePath");
        }
        let file_id = self.insert(kind.file(), file);
        let held = match kind {
            ArrKind::Radarr => {
                json!({ "hasFile": true, "movieFileId": file_id, "sizeOnDisk": size })
            }
            ArrKind::Sonarr => json!({ "hasFile": true, "episodeFileId": file_id }),
            ArrKind::Lidarr => {
                json!({ "statistics": { "trackFileCount": 10, "trackCount": 10, "totalTrackCount": 10, "sizeOnDisk": size, "percentOfTracks": 100.0 } })
            }
            ArrKind::Readarr => {
                json!({ "statistics": { "bookFileCount": 1, "bookCount": 1, "totalBookCount": 1, "sizeOnDisk": size, "percentOfBooks": 100.0 } })
            }
        };
        if !unit.is_null() {
            self.update(kind.unit(), unit_id, held);
        }
        let event = match kind {
            ArrKind::Radarr | ArrKind::Sonarr => "downloadFolderImported",
            ArrKind::Lidarr | ArrKind::Readarr => "downloadImported",
        };
        let mut history = json!({ "sourceTitle": name, "downloadId": download_id, "eventType": event,
            "data": { "droppedPath": format!("/downloads/complete/{name}/{relative}"), "importedPath": format!("{folder}/{relative}"),
                "downloadClient": "qBittorrent", "downloadClientName": "qBittorrent" } });
        if !quality.is_null() {
            history["quality"] = quality.clone();
        }
        merge(&mut history, self.history_ids(unit_id));
        self.insert(Resource::History, history);
    }

    /// A search for one unit: nothing if it is already downloading; else the first seeded
    /// release that is approved and not blocklisted, or a made-up one.
    pub fn search_unit(&mut self, unit_id: i64) {
        let ids = self.unit_ids(unit_id);
        let unit_key = match self.kind {
            ArrKind::Radarr => "movieId",
            ArrKind::Sonarr => "episodeId",
            ArrKind::Lidarr => "albumId",
            ArrKind::Readarr => "bookId",
        };
        if !self
            .find(Resource::Queue, unit_key, &ids[unit_key])
            .is_empty()
            || self.get(self.kind.unit(), unit_id).is_none()
        {
            return;
        }
        let blocked: Vec<Value> = self
            .all(Resource::Blocklist)
            .into_iter()
            .map(|b| b["sourceTitle"].clone())
            .collect();
        let seeded = self
            .releases
            .iter()
            .find(|(unit, r)| {
                *unit == unit_id && r["approved"] == json!(true) && !blocked.contains(&r["title"])
            })
            .map(|(_, r)| r.clone());
        let release = match seeded {
            Some(release) => release,
            None if self.search_finds => {
                let title = self
                    .get(self.kind.unit(), unit_id)
                    .and_then(|u| u["title"].as_str().map(String::from))
                    .unwrap_or_default();
                let n = self.releases.len() + 1000 + unit_id as usize;
                let mut release = super::defaults::release(self.kind, n, &self.stamp());
                release["title"] = json!(format!(
                    "{}.1080p.BluRay.x264-FAKE",
                    title.replace(' ', ".")
                ));
                release
            }
            None => return,
        };
        self.grab_release(unit_id, &release);
    }

    pub fn grab_release(&mut self, unit_id: i64, release: &Value) -> i64 {
        self.grabs.push(json!({ "guid": release["guid"], "indexerId": release["indexerId"], "title": release["title"], "unitId": unit_id }));
        let title = release["title"].as_str().unwrap_or("release").to_string();
        let size = release["size"].as_i64().unwrap_or(1);
        self.start_download(unit_id, &title, size, Some(release))
    }
}

/// The unit a queue item is for.
pub(crate) fn unit_id(kind: ArrKind, item: &Value) -> i64 {
    let key = match kind {
        ArrKind::Radarr => "movieId",
        ArrKind::Sonarr => "episodeId",
        ArrKind::Lidarr => "albumId",
        ArrKind::Readarr => "bookId",
    };
    item[key].as_i64().unwrap_or_default()
}

pub(crate) fn search_unit(state: &mut State, unit_id: i64) {
    state.search_unit(unit_id);
}

/// `ManualImport {files: [...], importMode}`: each file names its path and the unit(s) it is;
/// a file naming no unit the library holds fails the whole command before anything is imported.
pub(crate) fn manual_import(state: &mut State, body: &Value) -> Result<(), String> {
    let files = body["files"].as_array().cloned().unwrap_or_default();
    if files.is_empty() {
        return Err("no files to import".into());
    }
    let kind = state.kind;
    let units = |file: &Value| -> Vec<i64> {
        match kind {
            ArrKind::Radarr => file["movieId"].as_i64().into_iter().collect(),
            ArrKind::Sonarr => file["episodeIds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_i64)
                .collect(),
            ArrKind::Lidarr => file["albumId"].as_i64().into_iter().collect(),
            ArrKind::Readarr => file["bookId"].as_i64().into_iter().collect(),
        }
    };
    for file in &files {
        let targets = units(file);
        if targets.is_empty()
            || targets
                .iter()
                .any(|u| state.get(state.kind.unit(), *u).is_none())
        {
            return Err(format!(
                "file {} is not mapped to a known item",
                file["path"].as_str().unwrap_or("?")
            ));
        }
    }
    for file in &files {
        let path = file["path"].as_str().unwrap_or("");
        let name = path.rsplit('/').next().unwrap_or(path);
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let candidate = state
            .all(Resource::ManualImport)
            .into_iter()
            .find(|c| c["path"] == json!(path));
        let size = candidate
            .as_ref()
            .and_then(|c| c["size"].as_i64())
            .unwrap_or(1);
        for unit in units(file) {
            state.import_file(
                unit,
                &json!(stem),
                size,
                &file["downloadId"],
                &file["quality"],
            );
        }
        if let Some(id) = candidate.and_then(|c| c["id"].as_i64()) {
            state.remove(Resource::ManualImport, id);
        }
        if let Some(download) = file["downloadId"].as_str().filter(|d| !d.is_empty()) {
            for item in state.find(Resource::Queue, "downloadId", &json!(download)) {
                if let Some(id) = item["id"].as_i64() {
                    state.remove(Resource::Queue, id);
                    state.downloads.remove(&id);
                }
            }
        }
    }
    Ok(())
}
