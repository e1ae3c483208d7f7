//! Every setting Marquee has, declared once: its key as the config file spells it, group,
//! type, default, accepted values, effect, whether it is a secret, and how it changes (a plan,
//! the config file while the server runs, or the file and a restart). The config file stays the
//! bootstrap: a key it (or the environment) sets is fixed there.

use serde_json::Value;

use governance::Settings;

/// How a setting changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// By an approved `plan_configuration` (kept in the store), at once; unless the config
    /// file or the environment sets it.
    Plan,
    /// In the config file; the running server applies it when the file changes.
    File,
    /// In the config file; applied at the next start.
    Restart,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Plan => "plan_configuration",
            Change::File => "config file (applied when it changes)",
            Change::Restart => "config file (applied at restart)",
        }
    }
}

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Integer {
        min: i64,
        max: i64,
    },
    Text,
    /// A list of texts (host names, origins, networks, paths).
    List,
    /// Entries of their own (`[[instances]]`, `[[notifiers]]`): shown by id and kind.
    Entries,
    /// Never shown, never taken through a tool.
    Secret,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Bool => "boolean",
            Kind::Integer { .. } => "integer",
            Kind::Text => "text",
            Kind::List => "list of texts",
            Kind::Entries => "entries",
            Kind::Secret => "secret",
        }
    }
}

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// As the config file spells it (`mcp.allow_destructive`; `instances[].api_key`).
    pub key: &'static str,
    pub group: &'static str,
    pub kind: Kind,
    /// The default as JSON text (`null`: none).
    pub default: &'static str,
    pub accepted: &'static str,
    pub effect: &'static str,
    pub change: Change,
}

impl Setting {
    pub fn secret(&self) -> bool {
        self.kind == Kind::Secret
    }

    /// The default value.
    pub fn default_value(&self) -> Value {
        serde_json::from_str(self.default).unwrap_or(Value::Null)
    }

    /// Checks `value` is one this setting takes; the reason when it is not.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        let ok = match self.kind {
            Kind::Bool => value.is_boolean(),
            Kind::Integer { min, max } => value.as_i64().is_some_and(|n| (min..=max).contains(&n)),
            Kind::Text => value.as_str().is_some_and(|t| !t.trim().is_empty()),
            Kind::List => value.as_array().is_some_and(|items| {
                items.len() <= 100
                    && items.iter().all(|i| {
                        i.as_str().is_some_and(|t| {
                            !t.trim().is_empty()
                                && t.len() <= 253
                                && !t.chars().any(char::is_control)
                        })
                    })
            }),
            Kind::Entries | Kind::Secret => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{} takes {}", self.key, self.accepted))
        }
    }
}

/// Groups only the owner reads: who gets in, and the backends' entries.
pub const OWNER_GROUPS: &[&str] = &["auth", "oauth", "instances"];

const fn s(
    key: &'static str,
    group: &'static str,
    kind: Kind,
    default: &'static str,
    accepted: &'static str,
    effect: &'static str,
    change: Change,
) -> Setting {
    Setting {
        key,
        group,
        kind,
        default,
        accepted,
        effect,
        change,
    }
}

