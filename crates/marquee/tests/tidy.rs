//! Tidy checks of the workspace's shape, the way rust-analyzer's tidy test does it:
//! dependency directions as an allow-list, a section in ARCHITECTURE.md for every crate,
//! `//!` headers, file sizes.

#![allow(clippy::unwrap_used)]

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

/// Two folders above this package's, as `cargo test` names it at run time (a binary built in
/// another checkout still reads this one).
fn workspace_root() -> PathBuf {
    let dir =
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
    PathBuf::from(dir).join("../..")
}

/// Which of our crates each crate may use (normal dependencies): the one statement of the
/// dependency directions in ARCHITECTURE.md. A crate missing here fails the test.
const ALLOWED: &[(&str, &[&str])] = &[
    ("domain", &[]),
    ("httpx", &[]),
    // The one kept-answer type: below everything that keeps answers, the store included.
    ("kept", &[]),
    // Names to media facts by rules: pure, below every crate that reads names.
    ("recognize", &[]),
    ("policy", &["domain"]),
    ("store", &["domain", "kept"]),
    // The protocol edge knows nothing about media: no crate of ours.
    ("mcp", &[]),
    ("adapters-downloads", ADAPTER),
    ("adapters-catalogue", ADAPTER),
    ("adapters-library", ADAPTER),
    ("adapters-indexers", ADAPTER),
    ("adapters-media", ADAPTER),
    ("adapters-subtitles", ADAPTER),
    ("adapters-mcp", ADAPTER),
    // Files beneath a folder instance's root: no HTTP at all, only the vocabulary if ever.
    ("adapters-folder", &["domain"]),
    // The governance core names no family: a family plugs into it, never the reverse.
    (
        "governance",
        &["policy", "store", "httpx", "domain", "kept"],
    ),
    (
        "tools",
        &[
            "governance",
            "policy",
            "store",
            "httpx",
            "domain",
            "kept",
            "adapters-downloads",
            "adapters-catalogue",
            "adapters-library",
            "adapters-indexers",
            "recognize",
            "adapters-folder",
            "adapters-media",
            "adapters-subtitles",
            "adapters-mcp",
        ],
    ),
    (
        "web",
        &["mcp", "tools", "governance", "store", "policy", "domain"],
    ),
    (
        "marquee",
        &["web", "mcp", "tools", "store", "policy", "domain"],
    ),
    ("test-support", &[]),
    ("bench", &["test-support"]),
    // The reliability harness: every crate of ours it drives is a dev-dependency.
    ("harness", &[]),
];

/// The adapter rule, once: a backend client sees the HTTP client and the vocabulary, never
/// MCP, HTTP serving, SQL or permissions.
const ADAPTER: &[&str] = &["httpx", "domain"];

/// Outside crates that only these crates of ours may use (normal dependencies).
const ONLY_IN: &[(&str, &[&str])] = &[
    ("sqlx", &["store"]),
    ("rusqlite", &["store"]),
    // The protocol edge, and the client of other MCP servers.
    ("rmcp", &["mcp", "adapters-mcp"]),
    ("reqwest", &["httpx", "mcp"]),
    ("anyhow", &["marquee", "bench"]),
    ("axum", &["mcp", "web", "marquee", "bench", "test-support"]),
    (
        "tokio",
        &[
            "httpx",
            "kept",
            "store",
            "mcp",
            "governance",
            "tools",
            "web",
            "marquee",
            "bench",
            "test-support",
            "adapters-downloads",
            "adapters-catalogue",
            "adapters-library",
            "adapters-folder",
            "adapters-indexers",
            "adapters-media",
            "adapters-subtitles",
            "adapters-mcp",
        ],
    ),
];

struct Package {
    /// The folder of its Cargo.toml, relative to the workspace root (`crates/web`).
    dir: String,
    /// Normal (non-dev) dependencies; test code may use more.
    deps: Vec<String>,
}

/// Every workspace package by name.
fn packages() -> BTreeMap<String, Package> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = workspace_root().canonicalize().unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            let dir = manifest
                .parent()
                .unwrap()
                .strip_prefix(&root)
                .unwrap()
                .display()
                .to_string();
            let package = Package { dir, deps };
            (p["name"].as_str().unwrap().to_string(), package)
        })
        .collect()
}

