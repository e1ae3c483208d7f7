//! The tool families: one file per tool, each family a [`governance::Family`] value with its
//! tools, its state and its background jobs, plugged into the governance core by [`app`].
//! Knows no MCP wire.

mod changes;
pub mod completions;
pub mod contract;
pub mod discover;
pub mod downloads;
pub mod federated;
pub mod files;
pub mod guides;
pub mod ids;
pub mod indexers;
pub mod library;
pub mod media;
pub mod prompts;
mod registry;
pub mod requests;
mod saving;
mod server;
pub mod settings;
pub mod shortlists;
pub mod subtitles;
pub mod tasks;
mod typed;
pub mod views;

use std::sync::Arc;

// The core's vocabulary, named as the families use it.
pub use governance::{
    App, Called, Caller, ConfigSource, ConfigValue, Credential, Ctx, ErrorCode, ErrorKind,
    FolderUse, InstanceSpec, Instances, Launch, Line, LocalAccess, Meta, Output, Settings, Tool,
    ToolError, ToolView, ask, plan, report,
};
pub use registry::families;
pub use server::checks::check_instances;

/// The governance core with every family of this build plugged in.
pub fn app(store: store::Store, settings: Arc<Settings>, instances: Arc<Instances>) -> App {
    App::new(store, settings, instances, families())
}

/// The names of every tool this build has, in the stable order.
pub fn tool_names() -> Vec<&'static str> {
    tool_metas().iter().map(|m| m.name).collect()
}

/// The declarations of every tool this build has, in the stable order.
pub fn tool_metas() -> Vec<Meta> {
    let mut metas: Vec<Meta> = families()
        .iter()
        .flat_map(|f| f.tools())
        .map(|t| t.meta())
        .collect();
    metas.sort_by_key(|m| m.name);
    metas
}

/// What `initialize` and `server/discover` tell the model first.
pub const INSTRUCTIONS: &str = "Marquee is the household's media gateway. Start with whoami to see whose \
authority you act with and which tools and limits apply, then get_guide (topic setup, permissions or \
troubleshooting) before acting. Name titles by media_source + media_id and torrents by info hash.";
