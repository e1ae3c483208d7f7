//! `marquee oauth clients list|remove`: the owner's view of the connectors that registered
//! themselves through OAuth dynamic client registration, and a way to forget one.

use std::path::Path;

use anyhow::Context;
use clap::Subcommand;
use store::{ClientListing, Store};

#[derive(Subcommand, Debug)]
pub enum OAuthCommand {
    /// Registered OAuth clients (connectors).
    #[command(subcommand)]
    Clients(ClientsCommand),
}

#[derive(Subcommand, Debug)]
pub enum ClientsCommand {
    /// Lists registered clients with their connections (never a secret).
    List,
    /// Removes a client by its id (mqcl_…): its connections are revoked with their tokens.
    Remove { id: String },
}

pub async fn oauth(cmd: OAuthCommand, data_dir: &Path) -> anyhow::Result<()> {
    let store = Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))?;
    match cmd {
        OAuthCommand::Clients(ClientsCommand::List) => {
            let clients = store.oauth_clients().await?;
            if clients.is_empty() {
                println!(
                    "no registered clients (one that is never consented to is forgotten after ten minutes)"
                );
            }
            for c in &clients {
                println!("{}", line(c));
            }
        }
        OAuthCommand::Clients(ClientsCommand::Remove { id }) => {
            let revoked = store.remove_oauth_client(&id).await?;
            println!("removed {id}; {revoked} live connection(s) revoked");
        }
    }
    Ok(())
}

/// One client on one line: id, name, when it registered, its connections, its last use.
fn line(c: &ClientListing) -> String {
    let last = c.last_used_at.map_or_else(|| "never".to_string(), when);
    format!(
        "{:<20} {:<24} registered {}  connections: {} live of {}  last used: {}",
        c.client.client_id,
        printable(&c.client.name),
        when(c.client.created_at),
        c.live_connections,
        c.connections,
        last
    )
}

/// A client's own name, as it registered it, with control characters shown as `?`.
fn printable(name: &str) -> String {
    name.chars()
        .map(|ch| if ch.is_control() { '?' } else { ch })
        .collect()
}

/// Unix milliseconds as `2026-12-06 04:50 UTC`.
fn when(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map_or_else(
        || ms.to_string(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}
