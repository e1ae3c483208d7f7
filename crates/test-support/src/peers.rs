//! Real torrent daemons for tests: started by the shared peer scripts (`../shared/peers/*.sh`)
//! on free loopback ports in a temp dir, and stopped by a guard (the script's `stop`, which ends
//! only the pid it recorded) even when a test fails.

use std::{collections::HashMap, net::TcpListener, path::PathBuf, process::Command};

/// `../shared/peers` beside the checkout, or `MARQUEE_PEERS_DIR`.
pub fn peers_dir() -> PathBuf {
    std::env::var_os("MARQUEE_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::beside_checkout("shared/peers"))
}

/// A loopback port that is free, and whose successor (the peer port) is free too.
pub fn free_port_pair() -> u16 {
    for _ in 0..50 {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        if port < 65535 && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
    panic!("no free pair of loopback ports");
}

/// A daemon started by a peer script; `Drop` runs the script's `stop`.
pub struct Daemon {
    script: PathBuf,
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub creds: HashMap<String, String>,
}

impl Daemon {
    /// `script`: `qbittorrent.sh` or `transmission.sh`.
    pub fn start(script: &str) -> Daemon {
        let script = peers_dir().join(script);
        let dir = tempfile::Builder::new()
            .prefix("marquee-dl-")
            .tempdir()
            .unwrap();
        let port = free_port_pair();
        let out = Command::new("bash")
            .arg(&script)
            .arg("start")
            .arg(dir.path())
            .arg(port.to_string())
            .output()
            .unwrap();
        // Constructed before the assert so a failed start still runs `stop`.
        let mut d = Daemon {
            script,
            dir,
            port,
            creds: HashMap::new(),
        };
        assert!(
            out.status.success(),
            "{} start failed: {}",
            d.script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(d.dir.path().join("credentials")).unwrap();
        d.creds = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        d
    }

    pub fn cred(&self, key: &str) -> String {
        self.creds
            .get(key)
            .cloned()
            .unwrap_or_else(|| panic!("no {key} in credentials"))
    }

    pub fn downloads(&self) -> PathBuf {
        self.dir.path().join("downloads")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.script)
            .arg("stop")
            .arg(self.dir.path())
            .arg(self.port.to_string())
            .output();
    }
}
