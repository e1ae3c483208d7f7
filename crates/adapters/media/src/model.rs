//! What the servers answer, in one shape for all three: items with their provider ids, resume
//! points, watched history, playback sessions and users. Vendor JSON stays in `jellyfin.rs` and
//! `plex.rs`.

use serde::Serialize;

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Movie,
    Series,
    Episode,
}

/// The ids other sources know the item by, as the server's metadata gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProviderIds {
    pub tmdb: Option<String>,
    pub imdb: Option<String>,
    pub tvdb: Option<String>,
}

/// One movie, show or episode on a server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MediaItem {
    /// The server's own id (Jellyfin's item id, Plex's ratingKey).
    pub id: String,
    pub kind: ItemKind,
    pub title: String,
    pub year: Option<i32>,
    /// Episodes: the show's id and title on the same server.
    pub series_id: Option<String>,
    pub series_title: Option<String>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    pub ids: ProviderIds,
    /// The rating the server's metadata carries (`PG-13`, `TV-MA`), as written.
    pub rating: Option<String>,
    pub genres: Vec<String>,
    /// When it was added to the server (RFC 3339).
    pub added_at: Option<String>,
    pub runtime_seconds: Option<u64>,
}

/// Where a user is in an item, or that they watched it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Progress {
    pub item: MediaItem,
    pub position_seconds: u64,
    /// How much was watched, 0 to 100, when the server says.
    pub percent: Option<f64>,
    pub played: bool,
    /// When it was last played (RFC 3339).
    pub last_played: Option<String>,
}

/// One playback under way.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Session {
    /// The server's user name.
    pub user: String,
    pub device: String,
    pub client: String,
    pub item: MediaItem,
    pub position_seconds: Option<u64>,
    pub paused: bool,
    /// The server converts the stream for the device (costs its CPU).
    pub transcoding: bool,
}

/// One of the server's users.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerUser {
    pub id: String,
    pub name: String,
}

/// One page of the server's items, with what it says the whole holds.
#[derive(Clone, Debug, Default)]
pub struct ItemPage {
    pub items: Vec<MediaItem>,
    /// How many records the page held (items of other kinds included): where the next starts.
    pub read: u64,
    pub total: u64,
}