/// Every setting, by group.
pub const SETTINGS: &[Setting] = &[
    s(
        "listen",
        "server",
        Kind::Text,
        r#""127.0.0.1:8765""#,
        "host:port",
        "Where the HTTP server listens.",
        Change::Restart,
    ),
    s(
        "public_url",
        "server",
        Kind::Text,
        "null",
        "an absolute http(s) URL",
        "Where people reach this server: plans' review links, the owner pages' Secure cookie, the OAuth issuer. Default http:// and the listening address.",
        Change::Restart,
    ),
    s(
        "allowed_hosts",
        "server",
        Kind::List,
        r#"["localhost","127.0.0.1","[::1]"]"#,
        "host names",
        "Host names a request may be addressed to (the DNS-rebinding guard); add LAN names here.",
        Change::Restart,
    ),
    s(
        "allowed_origins",
        "server",
        Kind::List,
        "[]",
        "origins (https://app.example)",
        "Browser origins allowed besides the allowed hosts' own pages.",
        Change::Restart,
    ),
    s(
        "max_body_bytes",
        "server",
        Kind::Integer {
            min: 1024,
            max: 67_108_864,
        },
        "1048576",
        "1024 to 67108864",
        "The largest request body, in bytes.",
        Change::Restart,
    ),
    s(
        "trusted_proxies",
        "server",
        Kind::List,
        "[]",
        "addresses or networks (10.0.0.0/8)",
        "Reverse proxies whose X-Forwarded-For names the client, for the per-address limits.",
        Change::Restart,
    ),
    s(
        "log",
        "server",
        Kind::Text,
        r#""info""#,
        "a tracing filter (info, marquee=debug)",
        "What the log records.",
        Change::Restart,
    ),
    s(
        "builtin_catalogue",
        "server",
        Kind::Bool,
        "true",
        "true or false",
        "Whether the offline catalogue builtin (17,470 films) is offered.",
        Change::Restart,
    ),
    s(
        "connections.header_timeout_seconds",
        "connections",
        Kind::Integer { min: 1, max: 3600 },
        "20",
        "1 to 3600",
        "How long a client may take to send a request's headers.",
        Change::Restart,
    ),
    s(
        "connections.body_timeout_seconds",
        "connections",
        Kind::Integer { min: 1, max: 3600 },
        "60",
        "1 to 3600",
        "How long a client may take to send a request's body.",
        Change::Restart,
    ),
    s(
        "connections.max_connections",
        "connections",
        Kind::Integer {
            min: 1,
            max: 1_000_000,
        },
        "1024",
        "1 or more",
        "Open connections at once, from everyone.",
        Change::Restart,
    ),
    s(
        "connections.max_connections_per_address",
        "connections",
        Kind::Integer {
            min: 1,
            max: 1_000_000,
        },
        "64",
        "1 or more",
        "Open connections at once from one address.",
        Change::Restart,
    ),
    s(
        "limits.calls_per_minute",
        "limits",
        Kind::Integer {
            min: 0,
            max: 100_000,
        },
        "600",
        "0 (off) to 100000",
        "Tool calls one person may make per minute; past it a call is refused with the seconds to wait.",
        Change::Plan,
    ),
    s(
        "mcp.allow_destructive",
        "safety",
        Kind::Bool,
        "false",
        "true or false",
        "Whether destructive tools (deleting torrents with their data, removing queue items) may run at all; off, they are hidden and refused.",
        Change::Plan,
    ),
    s(
        "mcp.conformance_fixtures",
        "safety",
        Kind::Bool,
        "false",
        "true or false",
        "Serves the MCP conformance suite's fixture tools (test builds only).",
        Change::Restart,
    ),
    s(
        "auth.local_person",
        "auth",
        Kind::Text,
        "null",
        "a person's name",
        "Who a key-less request from this machine acts as; unset, every request needs a key.",
        Change::Restart,
    ),
    s(
        "auth.local_grant",
        "auth",
        Kind::Text,
        r#""reader""#,
        "a grant's name",
        "The grant key-less local requests act with.",
        Change::Restart,
    ),
    s(
        "oauth.enabled",
        "oauth",
        Kind::Bool,
        "true",
        "true or false",
        "Whether remote connectors may sign in with OAuth; off, no OAuth token authenticates.",
        Change::Restart,
    ),
    s(
        "oauth.access_token_seconds",
        "oauth",
        Kind::Integer {
            min: 1,
            max: 86_400,
        },
        "900",
        "1 to 86400",
        "How long an OAuth access token lives.",
        Change::Restart,
    ),
    s(
        "oauth.refresh_token_days",
        "oauth",
        Kind::Integer { min: 1, max: 365 },
        "30",
        "1 to 365",
        "How long an OAuth refresh token lives.",
        Change::Restart,
    ),
    s(
        "downloads.torrent_folders",
        "downloads",
        Kind::List,
        "[]",
        "absolute folder paths",
        "The only folders add_torrent reads .torrent files from (kept in the config file: reading this machine's folders is the machine owner's to allow).",
        Change::File,
    ),
    s(
        "outbound.allowed_hosts",
        "outbound",
        Kind::List,
        "[]",
        "host names",
        "Hosts a URL a caller gives may reach even when they resolve to private addresses (a LAN tracker); every other such URL must be public.",
        Change::Plan,
    ),
    s(
        "tasks.time_zone",
        "tasks",
        Kind::Text,
        "null",
        "an IANA time zone (Europe/Paris)",
        "Where scheduled tasks' and shortlist schedules' cron expressions are read; default the machine's.",
        Change::Restart,
    ),
    s(
        "instances",
        "instances",
        Kind::Entries,
        "[]",
        "[[instances]] entries: id, kind, url, ...",
        "The backends Marquee reaches: *arr services, indexers, torrent clients, media servers, catalogues, folders, MCP servers.",
        Change::Restart,
    ),
    s(
        "instances[].api_key",
        "instances",
        Kind::Secret,
        "null",
        "the backend's API key (or api_key_file)",
        "How Marquee signs in to the backend; start_connection takes it in the owner's browser.",
        Change::Restart,
    ),
    s(
        "instances[].password",
        "instances",
        Kind::Secret,
        "null",
        "the backend's password (or password_file)",
        "How Marquee signs in to a backend with a user name.",
        Change::Restart,
    ),
    s(
        "instances[].user_tokens",
        "instances",
        Kind::Secret,
        "null",
        "Plex users' own tokens",
        "Each Plex managed user's token, for their own watch state.",
        Change::Restart,
    ),
    s(
        "notifiers",
        "tasks",
        Kind::Entries,
        "[]",
        "[[notifiers]] entries: id, kind, url, secret files",
        "Where scheduled tasks' results are told (webhook, ntfy, gotify, email).",
        Change::Restart,
    ),
];

