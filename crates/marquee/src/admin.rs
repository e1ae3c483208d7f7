//! The owner's command line: people, keys, request quotas, doctor and config check (grants and
//! tools are in `governance.rs`).
//! Each command prints a clear error and exits non-zero on bad input.

use std::path::Path;

use anyhow::{Context, bail};
use clap::Subcommand;
use domain::{MediaType, Role};
use store::{ContentLimits, QuotaScope, Store};

use crate::config::Loaded;

#[derive(Subcommand, Debug)]
pub enum PeopleCommand {
    /// Adds a person.
    Add {
        name: String,
        #[arg(long)]
        role: String,
    },
    /// Lists people.
    List,
    /// Sets a person's password for the owner pages, read from standard input (one line).
    SetPassword { name: String },
    /// Sets a person's content limits (replaces the earlier ones).
    SetLimits {
        name: String,
        /// Highest movie certification, e.g. PG-13.
        #[arg(long)]
        max_movie: Option<String>,
        /// Highest TV rating, e.g. TV-PG.
        #[arg(long)]
        max_tv: Option<String>,
        /// Rating region (ISO 3166-1), e.g. US.
        #[arg(long)]
        region: Option<String>,
        /// Hide titles without a rating.
        #[arg(long)]
        block_unrated: bool,
        /// A genre to hide (repeatable).
        #[arg(long = "block-genre")]
        block_genre: Vec<String>,
    },
    /// Links a person to their user on a media server (jellyfin, emby or plex), so "my continue
    /// watching" reads that user's state: `link alice --instance jellyfin --user alice-jf`.
    Link {
        name: String,
        /// The media server's instance id, as in the config.
        #[arg(long)]
        instance: String,
        /// The person's user name on that server.
        #[arg(long)]
        user: String,
    },
    /// Removes a person's link to a media server's user.
    Unlink {
        name: String,
        #[arg(long)]
        instance: String,
    },
    /// Chooses a notice for a person, sent through a configured notifier: `notify olga
    /// --notifier phone --on approvals` (a change waits for approval: owner and admins) or
    /// `--on downloads` (one's own request became available); `--off` stops it.
    Notify {
        name: String,
        /// The `[[notifiers]]` id.
        #[arg(long)]
        notifier: String,
        /// The notice: approvals or downloads.
        #[arg(long)]
        on: String,
        /// Stop sending it instead.
        #[arg(long)]
        off: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Creates a key for a person and prints it once.
    Create {
        #[arg(long)]
        person: String,
        /// Any grant: a preset (reader, requester, operator, admin), owner, or a named grant; default by role.
        #[arg(long)]
        grant: Option<String>,
        #[arg(long)]
        label: Option<String>,
    },
    /// Lists keys (never the secrets).
    List,
    /// Revokes a key by its id.
    Revoke { id: String },
}

#[derive(Subcommand, Debug)]
pub enum QuotasCommand {
    /// Sets request quotas for a role (the default for everyone with it) or for one person
    /// (replacing the role's quotas of the same media type), e.g. `--role user --movie 5 --days 7`.
    Set {
        /// owner and admin are exempt from quotas, so: user or kid.
        #[arg(long, required_unless_present = "person", conflicts_with = "person")]
        role: Option<String>,
        /// A person's name.
        #[arg(long)]
        person: Option<String>,
        /// Movies allowed per window.
        #[arg(long)]
        movie: Option<u32>,
        /// TV seasons allowed per window.
        #[arg(long)]
        tv: Option<u32>,
        /// Albums allowed per window.
        #[arg(long)]
        music: Option<u32>,
        /// Books allowed per window.
        #[arg(long)]
        book: Option<u32>,
        /// The window in days: 1, 7 or 30.
        #[arg(long)]
        days: u32,
    },
    /// Removes a role's or a person's quotas (all, or only --movie / --tv / --music / --book,
    /// only of --days).
    Clear {
        #[arg(long, required_unless_present = "person", conflicts_with = "person")]
        role: Option<String>,
        #[arg(long)]
        person: Option<String>,
        #[arg(long)]
        movie: bool,
        #[arg(long)]
        tv: bool,
        #[arg(long)]
        music: bool,
        #[arg(long)]
        book: bool,
        #[arg(long)]
        days: Option<u32>,
    },
    /// Lists every quota.
    List,
}

async fn open(data_dir: &Path) -> anyhow::Result<Store> {
    Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))
}

