//! Architecture invariant: adapters know nothing of MCP, HTTP serving, SQL or permissions.

#[test]
fn no_protocol_server_sql_or_policy_dependencies() {
    let manifest = include_str!("../Cargo.toml");
    let deps = manifest
        .split("\n[")
        .find(|section| section.starts_with("dependencies]"))
        .expect("a [dependencies] table");
    for line in deps.lines().skip(1) {
        let name = line.split(['.', '=', ' ']).next().unwrap_or_default();
        assert!(
            ![
                "rmcp", "axum", "sqlx", "policy", "mcp", "tools", "store", "web"
            ]
            .contains(&name),
            "adapters-downloads must not depend on {name}"
        );
    }
    assert!(
        deps.contains("httpx.workspace"),
        "the table was found and read"
    );
}

/// The tools layer spawns these; a lock guard held across an await would make them `!Send`.
#[test]
fn futures_are_send() {
    use std::sync::Arc;

    use adapters_downloads::{
        AddSource, AddTorrent, ClientConfig, DownloadClient, TorrentCatalogue,
    };
    use domain::{InstanceId, InstanceKind};

    fn is_send<T: Send>(_: &T) {}
    fn is_shared<T: Send + Sync>(_: &T) {}
    for kind in [InstanceKind::Qbittorrent, InstanceKind::Transmission] {
        let config = ClientConfig {
            kind,
            url: "http://127.0.0.1:9/".parse().unwrap(),
            username: None,
            password: None,
            timeouts: httpx::Timeouts::default(),
        };
        let client = Arc::new(DownloadClient::new(config).unwrap());
        let cat = TorrentCatalogue::new(InstanceId("x".into()), client.clone());
        is_send(&cat.refresh());
        is_send(&cat.refresh_hashes(&[]));
        is_send(&cat.refresh_if_older_than(std::time::Duration::ZERO));
        let req = AddTorrent {
            source: AddSource::Url("magnet:?".into()),
            category: None,
            tags: vec![],
            paused: true,
            save_path: None,
        };
        is_send(&client.unchecked_writer().add(&req));
        is_send(&client.unchecked_writer().set_tags(&[], &[]));
        is_send(&client.unchecked_writer().delete(&[], true));
        is_send(&client.torrent_trackers("0".repeat(40).parse().unwrap()));
        is_shared(&cat);
        is_shared(&*client);
    }
}
