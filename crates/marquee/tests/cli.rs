//! The owner's command line, run as the real binary: `marquee tools list --person` answers
//! what that person's MCP `tools/list` answers (over `marquee stdio`), for every preset and a
//! custom grant, and a switched-off tool is neither listed nor callable over stdio.

#![allow(clippy::unwrap_used)]

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Stdio},
};

use serde_json::{Value, json};

const CONFIG: &str = "[[instances]]\nid = \"qbit\"\nkind = \"qbittorrent\"\nurl = \"http://127.0.0.1:9\"\nusername = \"u\"\npassword = \"p\"\n";

/// Runs `marquee ARGS` in `dir` (its config and data folder); stdout, or a panic with stderr.
fn marquee(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir)
        .env_remove("STATE_DIRECTORY")
        .env_remove("MARQUEE_DATA_DIR")
        .env("MARQUEE_LOG", "error")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "marquee {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `marquee ARGS` that must fail; its stderr.
fn marquee_fails(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir)
        .env_remove("STATE_DIRECTORY")
        .env_remove("MARQUEE_DATA_DIR")
        .env("MARQUEE_LOG", "error")
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "marquee {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

/// A person with one key on `grant`; the key.
fn person_with_key(dir: &Path, name: &str, role: &str, grant: &str) -> String {
    marquee(dir, &["people", "add", name, "--role", role]);
    marquee(dir, &["keys", "create", "--person", name, "--grant", grant])
        .trim()
        .to_string()
}

