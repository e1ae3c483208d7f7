//! `deploy/`: the compose file parses and everything it hands Marquee (its `MARQUEE_`
//! variables, the mounted config, the secrets that config reads) is accepted by the real binary
//! without an unknown key; the systemd unit passes `systemd-analyze verify` and keeps a low
//! exposure score (skipped, saying so, where systemd-analyze is missing).

#![allow(clippy::unwrap_used)]

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
};

use yaml_rust2::{Yaml, YamlLoader};

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

fn compose() -> Yaml {
    let text = std::fs::read_to_string(deploy().join("compose.yaml")).unwrap();
    let mut docs = YamlLoader::load_from_str(&text).unwrap();
    assert_eq!(docs.len(), 1, "one document");
    docs.remove(0)
}

fn strings(y: &Yaml) -> Vec<String> {
    y.as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The `marquee` service's environment as name → value.
fn environment(service: &Yaml) -> BTreeMap<String, String> {
    service["environment"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().into(), v.as_str().unwrap().into()))
        .collect()
}

#[test]
fn the_compose_file_names_services_volumes_and_secrets_that_exist() {
    let doc = compose();
    let services = doc["services"].as_hash().unwrap();
    let names: Vec<&str> = services.keys().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["marquee", "qbittorrent", "transmission", "radarr", "sonarr"]
    );
    let volumes = doc["volumes"].as_hash().unwrap();
    let secrets = doc["secrets"].as_hash().unwrap();
    for (name, service) in services {
        let name = name.as_str().unwrap();
        assert!(service["image"].as_str().is_some(), "{name} has an image");
        if let Some(list) = service["volumes"].as_vec() {
            for v in list {
                let source = v.as_str().unwrap().split(':').next().unwrap();
                if source.starts_with('.') {
                    assert!(deploy().join(source).exists(), "{name}: {source} exists");
                } else {
                    assert!(
                        volumes.contains_key(&Yaml::String(source.into())),
                        "{name}: volume {source} is declared"
                    );
                }
            }
        }
        if let Some(list) = service["secrets"].as_vec() {
            for s in strings(&Yaml::Array(list.clone())) {
                assert!(
                    secrets.contains_key(&Yaml::String(s.clone())),
                    "{name}: secret {s} is declared"
                );
            }
        }
        for dep in service["depends_on"].as_vec().into_iter().flatten() {
            assert!(services.contains_key(dep), "{name} depends on a service");
        }
    }
    let marquee = &doc["services"]["marquee"];
    assert_eq!(marquee["read_only"].as_bool(), Some(true));
    assert_eq!(strings(&marquee["cap_drop"]), ["ALL"]);
    assert!(strings(&marquee["volumes"]).contains(&"marquee-data:/data".to_string()));
    for (_, secret) in secrets {
        let file = secret["file"].as_str().unwrap();
        assert!(file.starts_with("./secrets/"), "{file}: secrets are files");
    }
}

#[test]
fn marquee_accepts_every_setting_the_compose_file_gives_it() {
    let doc = compose();
    let marquee = &doc["services"]["marquee"];
    let env = environment(marquee);
    let dir = tempfile::tempdir().unwrap();
    // The secrets compose mounts under /run/secrets, made here with a value each.
    let run_secrets = dir.path().join("run-secrets");
    std::fs::create_dir(&run_secrets).unwrap();
    for s in strings(&marquee["secrets"]) {
        std::fs::write(run_secrets.join(&s), format!("value-of-{s}\n")).unwrap();
    }
    // The config compose mounts, with /run/secrets pointing at those files; a *_file naming a
    // secret compose does not mount is unreadable, and the check below fails.
    let mount = strings(&marquee["volumes"])
        .into_iter()
        .find(|v| v.starts_with("./marquee.toml:"))
        .unwrap();
    let target = mount.split(':').nth(1).unwrap().to_string();
    assert_eq!(
        env["MARQUEE_CONFIG"], target,
        "the config is read where it is mounted"
    );
    let text = std::fs::read_to_string(deploy().join("marquee.toml")).unwrap();
    assert!(text.contains("/run/secrets/"));
    let config = dir.path().join("marquee.toml");
    std::fs::write(
        &config,
        text.replace("/run/secrets/", &format!("{}/", run_secrets.display())),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_marquee"));
    command
        .current_dir(dir.path())
        .env_remove("STATE_DIRECTORY")
        .env("MARQUEE_DATA_DIR", dir.path().join("data"))
        .env("MARQUEE_LOG", "warn")
        .env("NO_COLOR", "1");
    for (name, value) in &env {
        assert!(name.starts_with("MARQUEE_"), "{name}");
        command.env(name, value);
    }
    // The image's own settings (scripts/image.sh), under the compose file's.
    command.env("MARQUEE_LISTEN", "0.0.0.0:8765");
    command.env("MARQUEE_CONFIG", &config);
    let out = command.args(["config", "check"]).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(!stderr.contains("unknown config key"), "{stderr}");
    assert!(
        stdout.contains("listen 0.0.0.0:8765; allowed hosts localhost, 127.0.0.1, marquee.lan;"),
        "{stdout}"
    );
    for id in ["qbittorrent", "transmission", "radarr", "sonarr", "media"] {
        assert!(
            stdout.contains(&format!("instance {id:<16}")),
            "{id}: {stdout}"
        );
    }
    assert!(!stdout.contains("value-of-"), "no secret printed: {stdout}");
}

/// `systemd-analyze ARGS`, or `None` (with a line saying why) where it cannot run.
fn systemd_analyze(args: &[&str], dir: &Path) -> Option<std::process::Output> {
    match Command::new("systemd-analyze")
        .args(args)
        .current_dir(dir)
        .output()
    {
        Ok(out) => Some(out),
        Err(e) => {
            eprintln!("skipped: systemd-analyze cannot run here ({e})");
            None
        }
    }
}

#[test]
fn the_systemd_unit_verifies_and_is_hardened() {
    let unit = std::fs::read_to_string(deploy().join("marquee.service")).unwrap();
    for line in [
        "DynamicUser=yes",
        "StateDirectory=marquee",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "ExecStart=/usr/local/bin/marquee serve",
    ] {
        assert!(unit.lines().any(|l| l == line), "{line}");
    }
    // verify checks that ExecStart names an executable: this build's binary stands in.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("marquee.service"),
        unit.replace("/usr/local/bin/marquee", env!("CARGO_BIN_EXE_marquee")),
    )
    .unwrap();
    let Some(out) = systemd_analyze(&["verify", "./marquee.service"], dir.path()) else {
        return;
    };
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
    let Some(out) = systemd_analyze(
        &["security", "--offline=yes", "./marquee.service"],
        dir.path(),
    ) else {
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let score: f64 = text
        .lines()
        .find_map(|l| l.split("exposure level for marquee.service: ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level in {text}"));
    assert!(score <= 2.0, "exposure {score} (0 best, 10 worst)");
}

#[test]
fn serve_refuses_a_data_folder_it_cannot_write_and_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    // A folder that cannot be made (its parent is a file): what a missing or read-only volume
    // looks like to a process that is root here (root writes through permissions).
    std::fs::write(dir.path().join("file"), "").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_marquee"))
        .arg("serve")
        .env("MARQUEE_DATA_DIR", dir.path().join("file/data"))
        .env("MARQUEE_LISTEN", "127.0.0.1:0")
        .env("MARQUEE_LOG", "error")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!(
            "the data folder {} is not writable (",
            dir.path().join("file/data").display()
        )) && said.contains("a volume at /data"),
        "{said}"
    );
}