/// The setting `key`, if Marquee has one.
pub fn find(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// Applies a checked value of a plan-changed setting to the running server.
pub fn apply(settings: &Settings, key: &str, value: &Value) {
    match key {
        "mcp.allow_destructive" => settings.set_allow_destructive(value.as_bool() == Some(true)),
        "limits.calls_per_minute" => settings.call_rate.set_per_minute(
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(600),
        ),
        "outbound.allowed_hosts" => settings.set_outbound_hosts(
            value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str().map(str::to_owned))
                .collect(),
        ),
        other => tracing::warn!(key = other, "a stored setting has no live effect here"),
    }
}

/// Applies the store's values to the running server, for each plan-changed setting the config
/// file and the environment leave alone; a key they set keeps their value. Called at start and
/// each time the config file changes. Answers the keys applied.
pub async fn apply_stored(
    settings: &Settings,
    store: &store::Store,
) -> Result<Vec<String>, store::Error> {
    let config = settings.config_values();
    let stored = store.stored_settings().await?;
    let mut applied = Vec::new();
    for s in SETTINGS.iter().filter(|s| s.change == Change::Plan) {
        let fixed = config
            .get(s.key)
            .is_some_and(|c| c.source != governance::ConfigSource::Default);
        if fixed {
            continue;
        }
        let Some(kept) = stored.get(s.key) else {
            continue;
        };
        match serde_json::from_str::<Value>(&kept.value) {
            Ok(v) if s.check(&v).is_ok() => {
                apply(settings, s.key, &v);
                applied.push(s.key.to_owned());
            }
            _ => tracing::warn!(
                key = s.key,
                "a stored setting is not one it takes; left out"
            ),
        }
    }
    Ok(applied)
}
