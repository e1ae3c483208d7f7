//! Radarr v3: movies, named by TMDB id (or IMDb id through Radarr's own lookup).

use domain::MediaSource;
use serde::Deserialize;

use crate::redact::redacted;
use serde_json::{Value, json};

use crate::{
    Error,
    common::{self, QualityWrap, quality_name},
    core::Core,
    media_info::VMediaInfo,
    model::{
        AddOptions, CalendarEntry, ExternalIds, Found, HistoryEvent, ItemKind, LibraryItem,
        MediaFile, MediaRef, SearchTarget,
    },
};

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VMovie {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    year: Option<i64>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    has_file: Option<bool>,
    #[serde(default)]
    size_on_disk: Option<i64>,
    #[serde(default)]
    quality_profile_id: Option<i64>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    added: Option<String>,
    #[serde(default)]
    tmdb_id: Option<i64>,
    #[serde(default)]
    imdb_id: Option<String>,
    #[serde(default)]
    in_cinemas: Option<String>,
    #[serde(default)]
    digital_release: Option<String>,
    #[serde(default)]
    physical_release: Option<String>,
}
}

impl VMovie {
    fn ids(&self) -> ExternalIds {
        ExternalIds {
            tmdb: self.tmdb_id.filter(|i| *i > 0).map(|i| i.to_string()),
            imdb: self.imdb_id.clone().filter(|i| !i.is_empty()),
            ..ExternalIds::default()
        }
    }

    fn item(self) -> LibraryItem {
        let ids = self.ids();
        let held = u32::from(self.has_file.unwrap_or(false));
        LibraryItem {
            id: self.id,
            kind: ItemKind::Movie,
            title: self.title.unwrap_or_default(),
            year: self.year.filter(|y| *y > 0),
            monitored: self.monitored,
            files_held: held,
            files_wanted: 1,
            size_on_disk: u64::try_from(self.size_on_disk.unwrap_or(0)).unwrap_or(0),
            quality_profile_id: self.quality_profile_id,
            path: self.path,
            added: self.added,
            ids,
            seasons: Vec::new(),
            parent_id: None,
        }
    }
}

pub async fn library(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VMovie> = core.get("movie", &[]).await?;
    Ok(rows.into_iter().map(VMovie::item).collect())
}

pub async fn item(core: &Core, id: i64) -> Result<LibraryItem, Error> {
    let v: VMovie = core.get(&format!("movie/{id}"), &[]).await?;
    Ok(v.item())
}

/// The movie as Radarr's lookup knows it, with its library id when it is already held.
pub async fn find(core: &Core, media: &MediaRef) -> Result<Found, Error> {
    let unknown = || {
        Error::NotFound(format!(
            "radarr's lookup does not know {}:{}",
            media.source, media.id
        ))
    };
    let looked: Result<Value, Error> = match media.source {
        MediaSource::Tmdb => {
            let id = numeric(&media.id, "tmdb")?;
            core.get("movie/lookup/tmdb", &[("tmdbId", id.to_string())])
                .await
        }
        MediaSource::Imdb => {
            core.get("movie/lookup/imdb", &[("imdbId", media.id.clone())])
                .await
        }
        other => {
            return Err(Error::Unsupported(format!(
                "radarr cannot look up a {other} id; name the movie by tmdb or imdb"
            )));
        }
    };
    let raw = match looked {
        Err(Error::Http {
            source: httpx::Error::NotFound,
            ..
        }) => return Err(unknown()),
        other => other?,
    };
    // Some versions answer a one-element list.
    let raw = match raw {
        Value::Array(mut a) if !a.is_empty() => a.swap_remove(0),
        Value::Object(_) => raw,
        _ => return Err(unknown()),
    };
    let movie: VMovie = serde_json::from_value(raw.clone()).map_err(|e| {
        Error::NotFound(format!("radarr's lookup answered an unreadable movie: {e}"))
    })?;
    let mut library_id = (movie.id > 0).then_some(movie.id);
    if library_id.is_none()
        && let Some(tmdb) = movie.tmdb_id.filter(|t| *t > 0)
    {
        let held: Vec<VMovie> = core.get("movie", &[("tmdbId", tmdb.to_string())]).await?;
        library_id = held.first().map(|m| m.id).filter(|i| *i > 0);
    }
    Ok(Found {
        title: movie.title.clone().unwrap_or_default(),
        year: movie.year,
        ids: movie.ids(),
        library_id,
        genres: Vec::new(),
        raw,
    })
}