/// What breaks the allow-lists, one line each.
fn direction_problems(packages: &BTreeMap<String, Package>) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, p) in packages {
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| n == name) else {
            problems.push(format!(
                "{name} is not in tidy.rs's ALLOWED list; add it with the crates of ours it may use"
            ));
            continue;
        };
        for dep in p.deps.iter().filter(|d| packages.contains_key(*d)) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!(
                    "{name} depends on {dep}; it may use only: {}",
                    allowed.join(", ")
                ));
            }
        }
        // bench is not shipped: it runs test-support's fakes as benchmark backends.
        if name != "bench" && p.deps.iter().any(|d| d == "test-support") {
            problems.push(format!("{name} uses test-support outside its tests"));
        }
        for (outside, users) in ONLY_IN {
            if p.deps.iter().any(|d| d == outside) && !users.contains(&name.as_str()) {
                problems.push(format!(
                    "{name} depends on {outside}; only {} may",
                    users.join(", ")
                ));
            }
        }
    }
    problems
}

#[test]
fn dependencies_follow_the_allow_list() {
    let problems = direction_problems(&packages());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_allow_list_catches_a_wrong_direction() {
    let mut packages = packages();
    let adapter = packages.get_mut("adapters-downloads").unwrap();
    adapter.deps.push("store".into());
    adapter.deps.push("sqlx".into());
    packages.insert(
        "newcomer".into(),
        Package {
            dir: "crates/newcomer".into(),
            deps: vec![],
        },
    );
    assert_eq!(
        direction_problems(&packages),
        [
            "adapters-downloads depends on store; it may use only: httpx, domain",
            "adapters-downloads depends on sqlx; only store may",
            "newcomer is not in tidy.rs's ALLOWED list; add it with the crates of ours it may use",
        ]
    );
}

/// The names of every tool this build declares, from the checked-in `tools.json`.
fn tool_names() -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join("tools.json")).unwrap();
    let tools: Value = serde_json::from_str(&text).unwrap();
    tools
        .as_array()
        .or_else(|| tools["tools"].as_array())
        .expect("tools.json lists the tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// What in the governance core's source names a family: one of the families' modules, or a
/// tool by its name as a string (the core asks a tool's `Meta`, never its name).
fn family_names_in_core(files: &[(String, String)], tools: &[String]) -> Vec<String> {
    const FAMILY_PATHS: &[&str] = &[
        "tools::",
        "crate::downloads",
        "crate::discover",
        "crate::library",
        "crate::requests",
        "crate::changes",
        "crate::server",
        "adapters_",
    ];
    let mut problems = Vec::new();
    for (file, text) in files {
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for path in FAMILY_PATHS {
            if code.contains(path) {
                problems.push(format!("{file} names a family: {path}"));
            }
        }
        for tool in tools {
            if code.contains(&format!("\"{tool}\"")) {
                problems.push(format!("{file} names the tool \"{tool}\""));
            }
        }
    }
    problems
}

#[test]
fn the_governance_core_names_no_family() {
    let mut paths = Vec::new();
    rust_files(&workspace_root().join("crates/governance/src"), &mut paths);
    assert!(paths.len() > 5);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            (p.display().to_string(), text)
        })
        .collect();
    let tools = tool_names();
    assert!(tools.len() > 50, "tools.json lists the tools");
    let problems = family_names_in_core(&files, &tools);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_core_check_catches_a_family_named_in_the_core() {
    let files = vec![
        (
            "app.rs".to_string(),
            "use crate::downloads::Downloads;\nif name == \"delete_torrents\" {}".to_string(),
        ),
        (
            "ok.rs".to_string(),
            "fn f() {}\n#[cfg(test)]\nmod tests { const T: &str = \"delete_torrents\"; }"
                .to_string(),
        ),
    ];
    assert_eq!(
        family_names_in_core(&files, &["delete_torrents".to_string()]),
        [
            "app.rs names a family: crate::downloads",
            "app.rs names the tool \"delete_torrents\"",
        ]
    );
}

