//! Jellyfin (API 10.x, its OpenAPI document `jellyfin-v12`) and Emby (the same API family,
//! older shapes): `BaseItemDto` items read with `startIndex`/`limit` paging, resume points from
//! `/UserItems/Resume` (Jellyfin) or `/Users/{id}/Items/Resume` (Emby), played history, and
//! `/Sessions`. Knows the vendor's PascalCase JSON; hands on [`crate::model`] shapes.

use std::collections::HashMap;

use serde::Deserialize;

use crate::{
    Error, Server,
    core::Core,
    model::{ItemKind, ItemPage, MediaItem, Progress, ProviderIds, ServerUser, Session},
};

/// The item fields every read asks for beyond the defaults.
/// (`OfficialRating` is not one of the document's `ItemFields`: items carry it by default.)
const FIELDS: &str = "ProviderIds,Genres,DateCreated";
/// Ticks (100 ns) per second.
const TICKS: u64 = 10_000_000;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct QueryResult {
    #[serde(default)]
    items: Vec<Dto>,
    #[serde(default)]
    total_record_count: i64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct Dto {
    id: Option<String>,
    name: Option<String>,
    #[serde(rename = "Type")]
    kind: Option<String>,
    production_year: Option<i32>,
    series_id: Option<String>,
    series_name: Option<String>,
    parent_index_number: Option<i64>,
    index_number: Option<i64>,
    provider_ids: Option<HashMap<String, Option<String>>>,
    official_rating: Option<String>,
    genres: Option<Vec<String>>,
    date_created: Option<String>,
    run_time_ticks: Option<i64>,
    user_data: Option<UserData>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct UserData {
    playback_position_ticks: i64,
    played_percentage: Option<f64>,
    played: bool,
    last_played_date: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct UserDto {
    id: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct SessionDto {
    user_name: Option<String>,
    device_name: Option<String>,
    client: Option<String>,
    now_playing_item: Option<Dto>,
    play_state: Option<PlayState>,
    transcoding_info: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct PlayState {
    position_ticks: Option<i64>,
    is_paused: bool,
    play_method: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct SystemInfo {
    server_name: Option<String>,
    version: Option<String>,
}

fn seconds(ticks: Option<i64>) -> Option<u64> {
    ticks.and_then(|t| u64::try_from(t).ok()).map(|t| t / TICKS)
}

fn number(n: Option<i64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok())
}

impl Dto {
    /// The item, when it is a movie, show or episode with an id.
    fn item(self) -> Option<(MediaItem, Option<UserData>)> {
        let kind = match self.kind.as_deref()? {
            "Movie" => ItemKind::Movie,
            "Series" => ItemKind::Series,
            "Episode" => ItemKind::Episode,
            _ => return None,
        };
        let ids = self.provider_ids.unwrap_or_default();
        let id_of = |name: &str| -> Option<String> {
            ids.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .and_then(|(_, v)| v.clone())
                .filter(|v| !v.trim().is_empty())
        };
        let item = MediaItem {
            id: self.id?,
            kind,
            title: self.name.unwrap_or_default(),
            year: self.production_year,
            series_id: self.series_id,
            series_title: self.series_name,
            season: number(self.parent_index_number),
            episode: number(self.index_number),
            ids: ProviderIds {
                tmdb: id_of("Tmdb"),
                imdb: id_of("Imdb"),
                tvdb: id_of("Tvdb"),
            },
            rating: self.official_rating.filter(|r| !r.trim().is_empty()),
            genres: self.genres.unwrap_or_default(),
            added_at: self.date_created,
            runtime_seconds: seconds(self.run_time_ticks),
        };
        Some((item, self.user_data))
    }

    fn progress(self) -> Option<Progress> {
        let (item, data) = self.item()?;
        let data = data.unwrap_or_default();
        Some(Progress {
            item,
            position_seconds: seconds(Some(data.playback_position_ticks)).unwrap_or(0),
            percent: data.played_percentage,
            played: data.played,
            last_played: data.last_played_date,
        })
    }
}

/// `GET /System/Info`: the server's name and version.
pub(crate) async fn status(core: &Core) -> Result<String, Error> {
    let info: SystemInfo = core.get("/System/Info", &[]).await?;
    Ok(format!(
        "{} {} answers",
        info.server_name.unwrap_or_else(|| "the server".into()),
        info.version.unwrap_or_default()
    )
    .replace("  ", " "))
}

/// A list parameter as each server takes it: Jellyfin's document declares query arrays in the
/// OpenAPI default (the name repeated per value, which its server also reads comma-joined);
/// Emby reads one comma-joined value.
fn list(server: Server, name: &'static str, values: &str) -> Vec<(&'static str, String)> {
    match server {
        Server::Emby => vec![(name, values.to_string())],
        _ => values.split(',').map(|v| (name, v.to_string())).collect(),
    }
}

/// One page of the library: movies, shows and episodes, recursively.
pub(crate) async fn items(
    core: &Core,
    server: Server,
    start: u64,
    limit: u64,
) -> Result<ItemPage, Error> {
    let mut query = vec![("recursive", "true".to_string())];
    query.extend(list(server, "includeItemTypes", "Movie,Series,Episode"));
    query.extend(list(server, "fields", FIELDS));
    query.extend([
        ("enableTotalRecordCount", "true".to_string()),
        ("enableImages", "false".to_string()),
        ("sortBy", "SortName".to_string()),
        ("startIndex", start.to_string()),
        ("limit", limit.to_string()),
    ]);
    let page: QueryResult = core.get("/Items", &query).await?;
    Ok(ItemPage {
        read: page.items.len() as u64,
        total: u64::try_from(page.total_record_count).unwrap_or(0),
        items: page
            .items
            .into_iter()
            .filter_map(|d| d.item().map(|(i, _)| i))
            .collect(),
    })
}

/// The server's users.
pub(crate) async fn users(core: &Core) -> Result<Vec<ServerUser>, Error> {
    let users: Vec<UserDto> = core.get("/Users", &[]).await?;
    Ok(users
        .into_iter()
        .filter_map(|u| {
            Some(ServerUser {
                id: u.id?,
                name: u.name?,
            })
        })
        .collect())
}

/// The user's items under way, most recent first.
pub(crate) async fn resume(
    core: &Core,
    server: Server,
    user_id: &str,
    limit: u32,
) -> Result<Vec<Progress>, Error> {
    let mut query = list(server, "fields", FIELDS);
    query.extend([
        ("enableImages", "false".to_string()),
        ("limit", limit.to_string()),
    ]);
    let path = match server {
        Server::Emby => format!("/Users/{user_id}/Items/Resume"),
        _ => {
            query.push(("userId", user_id.to_string()));
            "/UserItems/Resume".to_string()
        }
    };
    let page: QueryResult = core.get(&path, &query).await?;
    Ok(page.items.into_iter().filter_map(Dto::progress).collect())
}

/// The user's played movies and episodes, most recently played first.
pub(crate) async fn history(
    core: &Core,
    server: Server,
    user_id: &str,
    limit: u32,
) -> Result<Vec<Progress>, Error> {
    let mut query = vec![
        ("recursive", "true".to_string()),
        ("isPlayed", "true".to_string()),
    ];
    query.extend(list(server, "includeItemTypes", "Movie,Episode"));
    query.extend([
        ("sortBy", "DatePlayed".to_string()),
        ("sortOrder", "Descending".to_string()),
    ]);
    query.extend(list(server, "fields", FIELDS));
    query.extend([
        ("enableImages", "false".to_string()),
        ("limit", limit.to_string()),
    ]);
    let path = match server {
        Server::Emby => format!("/Users/{user_id}/Items"),
        _ => {
            query.push(("userId", user_id.to_string()));
            "/Items".to_string()
        }
    };
    let page: QueryResult = core.get(&path, &query).await?;
    Ok(page.items.into_iter().filter_map(Dto::progress).collect())
}

/// Playbacks under way.
pub(crate) async fn sessions(core: &Core) -> Result<Vec<Session>, Error> {
    let list: Vec<SessionDto> = core
        .get("/Sessions", &[("activeWithinSeconds", "960".to_string())])
        .await?;
    Ok(list
        .into_iter()
        .filter_map(|s| {
            let (item, _) = s.now_playing_item?.item()?;
            let state = s.play_state.unwrap_or_default();
            let transcoding = state
                .play_method
                .as_deref()
                .is_some_and(|m| m.eq_ignore_ascii_case("Transcode"))
                || s.transcoding_info.is_some_and(|t| !t.is_null());
            Some(Session {
                user: s.user_name.unwrap_or_default(),
                device: s.device_name.unwrap_or_default(),
                client: s.client.unwrap_or_default(),
                item,
                position_seconds: seconds(state.position_ticks),
                paused: state.is_paused,
                transcoding,
            })
        })
        .collect())
}
