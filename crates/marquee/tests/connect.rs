//! `marquee connect CLIENT`: each client's snippet is what that client reads (JSON for Claude
//! Desktop, Cursor and VS Code, TOML for Codex, a command line for Claude Code and the
//! Inspector) with this server's URL and no key; with `--person` a new key for that person is
//! made and written into it (or beside it, where the client keeps keys itself); the Inspector's
//! line, run as printed, lists the tools of a real server, with the key in the environment and
//! with the key made for it; an unknown client gets the list and no key is made.

#![allow(clippy::unwrap_used)]

mod kit;

use std::{
    io::{Read, Write},
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use serde_json::Value;

const CLIENTS: [&str; 9] = [
    "claude-code",
    "claude-desktop",
    "cursor",
    "vscode",
    "codex",
    "inspector",
    "n8n",
    "chatgpt",
    "claude-ai",
];

/// `marquee connect ARGS` with `config` in `dir`: (stdout, stderr), or a panic.
fn connect(dir: &Path, config: &str, args: &[&str]) -> (String, String) {
    let file = dir.join("marquee.toml");
    std::fs::write(&file, config).unwrap();
    let out = Command::new(kit::BIN)
        .arg("connect")
        .args(args)
        .arg("--config")
        .arg(&file)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(out.status.success(), "connect {args:?}: {stderr}");
    if !args.contains(&"--person") {
        assert!(
            !format!("{stdout}{stderr}")
                .replace("mq_…", "")
                .contains("mq_"),
            "no key: {stdout}{stderr}"
        );
    }
    (stdout, stderr)
}

const PUBLIC: &str = "public_url = \"https://marquee.example.org\"\n";
const URL: &str = "https://marquee.example.org/mcp";

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn every_client_gets_its_own_format_with_the_servers_url_and_how_to_make_a_key() {
    let dir = tempfile::tempdir().unwrap();
    for client in CLIENTS {
        let (stdout, stderr) = connect(dir.path(), PUBLIC, &[client]);
        assert!(stdout.contains(URL), "{client}: {stdout}");
        let oauth = matches!(client, "chatgpt" | "claude-ai");
        assert_eq!(
            stderr.contains(&format!(
                "marquee keys create --person NAME --label {client}"
            )) && stderr.contains("with --person NAME"),
            !oauth,
            "{client}: {stderr}"
        );
    }

    let (line, _) = connect(dir.path(), PUBLIC, &["claude-code"]);
    assert_eq!(
        line.trim(),
        format!(
            "claude mcp add --transport http marquee {URL} --header \"Authorization: Bearer ${{MARQUEE_KEY}}\""
        )
    );

    let cursor = json(&connect(dir.path(), PUBLIC, &["cursor"]).0);
    let server = &cursor["mcpServers"]["marquee"];
    assert_eq!(server["url"], URL);
    assert_eq!(
        server["headers"]["Authorization"],
        "Bearer ${env:MARQUEE_KEY}"
    );

    let vscode = json(&connect(dir.path(), PUBLIC, &["vscode"]).0);
    let input = &vscode["inputs"][0];
    assert_eq!(
        (&input["type"], &input["password"]),
        (&Value::from("promptString"), &Value::from(true))
    );
    let server = &vscode["servers"]["marquee"];
    assert_eq!(
        (&server["type"], &server["url"]),
        (&"http".into(), &URL.into())
    );
    assert_eq!(
        server["headers"]["Authorization"],
        format!("Bearer ${{input:{}}}", input["id"].as_str().unwrap())
    );

    let codex: toml::Table = connect(dir.path(), PUBLIC, &["codex"]).0.parse().unwrap();
    let server = &codex["mcp_servers"]["marquee"];
    assert_eq!(server["url"].as_str(), Some(URL));
    assert_eq!(server["bearer_token_env_var"].as_str(), Some("MARQUEE_KEY"));

    let (n8n, _) = connect(dir.path(), PUBLIC, &["n8n"]);
    assert!(n8n.starts_with(&format!(
        "MCP Endpoint URL: {URL}\nServer Transport: HTTP Streamable\n"
    )));

    let (chatgpt, notes) = connect(dir.path(), PUBLIC, &["chatgpt"]);
    assert_eq!(chatgpt, format!("{URL}\n"));
    assert!(!notes.contains("warning"), "{notes}");
    let (_, notes) = connect(dir.path(), "", &["claude-ai"]);
    assert!(
        notes.starts_with("warning: these connectors need an https:// address"),
        "{notes}"
    );
}

#[test]
fn with_a_person_each_client_gets_a_new_key_of_theirs_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("marquee.toml");
    std::fs::write(&config, PUBLIC).unwrap();
    let data = dir.path().join("data");
    // No household there yet: refused, and no database is made.
    let out = Command::new(kit::BIN)
        .args(["connect", "cursor", "--person", "alice", "--config"])
        .arg(&config)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no Marquee database in"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!data.join("marquee.db").exists());
    kit::person_key(&config, &data, "alice", "user", "reader");
    let key_of = |text: &str| {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| w.starts_with("mq_") && w.len() > 10)
            .map(str::to_owned)
    };
    let mut keys = Vec::new();
    for client in CLIENTS {
        let (stdout, stderr) = connect(dir.path(), PUBLIC, &[client, "--person", "alice"]);
        if matches!(client, "chatgpt" | "claude-ai") {
            assert_eq!(key_of(&format!("{stdout}{stderr}")), None, "{client}");
            assert!(stderr.contains("choose alice"), "{client}: {stderr}");
            continue;
        }
        let inline = key_of(&stdout);
        let noted = key_of(&stderr);
        let key = match client {
            "vscode" | "codex" | "n8n" => {
                assert_eq!(inline, None, "{client} keeps the key itself: {stdout}");
                noted.unwrap_or_else(|| panic!("{client}: no key in the notes: {stderr}"))
            }
            _ => inline.unwrap_or_else(|| panic!("{client}: no key in the snippet: {stdout}")),
        };
        assert!(
            stderr.contains("for alice with grant requester"),
            "{client}: {stderr}"
        );
        keys.push(key);
    }
    let cursor = json(&connect(dir.path(), PUBLIC, &["cursor", "--person", "alice"]).0);
    let header = cursor["mcpServers"]["marquee"]["headers"]["Authorization"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(header.starts_with("Bearer mq_"), "{header}");
    keys.push(header.trim_start_matches("Bearer ").to_owned());
    // Each is new, and listed under its client's label.
    let mut distinct = keys.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), keys.len(), "{keys:?}");
    let listed = kit::cli(&config, &data, &["keys", "list"]);
    for client in [
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "codex",
        "inspector",
        "n8n",
    ] {
        assert!(listed.contains(client), "{client}: {listed}");
    }
    assert!(
        !listed.contains("mq_"),
        "keys list shows no secret: {listed}"
    );
    // An unknown person or client: refused, and nothing made.
    let before = listed.lines().count();
    for args in [
        ["cursor", "--person", "nobody"],
        ["kodi", "--person", "alice"],
    ] {
        let out = Command::new(kit::BIN)
            .arg("connect")
            .args(args)
            .arg("--config")
            .arg(&config)
            .arg("--data-dir")
            .arg(&data)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
    }
    assert_eq!(
        kit::cli(&config, &data, &["keys", "list"]).lines().count(),
        before
    );
}