/// The tool names `marquee tools list --person NAME` prints for the person's one key.
fn cli_list(dir: &Path, name: &str) -> Vec<String> {
    let out = marquee(dir, &["tools", "list", "--person", name]);
    let line = out.lines().next().unwrap();
    let (_, names) = line.split_once("): ").unwrap_or((line, ""));
    names
        .split(", ")
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An MCP session over `marquee stdio` with `key`: initialize, then one request per call.
struct Session {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Session {
    fn start(dir: &Path, key: &str) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_marquee"))
            .current_dir(dir)
            .env("XDG_DATA_HOME", dir)
            .env_remove("STATE_DIRECTORY")
            .env_remove("MARQUEE_DATA_DIR")
            .env("MARQUEE_KEY", key)
            .env("MARQUEE_LOG", "error")
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            out,
            next: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cli-test", "version": "1"}}),
        );
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, message: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "stdio closed");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn tools(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

#[test]
fn tools_list_for_a_person_agrees_with_mcp_tools_list_and_switches_hold_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("marquee.toml"), CONFIG).unwrap();
    marquee(
        d,
        &[
            "grants",
            "create",
            "kidsafe",
            "--capability",
            "discover",
            "--capability",
            "downloads.read",
            "--instance",
            "builtin",
            "--tool",
            "search_titles",
            "--tool",
            "find_torrents",
            "--tool",
            "whoami",
        ],
    );
    marquee(d, &["tools", "disable", "get_trending"]);
    let people = [
        ("rea", "user", "reader"),
        ("req", "user", "requester"),
        ("ope", "admin", "operator"),
        ("adm", "admin", "admin"),
        ("own", "owner", "owner"),
        ("kid", "kid", "kidsafe"),
    ];
    for (name, role, grant) in people {
        let key = person_with_key(d, name, role, grant);
        let cli = cli_list(d, name);
        let mut mcp = Session::start(d, &key);
        assert_eq!(cli, mcp.tools(), "{grant}");
        assert!(
            !cli.contains(&"get_trending".to_string()),
            "{grant}: switched off"
        );
    }
    // The custom grant: only its tools, and the download tool hides because its instance
    // scope covers no download instance.
    assert_eq!(cli_list(d, "kid"), ["search_titles", "whoami"]);
    assert!(cli_list(d, "ope").contains(&"find_torrents".to_string()));

    // Switched off for one person: not listed and not callable for them, still for others.
    marquee(d, &["tools", "disable", "whoami", "--for-person", "rea"]);
    let listing = marquee(d, &["tools", "list"]);
    let row = listing.lines().find(|l| l.starts_with("whoami ")).unwrap();
    assert!(row.contains("on, off for rea"), "{row}");
    let rea_key = marquee(
        d,
        &["keys", "create", "--person", "rea", "--grant", "reader"],
    );
    let mut rea = Session::start(d, rea_key.trim());
    assert!(!rea.tools().contains(&"whoami".to_string()));
    let r = rea.request("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["summary"],
        "the tool whoami is switched off by the owner"
    );
    let r = rea.request(
        "tools/call",
        json!({"name": "get_trending", "arguments": {}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let req_key = marquee(d, &["keys", "create", "--person", "req"]);
    let mut req = Session::start(d, req_key.trim());
    assert!(req.tools().contains(&"whoami".to_string()));
    marquee(d, &["tools", "enable", "whoami", "--for-person", "rea"]);
    assert!(
        rea.tools().contains(&"whoami".to_string()),
        "switched on again at once"
    );
}

#[test]
fn grant_changes_bump_the_revision_and_bad_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("marquee.toml"), CONFIG).unwrap();
    let out = marquee(
        d,
        &[
            "grants",
            "create",
            "fetcher",
            "--capability",
            "downloads.write",
            "--allowance",
            "adds=10/1",
        ],
    );
    assert!(out.starts_with("created fetcher      rev 1"), "{out}");
    let out = marquee(
        d,
        &[
            "grants",
            "update",
            "fetcher",
            "--instance",
            "qbit",
            "--expires",
            "2099-01-01",
        ],
    );
    assert!(
        out.contains("rev 2") && out.contains("instances: qbit") && out.contains("adds=10/1"),
        "{out}"
    );
    let out = marquee(
        d,
        &[
            "grants",
            "update",
            "fetcher",
            "--group",
            "downloads",
            "--group",
            "files",
        ],
    );
    assert!(
        out.contains("rev 3") && out.contains("listed groups: downloads, files"),
        "{out}"
    );
    let out = marquee(d, &["grants", "revoke", "fetcher"]);
    assert!(
        out.contains("rev 4") && out.contains("(revoked or expired)"),
        "{out}"
    );
    for (args, says) in [
        (
            vec!["grants", "create", "x", "--capability", "fly"],
            "unknown capability \"fly\"; valid capabilities: discover,",
        ),
        (
            vec![
                "grants",
                "create",
                "x",
                "--capability",
                "discover",
                "--instance",
                "nas",
            ],
            "unknown instance \"nas\"; valid: all, qbit,",
        ),
        (
            vec![
                "grants",
                "create",
                "x",
                "--capability",
                "discover",
                "--tool",
                "fly",
            ],
            "unknown tool \"fly\"; valid: all,",
        ),
        (
            vec![
                "grants",
                "create",
                "x",
                "--capability",
                "discover",
                "--group",
                "toys",
            ],
            "unknown tool group \"toys\"; valid: all, discover, requests, downloads, library, files, admin",
        ),
        (
            vec![
                "grants",
                "create",
                "x",
                "--capability",
                "discover",
                "--allowance",
                "hugs=1/1",
            ],
            "unknown allowance kind \"hugs\"; valid kinds: adds, grabs, searches, destructive, federated_writes",
        ),
        (
            vec![
                "grants",
                "create",
                "x",
                "--capability",
                "discover",
                "--expires",
                "2001-01-01",
            ],
            "--expires \"2001-01-01\" is in the past",
        ),
        (
            vec!["grants", "update", "admin", "--capability", "discover"],
            "the grant \"admin\" is built in",
        ),
        (
            vec!["grants", "update", "nope", "--capability", "discover"],
            "no grant named \"nope\"; grants: reader, requester, operator, admin, owner",
        ),
        (
            vec!["tools", "disable", "fly"],
            "unknown tool \"fly\"; valid tools: ",
        ),
        (
            vec!["tools", "disable", "whoami", "--for-person", "nobody"],
            "no person named \"nobody\"",
        ),
    ] {
        let err = marquee_fails(d, &args);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn version_names_the_release_commit_date_and_features() {
    let dir = tempfile::tempdir().unwrap();
    let out = marquee(dir.path(), &["--version"]);
    let line = out.trim();
    let (name, rest) = line.split_once(' ').unwrap();
    assert_eq!(name, "marquee");
    assert!(
        rest.starts_with(concat!(env!("CARGO_PKG_VERSION"), " (commit ")),
        "{line}"
    );
    let commit = rest
        .split("(commit ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap();
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{line}"
    );
    let date = rest.split("built ").nth(1).unwrap().get(..10).unwrap();
    assert!(
        date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
        "{line}"
    );
    assert!(date.starts_with("20"), "{line}");
    // The test build carries the conformance fixtures (scripts/test.sh builds with them).
    assert!(
        line.ends_with("features: conformance-fixtures)") || line.ends_with("features: none)"),
        "{line}"
    );
}

#[test]
fn stdio_never_makes_a_new_store_and_says_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env_remove("STATE_DIRECTORY")
        .env_remove("MARQUEE_DATA_DIR")
        .env("MARQUEE_KEY", "mq_whatever")
        .env("MARQUEE_LOG", "error")
        .arg("stdio")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let expected = dir.path().join("marquee");
    assert!(
        err.contains("no Marquee database in") && err.contains(&*expected.to_string_lossy()),
        "{err}"
    );
    assert!(!expected.exists(), "nothing was created");
    assert!(!dir.path().join("marquee-data").exists());
}

#[test]
fn commands_find_the_data_folder_of_the_user_wherever_they_run() {
    let home = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let run = |cwd: &Path, args: &[&str], state: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_marquee"));
        cmd.current_dir(cwd)
            .env("HOME", home.path())
            .env_remove("XDG_DATA_HOME")
            .env_remove("MARQUEE_DATA_DIR")
            .env_remove("STATE_DIRECTORY")
            .env("MARQUEE_LOG", "error")
            .args(args);
        if let Some(state) = state {
            cmd.env("STATE_DIRECTORY", state);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(a.path(), &["people", "add", "kim", "--role", "kid"], None);
    assert!(run(b.path(), &["people", "list"], None).contains("kim"));
    assert!(home.path().join(".local/share/marquee/marquee.db").exists());
    // Under systemd (StateDirectory=), its folder.
    let state = tempfile::tempdir().unwrap();
    assert!(!run(a.path(), &["people", "list"], Some(state.path())).contains("kim"));
    assert!(state.path().join("marquee.db").exists());
}

#[test]
fn marquee_variables_that_are_not_settings_are_not_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .current_dir(dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env("MARQUEE_KEY", "mq_x")
        .env("MARQUEE_DATA_DIR", dir.path().join("d"))
        .env("MARQUEE_LOG_FORMAT", "text")
        .env("MARQUEE_BOGUS", "1")
        .args(["config", "check"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown config key \"bogus\""),
        "a real unknown key is named: {err}"
    );
    for name in ["\"key\"", "\"data_dir\"", "\"log_format\""] {
        assert!(
            !err.contains(name),
            "{name} is not a setting to warn about: {err}"
        );
    }
}

#[test]
fn config_check_refuses_what_serve_refuses_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("marquee.toml");
    let cases = [
        (
            "[[instances]]\nid = \"media\"\nkind = \"folder\"\npath = \"/srv/media\"\nrole = \"archive\"\n",
            "role = \"archive\" is not one of library, downloads",
        ),
        (
            "[[instances]]\nid = \"home\"\nkind = \"mcp\"\n",
            "needs command (a program started over stdio) or url",
        ),
        (
            "[tasks]\ntime_zone = \"Mars/Olympus\"\n",
            "is not an IANA time zone name",
        ),
    ];
    for (config, why) in cases {
        std::fs::write(&file, config).unwrap();
        let err = marquee_fails(dir.path(), &["--config", "marquee.toml", "config", "check"]);
        assert!(err.contains(why), "{config}: {err}");
    }
    std::fs::write(
        &file,
        "[[instances]]\nid = \"media\"\nkind = \"folder\"\npath = \"/srv/media\"\nrole = \"library\"\nmedia_type = \"movie\"\n",
    )
    .unwrap();
    let out = marquee(dir.path(), &["--config", "marquee.toml", "config", "check"]);
    assert!(out.contains("config file"), "{out}");
}

#[test]
fn a_notice_is_chosen_through_a_configured_notifier_by_those_who_decide() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hook = d.join("hook-secret");
    std::fs::write(&hook, "s3cret").unwrap();
    let config = format!(
        "{CONFIG}\n[[notifiers]]\nid = \"phone\"\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/hook\"\nsecret_file = \"{}\"\n",
        hook.display()
    );
    std::fs::write(d.join("marquee.toml"), config).unwrap();
    marquee(d, &["people", "add", "ann", "--role", "admin"]);
    marquee(d, &["people", "add", "kim", "--role", "kid"]);
    let out = marquee(
        d,
        &[
            "people",
            "notify",
            "ann",
            "--notifier",
            "phone",
            "--on",
            "approvals",
        ],
    );
    assert_eq!(out.trim(), "ann hears of approvals through phone");
    let out = marquee(
        d,
        &[
            "people",
            "notify",
            "ann",
            "--notifier",
            "phone",
            "--on",
            "approvals",
            "--off",
        ],
    );
    assert_eq!(out.trim(), "ann no longer hears of approvals through phone");
    let out = marquee(
        d,
        &[
            "people",
            "notify",
            "kim",
            "--notifier",
            "phone",
            "--on",
            "downloads",
        ],
    );
    assert_eq!(
        out.trim(),
        "kim hears of downloads through phone",
        "anyone hears of their own requests"
    );
    for (args, says) in [
        (
            vec![
                "people",
                "notify",
                "ann",
                "--notifier",
                "pager",
                "--on",
                "approvals",
            ],
            "no notifier \"pager\" is configured; configured: phone",
        ),
        (
            vec![
                "people",
                "notify",
                "kim",
                "--notifier",
                "phone",
                "--on",
                "approvals",
            ],
            "approvals are told to the owner and admins",
        ),
        (
            vec![
                "people",
                "notify",
                "ann",
                "--notifier",
                "phone",
                "--on",
                "gossip",
            ],
            "unknown notice \"gossip\"; valid notices: approvals, downloads",
        ),
    ] {
        let err = marquee_fails(d, &args);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
