//! The owner's command line for what governs calls: grants (create, update, revoke, list,
//! show) and tool switches (list, enable, disable). Names are checked against the config's
//! instances and this build's tools before anything is written; the decisions themselves are
//! made by `tools` (the binary decides nothing).

use std::{collections::BTreeMap, path::Path};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use domain::{AllowanceKind, AllowanceRule, Capability};
use store::{Grant, GrantSpec, Store};

use crate::config::Loaded;

#[derive(Subcommand, Debug)]
pub enum GrantsCommand {
    /// Lists grants.
    List,
    /// Shows one grant.
    Show { name: String },
    /// Creates a named grant.
    Create {
        name: String,
        #[command(flatten)]
        with: GrantFlags,
    },
    /// Changes a named grant: each attribute given replaces the old one; the revision goes up.
    Update {
        name: String,
        #[command(flatten)]
        with: GrantFlags,
    },
    /// Ends a named grant now: its keys stop working at their next call.
    Revoke { name: String },
}

#[derive(Args, Debug)]
pub struct GrantFlags {
    /// A capability (repeatable), e.g. discover, downloads.read.
    #[arg(long = "capability")]
    capabilities: Vec<String>,
    /// An instance id the grant may touch (repeatable); `all` for every instance.
    #[arg(long = "instance")]
    instances: Vec<String>,
    /// KIND=N/DAYS (repeatable), e.g. adds=10/1; `none` removes every allowance.
    #[arg(long = "allowance")]
    allowances: Vec<String>,
    /// When the grant ends: YYYY-MM-DD or an RFC 3339 time; `never` for no end.
    #[arg(long)]
    expires: Option<String>,
    /// Only these tools (repeatable); `all` for every tool the capabilities allow.
    #[arg(long = "tool")]
    tools: Vec<String>,
    /// A tool group MCP `tools/list` shows (repeatable): discover, requests, downloads, library,
    /// files, admin, or a federated server's id; `all` for every group. The others stay
    /// callable by name, and `find_tools` finds them.
    #[arg(long = "group")]
    groups: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum ToolsCommand {
    /// Lists the tools and their switches; with --person, which tools each of that person's
    /// keys gets in MCP `tools/list`.
    List {
        #[arg(long)]
        person: Option<String>,
    },
    /// Switches a tool off (not listed, not callable), for everyone or one person.
    Disable {
        name: String,
        #[arg(long)]
        for_person: Option<String>,
    },
    /// Switches a tool back on, for everyone or one person.
    Enable {
        name: String,
        #[arg(long)]
        for_person: Option<String>,
    },
}

/// What names may be used: the configured instances and this build's tools.
struct Known {
    instances: Vec<String>,
    tools: Vec<&'static str>,
    /// The tool groups: the static ones, then each federated server's id.
    groups: Vec<String>,
}

impl Known {
    fn load(loaded: &Loaded, data_dir: &Path) -> anyhow::Result<Known> {
        let instances = loaded.config.instances(data_dir)?;
        let mut groups: Vec<String> = domain::TOOL_GROUPS.iter().map(|g| g.to_string()).collect();
        groups.extend(
            instances
                .iter()
                .filter(|i| i.kind == domain::InstanceKind::Mcp)
                .map(|i| i.id.clone()),
        );
        Ok(Known {
            instances: instances.into_iter().map(|i| i.id).collect(),
            tools: tools::tool_names(),
            groups,
        })
    }

    fn tool(&self, name: &str) -> anyhow::Result<()> {
        if !self.tools.contains(&name) {
            bail!(
                "unknown tool \"{name}\"; valid tools: {}",
                self.tools.join(", ")
            );
        }
        Ok(())
    }
}

/// A list flag: `None` when not given (keep), `Some(None)` for `all`, else the names.
fn list_flag(
    given: &[String],
    valid: &[&str],
    what: &str,
) -> anyhow::Result<Option<Option<Vec<String>>>> {
    match given {
        [] => Ok(None),
        [all] if all == "all" => Ok(Some(None)),
        names => {
            for n in names {
                if !valid.contains(&n.as_str()) {
                    bail!("unknown {what} \"{n}\"; valid: all, {}", valid.join(", "));
                }
            }
            let mut names = names.to_vec();
            names.sort();
            names.dedup();
            Ok(Some(Some(names)))
        }
    }
}

/// `YYYY-MM-DD` (the start of that day, UTC) or RFC 3339, as unix ms in the future.
fn parse_expiry(text: &str) -> anyhow::Result<Option<i64>> {
    if text == "never" {
        return Ok(None);
    }
    let at = if let Ok(day) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        day.and_hms_opt(0, 0, 0)
            .context("a day has a midnight")?
            .and_utc()
            .timestamp_millis()
    } else {
        chrono::DateTime::parse_from_rfc3339(text)
            .with_context(|| {
                format!("invalid --expires \"{text}\"; write YYYY-MM-DD, an RFC 3339 time or never")
            })?
            .timestamp_millis()
    };
    if at <= chrono::Utc::now().timestamp_millis() {
        bail!("--expires \"{text}\" is in the past; give a later time");
    }
    Ok(Some(at))
}

