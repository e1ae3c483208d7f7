//! Backend instances: the named services of the config's `[[instances]]`.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// The id an instance has in the config, as `list_instances` shows it and `instance_id` takes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InstanceId(pub String);

impl InstanceId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which software an instance runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InstanceKind {
    Builtin,
    Tmdb,
    Musicbrainz,
    Radarr,
    Sonarr,
    Lidarr,
    Readarr,
    Qbittorrent,
    Transmission,
    Folder,
    Mcp,
}

/// The families of DESIGN.md section 3: what an instance is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KindFamily {
    Catalogue,
    Library,
    Download,
    Files,
    Federated,
}

impl InstanceKind {
    pub const ALL: [InstanceKind; 11] = [
        InstanceKind::Builtin,
        InstanceKind::Tmdb,
        InstanceKind::Musicbrainz,
        InstanceKind::Radarr,
        InstanceKind::Sonarr,
        InstanceKind::Lidarr,
        InstanceKind::Readarr,
        InstanceKind::Qbittorrent,
        InstanceKind::Transmission,
        InstanceKind::Folder,
        InstanceKind::Mcp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            InstanceKind::Builtin => "builtin",
            InstanceKind::Tmdb => "tmdb",
            InstanceKind::Musicbrainz => "musicbrainz",
            InstanceKind::Radarr => "radarr",
            InstanceKind::Sonarr => "sonarr",
            InstanceKind::Lidarr => "lidarr",
            InstanceKind::Readarr => "readarr",
            InstanceKind::Qbittorrent => "qbittorrent",
            InstanceKind::Transmission => "transmission",
            InstanceKind::Folder => "folder",
            InstanceKind::Mcp => "mcp",
        }
    }

    pub fn family(self) -> KindFamily {
        match self {
            InstanceKind::Builtin | InstanceKind::Tmdb | InstanceKind::Musicbrainz => {
                KindFamily::Catalogue
            }
            InstanceKind::Radarr
            | InstanceKind::Sonarr
            | InstanceKind::Lidarr
            | InstanceKind::Readarr => KindFamily::Library,
            InstanceKind::Qbittorrent | InstanceKind::Transmission => KindFamily::Download,
            InstanceKind::Folder => KindFamily::Files,
            InstanceKind::Mcp => KindFamily::Federated,
        }
    }
}

impl fmt::Display for InstanceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for InstanceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<InstanceKind, String> {
        InstanceKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let valid: Vec<&str> = InstanceKind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown instance kind \"{s}\"; valid kinds: {}",
                    valid.join(", ")
                )
            })
    }
}
