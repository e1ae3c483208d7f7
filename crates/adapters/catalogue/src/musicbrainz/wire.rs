//! MusicBrainz WS/2 JSON (`fmt=json`) as MusicBrainz sends it, and its mapping into [`MusicItem`]s.

use domain::{MediaId, MediaSource, MediaType};
use serde::Deserialize;

use crate::{Certification, MusicItem, MusicKind};

/// A search answer: `count`, `offset` and one of `artists`, `release-groups`, `recordings`.
#[derive(Debug, Deserialize)]
pub(crate) struct WSearch {
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub artists: Vec<WEntity>,
    #[serde(default, rename = "release-groups")]
    pub release_groups: Vec<WEntity>,
    #[serde(default)]
    pub recordings: Vec<WEntity>,
}

/// An artist, release group or recording: the fields of all three, each present where it applies.
#[derive(Debug, Deserialize)]
pub(crate) struct WEntity {
    pub id: String,
    /// Artists.
    pub name: Option<String>,
    /// Release groups, recordings.
    pub title: Option<String>,
    /// Artists: "Person", "Group", ...
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(rename = "primary-type")]
    pub primary_type: Option<String>,
    #[serde(rename = "first-release-date")]
    pub first_release_date: Option<String>,
    #[serde(rename = "life-span")]
    pub life_span: Option<WLifeSpan>,
    pub country: Option<String>,
    pub disambiguation: Option<String>,
    pub length: Option<u64>,
    /// A number in JSON searches; older servers sent a string.
    pub score: Option<serde_json::Value>,
    #[serde(default, rename = "artist-credit")]
    pub artist_credit: Vec<WCredit>,
    #[serde(default)]
    pub genres: Vec<WName>,
    #[serde(default)]
    pub tags: Vec<WName>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WLifeSpan {
    pub begin: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WCredit {
    pub name: String,
    #[serde(default)]
    pub joinphrase: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WName {
    pub name: String,
}

fn year(date: Option<&str>) -> Option<i32> {
    date.filter(|d| d.len() >= 4)
        .and_then(|d| d[..4].parse().ok())
}

impl WEntity {
    pub fn into_item(self, kind: MusicKind) -> MusicItem {
        let date = match kind {
            MusicKind::Artist => self.life_span.as_ref().and_then(|l| l.begin.clone()),
            _ => self.first_release_date.clone(),
        };
        let credit: String = self
            .artist_credit
            .iter()
            .map(|c| format!("{}{}", c.name, c.joinphrase))
            .collect();
        let genres = if self.genres.is_empty() {
            self.tags
        } else {
            self.genres
        };
        let score = match &self.score {
            Some(serde_json::Value::Number(n)) => n.as_u64(),
            Some(serde_json::Value::String(s)) => s.parse().ok(),
            _ => None,
        };
        MusicItem {
            id: MediaId::new(MediaSource::Musicbrainz, self.id),
            kind,
            media_type: MediaType::Music,
            title: self.title.or(self.name).unwrap_or_default(),
            artist: (!credit.is_empty()).then_some(credit),
            album: None,
            year: year(date.as_deref()),
            certification: Certification::Unrated { region: None },
            genres: genres.into_iter().map(|g| g.name).collect(),
            type_name: self.primary_type.or(self.kind),
            disambiguation: self.disambiguation.filter(|d| !d.is_empty()),
            country: self.country,
            length_ms: self.length,
            score: score.map(|s| s.min(100) as u8),
        }
    }
}