impl GrantFlags {
    /// Applies the flags to `spec`, validating every value first.
    fn apply(&self, spec: &mut GrantSpec, known: &Known) -> anyhow::Result<()> {
        if !self.capabilities.is_empty() {
            spec.capabilities = self
                .capabilities
                .iter()
                .map(|c| c.parse::<Capability>().map_err(|e| anyhow::anyhow!(e)))
                .collect::<anyhow::Result<_>>()?;
        }
        let ids: Vec<&str> = known.instances.iter().map(String::as_str).collect();
        if let Some(instances) = list_flag(&self.instances, &ids, "instance")? {
            spec.instances = instances;
        }
        if let Some(tools) = list_flag(&self.tools, &known.tools, "tool")? {
            spec.tools = tools;
        }
        let groups: Vec<&str> = known.groups.iter().map(String::as_str).collect();
        if let Some(listed) = list_flag(&self.groups, &groups, "tool group")? {
            spec.groups = listed;
        }
        match self.allowances.as_slice() {
            [] => {}
            [none] if none == "none" => spec.allowances.clear(),
            given => {
                let mut allowances: BTreeMap<AllowanceKind, AllowanceRule> = BTreeMap::new();
                for text in given {
                    let (kind, rule) =
                        AllowanceRule::parse(text).map_err(|e| anyhow::anyhow!(e))?;
                    if allowances.insert(kind, rule).is_some() {
                        bail!("the allowance {kind} is given twice; give each kind once");
                    }
                }
                spec.allowances = allowances;
            }
        }
        if let Some(text) = &self.expires {
            spec.expires_at = parse_expiry(text)?;
        }
        Ok(())
    }
}

fn describe(g: &Grant) -> String {
    let caps: Vec<&str> = g.capabilities.iter().map(|c| c.as_str()).collect();
    let mut out = format!("{:<12} rev {:<3} {}", g.name, g.revision, caps.join(" "));
    if let Some(i) = &g.instances {
        out.push_str(&format!("  instances: {}", i.join(", ")));
    }
    if let Some(t) = &g.tools {
        out.push_str(&format!("  tools: {}", t.join(", ")));
    }
    if let Some(t) = &g.groups {
        out.push_str(&format!("  listed groups: {}", t.join(", ")));
    }
    if !g.allowances.is_empty() {
        let a: Vec<String> = g
            .allowances
            .iter()
            .map(|(k, r)| format!("{k}={}/{}", r.count, r.days))
            .collect();
        out.push_str(&format!("  allowances: {}", a.join(" ")));
    }
    if g.is_expired(chrono::Utc::now().timestamp_millis()) {
        out.push_str("  (revoked or expired)");
    }
    out
}

async fn open(data_dir: &Path) -> anyhow::Result<Store> {
    Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))
}

pub async fn grants(cmd: GrantsCommand, loaded: &Loaded, data_dir: &Path) -> anyhow::Result<()> {
    let store = open(data_dir).await?;
    match cmd {
        GrantsCommand::List => {
            for g in store.grants().await? {
                println!("{}", describe(&g));
            }
        }
        GrantsCommand::Show { name } => {
            let Some(g) = store.grant_by_name(&name).await? else {
                let names: Vec<String> =
                    store.grants().await?.into_iter().map(|g| g.name).collect();
                bail!("no grant named \"{name}\"; grants: {}", names.join(", "));
            };
            println!("{}", serde_json::to_string_pretty(&g)?);
        }
        GrantsCommand::Create { name, with } => {
            let known = Known::load(loaded, data_dir)?;
            if with.capabilities.is_empty() {
                bail!(
                    "a grant needs at least one --capability; valid capabilities: {}",
                    Capability::ALL.map(|c| c.as_str()).join(", ")
                );
            }
            let mut spec = GrantSpec::default();
            with.apply(&mut spec, &known)?;
            let g = store.create_grant(&name, &spec).await?;
            println!("created {}", describe(&g));
        }
        GrantsCommand::Update { name, with } => {
            let known = Known::load(loaded, data_dir)?;
            let Some(old) = store.grant_by_name(&name).await? else {
                let names: Vec<String> =
                    store.grants().await?.into_iter().map(|g| g.name).collect();
                bail!("no grant named \"{name}\"; grants: {}", names.join(", "));
            };
            let mut spec = GrantSpec::of(&old);
            with.apply(&mut spec, &known)?;
            let g = store.update_grant(&name, &spec).await?;
            println!("updated {}", describe(&g));
        }
        GrantsCommand::Revoke { name } => {
            let g = store.revoke_grant(&name).await?;
            println!("revoked {}", describe(&g));
        }
    }
    Ok(())
}

