//! What the end-to-end tests of the real binary share: the binary, a served process killed on
//! drop, the CLI, and the official Python SDK driven by scripts/mcp_features.py.

#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_marquee");

/// A running `marquee serve`; killed on drop.
pub struct Serving(pub Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The project root (scripts/ lives there), from the package folder `cargo test` names at run
/// time (a binary built in another checkout still finds this one).
pub fn root() -> PathBuf {
    PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../..")
}

/// Where the client kit is installed: `$MCP_CLIENTS_HOME`, else a `shared-cache/mcp-clients`
/// beside one of the project's parent folders (worktrees sit deeper than the main checkout).
pub fn kit_home() -> PathBuf {
    if let Some(home) = std::env::var_os("MCP_CLIENTS_HOME") {
        return home.into();
    }
    let root = root().canonicalize().unwrap();
    root.ancestors()
        .map(|a| a.join("shared-cache/mcp-clients"))
        .find(|p| p.join("venv/bin/python").exists())
        .expect("the MCP client kit is installed (../shared/mcp-clients/install.sh)")
}

/// `mcp_features.py ARGS`; its JSON report.
pub fn features(args: &[&str]) -> Value {
    let out = Command::new(kit_home().join("venv/bin/python"))
        .arg(root().join("scripts/mcp_features.py"))
        .args(args)
        .env("MCP_CLIENTS_HOME", kit_home())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mcp_features.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn cli(config: &Path, data: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Adds a person with `role` through the CLI and creates a key for them with `grant`; the key.
pub fn person_key(config: &Path, data: &Path, name: &str, role: &str, grant: &str) -> String {
    cli(config, data, &["people", "add", name, "--role", role]);
    cli(
        config,
        data,
        &["keys", "create", "--person", name, "--grant", grant],
    )
    .trim()
    .to_string()
}

/// `marquee serve` on `config` and `data`, once it listens on `port`.
pub async fn serve(config: &Path, data: &Path, port: u16) -> Serving {
    let child = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .env("MARQUEE_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut serving = Serving(child);
    if let Some(stdout) = serving.0.stdout.take() {
        // Keep reading, so the server never writes into a closed pipe.
        std::thread::spawn(
            move || for _ in BufReader::new(stdout).lines().map_while(Result::ok) {},
        );
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "marquee did not start listening");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    serving
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
