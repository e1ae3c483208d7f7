//! Configuration: defaults, then `marquee.toml`, then `MARQUEE_` environment variables
//! (`__` nests, `_FILE` reads a secret from a file). Unknown keys are warned about.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use anyhow::{Context, bail};
use domain::{InstanceKind, Secret};
use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use serde::{Deserialize, Serialize};
use tools::InstanceSpec;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Where the HTTP server listens.
    pub listen: String,
    /// Host names a request may be addressed to (DNS-rebinding guard); add LAN names here.
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed besides the allowed hosts' own pages.
    pub allowed_origins: Vec<String>,
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Reverse proxies (addresses or networks such as `10.0.0.0/8`) whose `X-Forwarded-For`
    /// names the client; every per-address limit then counts that client. None by default.
    pub trusted_proxies: Vec<String>,
    pub connections: ConnectionsSection,
    pub limits: LimitsSection,
    /// Log filter (tracing syntax), e.g. "info" or "marquee=debug".
    pub log: String,
    /// Whether the offline catalogue `builtin` is offered.
    pub builtin_catalogue: bool,
    /// Where people reach this server (`https://marquee.example`), for a plan's review_url
    /// and the owner pages' Secure cookie; default `http://` + the listening address.
    pub public_url: Option<String>,
    pub mcp: McpSection,
    pub auth: AuthSection,
    pub oauth: OAuthSection,
    pub downloads: DownloadsSection,
    pub outbound: OutboundSection,
    pub instances: Vec<InstanceConfig>,
    /// `[tasks]`: the time zone scheduled tasks are read in.
    pub tasks: crate::tasks_config::TasksSection,
    /// `[[notifiers]]`: where task results are told.
    pub notifiers: Vec<crate::tasks_config::NotifierConfig>,
}

/// `[oauth]`: the authorization server for remote connectors (its issuer is `public_url`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct OAuthSection {
    /// Off: no client registers, no consent is asked, and no OAuth token authenticates.
    pub enabled: bool,
    /// How long an access token lives, in seconds (1 to 86,400).
    pub access_token_seconds: u64,
    /// How long an unused refresh token lives, in days (1 to 365); each refresh makes a new one.
    pub refresh_token_days: u64,
}

impl Default for OAuthSection {
    fn default() -> OAuthSection {
        OAuthSection {
            enabled: true,
            access_token_seconds: 900,
            refresh_token_days: 30,
        }
    }
}

impl OAuthSection {
    /// The token lifetimes while the server is on; `Ok(None)` when it is off.
    pub fn lifetimes(&self) -> anyhow::Result<Option<store::TokenLifetimes>> {
        if !self.enabled {
            return Ok(None);
        }
        if !(1..=86_400).contains(&self.access_token_seconds) {
            bail!(
                "[oauth] access_token_seconds = {} is out of range; valid values: 1 to 86400",
                self.access_token_seconds
            );
        }
        if !(1..=365).contains(&self.refresh_token_days) {
            bail!(
                "[oauth] refresh_token_days = {} is out of range; valid values: 1 to 365",
                self.refresh_token_days
            );
        }
        Ok(Some(store::TokenLifetimes {
            access_ms: self.access_token_seconds as i64 * 1000,
            refresh_ms: self.refresh_token_days as i64 * 86_400_000,
        }))
    }
}

/// `[connections]`: what keeps the server answering while clients misbehave.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectionsSection {
    /// A request head must arrive within this many seconds (also the longest idle wait of a
    /// kept-alive connection).
    pub header_timeout_seconds: u64,
    /// A request body must arrive within this many seconds of its head.
    pub body_timeout_seconds: u64,
    /// Connections open at once, at most.
    pub max_connections: usize,
    /// Connections open at once from one address, at most (trusted proxies excepted).
    pub max_connections_per_address: usize,
}

impl Default for ConnectionsSection {
    fn default() -> ConnectionsSection {
        ConnectionsSection {
            header_timeout_seconds: 20,
            body_timeout_seconds: 60,
            max_connections: 1024,
            max_connections_per_address: 64,
        }
    }
}

