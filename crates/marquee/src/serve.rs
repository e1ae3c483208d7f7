//! `serve`, `stdio` and `bridge`: wiring the store, the tools and the protocol edge.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, SystemTime},
};

use anyhow::{Context, bail};
use tools::{App, Instances, Settings};
use web::{EdgeConfig, Host, Metrics, Web};

use crate::config::{self, Loaded};

/// Opens the store, recovers unfinished audit entries and builds the host.
pub async fn open_host(
    loaded: &Loaded,
    data_dir: &Path,
    metrics: Arc<Metrics>,
) -> anyhow::Result<Arc<Host>> {
    let fixtures = loaded.config.mcp.fixtures()?;
    let store = store::Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))?;
    // This process is one replica of the gateway on the store: the work it starts carries its
    // id, and only the unfinished work of processes that are gone is closed (a live replica's,
    // or a server's beside this `stdio`, never is).
    store.join_replica().await?;
    let (unknown, failed, audit) = store.recover_at_start().await?;
    if unknown + failed + audit > 0 {
        tracing::warn!(
            unknown,
            failed,
            audit,
            "work left unfinished by a process that is gone was closed; none is retried"
        );
    }
    make_default_library(loaded, data_dir);
    let entered = store.instance_secrets().await?;
    let app = build_app(loaded, data_dir, store, &entered)?;
    if fixtures {
        tracing::warn!(
            "the conformance suite's test_* fixtures are served ([mcp] conformance_fixtures); never in a product config"
        );
    }
    let host = Host::new(app, metrics).with_conformance_fixtures(fixtures);
    Ok(Arc::new(host))
}

/// The embedded default's folder instance `library` (`<data dir>/library`) is made real at
/// start (and by `marquee doctor`, which checks it): an empty folder to drop media files into.
/// A folder the config names elsewhere is the household's own, and never created.
pub(crate) fn make_default_library(loaded: &Loaded, data_dir: &Path) {
    let library = data_dir.join("library");
    let named = loaded.config.instances(data_dir).is_ok_and(|all| {
        all.iter().any(|s| {
            s.kind == domain::InstanceKind::Folder
                && s.path.as_deref() == Some(library.display().to_string().as_str())
        })
    });
    if named && let Err(e) = std::fs::create_dir_all(&library) {
        tracing::warn!(folder = %library.display(), error = %e, "the library folder could not be created");
    }
}

/// The governance core for the owner's command line: the same `App` as a server's, without
/// touching a running server's unfinished audit entries.
pub async fn open_app(loaded: &Loaded, data_dir: &Path) -> anyhow::Result<App> {
    let store = store::Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))?;
    let entered = store.instance_secrets().await?;
    build_app(loaded, data_dir, store, &entered)
}

/// The instances in force with every per-kind setting read and checked: what a server starts
/// with, and what `marquee config check` checks.
pub fn instances(loaded: &Loaded, data_dir: &Path) -> anyhow::Result<Instances> {
    with_secrets(loaded, data_dir, &BTreeMap::new())
}

/// The instances, each one whose config sets no API key taking the one the owner entered in
/// the browser (`start_connection`), if any: the config file and the environment win.
fn with_secrets(
    loaded: &Loaded,
    data_dir: &Path,
    entered: &BTreeMap<String, domain::Secret>,
) -> anyhow::Result<Instances> {
    let mut specs = loaded.config.instances(data_dir)?;
    for spec in &mut specs {
        if spec.api_key.is_none()
            && let Some(secret) = entered.get(&spec.id)
        {
            spec.api_key = Some(secret.clone());
        }
    }
    Ok(Instances::new(specs)
        .map_err(|e| anyhow::anyhow!("invalid [[instances]]: {e}"))?
        .with_timeouts(loaded.config.instance_timeouts()?)
        .with_user_tokens(loaded.config.instance_user_tokens())
        .with_launches(loaded.config.instance_launches()?)
        .with_folders(loaded.config.instance_folders()?))
}

