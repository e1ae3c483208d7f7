//! The secret-free settings of a library service as `get_service_config` shows them, built
//! from the adapter's records field by field as the other shapes are.

use adapters_library as lib;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The secret-free settings `get_service_config` shows, each list bounded.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ServiceConfig {
    pub indexers: Vec<ConfigEntry>,
    pub download_clients: Vec<ConfigEntry>,
    /// As the service writes them (secret-free).
    pub delay_profiles: Vec<Value>,
    /// As the service writes them (secret-free).
    pub release_profiles: Vec<Value>,
    /// As the service writes them (secret-free).
    pub remote_path_mappings: Vec<Value>,
    /// Lists cut at the bound.
    pub truncated: bool,
}

impl ServiceConfig {
    pub fn of(x: &lib::ServiceConfig) -> Self {
        let lib::ServiceConfig {
            indexers,
            download_clients,
            delay_profiles,
            release_profiles,
            remote_path_mappings,
            truncated,
        } = x;
        ServiceConfig {
            indexers: indexers.iter().map(ConfigEntry::of).collect(),
            download_clients: download_clients.iter().map(ConfigEntry::of).collect(),
            delay_profiles: delay_profiles.clone(),
            release_profiles: release_profiles.clone(),
            remote_path_mappings: remote_path_mappings.clone(),
            truncated: *truncated,
        }
    }
}

/// An indexer or download client: what it is and whether it is on, never its settings.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ConfigEntry {
    pub id: i64,
    pub name: String,
    pub implementation: Option<String>,
    pub protocol: Option<String>,
    pub enabled: bool,
    pub priority: Option<i64>,
}

impl ConfigEntry {
    pub fn of(x: &lib::ConfigEntry) -> Self {
        let lib::ConfigEntry {
            id,
            name,
            implementation,
            protocol,
            enabled,
            priority,
        } = x;
        ConfigEntry {
            id: *id,
            name: name.clone(),
            implementation: implementation.clone(),
            protocol: protocol.clone(),
            enabled: *enabled,
            priority: *priority,
        }
    }
}
