//! The `marquee` binary: command line, configuration, logging and wiring. The only crate
//! that uses anyhow.

mod admin;
mod backup;
mod config;
mod config_values;
mod connect;
mod data_dir;
mod folder_config;
mod governance;
mod mcp_config;
mod notices;
mod oauth;
mod ready;
mod serve;
mod tasks_config;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// mimalloc: the request path allocates many small, short-lived values (JSON trees, strings),
/// which it serves faster than the system allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `marquee --version`: the release, the commit and date it was built from, its features.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BUILD_COMMIT"),
    ", built ",
    env!("BUILD_DATE"),
    ", features: ",
    env!("BUILD_FEATURES"),
    ")"
);

#[derive(Parser, Debug)]
#[command(
    name = "marquee",
    version = VERSION,
    about = "One governed MCP endpoint for the self-hosted home-media stack"
)]
struct Cli {
    /// Config file (default: ./marquee.toml when present, else the embedded default).
    #[arg(long, global = true, env = "MARQUEE_CONFIG")]
    config: Option<PathBuf>,
    /// Data folder holding the database (default: systemd's STATE_DIRECTORY, else
    /// $XDG_DATA_HOME/marquee, else ~/.local/share/marquee).
    #[arg(long, global = true, env = "MARQUEE_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve MCP over HTTP (first start on an empty store creates the owner and prints its key once).
    Serve,
    /// Serve MCP over stdio for a local client, as the person of the key in MARQUEE_KEY.
    Stdio,
    /// Forward stdio to a remote Marquee, with the key in MARQUEE_KEY.
    Bridge {
        /// The remote MCP endpoint, e.g. http://nas.local:8765/mcp
        #[arg(long)]
        url: String,
    },
    /// People in the household.
    #[command(subcommand)]
    People(admin::PeopleCommand),
    /// API keys.
    #[command(subcommand)]
    Keys(admin::KeysCommand),
    /// Grants: presets and named grants with capabilities, instances, allowances, expiry, tools.
    #[command(subcommand)]
    Grants(governance::GrantsCommand),
    /// Request quotas per role and per person.
    #[command(subcommand)]
    Quotas(admin::QuotasCommand),
    /// Tools and their switches.
    #[command(subcommand)]
    Tools(governance::ToolsCommand),
    /// OAuth: the clients (connectors) that registered themselves.
    #[command(subcommand)]
    Oauth(oauth::OAuthCommand),
    /// Checks the configuration, the data folder and the database.
    Doctor,
    /// Writes a consistent copy of the database to FILE (while serving, too).
    Backup {
        /// The backup file to write; it must not exist yet.
        file: PathBuf,
    },
    /// Replaces the database with a backup, after checking it (Marquee must be stopped); the
    /// database it replaces is kept beside it.
    Restore {
        /// A file written by `marquee backup`.
        file: PathBuf,
    },
    /// Configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Succeeds when the server of this configuration answers /readyz (a health check).
    Ready,
    /// Prints what a client needs to connect (claude-code, claude-desktop, cursor, vscode,
    /// codex, inspector, n8n, chatgpt, claude-ai): its snippet on standard output, where it
    /// goes and how to make a key on standard error. Never prints a key.
    Connect {
        /// The client; an unknown name lists them.
        client: String,
        /// The MCP URL the client reaches (default: public_url + /mcp, else the listening
        /// address).
        #[arg(long)]
        url: Option<String>,
        /// Makes a new key for this person, labelled with the client, and writes it into the
        /// snippet (shown once; connectors that sign in get none).
        #[arg(long)]
        person: Option<String>,
        /// With --person: the key's grant (default: the person's role's).
        #[arg(long, requires = "person")]
        grant: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
enum ConfigCommand {
    /// Loads and validates the configuration, printing warnings.
    Check,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // One TLS crypto provider for every outbound client (adapters, the bridge).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("marquee: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("marquee: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The command line once the data folder is known.
struct Resolved {
    data_dir: PathBuf,
    config: Option<PathBuf>,
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let command = cli.command;
    let loaded = config::load(cli.config.as_deref())?;
    init_logging(&loaded.config.log);
    for w in &loaded.warnings {
        tracing::warn!("{w}");
    }
    let (data_dir, why) = match cli.data_dir {
        Some(dir) => (dir, "given with --data-dir or MARQUEE_DATA_DIR"),
        None => data_dir::default()?,
    };
    let cli = Resolved {
        data_dir,
        config: cli.config,
    };
    match command {
        Command::Serve => {
            tracing::info!(data_dir = %cli.data_dir.display(), why, "data folder");
            serve::serve(loaded, &cli.data_dir, cli.config).await
        }
        Command::Stdio => {
            data_dir::must_exist(&cli.data_dir, why)?;
            serve::stdio(loaded, &cli.data_dir).await
        }
        Command::Bridge { url } => serve::bridge(&url).await,
        Command::People(c) => admin::people(c, &loaded, &cli.data_dir).await,
        Command::Keys(c) => admin::keys(c, &cli.data_dir).await,
        Command::Grants(c) => governance::grants(c, &loaded, &cli.data_dir).await,
        Command::Quotas(c) => admin::quotas(c, &cli.data_dir).await,
        Command::Tools(c) => governance::tools(c, loaded, &cli.data_dir).await,
        Command::Oauth(c) => oauth::oauth(c, &cli.data_dir).await,
        Command::Doctor => admin::doctor(loaded, &cli.data_dir).await,
        Command::Backup { file } => backup::backup(&file, &cli.data_dir).await,
        Command::Restore { file } => backup::restore(&file, &cli.data_dir).await,
        Command::Config(ConfigCommand::Check) => admin::config_check(&loaded, &cli.data_dir),
        Command::Ready => ready::ready(&loaded.config),
        Command::Connect {
            client,
            url,
            person,
            grant,
        } => {
            connect::connect(
                &client,
                url.as_deref(),
                person.as_deref(),
                grant.as_deref(),
                &loaded.config,
                &cli.data_dir,
            )
            .await
        }
    }
}

/// Logs go to stderr in every mode: in stdio mode stdout belongs to the protocol. Colour only
/// on a terminal and without `NO_COLOR`; `MARQUEE_LOG_FORMAT=json` writes one JSON object a
/// line (for log collectors).
fn init_logging(default: &str) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("MARQUEE_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(default))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let json = std::env::var("MARQUEE_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    let _ = if json {
        builder.json().with_ansi(false).try_init()
    } else {
        builder.with_ansi(colour).try_init()
    };
}
