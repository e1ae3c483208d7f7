//! `marquee connect CLIENT`: the exact snippet a client needs to reach this server, on standard
//! output (so it can be pasted or redirected into the client's file), and where it goes on
//! standard error. With `--person` it makes a new key for that person (labelled with the
//! client) and writes it into the snippet: shown this once, stored only as a verifier. Without,
//! the snippet names the key by a placeholder, an environment variable or the client's own
//! secret prompt, and the notes say how to make one. Connectors that sign in with OAuth get no
//! key either way.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::json;

use crate::config::Config;

/// The clients with a snippet, and what each is.
pub const CLIENTS: &[(&str, &str)] = &[
    ("claude-code", "Claude Code (HTTP, `claude mcp add`)"),
    (
        "claude-desktop",
        "Claude Desktop (claude_desktop_config.json, `marquee stdio`)",
    ),
    ("cursor", "Cursor (.cursor/mcp.json)"),
    ("vscode", "VS Code (.vscode/mcp.json)"),
    ("codex", "Codex (~/.codex/config.toml)"),
    ("inspector", "MCP Inspector (its command line)"),
    ("n8n", "n8n (the MCP Client Tool node)"),
    ("chatgpt", "ChatGPT connector (OAuth, no key)"),
    ("claude-ai", "Claude.ai connector (OAuth, no key)"),
];

/// The placeholder a snippet shows where a client that cannot read a variable needs the key.
pub const KEY_PLACEHOLDER: &str = "<paste the key here>";

/// A client's snippet and the notes that go with it.
#[derive(Debug)]
pub struct Snippet {
    /// What the client reads (JSON, TOML or a command line): standard output.
    pub text: String,
    /// Where it goes and how to get a key: standard error.
    pub notes: Vec<String>,
}

