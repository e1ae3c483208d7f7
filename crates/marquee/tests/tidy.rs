//! Tidy checks of the workspace's shape, the way rust-analyzer's tidy test does it:
//! dependency directions, `//!` headers, file sizes.

use std::{collections::BTreeMap, path::Path, process::Command};

use serde_json::Value;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// Normal (non-dev) dependencies of every workspace package.
fn dependencies() -> BTreeMap<String, Vec<String>> {
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
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

#[test]
fn dependencies_point_one_way() {
    let deps = dependencies();
    let ours: Vec<&String> = deps.keys().collect();
    let uses = |pkg: &str, dep: &str| deps.get(pkg).is_some_and(|d| d.iter().any(|x| x == dep));
    // rmcp appears in no Cargo.toml but mcp's.
    for pkg in deps.keys().filter(|p| *p != "mcp") {
        assert!(!uses(pkg, "rmcp"), "{pkg} depends on rmcp; only mcp may");
    }
    // mcp depends on no crate of ours: it knows nothing about media.
    for ours in &ours {
        assert!(!uses("mcp", ours), "mcp depends on {ours}");
    }
    // Adapters never see MCP, HTTP serving, SQL or policy.
    for pkg in deps.keys().filter(|p| p.starts_with("adapters-")) {
        for banned in [
            "rmcp", "mcp", "axum", "sqlx", "policy", "store", "tools", "web",
        ] {
            assert!(!uses(pkg, banned), "{pkg} depends on {banned}");
        }
    }
    // policy is pure; domain is vocabulary.
    for banned in ["tokio", "sqlx", "reqwest", "store", "axum"] {
        assert!(!uses("policy", banned), "policy depends on {banned}");
        assert!(!uses("domain", banned), "domain depends on {banned}");
    }
    assert!(
        !uses("store", "policy") && !uses("store", "tools"),
        "store points the wrong way"
    );
    assert!(
        !uses("tools", "web") && !uses("tools", "mcp"),
        "tools points the wrong way"
    );
    assert!(!uses("httpx", "domain") || !uses("domain", "httpx"));
    // Only the binary uses anyhow.
    for pkg in deps.keys().filter(|p| *p != "marquee" && *p != "bench") {
        assert!(
            !uses(pkg, "anyhow"),
            "{pkg} uses anyhow; only the binary may"
        );
    }
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
    rust_files(&workspace_root().join("crates"), &mut files);
    assert!(files.len() > 20);
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f
            .strip_prefix(workspace_root())
            .unwrap()
            .display()
            .to_string();
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