pub async fn people(cmd: PeopleCommand, loaded: &Loaded, data_dir: &Path) -> anyhow::Result<()> {
    let store = open(data_dir).await?;
    match cmd {
        PeopleCommand::Add { name, role } => {
            let role: Role = role
                .parse()
                .map_err(|e: domain::PersonError| anyhow::anyhow!(e))?;
            let p = store.add_person(&name, role).await?;
            println!("added {} ({})", p.name, p.role);
        }
        PeopleCommand::List => {
            for p in store.people().await? {
                let limits = if p.limits.is_unlimited() {
                    String::new()
                } else {
                    format!("  limits: {}", serde_json::to_string(&p.limits)?)
                };
                println!("{:<4} {:<24} {}{limits}", p.id, p.name, p.role);
            }
        }
        PeopleCommand::SetPassword { name } => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("cannot read the password from standard input")?;
            let password = domain::Secret::new(text.trim_end_matches(['\r', '\n']));
            store.set_password(&name, &password).await?;
            println!("password of {name} set; their earlier owner-page sessions are signed out");
        }
        PeopleCommand::SetLimits {
            name,
            max_movie,
            max_tv,
            region,
            block_unrated,
            block_genre,
        } => {
            let p = store.person_by_name(&name).await?.with_context(|| {
                format!("no person named \"{name}\"; `marquee people list` shows them")
            })?;
            if let Some(r) = &region
                && !(r.len() == 2 && r.chars().all(|c| c.is_ascii_uppercase()))
            {
                bail!(
                    "--region must be a two-letter upper-case country code such as US, got \"{r}\""
                );
            }
            // A cap the region's list lacks would hide every title: refused, naming the list.
            let max_movie = valid_cap(loaded, data_dir, &region, MediaType::Movie, max_movie)
                .await
                .context("--max-movie")?;
            let max_tv = valid_cap(loaded, data_dir, &region, MediaType::Tv, max_tv)
                .await
                .context("--max-tv")?;
            let limits = ContentLimits {
                max_movie_cert: max_movie,
                max_tv_rating: max_tv,
                rating_region: region,
                block_unrated,
                blocked_genres: block_genre,
            };
            store.set_limits(p.id, &limits).await?;
            println!(
                "limits of {} set: {}",
                p.name,
                serde_json::to_string(&limits)?
            );
        }
        PeopleCommand::Link {
            name,
            instance,
            user,
        } => {
            let p = store.person_by_name(&name).await?.with_context(|| {
                format!("no person named \"{name}\"; `marquee people list` shows them")
            })?;
            crate::notices::media_server(loaded, data_dir, &instance)?;
            store.link_media_user(p.id, &instance, &user).await?;
            println!("{} is {user} on {instance}", p.name);
        }
        PeopleCommand::Notify {
            name,
            notifier,
            on,
            off,
        } => crate::notices::choose(&store, loaded, &name, &notifier, &on, off).await?,
        PeopleCommand::Unlink { name, instance } => {
            let p = store.person_by_name(&name).await?.with_context(|| {
                format!("no person named \"{name}\"; `marquee people list` shows them")
            })?;
            if store.unlink_media_user(p.id, &instance).await? {
                println!("{} is no longer linked on {instance}", p.name);
            } else {
                println!("{} was not linked on {instance}", p.name);
            }
        }
    }
    Ok(())
}

/// `cap` checked against `region`'s (default US) list of `media_type` ratings, as the
/// configured catalogues list them, in the list's own spelling; an error naming the valid ones.
async fn valid_cap(
    loaded: &Loaded,
    data_dir: &Path,
    region: &Option<String>,
    media_type: MediaType,
    cap: Option<String>,
) -> anyhow::Result<Option<String>> {
    let Some(cap) = cap else {
        return Ok(None);
    };
    let region = region.as_deref().unwrap_or("US");
    let app = crate::serve::open_app(loaded, data_dir).await?;
    let names = tools::discover::rating_names(&app, region, media_type)
        .await
        .map_err(|why| anyhow::anyhow!("\"{cap}\" cannot be checked: {why}"))?;
    match names.iter().find(|n| n.eq_ignore_ascii_case(cap.trim())) {
        Some(name) => Ok(Some(name.clone())),
        None => bail!(
            "\"{cap}\" is not a {region} {} rating; valid: {}",
            match media_type {
                MediaType::Tv => "TV",
                _ => "movie",
            },
            names.join(", ")
        ),
    }
}

/// The grant a new key gets when none is named.
pub(crate) fn default_grant(role: Role) -> &'static str {
    match role {
        Role::Owner => store::OWNER_GRANT,
        Role::Admin => "admin",
        Role::User | Role::Kid => "requester",
    }
}