/// The MCP endpoint clients reach: `--url`, else `public_url` + `/mcp`, else the listening
/// address (an unspecified address as loopback).
pub fn endpoint(config: &Config, url: Option<&str>) -> anyhow::Result<String> {
    if let Some(u) = url {
        let parsed = url::Url::parse(u).map_err(|e| anyhow::anyhow!("--url {u}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            bail!("--url {u}: give the http:// or https:// address of Marquee's /mcp");
        }
        return Ok(u.to_string());
    }
    if let Some(public) = &config.public_url {
        return Ok(format!("{}/mcp", public.trim_end_matches('/')));
    }
    let listen = config
        .listen
        .replacen("0.0.0.0:", "127.0.0.1:", 1)
        .replacen("[::]:", "[::1]:", 1);
    Ok(format!("http://{listen}/mcp"))
}

/// Whether `url` names this machine (a local client may then run `marquee stdio` itself).
fn is_loopback(url: &str) -> bool {
    match url::Url::parse(url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost",
        None => false,
    }
}

/// Whether `client` signs in with OAuth (no key).
fn signs_in(client: &str) -> bool {
    matches!(client, "chatgpt" | "claude-ai")
}

/// The snippet for `client`, or the list of clients when it is unknown. `key`: a key made for
/// this snippet, written into it; `None`: placeholders, and a note on making one.
pub fn snippet(
    client: &str,
    url: &str,
    key: Option<&str>,
    exe: &Path,
    data_dir: &Path,
) -> anyhow::Result<Snippet> {
    let make_key = match key {
        Some(_) => {
            "the key in it is new, made for this client and shown only this once".to_string()
        }
        None => format!(
            "make a key for it (shown once): marquee keys create --person NAME --label {client}, or run this command with --person NAME to get the snippet with a new key in it"
        ),
    };
    let bearer_env = |env: &str| match key {
        Some(k) => format!("Bearer {k}"),
        None => format!("Bearer {env}"),
    };
    let json = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default();
    let exe = exe.display().to_string();
    let (text, notes) = match client {
        "claude-code" => (
            format!(
                "claude mcp add --transport http marquee {url} --header \"Authorization: {}\"",
                bearer_env("${MARQUEE_KEY}")
            ),
            vec![
                make_key,
                if key.is_some() {
                    "run the line; Claude Code keeps the header in its settings".into()
                } else {
                    "run the line with the key in MARQUEE_KEY (export MARQUEE_KEY=mq_…); the shell puts it in Claude Code's settings".into()
                },
            ],
        ),
        "claude-desktop" => {
            let the_key = key.unwrap_or(KEY_PLACEHOLDER);
            let (args, env) = if is_loopback(url) {
                (
                    json!(["stdio"]),
                    json!({"MARQUEE_KEY": the_key, "MARQUEE_DATA_DIR": data_dir.display().to_string()}),
                )
            } else {
                (
                    json!(["bridge", "--url", url]),
                    json!({"MARQUEE_KEY": the_key}),
                )
            };
            (
                json(json!({"mcpServers": {"marquee": {"command": exe, "args": args, "env": env}}})),
                vec![
                    make_key,
                    if key.is_some() {
                        "the key is in env.MARQUEE_KEY".into()
                    } else {
                        format!("put the key where it says {KEY_PLACEHOLDER}")
                    },
                    "the file: ~/Library/Application Support/Claude/claude_desktop_config.json (macOS), %APPDATA%\\Claude\\claude_desktop_config.json (Windows); merge \"marquee\" into its mcpServers, then restart Claude Desktop".into(),
                    "on another machine than this server, install marquee there and give the command its path; it forwards to the server with `marquee bridge`".into(),
                ],
            )
        }
        "cursor" => (
            json(json!({"mcpServers": {"marquee": {
                "url": url,
                "headers": {"Authorization": bearer_env("${env:MARQUEE_KEY}")}
            }}})),
            vec![
                make_key,
                if key.is_some() {
                    "the file: ~/.cursor/mcp.json (every project; keep a file with a key out of a project's repository)".into()
                } else {
                    "the file: ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project); Cursor reads the key from MARQUEE_KEY in the environment it starts in".into()
                },
            ],
        ),
        "vscode" => (
            // VS Code keeps what its prompt is given in its secret storage: even a new key is
            // pasted there (the notes show it), never written into the file.
            json(json!({
                "inputs": [{
                    "type": "promptString",
                    "id": "marquee-key",
                    "description": "Marquee API key (mq_…)",
                    "password": true
                }],
                "servers": {"marquee": {
                    "type": "http",
                    "url": url,
                    "headers": {"Authorization": "Bearer ${input:marquee-key}"}
                }}
            })),
            vec![
                make_key,
                "the file: .vscode/mcp.json in the workspace (or the user mcp.json: MCP: Open User Configuration); VS Code asks for the key once and keeps it in its secret storage".into(),
            ],
        ),
        "codex" => (
            format!(
                "[mcp_servers.marquee]\nurl = {}\nbearer_token_env_var = \"MARQUEE_KEY\"\n",
                toml_string(url)
            ),
            vec![
                make_key,
                "the file: ~/.codex/config.toml; Codex reads the key from MARQUEE_KEY in its environment".into(),
            ],
        ),
        "inspector" => (
            format!(
                "npx @modelcontextprotocol/inspector --cli {url} --transport http --header \"Authorization: {}\" --method tools/list",
                bearer_env("${MARQUEE_KEY}")
            ),
            vec![
                make_key,
                if key.is_some() {
                    "without --cli and --method the Inspector opens its web page with the same URL and header".into()
                } else {
                    "run it with the key in MARQUEE_KEY; without --cli and --method the Inspector opens its web page with the same URL and header".into()
                },
            ],
        ),
        "n8n" => (
            format!(
                "MCP Endpoint URL: {url}\nServer Transport: HTTP Streamable\nAuthentication: Bearer Auth (a credential whose token is the key)\n"
            ),
            vec![
                make_key,
                "in n8n: add an MCP Client Tool node to an AI Agent (or an MCP Client node) and fill in these fields; the key goes into the Bearer Auth credential, never into the workflow".into(),
            ],
        ),
        "chatgpt" | "claude-ai" => {
            let mut notes = vec![
                "add it as a custom connector (ChatGPT: Settings > Connectors; Claude: Settings > Connectors > Add custom connector) with no key: it registers itself".into(),
                "sign in to the owner pages when asked and choose the person and grant its tokens act as; the connection is listed and revoked like a key (marquee keys list)".into(),
            ];
            if !url.starts_with("https://") {
                notes.insert(
                    0,
                    "warning: these connectors need an https:// address reachable from the internet: set public_url behind a TLS proxy (deploy/reverse-proxy.md)".into(),
                );
            }
            (format!("{url}\n"), notes)
        }
        other => {
            let list: Vec<String> = CLIENTS
                .iter()
                .map(|(name, what)| format!("  {name:<15} {what}"))
                .collect();
            bail!(
                "unknown client \"{other}\"; the clients are:\n{}",
                list.join("\n")
            )
        }
    };
    let mut notes = notes;
    // Where the client keeps the key itself (a secret prompt, its environment, a credential),
    // the new key is in the notes instead of the snippet.
    if let Some(k) = key
        && matches!(client, "vscode" | "codex" | "n8n")
    {
        notes.insert(1, format!("the key, shown once: {k}"));
    }
    Ok(Snippet { text, notes })
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `marquee connect CLIENT`: the snippet on standard output, the notes on standard error; with
/// `person` (and a client that uses keys), a new key for that person in it.
pub async fn connect(
    client: &str,
    url: Option<&str>,
    person: Option<&str>,
    grant: Option<&str>,
    config: &Config,
    data_dir: &Path,
) -> anyhow::Result<()> {
    let url = endpoint(config, url)?;
    let exe = std::env::current_exe().unwrap_or_else(|_| "marquee".into());
    // An unknown client is refused (with the list) before any key is made.
    snippet(client, &url, None, &exe, data_dir)?;
    let mut made = None;
    if let Some(name) = person.filter(|_| !signs_in(client)) {
        made = Some(mint_key(data_dir, name, grant, client).await?);
    }
    let mut s = snippet(
        client,
        &url,
        made.as_ref().map(|m| m.secret.as_str()),
        &exe,
        data_dir,
    )?;
    if let Some(m) = &made {
        s.notes.push(format!(
            "key {} for {} with grant {} (stored only as a verifier: marquee keys revoke {} ends it)",
            m.key_id, m.person, m.grant, m.key_id
        ));
    } else if let Some(name) = person.filter(|_| signs_in(client)) {
        s.notes.push(format!(
            "no key is made for a connector: it signs in, and on the consent page you choose {name} and a grant"
        ));
    }
    print!("{}", s.text);
    if !s.text.ends_with('\n') {
        println!();
    }
    for n in &s.notes {
        eprintln!("{n}");
    }
    Ok(())
}

/// A key made by `marquee connect --person`: its id, whose it is, its grant, and the secret.
pub struct Minted {
    pub key_id: String,
    pub person: String,
    pub grant: String,
    pub secret: String,
}

/// Makes a key for the person `name` (with `grant`, else their role's default), labelled with
/// `label`, in the store of `data_dir`, which must exist already: a mistyped folder must not
/// become a new, empty household.
pub async fn mint_key(
    data_dir: &Path,
    name: &str,
    grant: Option<&str>,
    label: &str,
) -> anyhow::Result<Minted> {
    if !data_dir.join("marquee.db").exists() {
        anyhow::bail!(
            "no Marquee database in {}: start `marquee serve` there once (it makes the owner), or give the folder with --data-dir",
            data_dir.display()
        );
    }
    let store = store::Store::open(data_dir)
        .await
        .with_context(|| format!("cannot open the database in {}", data_dir.display()))?;
    let p = store.person_by_name(name).await?.with_context(|| {
        format!("no person named \"{name}\"; `marquee people add {name} --role user` adds one")
    })?;
    let grant = grant.map_or_else(
        || crate::admin::default_grant(p.role).to_string(),
        str::to_string,
    );
    let issued = store.create_key(p.id, &grant, Some(label), None).await?;
    Ok(Minted {
        key_id: issued.info.key_id.to_string(),
        person: p.name,
        grant: issued.info.grant.to_string(),
        secret: issued.secret.expose().to_string(),
    })
}
