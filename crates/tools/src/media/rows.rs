//! The typed rows the media tools answer with, written from the adapter's items.

use adapters_media::{ItemKind, MediaItem, Progress};
use schemars::JsonSchema;
use serde::Serialize;

/// One title or episode on one server.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ItemRow {
    pub instance_id: String,
    /// The server's own id of the item.
    pub item_id: String,
    /// movie, series or episode.
    pub kind: &'static str,
    pub title: String,
    pub year: Option<i32>,
    /// Episodes: the show, season and episode number.
    pub series_title: Option<String>,
    pub season: Option<u32>,
    pub episode: Option<u32>,
    pub tmdb_id: Option<String>,
    pub imdb_id: Option<String>,
    pub tvdb_id: Option<String>,
    /// When it was added to the server (RFC 3339).
    pub added_at: Option<String>,
}

/// One season a server has of a show, and the episode numbers it has of it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Season {
    pub season: u32,
    pub episodes: Vec<u32>,
}

/// Where someone is in an item, or when they watched it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ProgressRow {
    #[serde(flatten)]
    pub item: ItemRow,
    pub position_seconds: u64,
    /// How much was watched, 0 to 100, when the server says.
    pub percent: Option<f64>,
    pub played: bool,
    /// When it was last played (RFC 3339).
    pub last_played: Option<String>,
}

pub(crate) fn kind_word(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Movie => "movie",
        ItemKind::Series => "series",
        ItemKind::Episode => "episode",
    }
}

impl ItemRow {
    pub(crate) fn of(instance_id: &str, item: &MediaItem) -> ItemRow {
        ItemRow {
            instance_id: instance_id.to_string(),
            item_id: item.id.clone(),
            kind: kind_word(item.kind),
            title: item.title.clone(),
            year: item.year,
            series_title: item.series_title.clone(),
            season: item.season,
            episode: item.episode,
            tmdb_id: item.ids.tmdb.clone(),
            imdb_id: item.ids.imdb.clone(),
            tvdb_id: item.ids.tvdb.clone(),
            added_at: item.added_at.clone(),
        }
    }

    /// "Bluey 1x02 Hospital" / "Paddington (2014)".
    pub(crate) fn label(&self) -> String {
        match (&self.series_title, self.season, self.episode) {
            (Some(show), Some(s), Some(e)) => format!("{show} {s}x{e:02} {}", self.title),
            _ => match self.year {
                Some(y) => format!("{} ({y})", self.title),
                None => self.title.clone(),
            },
        }
    }
}

impl ProgressRow {
    pub(crate) fn of(instance_id: &str, p: &Progress) -> ProgressRow {
        ProgressRow {
            item: ItemRow::of(instance_id, &p.item),
            position_seconds: p.position_seconds,
            percent: p.percent.map(|v| (v * 10.0).round() / 10.0),
            played: p.played,
            last_played: p.last_played.clone(),
        }
    }
}
