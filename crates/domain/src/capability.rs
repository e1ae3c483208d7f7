//! Capabilities a grant can hold, and the named presets that bundle them.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// One power a grant can hold. A tool names the one capability it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Capability {
    #[serde(rename = "discover")]
    Discover,
    #[serde(rename = "request")]
    Request,
    #[serde(rename = "requests.manage")]
    RequestsManage,
    #[serde(rename = "library.read")]
    LibraryRead,
    #[serde(rename = "library.write")]
    LibraryWrite,
    #[serde(rename = "downloads.read")]
    DownloadsRead,
    #[serde(rename = "downloads.write")]
    DownloadsWrite,
    #[serde(rename = "settings.read")]
    SettingsRead,
    #[serde(rename = "settings.write")]
    SettingsWrite,
    #[serde(rename = "destructive")]
    Destructive,
    #[serde(rename = "destructive.direct")]
    DestructiveDirect,
    #[serde(rename = "automation")]
    Automation,
    #[serde(rename = "federated")]
    Federated,
    #[serde(rename = "audit.read")]
    AuditRead,
}

impl Capability {
    pub const ALL: [Capability; 14] = [
        Capability::Discover,
        Capability::Request,
        Capability::RequestsManage,
        Capability::LibraryRead,
        Capability::LibraryWrite,
        Capability::DownloadsRead,
        Capability::DownloadsWrite,
        Capability::SettingsRead,
        Capability::SettingsWrite,
        Capability::Destructive,
        Capability::DestructiveDirect,
        Capability::Automation,
        Capability::Federated,
        Capability::AuditRead,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Discover => "discover",
            Capability::Request => "request",
            Capability::RequestsManage => "requests.manage",
            Capability::LibraryRead => "library.read",
            Capability::LibraryWrite => "library.write",
            Capability::DownloadsRead => "downloads.read",
            Capability::DownloadsWrite => "downloads.write",
            Capability::SettingsRead => "settings.read",
            Capability::SettingsWrite => "settings.write",
            Capability::Destructive => "destructive",
            Capability::DestructiveDirect => "destructive.direct",
            Capability::Automation => "automation",
            Capability::Federated => "federated",
            Capability::AuditRead => "audit.read",
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Capability {
    type Err = String;
    fn from_str(s: &str) -> Result<Capability, String> {
        Capability::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                let valid: Vec<&str> = Capability::ALL.iter().map(|c| c.as_str()).collect();
                format!(
                    "unknown capability \"{s}\"; valid capabilities: {}",
                    valid.join(", ")
                )
            })
    }
}

/// The built-in grants every store starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub const ALL: [Preset; 4] = [
        Preset::Reader,
        Preset::Requester,
        Preset::Operator,
        Preset::Admin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Reader => "reader",
            Preset::Requester => "requester",
            Preset::Operator => "operator",
            Preset::Admin => "admin",
        }
    }

    pub fn capabilities(self) -> &'static [Capability] {
        use Capability::*;
        match self {
            Preset::Reader => &[Discover, LibraryRead, DownloadsRead],
            Preset::Requester => &[Discover, Request],
            Preset::Operator => &[
                Discover,
                Request,
                LibraryRead,
                LibraryWrite,
                DownloadsRead,
                DownloadsWrite,
                SettingsRead,
            ],
            Preset::Admin => &[
                Discover,
                Request,
                RequestsManage,
                LibraryRead,
                LibraryWrite,
                DownloadsRead,
                DownloadsWrite,
                SettingsRead,
                SettingsWrite,
                Destructive,
                Automation,
                Federated,
                AuditRead,
            ],
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }
}