/// Adds the movie, monitored, without Radarr's own search (the caller starts one it can follow).
pub async fn add(core: &Core, found: &Found, opts: &AddOptions) -> Result<LibraryItem, Error> {
    let mut body = found.raw.clone();
    body["qualityProfileId"] = json!(opts.quality_profile_id);
    body["rootFolderPath"] = json!(opts.root_folder_path);
    body["monitored"] = json!(true);
    if body.get("minimumAvailability").is_none_or(Value::is_null) {
        body["minimumAvailability"] = json!("released");
    }
    body["addOptions"] = json!({ "searchForMovie": false, "monitor": "movieOnly" });
    if let Value::Object(m) = &mut body {
        m.remove("id");
    }
    common::without_computed(&mut body);
    let v: VMovie = core.post("movie", &body).await?;
    Ok(v.item())
}

pub fn search_command(target: &SearchTarget) -> Result<Value, Error> {
    match target {
        SearchTarget::Movie(id) => Ok(json!({ "name": "MoviesSearch", "movieIds": [id] })),
        other => Err(Error::Unsupported(format!(
            "radarr searches movies only, not {other:?}"
        ))),
    }
}

pub fn rescan_command(id: i64) -> Value {
    json!({ "name": "RescanMovie", "movieId": id })
}

pub async fn history(core: &Core, id: i64) -> Result<Vec<HistoryEvent>, Error> {
    common::item_history(core, "history/movie", &[("movieId", id.to_string())]).await
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VFile {
    id: i64,
    #[serde(default)]
    movie_id: Option<i64>,
    #[serde(default)]
    series_id: Option<i64>,
    #[serde(default)]
    relative_path: Option<String>,
    #[serde(default)]
    size: i64,
    #[serde(default)]
    date_added: Option<String>,
    #[serde(default)]
    quality: Option<QualityWrap>,
    #[serde(default)]
    media_info: Option<VMediaInfo>,
}
}

impl VFile {
    pub(crate) fn file(self) -> MediaFile {
        MediaFile {
            id: self.id,
            item_id: self.movie_id.or(self.series_id),
            relative_path: self.relative_path,
            size: self.size,
            date_added: self.date_added,
            quality: quality_name(self.quality),
            media_info: self.media_info.map(VMediaInfo::info),
        }
    }
}

pub async fn files(core: &Core, id: i64) -> Result<Vec<MediaFile>, Error> {
    let rows: Vec<VFile> = core
        .get("moviefile", &[("movieId", id.to_string())])
        .await?;
    Ok(rows.into_iter().map(VFile::file).collect())
}

pub async fn calendar(core: &Core, start: &str, end: &str) -> Result<Vec<CalendarEntry>, Error> {
    let q = [
        ("start", common::calendar_bound(start)),
        ("end", common::calendar_bound(end)),
    ];
    let rows: Vec<VMovie> = core.get("calendar", &q).await?;
    Ok(rows
        .into_iter()
        .map(|m| CalendarEntry {
            item_id: Some(m.id),
            date: m
                .digital_release
                .clone()
                .or(m.physical_release.clone())
                .or(m.in_cinemas.clone()),
            title: m.title.unwrap_or_default(),
            season: None,
            episode: None,
            has_file: m.has_file.unwrap_or(false),
            monitored: m.monitored,
        })
        .collect())
}

pub(crate) fn numeric(id: &str, source: &str) -> Result<i64, Error> {
    id.trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            Error::NotFound(format!("\"{id}\" is not a {source} id (a positive number)"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_movie_with_a_file_is_available() {
        let v: VMovie = serde_json::from_value(json!({
            "id": 4, "title": "Heat", "year": 1995, "monitored": true, "hasFile": true,
            "sizeOnDisk": 123, "tmdbId": 949, "imdbId": "tt0113277", "qualityProfileId": 1
        }))
        .unwrap();
        let item = v.item();
        assert!(item.available());
        assert_eq!(item.ids.tmdb.as_deref(), Some("949"));
    }

    #[test]
    fn only_movie_searches() {
        assert!(search_command(&SearchTarget::Series(1)).is_err());
        assert_eq!(
            search_command(&SearchTarget::Movie(3)).unwrap(),
            json!({"name": "MoviesSearch", "movieIds": [3]})
        );
    }
}
