//! Backend instances: the named services of the config's `[[instances]]`.

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

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
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = InstanceError,
    parse_err_fn = InstanceError::unknown_kind
)]
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
    Prowlarr,
    Torznab,
    Jellyfin,
    Emby,
    Plex,
    Opensubtitles,
    Bazarr,
    Tvdb,
    Anilist,
    Lrclib,
}

/// What a folder instance is for (`role` in the config).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum FolderRole {
    /// Where a media server reads: what the household has.
    #[default]
    Library,
    /// Where finished downloads land, to be organised into a library.
    Downloads,
}

/// What a folder instance holds, when its config says (`media_type`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display, strum::EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum FolderMedia {
    Movie,
    Tv,
    Music,
}

/// The families of DESIGN.md section 3: what an instance is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KindFamily {
    Catalogue,
    /// More metadata sources beside the catalogues (TVDB, AniList, LRCLIB's lyrics): the same
    /// discovery tools read them, and a tool of their own appears while one is configured.
    Metadata,
    Library,
    Download,
    Files,
    Federated,
    Indexers,
    /// Media servers (Jellyfin, Emby, Plex): what the household can watch, and who watched what.
    #[serde(rename = "media_servers")]
    MediaServers,
    /// Subtitle services (OpenSubtitles, Bazarr).
    Subtitles,
}

impl KindFamily {
    /// True for the families whose instances answer the discovery tools (catalogues and the
    /// metadata sources beside them).
    pub fn answers_titles(self) -> bool {
        matches!(self, KindFamily::Catalogue | KindFamily::Metadata)
    }
}

impl InstanceKind {
    /// Every kind, in declaration order (the order lists and messages show).
    pub const ALL: [InstanceKind; InstanceKind::COUNT] = *InstanceKind::VARIANTS
        .first_chunk()
        .expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn family(self) -> KindFamily {
        match self {
            InstanceKind::Builtin | InstanceKind::Tmdb | InstanceKind::Musicbrainz => {
                KindFamily::Catalogue
            }
            InstanceKind::Tvdb | InstanceKind::Anilist | InstanceKind::Lrclib => {
                KindFamily::Metadata
            }
            InstanceKind::Radarr
            | InstanceKind::Sonarr
            | InstanceKind::Lidarr
            | InstanceKind::Readarr => KindFamily::Library,
            InstanceKind::Qbittorrent | InstanceKind::Transmission => KindFamily::Download,
            InstanceKind::Folder => KindFamily::Files,
            InstanceKind::Mcp => KindFamily::Federated,
            InstanceKind::Prowlarr | InstanceKind::Torznab => KindFamily::Indexers,
            InstanceKind::Jellyfin | InstanceKind::Emby | InstanceKind::Plex => {
                KindFamily::MediaServers
            }
            InstanceKind::Opensubtitles | InstanceKind::Bazarr => KindFamily::Subtitles,
        }
    }
}

/// Why a text names no instance kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstanceError {
    #[error(
        "unknown instance kind \"{0}\"; valid kinds: {valid}",
        valid = InstanceKind::ALL.map(InstanceKind::as_str).join(", ")
    )]
    UnknownKind(String),
}

impl InstanceError {
    fn unknown_kind(text: &str) -> InstanceError {
        InstanceError::UnknownKind(text.to_owned())
    }
}