pub async fn keys(cmd: KeysCommand, data_dir: &Path) -> anyhow::Result<()> {
    let store = open(data_dir).await?;
    match cmd {
        KeysCommand::Create {
            person,
            grant,
            label,
        } => {
            let p = store.person_by_name(&person).await?.with_context(|| format!("no person named \"{person}\"; `marquee people add {person} --role user` adds one"))?;
            let grant = grant.unwrap_or_else(|| default_grant(p.role).to_string());
            let issued = store
                .create_key(p.id, &grant, label.as_deref(), None)
                .await?;
            eprintln!(
                "key {} for {} with grant {}; shown once:",
                issued.info.key_id, p.name, issued.info.grant
            );
            println!("{}", issued.secret.expose());
        }
        KeysCommand::List => {
            for k in store.keys().await? {
                let state = if k.revoked_at.is_some() {
                    "revoked"
                } else {
                    "active"
                };
                println!(
                    "{:<12} {:<8} {:<20} {:<12} {}",
                    k.key_id,
                    state,
                    k.person,
                    k.grant,
                    k.label.unwrap_or_default()
                );
            }
        }
        KeysCommand::Revoke { id } => {
            store.revoke_key(&id).await?;
            println!("revoked {id}");
        }
    }
    Ok(())
}

/// The scope a quota command names: `--role` or `--person`.
async fn quota_scope(
    store: &Store,
    role: Option<String>,
    person: Option<String>,
) -> anyhow::Result<QuotaScope> {
    match (role, person) {
        (Some(role), None) => {
            let role: Role = role
                .parse()
                .map_err(|e: domain::PersonError| anyhow::anyhow!(e))?;
            if role.is_admin() {
                bail!("owners and admins are exempt from quotas; set them for user or kid");
            }
            Ok(QuotaScope::Role { role })
        }
        (None, Some(name)) => {
            let p = store.person_by_name(&name).await?.with_context(|| {
                format!("no person named \"{name}\"; `marquee people list` shows them")
            })?;
            Ok(QuotaScope::Person {
                person: p.id,
                name: p.name,
            })
        }
        _ => bail!("name exactly one of --role or --person"),
    }
}

fn scope_text(scope: &QuotaScope) -> String {
    match scope {
        QuotaScope::Role { role } => format!("role {role}"),
        QuotaScope::Person { name, .. } => format!("person {name}"),
    }
}

/// "1 movie", "3 tv seasons".
fn units_text(media_type: MediaType, units: u32) -> String {
    let noun = match (media_type, units) {
        (MediaType::Tv, 1) => "tv season",
        (MediaType::Tv, _) => "tv seasons",
        (MediaType::Music, 1) => "album",
        (MediaType::Music, _) => "albums",
        (MediaType::Book, 1) => "book",
        (MediaType::Book, _) => "books",
        (MediaType::Movie, 1) => "movie",
        (MediaType::Movie, _) => "movies",
    };
    format!("{units} {noun}")
}

pub async fn quotas(cmd: QuotasCommand, data_dir: &Path) -> anyhow::Result<()> {
    let store = open(data_dir).await?;
    match cmd {
        QuotasCommand::Set {
            role,
            person,
            movie,
            tv,
            music,
            book,
            days,
        } => {
            let limits = [
                (MediaType::Movie, movie),
                (MediaType::Tv, tv),
                (MediaType::Music, music),
                (MediaType::Book, book),
            ];
            if limits.iter().all(|(_, units)| units.is_none()) {
                bail!(
                    "say what to limit: --movie N, --tv N (seasons), --music N (albums) and/or --book N"
                );
            }
            if !store::QUOTA_WINDOWS.contains(&days) {
                bail!("--days must be 1, 7 or 30, got {days}");
            }
            let scope = quota_scope(&store, role, person).await?;
            for (media_type, units) in limits {
                if let Some(units) = units {
                    store.set_quota(&scope, media_type, units, days).await?;
                    println!(
                        "quota set: {}: {} per {days} day{}",
                        scope_text(&scope),
                        units_text(media_type, units),
                        if days == 1 { "" } else { "s" }
                    );
                }
            }
        }
        QuotasCommand::Clear {
            role,
            person,
            movie,
            tv,
            music,
            book,
            days,
        } => {
            let scope = quota_scope(&store, role, person).await?;
            let named: Vec<Option<MediaType>> = [
                (MediaType::Movie, movie),
                (MediaType::Tv, tv),
                (MediaType::Music, music),
                (MediaType::Book, book),
            ]
            .into_iter()
            .filter(|(_, named)| *named)
            .map(|(t, _)| Some(t))
            .collect();
            // None named (or all four): every quota of the scope.
            let types = if named.is_empty() || named.len() == 4 {
                vec![None]
            } else {
                named
            };
            let mut removed = 0;
            for t in types {
                removed += store.clear_quotas(&scope, t, days).await?;
            }
            println!("{removed} quota(s) of {} removed", scope_text(&scope));
        }
        QuotasCommand::List => {
            let rules = store.quota_rules().await?;
            if rules.is_empty() {
                println!("no quotas: requests are unlimited (owners and admins always are)");
            }
            for r in rules {
                println!(
                    "{:<24} {} per {} day{}",
                    scope_text(&r.scope),
                    units_text(r.media_type, r.units),
                    r.window_days,
                    if r.window_days == 1 { "" } else { "s" }
                );
            }
        }
    }
    Ok(())
}

