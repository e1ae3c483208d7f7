//! Capabilities a grant can hold, and the named presets that bundle them.

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// One power a grant can hold. A tool names the one capability it needs.
///
/// serde and strum spell each capability the same way (a test holds them together).
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
    parse_err_ty = CapabilityError,
    parse_err_fn = CapabilityError::unknown
)]
pub enum Capability {
    Discover,
    Request,
    #[serde(rename = "requests.manage")]
    #[strum(serialize = "requests.manage")]
    RequestsManage,
    #[serde(rename = "library.read")]
    #[strum(serialize = "library.read")]
    LibraryRead,
    #[serde(rename = "library.write")]
    #[strum(serialize = "library.write")]
    LibraryWrite,
    #[serde(rename = "downloads.read")]
    #[strum(serialize = "downloads.read")]
    DownloadsRead,
    #[serde(rename = "downloads.write")]
    #[strum(serialize = "downloads.write")]
    DownloadsWrite,
    /// Reads the household's media folders (folder instances) and what is recognised in them.
    #[serde(rename = "files.read")]
    #[strum(serialize = "files.read")]
    FilesRead,
    /// Plans and applies changes to the media folders (organising, sidecar files).
    #[serde(rename = "files.write")]
    #[strum(serialize = "files.write")]
    FilesWrite,
    #[serde(rename = "settings.read")]
    #[strum(serialize = "settings.read")]
    SettingsRead,
    #[serde(rename = "settings.write")]
    #[strum(serialize = "settings.write")]
    SettingsWrite,
    Destructive,
    #[serde(rename = "destructive.direct")]
    #[strum(serialize = "destructive.direct")]
    DestructiveDirect,
    Automation,
    Federated,
    #[serde(rename = "audit.read")]
    #[strum(serialize = "audit.read")]
    AuditRead,
    /// Searches indexers (Prowlarr, Torznab feeds) live, raw release rows included.
    #[serde(rename = "indexers.search")]
    #[strum(serialize = "indexers.search")]
    IndexersSearch,
    /// Reads the media servers: one's own continue watching and history, what was added,
    /// whether a title is in the library (kids included, within their limits).
    #[serde(rename = "media.read")]
    #[strum(serialize = "media.read")]
    MediaRead,
    /// Sees who is watching what on the media servers, on which device.
    #[serde(rename = "media.sessions")]
    #[strum(serialize = "media.sessions")]
    MediaSessions,
    /// Searches subtitles and lists the files that lack them.
    #[serde(rename = "subtitles.read")]
    #[strum(serialize = "subtitles.read")]
    SubtitlesRead,
    /// Downloads subtitles beside the household's videos (or asks Bazarr to).
    #[serde(rename = "subtitles.write")]
    #[strum(serialize = "subtitles.write")]
    SubtitlesWrite,
    /// Plans the household's shortlists: themes of picked titles and rules, and (with the
    /// owner's approval) the rows they become on the media servers.
    Shortlists,
}

impl Capability {
    /// Every capability, in declaration order (the order lists and messages show).
    pub const ALL: [Capability; Capability::COUNT] =
        *Capability::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a text names no capability.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    #[error(
        "unknown capability \"{0}\"; valid capabilities: {valid}",
        valid = Capability::ALL.map(Capability::as_str).join(", ")
    )]
    Unknown(String),
}

impl CapabilityError {
    fn unknown(text: &str) -> CapabilityError {
        CapabilityError::Unknown(text.to_owned())
    }
}

/// The tool groups a grant may list in `tools/list` (besides one per federated server, named
/// by its instance id). The tools of the group `core` (who am I, the guide, the instances,
/// `find_tools`) are always listed.
pub const TOOL_GROUPS: [&str; 8] = [
    "discover",
    "requests",
    "downloads",
    "library",
    "files",
    "admin",
    "shortlists",
    "settings",
];

/// The group whose tools every `tools/list` shows.
pub const CORE_GROUP: &str = "core";

/// The built-in grants every store starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, VariantArray, EnumCount)]
#[strum(serialize_all = "lowercase")]
pub enum Preset {
    /// Looks things up: discovery, own requests, read-only views.
    Reader,
    /// A household member: discovery and requests.
    Requester,
    /// Runs the pipeline: reads and direct writes on library and downloads.
    Operator,
    /// Everything but acting destructively without the owner's approval.
    Admin,
}

impl Preset {
    /// Every preset, in declaration order.
    pub const ALL: [Preset; Preset::COUNT] =
        *Preset::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn capabilities(self) -> &'static [Capability] {
        use Capability::*;
        match self {
            Preset::Reader => &[
                Discover,
                LibraryRead,
                DownloadsRead,
                FilesRead,
                MediaRead,
                SubtitlesRead,
            ],
            Preset::Requester => &[Discover, Request, FilesRead, MediaRead],
            Preset::Operator => &[
                Discover,
                Request,
                LibraryRead,
                LibraryWrite,
                DownloadsRead,
                DownloadsWrite,
                FilesRead,
                FilesWrite,
                SettingsRead,
                IndexersSearch,
                MediaRead,
                SubtitlesRead,
                SubtitlesWrite,
            ],
            Preset::Admin => &[
                Discover,
                Request,
                RequestsManage,
                LibraryRead,
                LibraryWrite,
                DownloadsRead,
                DownloadsWrite,
                FilesRead,
                FilesWrite,
                SettingsRead,
                SettingsWrite,
                Destructive,
                Automation,
                Federated,
                AuditRead,
                IndexersSearch,
                MediaRead,
                MediaSessions,
                SubtitlesRead,
                SubtitlesWrite,
                Shortlists,
            ],
        }
    }

    /// The tool groups its `tools/list` shows (at most 40 tools each, with every family
    /// configured); its other tools stay callable by name and `find_tools` finds them.
    pub fn groups(self) -> &'static [&'static str] {
        match self {
            Preset::Reader => &["discover", "library", "files"],
            Preset::Requester => &["discover", "requests", "files"],
            Preset::Operator => &["discover", "downloads"],
            Preset::Admin => &["discover", "requests", "admin"],
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }
}