/// `[limits]`: how much one caller may ask.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct LimitsSection {
    /// Tool calls one person may make per minute (0: no limit).
    pub calls_per_minute: u32,
}

impl Default for LimitsSection {
    fn default() -> LimitsSection {
        LimitsSection {
            calls_per_minute: 600,
        }
    }
}

impl Config {
    /// The listener's limits, checked.
    pub fn listen_limits(&self) -> anyhow::Result<web::listen::Limits> {
        let c = &self.connections;
        let positive = |name: &str, v: u64| {
            if v == 0 {
                bail!("[connections] {name} = 0 is out of range; it must be at least 1");
            }
            Ok(v)
        };
        Ok(web::listen::Limits {
            header_timeout: std::time::Duration::from_secs(positive(
                "header_timeout_seconds",
                c.header_timeout_seconds,
            )?),
            body_timeout: std::time::Duration::from_secs(positive(
                "body_timeout_seconds",
                c.body_timeout_seconds,
            )?),
            max_connections: positive("max_connections", c.max_connections as u64)? as usize,
            max_connections_per_address: positive(
                "max_connections_per_address",
                c.max_connections_per_address as u64,
            )? as usize,
            trusted_proxies: self.trusted_proxies()?,
        })
    }

    /// `trusted_proxies`, parsed.
    pub fn trusted_proxies(&self) -> anyhow::Result<mcp::forwarded::TrustedProxies> {
        mcp::forwarded::TrustedProxies::parse(&self.trusted_proxies)
            .map_err(|e| anyhow::anyhow!("trusted_proxies: {e}"))
    }
}

/// `[downloads]`: what the download tools may touch on this machine.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DownloadsSection {
    /// The only folders `add_torrent` may read .torrent files from (none: magnets and URLs only).
    pub torrent_folders: Vec<PathBuf>,
}

/// `[outbound]`: what a URL a caller gives (an `add_torrent` URL, say) may reach.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OutboundSection {
    /// Hosts (names or addresses) such a URL may reach even when they are on this machine or
    /// its local networks; none by default, so only public addresses are fetched.
    pub allowed_hosts: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct McpSection {
    /// Destructive tools exist only while this is true; read on every request.
    pub allow_destructive: bool,
    /// Serves the official conformance suite's fixture tools, prompts and resources
    /// (`test_*`, `test://*`) beside Marquee's own, so the full suites can run against this
    /// server. For test servers only: never on in a product config.
    pub conformance_fixtures: bool,
}

impl McpSection {
    /// Whether the conformance fixtures are served. Asking for them from a build without them
    /// (every product build) is an error: the server refuses to start rather than run without
    /// what its config says it serves.
    pub fn fixtures(&self) -> anyhow::Result<bool> {
        self.fixtures_in(mcp::CONFORMANCE_FIXTURES)
    }

    fn fixtures_in(&self, built: bool) -> anyhow::Result<bool> {
        if self.conformance_fixtures && !built {
            bail!(
                "[mcp] conformance_fixtures is on, but this marquee was built without the conformance suite's fixtures (they are for test servers: build with --features conformance-fixtures); turn it off"
            );
        }
        Ok(self.conformance_fixtures)
    }
}

/// `[auth]`: credentials policy.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthSection {
    /// Requests from this machine (loopback) without a key act as this person. Off unless
    /// set, like the *arr services' "authentication disabled for local addresses".
    pub local_person: Option<String>,
    /// The grant such requests carry.
    pub local_grant: String,
}

impl Default for AuthSection {
    fn default() -> AuthSection {
        AuthSection {
            local_person: None,
            local_grant: "reader".into(),
        }
    }
}