/// Inside `crates/tools`, a family uses the core (`governance`) and the families below it, never
/// what stands above every family: the list of families, prompts and completions, which are
/// made from the families. The change-control tools use no family at all: they ask a planned
/// tool's `Meta`.
#[test]
fn no_family_reaches_back_up_inside_tools() {
    let src = workspace_root().join("crates/tools/src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let mut problems = Vec::new();
    for p in paths {
        let rel = p.strip_prefix(&src).unwrap().display().to_string();
        let Some((family, _)) = rel.split_once('/') else {
            continue;
        };
        let text = std::fs::read_to_string(&p).unwrap();
        for above in [
            "crate::registry",
            "crate::completions",
            "crate::prompts",
            "crate::app(",
        ] {
            if text.contains(above) {
                problems.push(format!("tools/src/{rel} uses {above}"));
            }
        }
        if family == "changes" {
            for other in ["downloads", "discover", "library", "requests", "server"] {
                if text.contains(&format!("crate::{other}")) {
                    problems.push(format!("tools/src/{rel} names the {other} family"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_crate_has_its_section_in_architecture_md() {
    let text = std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).unwrap();
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("### ")).collect();
    let missing: Vec<String> = packages()
        .into_iter()
        .filter(|(_, p)| {
            let quoted = format!("`{}`", p.dir);
            !headings.iter().any(|h| h.contains(&quoted))
        })
        .map(|(name, p)| format!("{name}: no \"### `{}`\" section in ARCHITECTURE.md", p.dir))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The `crate → {dep, dep}` lines of `text`'s fenced code blocks, by crate; a crate stated
/// twice is named in the second value.
fn stated_allow_list(text: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let mut stated = BTreeMap::new();
    let mut twice = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some((name, deps)) = line.split_once(" → ").filter(|_| fenced) else {
            continue;
        };
        let (name, deps) = (name.trim(), deps.trim());
        let Some(deps) = deps.strip_prefix('{').and_then(|d| d.strip_suffix('}')) else {
            continue;
        };
        let deps: BTreeSet<String> = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect();
        if stated.insert(name.to_string(), deps).is_some() {
            twice.push(name.to_string());
        }
    }
    (stated, twice)
}

/// Where `text`'s stated dependency rule differs from `allowed`, one line each.
fn allow_list_differences(text: &str, allowed: &[(&str, &[&str])]) -> Vec<String> {
    let (stated, twice) = stated_allow_list(text);
    let mut problems: Vec<String> = twice
        .into_iter()
        .map(|name| format!("ARCHITECTURE.md states {name} twice"))
        .collect();
    for (name, deps) in allowed {
        let deps: BTreeSet<String> = deps.iter().map(|d| d.to_string()).collect();
        let Some(said) = stated.get(*name) else {
            problems.push(format!(
                "ARCHITECTURE.md does not state {name} → {{{}}}",
                deps.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        let missing: Vec<&str> = deps.difference(said).map(String::as_str).collect();
        if !missing.is_empty() {
            problems.push(format!(
                "ARCHITECTURE.md leaves out {name} → {}, which ALLOWED has",
                missing.join(", ")
            ));
        }
        let extra: Vec<&str> = said.difference(&deps).map(String::as_str).collect();
        if !extra.is_empty() {
            problems.push(format!(
                "ARCHITECTURE.md states {name} → {}, which ALLOWED does not have",
                extra.join(", ")
            ));
        }
    }
    for name in stated.keys() {
        if !allowed.iter().any(|(n, _)| n == name) {
            problems.push(format!(
                "ARCHITECTURE.md states {name}, which ALLOWED does not list"
            ));
        }
    }
    problems
}

#[test]
fn architecture_md_states_the_allow_list() {
    let text = std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).unwrap();
    let problems = allow_list_differences(&text, ALLOWED);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_stated_allow_list_check_catches_a_difference() {
    let text = "\
web → {mcp}
```
domain → {}
policy → {domain}
web → {mcp, store}
web → {store, mcp}
newcomer → {domain}
```
";
    let allowed: &[(&str, &[&str])] = &[
        ("domain", &[]),
        ("policy", &["domain"]),
        ("store", &["domain"]),
        ("web", &["mcp", "tools"]),
    ];
    assert_eq!(
        allow_list_differences(text, allowed),
        [
            "ARCHITECTURE.md states web twice",
            "ARCHITECTURE.md does not state store → {domain}",
            "ARCHITECTURE.md leaves out web → tools, which ALLOWED has",
            "ARCHITECTURE.md states web → store, which ALLOWED does not have",
            "ARCHITECTURE.md states newcomer, which ALLOWED does not list",
        ]
    );
    let same = "```\nweb → {tools, mcp}\nstore → {domain}\npolicy → {domain}\ndomain → {}\n```\n";
    assert!(allow_list_differences(same, allowed).is_empty());
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_file_says_what_it_is_for_and_stays_small() {
    let mut files = Vec::new();
    let root = workspace_root();
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 20);
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{rel}: does not start with a //! line"));
        }
        let code_lines = text
            .lines()
            .take_while(|l| !l.contains("#[cfg(test)]"))
            .count();
        if code_lines > 600 && !rel.contains("/tests/") {
            problems.push(format!(
                "{rel}: {code_lines} lines before its tests; split it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn architecture_md_is_a_crate_level_map_of_at_most_1500_words() {
    let text = std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).unwrap();
    let words = text.split_whitespace().count();
    assert!(
        words <= 1500,
        "ARCHITECTURE.md has {words} words: it is a crate-level map (at most 1,500); details belong in the code's own docs"
    );
}