pub async fn tools(cmd: ToolsCommand, loaded: Loaded, data_dir: &Path) -> anyhow::Result<()> {
    match cmd {
        ToolsCommand::List { person: None } => list_all(data_dir).await,
        ToolsCommand::List { person: Some(name) } => list_for(&loaded, data_dir, &name).await,
        ToolsCommand::Disable { name, for_person } => {
            switch(&loaded, data_dir, &name, for_person, false).await
        }
        ToolsCommand::Enable { name, for_person } => {
            switch(&loaded, data_dir, &name, for_person, true).await
        }
    }
}

async fn person_named(store: &Store, name: &str) -> anyhow::Result<store::Person> {
    store
        .person_by_name(name)
        .await?
        .with_context(|| format!("no person named \"{name}\"; `marquee people list` shows them"))
}

async fn switch(
    loaded: &Loaded,
    data_dir: &Path,
    tool: &str,
    person: Option<String>,
    on: bool,
) -> anyhow::Result<()> {
    Known::load(loaded, data_dir)?.tool(tool)?;
    let store = open(data_dir).await?;
    let state = if on { "on" } else { "off" };
    match person {
        None => {
            store.set_tool_switch(tool, on).await?;
            println!("{tool} is {state} for everyone without a switch of their own");
        }
        Some(name) => {
            let p = person_named(&store, &name).await?;
            store.set_person_tool_switch(p.id, tool, on).await?;
            println!("{tool} is {state} for {}", p.name);
        }
    }
    Ok(())
}

async fn list_all(data_dir: &Path) -> anyhow::Result<()> {
    let store = open(data_dir).await?;
    let switches = store.tool_switches().await?;
    let names: BTreeMap<domain::PersonId, String> = store
        .people()
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    for m in tools::tool_metas() {
        let mut state = match switches.for_all(m.name) {
            Some(false) => "off".to_string(),
            _ => "on".to_string(),
        };
        for (person, on) in switches.for_people(m.name) {
            let who = names.get(&person).map_or("?", String::as_str);
            state.push_str(&format!(", {} for {who}", if on { "on" } else { "off" }));
        }
        println!(
            "{:<22} {:<12} {:<18} {:<8} {}",
            m.name,
            m.effect.as_str(),
            m.capability.as_str(),
            state,
            m.title
        );
    }
    Ok(())
}

async fn list_for(loaded: &Loaded, data_dir: &Path, name: &str) -> anyhow::Result<()> {
    let app = crate::serve::open_app(loaded, data_dir).await?;
    let store = app.store();
    let p = person_named(store, name).await?;
    let switches = store.tool_switches().await?;
    let keys: Vec<_> = store
        .keys()
        .await?
        .into_iter()
        .filter(|k| k.person == p.name && k.revoked_at.is_none())
        .collect();
    if keys.is_empty() {
        println!("{} has no active keys, so no tools", p.name);
    }
    for k in keys {
        // The same question MCP `tools/list` asks, with the authority the key carries now.
        let Some(authority) = store.key_authority(&k.key_id).await? else {
            println!("key {} (grant {}): expired, so no tools", k.key_id, k.grant);
            continue;
        };
        let names = app.visible_to(&authority, &switches);
        let (listed, found): (Vec<&str>, Vec<&str>) =
            names.into_iter().partition(|n| app.lists(&authority, n));
        println!(
            "key {} (grant {}): {}",
            k.key_id,
            k.grant,
            listed.join(", ")
        );
        if !found.is_empty() {
            println!(
                "  callable by name, found with find_tools: {}",
                found.join(", ")
            );
        }
    }
    Ok(())
}