/// One `[[instances]]` entry as written. Secrets are `Secret` from the moment they are read,
/// so no `Debug` of the configuration prints them, and they are never serialized.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InstanceConfig {
    pub id: String,
    pub kind: String,
    pub url: Option<String>,
    pub path: Option<String>,
    /// `folder`: `library` (where a media server reads; the default) or `downloads` (where
    /// finished downloads land, to be organised into a library).
    pub role: Option<String>,
    /// `folder`: what it holds, `movie`, `tv` or `music`, when it holds one kind only.
    pub media_type: Option<String>,
    pub username: Option<String>,
    #[serde(skip_serializing)]
    pub password: Option<Secret>,
    pub password_file: Option<PathBuf>,
    #[serde(skip_serializing)]
    pub api_key: Option<Secret>,
    pub api_key_file: Option<PathBuf>,
    pub default: bool,
    /// How long one request to this instance may take, in seconds (1 to 300; default 15, 10
    /// for torrent clients), for every kind that calls a service (*arr, catalogues, torrent
    /// clients): a hung backend holds a call no longer, and merged reads answer without it.
    pub timeout_seconds: Option<u64>,
    /// Plex: managed users' own tokens by user name (plex.tv, which hands them out, is not
    /// asked), so each linked person's continue watching and history read their own state.
    #[serde(skip_serializing)]
    pub user_tokens: std::collections::BTreeMap<String, Secret>,
    /// `mcp`: the program Marquee starts and supervises, speaking MCP on its stdin and stdout
    /// (instead of a `url`), with its `args`.
    pub command: Option<String>,
    pub args: Vec<String>,
    /// `mcp` with `command`: its environment. A name ending in `_file` reads the value of the
    /// name without it from that file: a secret, scrubbed from whatever the server says.
    pub env: BTreeMap<String, String>,
    /// `mcp` with `url`: headers sent with every request, `_file` names as in `env`.
    pub headers: BTreeMap<String, String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            listen: "127.0.0.1:8765".into(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: 1 << 20,
            trusted_proxies: Vec::new(),
            connections: ConnectionsSection::default(),
            limits: LimitsSection::default(),
            log: "info".into(),
            builtin_catalogue: true,
            public_url: None,
            mcp: McpSection::default(),
            auth: AuthSection::default(),
            oauth: OAuthSection::default(),
            downloads: DownloadsSection::default(),
            outbound: OutboundSection::default(),
            instances: Vec::new(),
            tasks: Default::default(),
            notifiers: Vec::new(),
        }
    }
}

/// A loaded configuration and what the loader noticed.
#[derive(Debug)]
pub struct Loaded {
    pub config: Config,
    pub file: Option<PathBuf>,
    pub warnings: Vec<String>,
    /// The settings the file or the environment set (they are fixed there), by catalogue key.
    pub fixed: BTreeMap<String, tools::ConfigSource>,
}

/// `explicit`: `--config FILE` (must exist); otherwise `./marquee.toml` when present.
pub fn load(explicit: Option<&Path>) -> anyhow::Result<Loaded> {
    let file = match explicit {
        Some(p) if !p.exists() => bail!("config file {} does not exist", p.display()),
        Some(p) => Some(p.to_path_buf()),
        None => Some(PathBuf::from("marquee.toml")).filter(|p| p.exists()),
    };
    let mut figment = Figment::from(Serialized::defaults(Config::default()));
    if let Some(f) = &file {
        figment = figment.merge(Toml::file_exact(f));
    }
    figment = figment
        .merge(
            Env::prefixed("MARQUEE_")
                .split("__")
                .filter(|k| !k.as_str().ends_with("_file") && !is_cli_only(k.as_str())),
        )
        .merge(Serialized::defaults(secret_files_from_env()?));
    let value: figment::value::Value = figment
        .extract()
        .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
    let json = serde_json::to_value(&value).context("reading the configuration")?;
    let mut warnings = Vec::new();
    let config: Config = serde_ignored::deserialize(json, |path| {
        warnings.push(format!("unknown config key \"{path}\" is ignored"))
    })
    .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
    let fixed = crate::config_values::fixed_keys(file.as_deref());
    Ok(Loaded {
        config,
        file,
        warnings,
        fixed,
    })
}

/// Settings a running server applies when the file changes; every other difference waits for a
/// restart.
const LIVE: &[&str] = &[
    "mcp.allow_destructive",
    "downloads.torrent_folders",
    "limits.calls_per_minute",
    "outbound.allowed_hosts",
];