fn build_app(
    loaded: &Loaded,
    data_dir: &Path,
    store: store::Store,
    entered: &BTreeMap<String, domain::Secret>,
) -> anyhow::Result<App> {
    let instances = with_secrets(loaded, data_dir, entered)?;
    let mut settings = Settings::new(loaded.config.mcp.allow_destructive, loaded.file.clone());
    if let Some(person) = &loaded.config.auth.local_person {
        tracing::warn!(person, grant = %loaded.config.auth.local_grant, "requests from this machine without a key are let in ([auth] local_person)");
        settings.local_access = Some(tools::LocalAccess {
            person: person.clone(),
            grant: loaded.config.auth.local_grant.clone(),
        });
    }
    settings.set_oauth(loaded.config.oauth.lifetimes()?);
    settings.set_torrent_folders(loaded.config.downloads.torrent_folders.clone());
    settings
        .call_rate
        .set_per_minute(loaded.config.limits.calls_per_minute);
    settings.set_outbound_hosts(loaded.config.outbound.allowed_hosts.clone());
    settings.set_warnings(loaded.warnings.clone());
    settings.set_config_values(loaded.config_values());
    let app = tools::app(store, Arc::new(settings), Arc::new(instances));
    if let Some(scheduler) = app.family::<Arc<tools::tasks::Scheduler>>() {
        scheduler.configure(loaded.config.tasks_config()?);
    }
    Ok(app)
}

pub async fn serve(
    loaded: Loaded,
    data_dir: &Path,
    config_flag: Option<PathBuf>,
) -> anyhow::Result<()> {
    let c = &loaded.config;
    // Refused before listening: a build without the fixtures never starts as if it had them.
    c.mcp.fixtures()?;
    let limits = c.listen_limits()?;
    // Held while serving: `marquee restore` refuses to replace the database under it.
    let _data_lock = crate::backup::hold_shared(data_dir)?;
    let listener = tokio::net::TcpListener::bind(&c.listen)
        .await
        .with_context(|| format!("cannot listen on {}", c.listen))?;
    let local = listener.local_addr()?;
    let edge = EdgeConfig {
        allowed_hosts: c.allowed_hosts.clone(),
        allowed_origins: c.allowed_origins.clone(),
        body_limit: c.max_body_bytes,
        trusted_proxies: limits.trusted_proxies.clone(),
    };
    let metrics = Arc::new(Metrics::default());
    let web = Web::new(edge, metrics.clone());
    // Listen first: until the store is ready every route answers 503 with Retry-After.
    let server = tokio::spawn(web::listen::serve(
        listener,
        web::router(web.clone()),
        limits,
        shutdown(),
    ));
    tracing::info!(address = %local, "listening; opening the store");

    let host = open_host(&loaded, data_dir, metrics).await?;
    // The families' background work (download catalogue refreshes) runs until shutdown.
    // The store's settings (approved plans) over the defaults, wherever the file leaves them.
    tools::settings::apply_stored(host.app.settings(), host.app.store()).await?;
    host.app.start_jobs(shutdown());
    let public_url = match &c.public_url {
        Some(url) => {
            let parsed = url::Url::parse(url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
            anyhow::ensure!(
                parsed.is_some(),
                "public_url \"{url}\" is not an http:// or https:// address with a host name"
            );
            url.clone()
        }
        None => format!("http://{local}"),
    };
    host.app.settings().set_public_url(&public_url);
    if host.app.settings().oauth().is_some() && !oauth_transport_safe(&public_url) {
        tracing::warn!(issuer = %public_url, "OAuth tokens would travel unencrypted: set public_url to an https:// address (a TLS proxy in front), or [oauth] enabled = false");
    }
    if let Some((person, key)) = host.app.store().bootstrap_owner("owner").await? {
        let url = format!("http://{local}/mcp");
        println!(
            "Marquee created the owner \"{}\". This key is shown once; keep it safe:\n",
            person.name
        );
        println!("    {}\n", key.secret.expose());
        println!("Connect Claude Code with:\n");
        println!(
            "    claude mcp add --transport http marquee {url} --header \"Authorization: Bearer {}\"\n",
            key.secret.expose()
        );
        println!(
            "Every other client (claude-desktop, cursor, vscode, codex, inspector, n8n, chatgpt, claude-ai):\n\n    marquee connect <client>\n"
        );
    }
    watch_config(
        host.app.settings().clone(),
        host.app.store().clone(),
        loaded.config.clone(),
        config_flag,
        shutdown(),
    );
    let app = host.clone();
    web.set_ready(host);
    tracing::info!(address = %local, "ready: MCP at http://{local}/mcp");
    server
        .await
        .context("the HTTP server task failed")?
        .context("the HTTP server failed")?;
    // Writes under way (whose callers may be gone) run to their end and record their outcome.
    let left = app.app.finish_writes(Duration::from_secs(30)).await;
    if left > 0 {
        tracing::warn!(
            left,
            "writes still running after 30 s of shutdown grace; their audit entries become outcome_unknown at the next start"
        );
    }
    tracing::info!("stopped");
    Ok(())
}

/// Whether OAuth tokens to and from `public_url` stay off the network in clear: https, or a
/// loopback address.
fn oauth_transport_safe(public_url: &str) -> bool {
    let Ok(url) = url::Url::parse(public_url) else {
        return false;
    };
    url.scheme() == "https"
        || match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(d)) => d == "localhost",
            None => false,
        }
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

