//! Lidarr v1: artists and albums, named by MusicBrainz release-group id. An album is added
//! with its artist unmonitored for everything else, so one request is one album.

use domain::MediaSource;
use serde::Deserialize;

use crate::redact::redacted;
use serde_json::{Value, json};

use crate::{
    Error, common,
    core::Core,
    model::{
        AddOptions, ExternalIds, Found, HistoryEvent, ItemKind, LibraryItem, MediaRef, SearchTarget,
    },
};

redacted! {
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VStats {
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    track_file_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    track_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    size_on_disk: u64,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VArtist {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    artist_name: Option<String>,
    #[serde(default)]
    foreign_artist_id: Option<String>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    quality_profile_id: Option<i64>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    added: Option<String>,
    #[serde(default)]
    statistics: Option<VStats>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VAlbum {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    release_date: Option<String>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    artist_id: Option<i64>,
    #[serde(default)]
    foreign_album_id: Option<String>,
    #[serde(default)]
    statistics: Option<VStats>,
    #[serde(default)]
    profile_id: Option<i64>,
    #[serde(default)]
    genres: Vec<String>,
}
}

fn year_of(date: &Option<String>) -> Option<i64> {
    date.as_deref()
        .and_then(|d| d.get(..4))
        .and_then(|y| y.parse().ok())
        .filter(|y| *y > 1000)
}

impl VArtist {
    fn item(self) -> LibraryItem {
        let st = self.statistics.unwrap_or_default();
        LibraryItem {
            id: self.id,
            kind: ItemKind::Artist,
            title: self.artist_name.unwrap_or_default(),
            year: None,
            monitored: self.monitored,
            files_held: st.track_file_count,
            files_wanted: st.track_count,
            size_on_disk: st.size_on_disk,
            quality_profile_id: self.quality_profile_id,
            path: self.path,
            added: self.added,
            ids: ExternalIds {
                musicbrainz: self.foreign_artist_id,
                ..ExternalIds::default()
            },
            seasons: Vec::new(),
            parent_id: None,
        }
    }
}

impl VAlbum {
    fn item(self) -> LibraryItem {
        let st = self.statistics.unwrap_or_default();
        LibraryItem {
            id: self.id,
            kind: ItemKind::Album,
            year: year_of(&self.release_date),
            title: self.title.unwrap_or_default(),
            monitored: self.monitored,
            files_held: st.track_file_count,
            files_wanted: st.track_count,
            size_on_disk: st.size_on_disk,
            quality_profile_id: self.profile_id,
            path: None,
            added: None,
            ids: ExternalIds {
                musicbrainz: self.foreign_album_id,
                ..ExternalIds::default()
            },
            seasons: Vec::new(),
            parent_id: self.artist_id,
        }
    }
}

pub async fn library(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VArtist> = core.get("artist", &[]).await?;
    Ok(rows.into_iter().map(VArtist::item).collect())
}

/// An artist's albums.
pub async fn albums(core: &Core, artist_id: i64) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VAlbum> = core
        .get("album", &[("artistId", artist_id.to_string())])
        .await?;
    Ok(rows.into_iter().map(VAlbum::item).collect())
}

/// Every album the library holds, of every artist.
pub async fn all_albums(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VAlbum> = core.get("album", &[]).await?;
    Ok(rows.into_iter().map(VAlbum::item).collect())
}

pub async fn item(core: &Core, id: i64) -> Result<LibraryItem, Error> {
    let v: VAlbum = core.get(&format!("album/{id}"), &[]).await?;
    Ok(v.item())
}

/// The album (a MusicBrainz release group) as Lidarr knows it.
pub async fn find(core: &Core, media: &MediaRef) -> Result<Found, Error> {
    if media.source != MediaSource::Musicbrainz {
        return Err(Error::Unsupported(format!(
            "lidarr cannot look up a {} id; name the album by its musicbrainz release-group id",
            media.source
        )));
    }
    let id = media.id.trim().to_string();
    let held: Vec<Value> = core.get("album", &[("foreignAlbumId", id.clone())]).await?;
    let raw = match held.into_iter().next() {
        Some(raw) => raw,
        None => {
            let rows: Vec<Value> = core
                .get("album/lookup", &[("term", format!("lidarr:{id}"))])
                .await?;
            rows.into_iter().next().ok_or_else(|| {
                Error::NotFound(format!("lidarr's lookup does not know musicbrainz:{id}"))
            })?
        }
    };
    let a: VAlbum = serde_json::from_value(raw.clone()).map_err(|e| {
        Error::NotFound(format!("lidarr's lookup answered an unreadable album: {e}"))
    })?;
    Ok(Found {
        title: a.title.clone().unwrap_or_default(),
        year: year_of(&a.release_date),
        ids: ExternalIds {
            musicbrainz: a.foreign_album_id.clone(),
            ..ExternalIds::default()
        },
        library_id: (a.id > 0).then_some(a.id),
        genres: a.genres.clone(),
        raw,
    })
}

/// Adds the album, monitored, with its artist added (if new) monitoring nothing else.
pub async fn add(core: &Core, found: &Found, opts: &AddOptions) -> Result<LibraryItem, Error> {
    let metadata = opts
        .metadata_profile_id
        .ok_or_else(|| Error::Config("lidarr needs a metadata profile to add an artist".into()))?;
    let mut body = found.raw.clone();
    let mut artist = body.get("artist").cloned().unwrap_or_else(|| json!({}));
    artist["qualityProfileId"] = json!(opts.quality_profile_id);
    artist["metadataProfileId"] = json!(metadata);
    artist["rootFolderPath"] = json!(opts.root_folder_path);
    artist["monitored"] = json!(true);
    artist["monitorNewItems"] = json!("none");
    artist["addOptions"] = json!({ "monitor": "none", "searchForMissingAlbums": false });
    body["artist"] = artist;
    body["monitored"] = json!(true);
    body["addOptions"] = json!({ "searchForNewAlbum": false });
    if let Value::Object(m) = &mut body {
        m.remove("id");
    }
    common::without_computed(&mut body);
    let v: VAlbum = core.post("album", &body).await?;
    Ok(v.item())
}

pub fn search_command(target: &SearchTarget) -> Result<Value, Error> {
    match target {
        SearchTarget::Album(id) => Ok(json!({ "name": "AlbumSearch", "albumIds": [id] })),
        other => Err(Error::Unsupported(format!(
            "lidarr searches albums only, not {other:?}"
        ))),
    }
}

/// Rescans an artist's folder.
pub fn rescan_command(artist_id: i64) -> Value {
    json!({ "name": "RefreshArtist", "artistId": artist_id })
}

pub async fn history(
    core: &Core,
    album_id: i64,
    artist_id: i64,
) -> Result<Vec<HistoryEvent>, Error> {
    common::item_history(
        core,
        "history/artist",
        &[
            ("artistId", artist_id.to_string()),
            ("albumId", album_id.to_string()),
        ],
    )
    .await
}