/// What `reloaded` changes against the `running` configuration that only a restart applies:
/// setting paths and instance ids, never values (a value may be a secret).
pub fn restart_needed(running: &Config, reloaded: &Config) -> Vec<String> {
    let (Ok(serde_json::Value::Object(old)), Ok(serde_json::Value::Object(new))) = (
        serde_json::to_value(running),
        serde_json::to_value(reloaded),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, was) in &old {
        let now = new.get(key).unwrap_or(&serde_json::Value::Null);
        if key == "instances" {
            out.extend(instances_changed(was, now));
            continue;
        }
        match (was, now) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (field, v) in a {
                    let path = format!("{key}.{field}");
                    if b.get(field) != Some(v) && !LIVE.contains(&path.as_str()) {
                        out.push(path);
                    }
                }
            }
            _ if was != now && !LIVE.contains(&key.as_str()) => out.push(key.clone()),
            _ => {}
        }
    }
    out
}

/// `[[instances]]` added, removed or changed, by id.
fn instances_changed(was: &serde_json::Value, now: &serde_json::Value) -> Vec<String> {
    let by_id = |v: &serde_json::Value| -> BTreeMap<String, serde_json::Value> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| Some((i.get("id")?.as_str()?.to_owned(), i.clone())))
            .collect()
    };
    let (old, new) = (by_id(was), by_id(now));
    let mut out = Vec::new();
    for (id, v) in &new {
        match old.get(id) {
            None => out.push(format!("instance {id} (added)")),
            Some(o) if o != v => out.push(format!("instance {id} (changed)")),
            Some(_) => {}
        }
    }
    out.extend(
        old.keys()
            .filter(|id| !new.contains_key(*id))
            .map(|id| format!("instance {id} (removed)")),
    );
    out
}

/// Variables the CLI reads itself, not config keys.
pub(crate) fn is_cli_only(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    matches!(
        key.as_str(),
        "key" | "data_dir" | "config" | "log_format" | "shared"
    )
}

