//! Runtime settings the governance core reads on every request, and what the config said
//! about itself (its file, its warnings), for `diagnose`.

use std::{
    path::PathBuf,
    sync::atomic::{AtomicBool, Ordering},
};

use parking_lot::RwLock;

/// Who a key-less request from this machine acts as (off unless configured).
#[derive(Debug, Clone)]
pub struct LocalAccess {
    pub person: String,
    pub grant: String,
}

/// Where a setting's value comes from, for the settings catalogue's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// The config file: fixed there, never changed by a plan.
    File,
    /// A `MARQUEE_` variable: fixed there too.
    Environment,
    /// Neither sets it.
    Default,
}

impl ConfigSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigSource::File => "file",
            ConfigSource::Environment => "environment",
            ConfigSource::Default => "default",
        }
    }
}

/// A setting as the config (file, environment, defaults) gives it: its value (never a secret:
/// a secret setting is only said to be set or not) and where that comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigValue {
    pub value: serde_json::Value,
    pub source: ConfigSource,
}

#[derive(Debug, Default)]
pub struct Settings {
    /// Every setting as the config gives it, by dotted key; set by the binary at start and
    /// each time the file changes.
    config: RwLock<std::collections::BTreeMap<String, ConfigValue>>,
    /// `[auth] local_person` / `local_grant`.
    pub local_access: Option<LocalAccess>,
    /// `[oauth]`: the token lifetimes while the authorization server is on; `None` when it is
    /// off, and then no OAuth token authenticates, whenever it was issued.
    oauth: RwLock<Option<store::TokenLifetimes>>,
    /// `[downloads] torrent_folders`: the only folders `add_torrent` reads .torrent files from.
    torrent_folders: RwLock<Vec<PathBuf>>,
    /// `[outbound] allowed_hosts`: hosts a caller's URL may reach whatever their addresses
    /// (`httpx::outbound`); every other URL a caller gives must be public.
    outbound_hosts: RwLock<Vec<String>>,
    /// `[mcp] allow_destructive`; the binary updates it when the config file changes.
    allow_destructive: AtomicBool,
    /// The config file in force, if any.
    pub config_file: Option<PathBuf>,
    /// Problems the config loader found (unknown keys, say).
    warnings: RwLock<Vec<String>>,
    /// Where the owner pages are served (`http://host:port`), for a plan's `review_url`; set by
    /// the binary once it listens. Empty: review URLs are relative to the server's root.
    public_url: RwLock<String>,
    /// `[limits] calls_per_minute`: tool calls per person and minute.
    pub call_rate: crate::rate::CallRate,
}

impl Settings {
    pub fn new(allow_destructive: bool, config_file: Option<PathBuf>) -> Settings {
        Settings {
            config: RwLock::new(std::collections::BTreeMap::new()),
            local_access: None,
            oauth: RwLock::new(None),
            torrent_folders: RwLock::new(Vec::new()),
            outbound_hosts: RwLock::new(Vec::new()),
            allow_destructive: AtomicBool::new(allow_destructive),
            config_file,
            warnings: RwLock::new(Vec::new()),
            public_url: RwLock::new(String::new()),
            call_rate: crate::rate::CallRate::default(),
        }
    }

    /// Every setting as the config gives it (see [`ConfigValue`]).
    pub fn config_values(&self) -> std::collections::BTreeMap<String, ConfigValue> {
        self.config.read().clone()
    }

    pub fn set_config_values(&self, values: std::collections::BTreeMap<String, ConfigValue>) {
        *self.config.write() = values;
    }

    pub fn allow_destructive(&self) -> bool {
        self.allow_destructive.load(Ordering::Acquire)
    }

    pub fn set_allow_destructive(&self, on: bool) {
        self.allow_destructive.store(on, Ordering::Release);
    }

    pub fn torrent_folders(&self) -> Vec<PathBuf> {
        self.torrent_folders.read().clone()
    }

    pub fn set_torrent_folders(&self, folders: Vec<PathBuf>) {
        *self.torrent_folders.write() = folders;
    }

    /// The rule for URLs a caller or an upstream answer supplies, with the owner's exceptions.
    pub fn outbound(&self) -> httpx::outbound::Outbound {
        httpx::outbound::Outbound::new(&self.outbound_hosts.read())
    }

    pub fn set_outbound_hosts(&self, hosts: Vec<String>) {
        *self.outbound_hosts.write() = hosts;
    }

    pub fn warnings(&self) -> Vec<String> {
        self.warnings.read().clone()
    }

    /// The OAuth token lifetimes, or `None` while the authorization server is off.
    pub fn oauth(&self) -> Option<store::TokenLifetimes> {
        *self.oauth.read()
    }

    pub fn set_oauth(&self, lifetimes: Option<store::TokenLifetimes>) {
        *self.oauth.write() = lifetimes;
    }

    pub fn public_url(&self) -> String {
        self.public_url.read().clone()
    }

    /// `url` without a trailing slash.
    pub fn set_public_url(&self, url: &str) {
        *self.public_url.write() = url.trim_end_matches('/').to_string();
    }

    pub fn set_warnings(&self, warnings: Vec<String>) {
        *self.warnings.write() = warnings;
    }
}
