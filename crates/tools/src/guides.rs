//! The guides: short markdown documents served by `get_guide` and as MCP resources
//! `marquee://guides/{topic}`.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Topic {
    Setup,
    Permissions,
    Troubleshooting,
}

impl Topic {
    pub const ALL: [Topic; 3] = [Topic::Setup, Topic::Permissions, Topic::Troubleshooting];

    pub fn name(self) -> &'static str {
        match self {
            Topic::Setup => "setup",
            Topic::Permissions => "permissions",
            Topic::Troubleshooting => "troubleshooting",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Topic::Setup => "Setting Marquee up",
            Topic::Permissions => "Who may do what",
            Topic::Troubleshooting => "When something does not work",
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Topic::Setup => include_str!("../guides/setup.md"),
            Topic::Permissions => include_str!("../guides/permissions.md"),
            Topic::Troubleshooting => include_str!("../guides/troubleshooting.md"),
        }
    }

    pub fn uri(self) -> String {
        format!("marquee://guides/{}", self.name())
    }

    pub fn from_uri(uri: &str) -> Option<Topic> {
        let name = uri.strip_prefix("marquee://guides/")?;
        Topic::ALL.into_iter().find(|t| t.name() == name)
    }
}