/// `MARQUEE_X__Y_FILE=/path` sets `x.y` to the file's contents (one trailing newline removed).
fn secret_files_from_env() -> anyhow::Result<BTreeMap<String, serde_json::Value>> {
    let mut out = BTreeMap::new();
    for (name, path) in std::env::vars() {
        let Some(key) = name
            .strip_prefix("MARQUEE_")
            .and_then(|k| k.strip_suffix("_FILE"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{name} names {path}, which cannot be read"))?;
        let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
        let parts: Vec<String> = key.to_lowercase().split("__").map(str::to_string).collect();
        insert_path(&mut out, &parts, serde_json::Value::String(text));
    }
    Ok(out)
}

fn insert_path(
    map: &mut BTreeMap<String, serde_json::Value>,
    parts: &[String],
    value: serde_json::Value,
) {
    match parts {
        [] => {}
        [last] => {
            map.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            let entry = map
                .entry(first.clone())
                .or_insert_with(|| serde_json::json!({}));
            if let serde_json::Value::Object(inner) = entry {
                let mut nested: BTreeMap<String, serde_json::Value> =
                    inner.clone().into_iter().collect();
                insert_path(&mut nested, rest, value);
                *inner = nested.into_iter().collect();
            }
        }
    }
}

fn secret(
    inline: &Option<Secret>,
    file: &Option<PathBuf>,
    what: &str,
    id: &str,
) -> anyhow::Result<Option<Secret>> {
    match (inline, file) {
        (Some(_), Some(_)) => bail!("instance \"{id}\": set {what} or {what}_file, not both"),
        (Some(v), None) => Ok(Some(v.clone())),
        (None, Some(f)) => {
            let text = std::fs::read_to_string(f).with_context(|| {
                format!(
                    "instance \"{id}\": {what}_file {} cannot be read",
                    f.display()
                )
            })?;
            Ok(Some(Secret::new(text.trim_end_matches('\n'))))
        }
        (None, None) => Ok(None),
    }
}

impl Config {
    /// Each instance's own `timeout_seconds`, where set; refused outside 1 to 300.
    pub fn instance_timeouts(&self) -> anyhow::Result<Vec<(String, std::time::Duration)>> {
        let mut out = Vec::new();
        for i in &self.instances {
            let Some(secs) = i.timeout_seconds else {
                continue;
            };
            if !(1..=300).contains(&secs) {
                anyhow::bail!(
                    "instance \"{}\": timeout_seconds = {secs} is outside 1 to 300; set the seconds one request to it may take, or leave it out for the default",
                    i.id
                );
            }
            out.push((i.id.clone(), std::time::Duration::from_secs(secs)));
        }
        Ok(out)
    }

    /// Each instance's users' own tokens (`user_tokens`), where set.
    pub fn instance_user_tokens(&self) -> Vec<(String, Vec<(String, Secret)>)> {
        self.instances
            .iter()
            .filter(|i| !i.user_tokens.is_empty())
            .map(|i| {
                let users = i
                    .user_tokens
                    .iter()
                    .map(|(name, token)| (name.clone(), token.clone()))
                    .collect();
                (i.id.clone(), users)
            })
            .collect()
    }

    /// The instances in force: the declared ones plus the embedded defaults (the `builtin`
    /// catalogue unless switched off, and a `folder` library in the data folder).
    pub fn instances(&self, data_dir: &Path) -> anyhow::Result<Vec<InstanceSpec>> {
        self.instance_timeouts()?;
        let mut out = Vec::new();
        for i in &self.instances {
            let kind: InstanceKind = i.kind.parse().map_err(|e: domain::InstanceError| {
                anyhow::anyhow!("instance \"{}\": {e}", i.id)
            })?;
            let url = match &i.url {
                Some(u) => Some(url::Url::parse(u).map_err(|e| {
                    anyhow::anyhow!("instance \"{}\": url \"{u}\" is not valid: {e}", i.id)
                })?),
                None => None,
            };
            out.push(InstanceSpec {
                id: i.id.clone(),
                kind,
                url,
                path: i.path.clone(),
                username: i.username.clone(),
                password: secret(&i.password, &i.password_file, "password", &i.id)?,
                api_key: secret(&i.api_key, &i.api_key_file, "api_key", &i.id)?,
                default: i.default,
            });
        }
        let has = |out: &[InstanceSpec], k: InstanceKind, id: &str| {
            out.iter().any(|s| s.kind == k || s.id == id)
        };
        if self.builtin_catalogue && !has(&out, InstanceKind::Builtin, "builtin") {
            out.push(embedded("builtin", InstanceKind::Builtin, None));
        }
        if !has(&out, InstanceKind::Folder, "library") {
            out.push(embedded(
                "library",
                InstanceKind::Folder,
                Some(data_dir.join("library").display().to_string()),
            ));
        }
        Ok(out)
    }
}

fn embedded(id: &str, kind: InstanceKind, path: Option<String>) -> InstanceSpec {
    InstanceSpec {
        id: id.into(),
        kind,
        url: None,
        path,
        username: None,
        password: None,
        api_key: None,
        default: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_file_env_and_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(&file, "listen = \"127.0.0.1:9999\"\nbogus = 1\n[mcp]\nallow_destructive = false\n[[instances]]\nid = \"q\"\nkind = \"qbittorrent\"\nurl = \"http://127.0.0.1:1\"\npassword_file = \"pw\"\n").unwrap();
        let loaded = load(Some(&file)).unwrap();
        assert_eq!(loaded.config.listen, "127.0.0.1:9999");
        assert_eq!(
            loaded.warnings,
            vec!["unknown config key \"bogus\" is ignored".to_string()]
        );
        assert_eq!(loaded.config.instances[0].kind, "qbittorrent");
        assert!(load(Some(&dir.path().join("missing.toml"))).is_err());
    }

    #[test]
    fn a_reload_names_what_waits_for_a_restart_and_not_what_applies_live() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        let write = |text: &str| {
            std::fs::write(&file, text).unwrap();
            load(Some(&file)).unwrap().config
        };
        let base = "[[instances]]\nid = \"q\"\nkind = \"qbittorrent\"\nurl = \"http://127.0.0.1:1\"\npassword = \"one\"\n";
        let running = write(base);
        let live = write(&format!(
            "[mcp]\nallow_destructive = true\n[limits]\ncalls_per_minute = 5\n{base}"
        ));
        assert!(
            restart_needed(&running, &live).is_empty(),
            "live settings apply at once"
        );
        let added = write(&format!(
            "listen = \"127.0.0.1:9\"\n{base}[[instances]]\nid = \"r\"\nkind = \"radarr\"\nurl = \"http://127.0.0.1:2\"\napi_key = \"secret-key\"\n"
        ));
        let pending = restart_needed(&running, &added);
        assert_eq!(
            pending,
            vec!["instance r (added)".to_string(), "listen".to_string()]
        );
        let changed = write(&base.replace("127.0.0.1:1", "127.0.0.1:3"));
        assert_eq!(
            restart_needed(&running, &changed),
            vec!["instance q (changed)".to_string()]
        );
        let removed = write("");
        assert_eq!(
            restart_needed(&running, &removed),
            vec!["instance q (removed)".to_string()]
        );
        assert!(
            !pending.iter().any(|p| p.contains("secret-key")),
            "names only, never values"
        );
    }

    #[test]
    fn debug_of_the_loaded_config_shows_no_secret() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(&file, "[[instances]]\nid = \"q\"\nkind = \"qbittorrent\"\nurl = \"http://127.0.0.1:1\"\nusername = \"mcp\"\npassword = \"pw-in-the-file\"\n[[instances]]\nid = \"r\"\nkind = \"tmdb\"\napi_key = \"key-in-the-file\"\n").unwrap();
        let loaded = load(Some(&file)).unwrap();
        let shown = format!("{loaded:?} {:#?}", loaded.config);
        assert!(!shown.contains("pw-in-the-file"), "{shown}");
        assert!(!shown.contains("key-in-the-file"), "{shown}");
        let specs = loaded.config.instances(dir.path()).unwrap();
        assert_eq!(
            specs[0].password.as_ref().unwrap().expose(),
            "pw-in-the-file"
        );
        assert_eq!(
            specs[1].api_key.as_ref().unwrap().expose(),
            "key-in-the-file"
        );
    }

    #[test]
    fn conformance_fixtures_are_refused_by_a_build_without_them() {
        let mut mcp = McpSection::default();
        assert!(!mcp.fixtures_in(false).unwrap());
        assert!(!mcp.fixtures_in(true).unwrap());
        mcp.conformance_fixtures = true;
        assert!(mcp.fixtures_in(true).unwrap());
        let refused = mcp.fixtures_in(false).unwrap_err().to_string();
        assert!(
            refused.starts_with("[mcp] conformance_fixtures is on, but this marquee was built without the conformance suite's fixtures"),
            "{refused}"
        );
    }

    #[test]
    fn oauth_is_on_by_default_with_short_access_tokens_and_checks_its_ranges() {
        let life = Config::default().oauth.lifetimes().unwrap().unwrap();
        assert_eq!(
            (life.access_ms, life.refresh_ms),
            (900_000, 30 * 86_400_000)
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(&file, "[oauth]\naccess_token_seconds = 0\n").unwrap();
        let e = load(Some(&file))
            .unwrap()
            .config
            .oauth
            .lifetimes()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "[oauth] access_token_seconds = 0 is out of range; valid values: 1 to 86400"
        );
        std::fs::write(&file, "[oauth]\nenabled = false\n").unwrap();
        assert!(
            load(Some(&file))
                .unwrap()
                .config
                .oauth
                .lifetimes()
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn connection_limits_and_trusted_proxies_are_read_and_checked() {
        let limits = Config::default().listen_limits().unwrap();
        assert_eq!(
            (
                limits.header_timeout.as_secs(),
                limits.body_timeout.as_secs(),
                limits.max_connections,
                limits.max_connections_per_address,
            ),
            (20, 60, 1024, 64)
        );
        assert!(limits.trusted_proxies.is_empty());
        assert_eq!(Config::default().limits.calls_per_minute, 600);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(
            &file,
            "trusted_proxies = [\"10.0.0.0/8\", \"::1\"]\n[connections]\nheader_timeout_seconds = 5\nmax_connections_per_address = 8\n[limits]\ncalls_per_minute = 0\n",
        )
        .unwrap();
        let loaded = load(Some(&file)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let limits = loaded.config.listen_limits().unwrap();
        assert_eq!(limits.header_timeout.as_secs(), 5);
        assert_eq!(limits.max_connections_per_address, 8);
        assert!(limits.trusted_proxies.contains("10.1.2.3".parse().unwrap()));
        assert!(
            !limits
                .trusted_proxies
                .contains("192.0.2.1".parse().unwrap())
        );
        assert_eq!(loaded.config.limits.calls_per_minute, 0);
        std::fs::write(&file, "trusted_proxies = [\"proxy.lan\"]\n").unwrap();
        let e = load(Some(&file))
            .unwrap()
            .config
            .listen_limits()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "trusted_proxies: \"proxy.lan\" is not an IP address or a network such as 10.0.0.0/8"
        );
        std::fs::write(&file, "[connections]\nmax_connections = 0\n").unwrap();
        assert!(load(Some(&file)).unwrap().config.listen_limits().is_err());
    }

    #[test]
    fn outbound_allowed_hosts_are_read_and_none_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(&file, "[outbound]\nallowed_hosts = [\"tracker.lan\"]\n").unwrap();
        let loaded = load(Some(&file)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.config.outbound.allowed_hosts, ["tracker.lan"]);
        assert!(Config::default().outbound.allowed_hosts.is_empty());
    }

    #[test]
    fn torrent_folders_are_read_from_the_downloads_section() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("marquee.toml");
        std::fs::write(
            &file,
            "[downloads]\ntorrent_folders = [\"/srv/torrents\"]\n",
        )
        .unwrap();
        let loaded = load(Some(&file)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(
            loaded.config.downloads.torrent_folders,
            [PathBuf::from("/srv/torrents")]
        );
    }

    #[test]
    fn instances_add_embedded_defaults_and_read_secret_files() {
        let dir = tempfile::tempdir().unwrap();
        let pw = dir.path().join("pw");
        std::fs::write(&pw, "s3cret\n").unwrap();
        let mut c = Config::default();
        c.instances.push(InstanceConfig {
            id: "q".into(),
            kind: "qbittorrent".into(),
            password_file: Some(pw),
            ..Default::default()
        });
        let specs = c.instances(dir.path()).unwrap();
        let ids: Vec<&str> = specs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["q", "builtin", "library"]);
        assert_eq!(specs[0].password.as_ref().unwrap().expose(), "s3cret");
        assert!(!format!("{specs:?}").contains("s3cret"));
        c.instances[0].kind = "kodi".into();
        let e = c.instances(dir.path()).unwrap_err().to_string();
        assert!(e.contains("unknown instance kind \"kodi\""), "{e}");
    }

    #[test]
    fn an_instances_timeout_seconds_is_its_own_and_bounded() {
        let mut c = Config::default();
        for (id, secs) in [("a", Some(3)), ("b", None)] {
            c.instances.push(InstanceConfig {
                id: id.into(),
                kind: "radarr".into(),
                timeout_seconds: secs,
                ..Default::default()
            });
        }
        let timeouts = c.instance_timeouts().unwrap();
        assert_eq!(
            timeouts,
            [("a".to_string(), std::time::Duration::from_secs(3))]
        );
        c.instances[1].timeout_seconds = Some(0);
        let dir = tempfile::tempdir().unwrap();
        let e = c.instances(dir.path()).unwrap_err().to_string();
        assert!(e.contains("timeout_seconds = 0 is outside 1 to 300"), "{e}");
    }
}