#[test]
fn claude_desktop_runs_stdio_on_this_machine_and_the_bridge_to_another() {
    let dir = tempfile::tempdir().unwrap();
    let local = json(
        &connect(
            dir.path(),
            "listen = \"0.0.0.0:9000\"\n",
            &["claude-desktop"],
        )
        .0,
    );
    let server = &local["mcpServers"]["marquee"];
    assert_eq!(server["command"], kit::BIN);
    assert_eq!(server["args"], serde_json::json!(["stdio"]));
    assert_eq!(
        server["env"]["MARQUEE_DATA_DIR"],
        dir.path().join("data").display().to_string()
    );
    assert_eq!(server["env"]["MARQUEE_KEY"], "<paste the key here>");

    let remote = json(
        &connect(
            dir.path(),
            "",
            &["claude-desktop", "--url", "http://nas.lan:8765/mcp"],
        )
        .0,
    );
    let server = &remote["mcpServers"]["marquee"];
    assert_eq!(
        server["args"],
        serde_json::json!(["bridge", "--url", "http://nas.lan:8765/mcp"])
    );
    assert!(server["env"].get("MARQUEE_DATA_DIR").is_none());
}

#[test]
fn the_url_is_the_listening_address_without_a_public_url_and_an_unknown_client_gets_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = connect(dir.path(), "listen = \"0.0.0.0:9000\"\n", &["cursor"]);
    assert_eq!(
        json(&out)["mcpServers"]["marquee"]["url"],
        "http://127.0.0.1:9000/mcp"
    );

    let out = Command::new(kit::BIN)
        .args(["connect", "kodi", "--data-dir"])
        .arg(dir.path())
        .env("MARQUEE_LOG", "error")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("unknown client \"kodi\"; the clients are:"),
        "{said}"
    );
    for client in CLIENTS {
        assert!(said.contains(&format!("\n  {client} ")), "{client}: {said}");
    }
}

