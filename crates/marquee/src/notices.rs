//! Who hears of what and who is whom: a person's chosen notices (`marquee people notify`) and
//! the check that a media-server link names a configured media server.

use std::path::Path;

use anyhow::{Context, bail};
use store::Store;

use crate::config::Loaded;

/// Turns a notice on (or off) for a person through a configured notifier; only the owner and
/// admins, who decide them, may hear of approvals.
pub async fn choose(
    store: &Store,
    loaded: &Loaded,
    name: &str,
    notifier: &str,
    on: &str,
    off: bool,
) -> anyhow::Result<()> {
    let p = store
        .person_by_name(name)
        .await?
        .with_context(|| format!("no person named \"{name}\"; `marquee people list` shows them"))?;
    let known: Vec<String> = loaded
        .config
        .tasks_config()?
        .notifiers
        .into_iter()
        .map(|n| n.id)
        .collect();
    if !off && !known.iter().any(|k| k == notifier) {
        anyhow::bail!(
            "no notifier \"{notifier}\" is configured; configured: {}",
            if known.is_empty() {
                "none ([[notifiers]] in the config)".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    if !off && on == "approvals" && !matches!(p.role, domain::Role::Owner | domain::Role::Admin) {
        anyhow::bail!(
            "{} is a {}: approvals are told to the owner and admins, who decide them",
            p.name,
            p.role
        );
    }
    store.set_notify(p.id, on, notifier, !off).await?;
    if off {
        println!("{} no longer hears of {on} through {notifier}", p.name);
    } else {
        println!("{} hears of {on} through {notifier}", p.name);
    }
    Ok(())
}

/// Checks that `instance` is a configured media server; an error naming the ones there are.
pub fn media_server(loaded: &Loaded, data_dir: &Path, instance: &str) -> anyhow::Result<()> {
    let specs = loaded.config.instances(data_dir)?;
    let servers: Vec<&str> = specs
        .iter()
        .filter(|s| s.kind.family() == domain::KindFamily::MediaServers)
        .map(|s| s.id.as_str())
        .collect();
    if servers.contains(&instance) {
        return Ok(());
    }
    if servers.is_empty() {
        bail!(
            "\"{instance}\" is no media server: none is configured; add a [[instances]] entry of kind jellyfin, emby or plex"
        );
    }
    bail!(
        "\"{instance}\" is no media server; configured media servers: {}",
        servers.join(", ")
    )
}
