//! Manual import: the candidates of a download or a folder with the service's own parse and
//! rejections, and the `ManualImport` command that imports chosen files with explicit mappings.

use serde::Serialize;
use serde_json::{Value, json};

use crate::{Command, Error, Service, common, core::Core};

/// One file the service could import, as it parsed it.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub path: String,
    pub name: String,
    pub size: i64,
    pub quality: Option<String>,
    pub languages: Vec<String>,
    /// The movie, album or book (or series) the service matched, with its title.
    pub item_id: Option<i64>,
    pub item_title: Option<String>,
    /// Sonarr: the season and episodes (id, number) it parsed.
    pub season: Option<i64>,
    pub episodes: Vec<(i64, i64)>,
    pub download_id: Option<String>,
    /// Why the service would not import it on its own.
    pub rejections: Vec<String>,
    /// The service's quality and languages, passed back verbatim when importing.
    #[serde(skip)]
    raw_quality: Value,
    #[serde(skip)]
    raw_languages: Value,
}

/// `GET manualimport?downloadId=` or `?folder=`.
pub(crate) async fn candidates(
    core: &Core,
    service: Service,
    download_id: Option<&str>,
    folder: Option<&str>,
) -> Result<Vec<Candidate>, Error> {
    let v5 = core.v5().await?;
    let mut query = vec![("filterExistingFiles", "false".to_string())];
    match (download_id, folder) {
        // Sonarr v5 takes a list of downloads.
        (Some(id), _) if v5 => query.push(("downloadIds", id.to_string())),
        (Some(id), _) => query.push(("downloadId", id.to_string())),
        (None, Some(folder)) => query.push(("folder", folder.to_string())),
        (None, None) => {
            return Err(Error::Unsupported(
                "a manual import needs a download or a folder".into(),
            ));
        }
    }
    let rows: Vec<Value> = core.get("manualimport", &query).await?;
    Ok(rows
        .into_iter()
        .map(|row| candidate(service, row))
        .collect())
}

fn candidate(service: Service, row: Value) -> Candidate {
    let item = match service {
        Service::Radarr => &row["movie"],
        Service::Sonarr => &row["series"],
        Service::Lidarr => &row["album"],
        Service::Readarr => &row["book"],
    };
    let text = |v: &Value| v.as_str().map(String::from);
    Candidate {
        path: text(&row["path"]).unwrap_or_default(),
        name: text(&row["name"]).unwrap_or_default(),
        size: row["size"].as_i64().unwrap_or_default(),
        quality: text(&row["quality"]["quality"]["name"]),
        languages: row["languages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| text(&l["name"]))
            .collect(),
        item_id: item["id"].as_i64(),
        item_title: text(&item["title"]),
        season: row["seasonNumber"].as_i64(),
        episodes: row["episodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| Some((e["id"].as_i64()?, e["episodeNumber"].as_i64()?)))
            .collect(),
        download_id: text(&row["downloadId"]).filter(|d| !d.is_empty()),
        rejections: row["rejections"]
            .as_array()
            .into_iter()
            .flatten()
            // Sonarr v5: `reason` is a code and `message` the sentence; elsewhere `reason` is.
            .filter_map(|r| {
                text(&r["message"])
                    .filter(|m| !m.is_empty())
                    .or_else(|| text(&r["reason"]))
            })
            .collect(),
        raw_quality: row["quality"].clone(),
        raw_languages: row["languages"].clone(),
    }
}

/// A file to import and what it is: a movie, album or book id, or a series' episodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportMapping {
    pub item_id: i64,
    /// Sonarr: the episode ids the file holds (`item_id` is the series).
    pub episode_ids: Vec<i64>,
}

/// `POST command {name: ManualImport, files: [...], importMode}`.
pub(crate) async fn import(
    core: &Core,
    service: Service,
    files: &[(Candidate, ImportMapping)],
    mode: &str,
) -> Result<Command, Error> {
    let files: Vec<Value> = files
        .iter()
        .map(|(c, m)| {
            let mut file =
                json!({ "path": c.path, "quality": c.raw_quality, "downloadId": c.download_id });
            if !c.raw_languages.is_null() {
                file["languages"] = c.raw_languages.clone();
            }
            match service {
                Service::Radarr => file["movieId"] = json!(m.item_id),
                Service::Sonarr => {
                    file["seriesId"] = json!(m.item_id);
                    file["episodeIds"] = json!(m.episode_ids);
                }
                Service::Lidarr => file["albumId"] = json!(m.item_id),
                Service::Readarr => file["bookId"] = json!(m.item_id),
            }
            file
        })
        .collect();
    common::start_command(
        core,
        json!({ "name": "ManualImport", "files": files, "importMode": mode }),
    )
    .await
}