/// `[mcp] allow_destructive` and `[downloads] torrent_folders` are read on every request:
/// re-read the config file whenever it changes, so narrowing either takes effect without a restart.
/// The watch ends with `shutdown`.
fn watch_config(
    settings: Arc<Settings>,
    store: store::Store,
    running: config::Config,
    config_flag: Option<PathBuf>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let Some(file) = settings.config_file.clone() else {
        return;
    };
    let watch = async move {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let mut last: Option<SystemTime> = modified(&file);
        let mut told: Vec<String> = Vec::new();
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let now = modified(&file);
            if now == last {
                continue;
            }
            last = now;
            match config::load(config_flag.as_deref()) {
                Ok(reloaded) => {
                    let was = settings.allow_destructive();
                    settings.set_allow_destructive(reloaded.config.mcp.allow_destructive);
                    settings.set_torrent_folders(reloaded.config.downloads.torrent_folders.clone());
                    settings
                        .call_rate
                        .set_per_minute(reloaded.config.limits.calls_per_minute);
                    settings.set_outbound_hosts(reloaded.config.outbound.allowed_hosts.clone());
                    settings.set_config_values(reloaded.config_values());
                    if let Err(e) = tools::settings::apply_stored(&settings, &store).await {
                        tracing::error!(error = %e, "the stored settings could not be read; the config file's values stand");
                    }
                    let on = settings.allow_destructive();
                    if on != was {
                        tracing::info!(allow_destructive = on, "config changed");
                    }
                    let mut warnings = reloaded.warnings;
                    let pending = config::restart_needed(&running, &reloaded.config);
                    if !pending.is_empty() {
                        let line = format!(
                            "{} changed in {}: restart Marquee to apply it (the running server goes on with what it started with)",
                            pending.join(", "),
                            file.display()
                        );
                        if pending != told {
                            tracing::warn!("{line}");
                        }
                        warnings.push(line);
                    }
                    told = pending;
                    settings.set_warnings(warnings);
                }
                Err(e) => {
                    // Fail closed: a config that cannot be read switches destructive tools off.
                    settings.set_allow_destructive(false);
                    settings.set_torrent_folders(Vec::new());
                    settings.set_outbound_hosts(Vec::new());
                    tracing::error!(error = %e, "config change could not be read; destructive tools and reading torrent folders are off until it can");
                }
            }
        }
    };
    tokio::spawn(async move {
        tokio::select! { () = watch => {}, () = shutdown => {} }
    });
}

fn key_from_env() -> anyhow::Result<String> {
    match std::env::var("MARQUEE_KEY") {
        Ok(k) if !k.trim().is_empty() => Ok(k.trim().to_string()),
        _ => bail!(
            "MARQUEE_KEY is not set: set it to a Marquee API key (mq_…); `marquee keys create --person NAME` makes one"
        ),
    }
}

pub async fn stdio(loaded: Loaded, data_dir: &Path) -> anyhow::Result<()> {
    let key = key_from_env()?;
    let _data_lock = crate::backup::hold_shared(data_dir)?;
    let host = open_host(&loaded, data_dir, Arc::new(Metrics::default())).await?;
    if host.app.authenticate(&key).await?.is_none() {
        bail!("the key in MARQUEE_KEY is not valid (unknown, revoked or expired)");
    }
    // The families' background work runs while the process serves.
    host.app.start_jobs(std::future::pending());
    tracing::info!("serving MCP on stdio");
    mcp::stdio::serve(host, key)
        .await
        .context("stdio transport failed")
}

pub async fn bridge(url: &str) -> anyhow::Result<()> {
    let key = key_from_env()?;
    url::Url::parse(url).with_context(|| format!("--url {url} is not a valid URL"))?;
    tracing::info!(url, "bridging stdio to a remote marquee");
    mcp::bridge::run(url, &key).await.context("bridge failed")
}
