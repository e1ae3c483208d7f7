//! The tools: one file per tool plus the one registry, and the governance core that runs
//! them (policy, fresh authority before writes, audit, panic containment). Knows no MCP wire.

mod allowance;
mod app;
pub mod ask;
mod authority;
pub mod changes;
pub mod completions;
mod context;
pub mod contract;
pub mod discover;
pub mod downloads;
mod error;
pub mod guides;
pub mod instances;
pub mod library;
pub mod prompts;
mod registry;
pub mod report;
pub mod requests;
mod server;
pub mod settings;
mod stored;
pub mod views;

pub use app::{App, Called, Line, ToolView};
pub use context::{Caller, Credential, Ctx};
pub use contract::{Meta, Output, Tool};
pub use error::{ErrorCode, ErrorKind, ToolError};
pub use instances::{InstanceSpec, Instances};
pub use settings::{LocalAccess, Settings};

/// The names of every tool this build has, in the stable order.
pub fn tool_names() -> Vec<&'static str> {
    tool_metas().iter().map(|m| m.name).collect()
}

/// The declarations of every tool this build has, in the stable order.
pub fn tool_metas() -> Vec<Meta> {
    let mut metas: Vec<Meta> = registry::all().iter().map(|t| t.meta()).collect();
    metas.sort_by_key(|m| m.name);
    metas
}

/// What `initialize` and `server/discover` tell the model first.
pub const INSTRUCTIONS: &str = "Marquee is the household's media gateway. Start with whoami to see whose \
authority you act with and which tools and limits apply, then get_guide (topic setup, permissions or \
troubleshooting) before acting. Name titles by media_source + media_id and torrents by info hash.";