pub fn config_check(loaded: &Loaded, data_dir: &Path) -> anyhow::Result<()> {
    // Everything `serve` refuses at start is refused here too, by the same code.
    let in_force = crate::serve::instances(loaded, data_dir)?;
    let instances = in_force.all().to_vec();
    loaded.config.listen_limits()?;
    loaded.config.mcp.fixtures()?;
    loaded.config.oauth.lifetimes()?;
    loaded.config.tasks_config()?;
    match &loaded.file {
        Some(f) => println!("config file {}: ok", f.display()),
        None => println!("no config file: the embedded default is in force"),
    }
    println!("data folder {}", data_dir.display());
    println!(
        "listen {}; allowed hosts {}; allow_destructive {}",
        loaded.config.listen,
        loaded.config.allowed_hosts.join(", "),
        loaded.config.mcp.allow_destructive
    );
    match loaded.config.oauth.lifetimes()? {
        Some(life) => println!(
            "oauth on: access tokens {} s, refresh tokens {} days",
            life.access_ms / 1000,
            life.refresh_ms / 86_400_000
        ),
        None => println!("oauth off: API keys only"),
    }
    for i in &instances {
        println!(
            "instance {:<16} {:<13}{}",
            i.id,
            i.kind.as_str(),
            if i.default { " (default)" } else { "" }
        );
    }
    let folders = &loaded.config.downloads.torrent_folders;
    if folders.is_empty() {
        println!("torrent folders: none (add_torrent takes magnet links and http(s) URLs only)");
    }
    for f in folders {
        match std::fs::canonicalize(f) {
            Ok(real) if real.is_dir() => println!("torrent folder {}", real.display()),
            _ => println!(
                "warning: torrent folder {} is not a readable folder; add_torrent reads nothing from it",
                f.display()
            ),
        }
    }
    for w in &loaded.warnings {
        println!("warning: {w}");
    }
    Ok(())
}

pub async fn doctor(loaded: Loaded, data_dir: &Path) -> anyhow::Result<()> {
    config_check(&loaded, data_dir)?;
    let store = open(data_dir).await?;
    store.ping().await?;
    let people = store.people().await?;
    let owners = people.iter().filter(|p| p.role == Role::Owner).count();
    let active = store
        .keys()
        .await?
        .iter()
        .filter(|k| k.revoked_at.is_none())
        .count();
    println!(
        "database {}: ok; {} people ({owners} owner), {active} active keys",
        store
            .path()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        people.len()
    );
    if owners == 0 {
        println!("warning: no owner yet; `marquee serve` creates one on first start");
    }
    backends(&loaded, data_dir).await
}

/// Every configured instance asked as `diagnose` asks it, one line each with what to do; an
/// error when any failed.
async fn backends(loaded: &Loaded, data_dir: &Path) -> anyhow::Result<()> {
    // The embedded default's media folder is part of the data folder, as the database is:
    // made here as `serve` makes it, so a doctor run before the first start checks it as it
    // will be rather than failing it.
    crate::serve::make_default_library(loaded, data_dir);
    let app = crate::serve::open_app(loaded, data_dir).await?;
    let mut failed = Vec::new();
    for c in tools::check_instances(&app).await {
        let id = c["id"].as_str().unwrap_or_default().to_string();
        let kind = c["kind"].as_str().unwrap_or_default();
        let said = c["detail"]
            .as_str()
            .or(c["note"].as_str())
            .unwrap_or_default();
        let verdict = match c["ok"].as_bool() {
            Some(true) => "ok",
            Some(false) => {
                failed.push(id.clone());
                "FAILED"
            }
            None => "not checked",
        };
        println!("instance {id} ({kind}): {verdict}: {said}");
    }
    if !failed.is_empty() {
        bail!(
            "{} {} check: {}",
            failed.len(),
            if failed.len() == 1 {
                "instance failed its"
            } else {
                "instances failed their"
            },
            failed.join(", ")
        );
    }
    Ok(())
}