/// Waits until `GET /readyz` answers 200 on `port`.
fn wait_ready(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut answer = String::new();
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = s
                .write_all(b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            let _ = s.read_to_string(&mut answer);
        }
        if answer.starts_with("HTTP/1.1 200") {
            return;
        }
        assert!(Instant::now() < deadline, "marquee did not become ready");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test]
async fn the_inspector_line_run_as_printed_lists_the_tools() {
    let inspector = kit::root().join("../shared/mcp-clients/inspector.sh");
    let installed = std::env::var_os("MCP_CLIENTS_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let root = kit::root().canonicalize().ok()?;
            root.ancestors()
                .map(|a| a.join("shared-cache/mcp-clients"))
                .find(|p| {
                    p.join("npm/node_modules/@modelcontextprotocol/inspector")
                        .exists()
                })
        });
    let Some(installed) = installed.filter(|_| inspector.exists()) else {
        eprintln!(
            "skipped: the MCP Inspector is not installed here (../shared/mcp-clients/install.sh)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let config = dir.path().join("marquee.toml");
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    let data = dir.path().join("data");
    let key = kit::person_key(&config, &data, "alice", "user", "reader");
    let _serving = kit::serve(&config, &data, port).await;
    wait_ready(port);
    let line = kit::cli(&config, &data, &["connect", "inspector"]);
    assert!(!line.contains(&key));
    // The kit's Inspector stands for `npx @modelcontextprotocol/inspector --cli` (the same
    // package, pinned and installed offline).
    let line = line.trim().replacen(
        "npx @modelcontextprotocol/inspector --cli",
        &format!("{} --format json", inspector.display()),
        1,
    );
    let out = Command::new("bash")
        .args(["-c", &line])
        .env("MARQUEE_KEY", &key)
        .env("MCP_CLIENTS_HOME", &installed)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{line}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"whoami\""), "{stdout}");

    // With a key made for it: the line alone is enough.
    kit::cli(&config, &data, &["people", "add", "bob", "--role", "user"]);
    let line = kit::cli(&config, &data, &["connect", "inspector", "--person", "bob"]);
    assert!(line.contains("Bearer mq_"), "{line}");
    let line = line.trim().replacen(
        "npx @modelcontextprotocol/inspector --cli",
        &format!("{} --format json", inspector.display()),
        1,
    );
    let out = Command::new("bash")
        .args(["-c", &line])
        .env_remove("MARQUEE_KEY")
        .env("MCP_CLIENTS_HOME", &installed)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("\"whoami\""),
        "{stdout}"
    );
}

#[test]
fn the_first_start_names_every_client_and_the_connect_command() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let port = kit::free_port();
    let config = dir.path().join("marquee.toml");
    std::fs::write(&config, format!("listen = \"127.0.0.1:{port}\"\n")).unwrap();
    let child = Command::new(kit::BIN)
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env("MARQUEE_LOG", "error")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut serving = kit::Serving(child);
    let stdout = serving.0.stdout.take().unwrap();
    let (send, lines_in) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    loop {
        let line = lines_in
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no `marquee connect <client>` line in {lines:?}"));
        if line.contains("marquee connect <client>") {
            break;
        }
        lines.push(line);
    }
    let others = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("Every other client"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    for client in CLIENTS.iter().filter(|c| **c != "claude-code") {
        assert!(others.contains(client), "{client}: {others}");
    }
}

#[test]
fn every_client_has_a_guide_that_shows_its_connect_line() {
    let guides = kit::root().join("docs/clients");
    let index = std::fs::read_to_string(guides.join("README.md")).unwrap();
    for client in CLIENTS {
        let file = match client {
            "chatgpt" | "claude-ai" => "connectors.md",
            other => &format!("{other}.md"),
        };
        assert!(index.contains(&format!("]({file})")), "{file} is listed");
        let guide = std::fs::read_to_string(guides.join(file)).unwrap();
        assert!(
            guide.contains(&format!("marquee connect {client}")),
            "{file} shows `marquee connect {client}`"
        );
    }
}
