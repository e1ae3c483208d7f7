//! Sonarr v3 (Sonarr v4 speaks it) and v5: series, named by TVDB id (TMDB and IMDb through
//! Sonarr's lookup), seasons and episodes. Where v5 reads differently (season and episode history,
//! the calendar's embedded series) the instance's root decides; the answers read the same.

use std::collections::BTreeSet;

use domain::MediaSource;
use serde::Deserialize;

use crate::redact::redacted;
use serde_json::{Value, json};

use crate::{
    Error,
    common::{self},
    core::Core,
    model::{
        AddOptions, CalendarEntry, Episode, ExternalIds, Found, HistoryEvent, ItemKind,
        LibraryItem, MediaFile, MediaRef, SearchTarget, Season,
    },
    radarr::{VFile, numeric},
};

redacted! {
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VStats {
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    episode_file_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    episode_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    size_on_disk: u64,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VSeason {
    season_number: i64,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    statistics: Option<VStats>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VSeries {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    year: Option<i64>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    seasons: Vec<VSeason>,
    #[serde(default)]
    statistics: Option<VStats>,
    #[serde(default)]
    quality_profile_id: Option<i64>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    added: Option<String>,
    #[serde(default)]
    tvdb_id: Option<i64>,
    #[serde(default)]
    tmdb_id: Option<i64>,
    #[serde(default)]
    imdb_id: Option<String>,
}
}

impl VSeries {
    fn ids(&self) -> ExternalIds {
        ExternalIds {
            tvdb: self.tvdb_id.filter(|i| *i > 0).map(|i| i.to_string()),
            tmdb: self.tmdb_id.filter(|i| *i > 0).map(|i| i.to_string()),
            imdb: self.imdb_id.clone().filter(|i| !i.is_empty()),
            ..ExternalIds::default()
        }
    }

    fn item(self) -> LibraryItem {
        let ids = self.ids();
        let stats = self.statistics.unwrap_or_default();
        let seasons = self
            .seasons
            .into_iter()
            .filter(|s| s.season_number >= 0)
            .map(|s| {
                let st = s.statistics.unwrap_or_default();
                Season {
                    season: s.season_number as u32,
                    monitored: s.monitored,
                    episodes_with_files: st.episode_file_count,
                    episodes: st.episode_count,
                }
            })
            .collect();
        LibraryItem {
            id: self.id,
            kind: ItemKind::Series,
            title: self.title.unwrap_or_default(),
            year: self.year.filter(|y| *y > 0),
            monitored: self.monitored,
            files_held: stats.episode_file_count,
            files_wanted: stats.episode_count,
            size_on_disk: stats.size_on_disk,
            quality_profile_id: self.quality_profile_id,
            path: self.path,
            added: self.added,
            ids,
            seasons,
            parent_id: None,
        }
    }
}

pub async fn library(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VSeries> = core.get("series", &[]).await?;
    Ok(rows.into_iter().map(VSeries::item).collect())
}

pub async fn item(core: &Core, id: i64) -> Result<LibraryItem, Error> {
    let v: VSeries = core.get(&format!("series/{id}"), &[]).await?;
    Ok(v.item())
}

/// The series as Sonarr's lookup knows it, with its library id when it is already held.
pub async fn find(core: &Core, media: &MediaRef) -> Result<Found, Error> {
    let term = match media.source {
        MediaSource::Tvdb => {
            let id = numeric(&media.id, "tvdb")?;
            let held: Vec<Value> = core.get("series", &[("tvdbId", id.to_string())]).await?;
            if let Some(raw) = held.into_iter().next() {
                return found(raw);
            }
            format!("tvdb:{id}")
        }
        MediaSource::Tmdb => format!("tmdb:{}", numeric(&media.id, "tmdb")?),
        MediaSource::Imdb => format!("imdb:{}", media.id.trim()),
        other => {
            return Err(Error::Unsupported(format!(
                "sonarr cannot look up a {other} id; name the series by tvdb, tmdb or imdb"
            )));
        }
    };
    let rows: Vec<Value> = core.get("series/lookup", &[("term", term)]).await?;
    let raw = rows.into_iter().next().ok_or_else(|| {
        Error::NotFound(format!(
            "sonarr's lookup does not know {}:{}",
            media.source, media.id
        ))
    })?;
    found(raw)
}

fn found(raw: Value) -> Result<Found, Error> {
    let s: VSeries = serde_json::from_value(raw.clone()).map_err(|e| {
        Error::NotFound(format!(
            "sonarr's lookup answered an unreadable series: {e}"
        ))
    })?;
    Ok(Found {
        title: s.title.clone().unwrap_or_default(),
        year: s.year,
        ids: s.ids(),
        library_id: (s.id > 0).then_some(s.id),
        genres: Vec::new(),
        raw,
    })
}

/// Adds the series with only `opts.seasons` monitored (every season when empty), without
/// Sonarr's own search.
pub async fn add(core: &Core, found: &Found, opts: &AddOptions) -> Result<LibraryItem, Error> {
    let mut body = found.raw.clone();
    let wanted: BTreeSet<u32> = opts.seasons.iter().copied().collect();
    let seasons: Vec<Value> = body
        .get("seasons")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| {
            let n = s.get("seasonNumber")?.as_i64()?;
            let on = n > 0 && (wanted.is_empty() || wanted.contains(&(n as u32)));
            Some(json!({ "seasonNumber": n, "monitored": on }))
        })
        .collect();
    body["seasons"] = json!(seasons);
    body["qualityProfileId"] = json!(opts.quality_profile_id);
    body["rootFolderPath"] = json!(opts.root_folder_path);
    body["monitored"] = json!(true);
    body["seasonFolder"] = json!(true);
    // No `monitor` option: Sonarr then keeps the seasons' own flags.
    body["addOptions"] =
        json!({ "searchForMissingEpisodes": false, "searchForCutoffUnmetEpisodes": false });
    if let Value::Object(m) = &mut body {
        m.remove("id");
    }
    common::without_computed(&mut body);
    let v: VSeries = core.post("series", &body).await?;
    Ok(v.item())
}

pub fn search_command(target: &SearchTarget) -> Result<Value, Error> {
    match target {
        SearchTarget::Series(id) => Ok(json!({ "name": "SeriesSearch", "seriesId": id })),
        SearchTarget::Season { series_id, season } => {
            Ok(json!({ "name": "SeasonSearch", "seriesId": series_id, "seasonNumber": season }))
        }
        SearchTarget::Episodes(ids) => Ok(json!({ "name": "EpisodeSearch", "episodeIds": ids })),
        other => Err(Error::Unsupported(format!(
            "sonarr searches series, seasons and episodes, not {other:?}"
        ))),
    }
}

pub fn rescan_command(id: i64) -> Value {
    json!({ "name": "RescanSeries", "seriesId": id })
}

pub async fn history(core: &Core, id: i64) -> Result<Vec<HistoryEvent>, Error> {
    common::item_history(core, "history/series", &[("seriesId", id.to_string())]).await
}

/// One season's history, or one episode's: Sonarr v5 answers them at `history/season` and
/// `history/episode`; up to v4, `history/series` takes the season, and an episode's history is
/// the paged `history` filtered by it, read completely.
pub async fn episode_history(
    core: &Core,
    series_id: i64,
    season: u32,
    episode_id: Option<i64>,
) -> Result<Vec<HistoryEvent>, Error> {
    let season_query = [
        ("seriesId", series_id.to_string()),
        ("seasonNumber", season.to_string()),
    ];
    match (episode_id, core.v5().await?) {
        (Some(id), true) => {
            common::item_history(core, "history/episode", &[("episodeId", id.to_string())]).await
        }
        (Some(id), false) => {
            common::paged_history(
                core,
                "the episode's history",
                &[("episodeId", id.to_string())],
            )
            .await
        }
        (None, true) => common::item_history(core, "history/season", &season_query).await,
        (None, false) => common::item_history(core, "history/series", &season_query).await,
    }
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VEpisode {
    id: i64,
    #[serde(default)]
    series_id: Option<i64>,
    #[serde(default)]
    season_number: i64,
    #[serde(default)]
    episode_number: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    air_date_utc: Option<String>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    has_file: bool,
    #[serde(default)]
    episode_file_id: Option<i64>,
    #[serde(default)]
    series: Option<VSeriesTitle>,
}
}

redacted! {
#[derive(Deserialize)]
struct VSeriesTitle {
    #[serde(default)]
    title: Option<String>,
}
}

impl VEpisode {
    fn episode(self) -> Episode {
        Episode {
            id: self.id,
            season: self.season_number,
            episode: self.episode_number,
            title: self.title,
            air_date_utc: self.air_date_utc,
            monitored: self.monitored,
            has_file: self.has_file,
            episode_file_id: self.episode_file_id.filter(|i| *i > 0),
        }
    }
}

pub async fn episodes(
    core: &Core,
    series_id: i64,
    season: Option<u32>,
) -> Result<Vec<Episode>, Error> {
    let mut q = vec![("seriesId", series_id.to_string())];
    if let Some(s) = season {
        q.push(("seasonNumber", s.to_string()));
    }
    let rows: Vec<VEpisode> = core.get("episode", &q).await?;
    Ok(rows.into_iter().map(VEpisode::episode).collect())
}

pub async fn files(core: &Core, series_id: i64) -> Result<Vec<MediaFile>, Error> {
    let rows: Vec<VFile> = core
        .get("episodefile", &[("seriesId", series_id.to_string())])
        .await?;
    Ok(rows.into_iter().map(VFile::file).collect())
}

pub async fn calendar(core: &Core, start: &str, end: &str) -> Result<Vec<CalendarEntry>, Error> {
    // The series title is embedded on request: `includeSeries` up to v4, a subresource in v5.
    let embed = if core.v5().await? {
        ("includeSubresources", "series".to_string())
    } else {
        ("includeSeries", "true".to_string())
    };
    let q = [
        ("start", common::calendar_bound(start)),
        ("end", common::calendar_bound(end)),
        embed,
    ];
    let rows: Vec<VEpisode> = core.get("calendar", &q).await?;
    Ok(rows
        .into_iter()
        .map(|e| CalendarEntry {
            item_id: e.series_id,
            title: match (e.series.and_then(|s| s.title), e.title) {
                (Some(s), Some(t)) => format!("{s}: {t}"),
                (Some(s), None) => s,
                (None, t) => t.unwrap_or_default(),
            },
            date: e.air_date_utc,
            season: Some(e.season_number),
            episode: Some(e.episode_number),
            has_file: e.has_file,
            monitored: e.monitored,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seasons_and_files_are_counted() {
        let v: VSeries = serde_json::from_value(json!({
            "id": 2, "title": "Bluey", "year": 2018, "monitored": true, "tvdbId": 353546,
            "seasons": [
                {"seasonNumber": 0, "monitored": false},
                {"seasonNumber": 1, "monitored": true, "statistics": {"episodeFileCount": 3, "episodeCount": 52}}
            ],
            "statistics": {"episodeFileCount": 3, "episodeCount": 52, "sizeOnDisk": 9}
        }))
        .unwrap();
        let item = v.item();
        assert_eq!(item.seasons.len(), 2);
        assert!(!item.available());
        assert_eq!(item.ids.tvdb.as_deref(), Some("353546"));
    }
}
